"""Reader-mode extraction for ``browser_read.extract``: untrusted page HTML in, bounded Markdown out.

It runs in the app, never in the page: the HTML is parsed inertly (no network, no scripts), a site reader
registered for the page's host gets first claim (the built-in Wikipedia reader among them), the generic
density reader is the fallback, and the chosen subtree is converted to Markdown by our own converter.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from . import generic, wikipedia
from .dom import parse, strip_controls, strip_inert, text_of
from .markdown import to_markdown
from .metadata import byline_of, title_of
from .model import Article, Extraction, Page
from .registry import SiteReader, candidates, register_reader

__all__ = ["Article", "Extraction", "Page", "SiteReader", "extract", "register_reader"]

wikipedia.register()


def extract(html: str, url: str, *, max_chars: int | None = None) -> Extraction:
    """The page ``html`` (served at ``url``) as reader-mode Markdown, cut at ``max_chars`` characters."""
    root = parse(html)
    title, byline = title_of(root), byline_of(root)
    strip_inert(root)
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        host = ""
    page = Page(root=root, url=url, host=host, title=title, byline=byline)
    article = _read(page)
    strip_controls(article.content)
    markdown = to_markdown(article.content, url)
    text_length = len(text_of(article.content))
    truncated = False
    if max_chars is not None and len(markdown) > max_chars:
        markdown, truncated = _truncate(markdown, max_chars), True
    return Extraction(
        title=article.title or title,
        byline=article.byline or byline,
        url=url,
        markdown=markdown,
        text_length=text_length,
        truncated=truncated,
    )


def _read(page: Page) -> Article:
    for reader in candidates(page):
        article = reader.read(page)
        if article is not None:
            return article
    return generic.read(page)


def _truncate(markdown: str, max_chars: int) -> str:
    """Cut at the last block boundary that fits (or hard, when the first block alone is too long)."""
    if max_chars <= 0:
        return ""
    cut = markdown[:max_chars]
    boundary = cut.rfind("\n\n")
    if boundary > max_chars // 2:
        cut = cut[:boundary]
    return cut.rstrip() + "\n" if len(cut.rstrip()) < max_chars else cut
