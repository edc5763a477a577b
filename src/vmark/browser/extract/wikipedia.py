"""The built-in reader for Wikipedia and other MediaWiki sites: the parser output, without the wiki chrome.

MediaWiki marks its chrome with stable class names, so this reader removes it by name rather than by
guessing: infoboxes, navigation boxes and series sidebars, hatnotes ("For other uses, see ..."), maintenance and
sister-project boxes, the table of contents, ``[edit]`` section links, the back-links (``^ a b``) at the start of each
reference, and the category and print footers.
"""

from __future__ import annotations

import re

from .dom import Element, classes, remove, text_of
from .model import Article, Page
from .registry import register_reader

PATTERNS = ("*.wikipedia.org",)

_CHROME_CLASSES = frozenset(
    {
        "infobox", "infobox_v2", "infobox_v3", "navbox", "navbox-styles", "vertical-navbox", "navbar",
        "hatnote", "dablink", "rellink", "mw-editsection", "editsection", "mw-cite-backlink", "metadata",
        "ambox", "mbox-small", "sistersitebox", "side-box", "noprint", "toc", "toclimit-2", "toclimit-3",
        "mw-jump-link", "catlinks", "printfooter", "shortdescription", "mw-empty-elt", "portalbox",
        "authority-control", "sisterproject", "mw-authority-control", "thumbcaption-magnify", "magnify",
        "mw-references-columns-hidden", "sidebar",
    }
)  # fmt: skip
_CHROME_IDS = frozenset({"toc", "catlinks", "jump-to-nav", "siteSub", "contentSub", "coordinates", "mw-navigation"})
_CONTENT_PATHS = (
    './/*[@id="mw-content-text"]//*[contains(concat(" ", normalize-space(@class), " "), " mw-parser-output ")]',
    './/*[@id="mw-content-text"]',
    './/*[@id="bodyContent"]',
)
_TITLE_SUFFIX = re.compile(r"\s+[-–—]\s+[^-–—]*(wiki|pedia)[^-–—]*$", re.IGNORECASE)


def recognise(page: Page) -> bool:
    """A MediaWiki page served under any host: its generator tag or its skin's body class and content id."""
    root = page.root
    generator = next((m.get("content") or "" for m in root.iter("meta") if m.get("name") == "generator"), "")
    if generator.startswith("MediaWiki"):
        return True
    body = root.find("body")
    return body is not None and "mediawiki" in classes(body) and root.find('.//*[@id="mw-content-text"]') is not None


def read(page: Page) -> Article | None:
    content = None
    for path in _CONTENT_PATHS:
        found = page.root.xpath(path)
        if isinstance(found, list) and found and isinstance(found[0], Element):
            content = found[0]
            break
    if content is None:
        return None
    for el in list(content.iter()):
        if not isinstance(el.tag, str) or el.getparent() is None:
            continue
        if _is_chrome(el):
            remove(el)
    _drop_empty_sections(content)
    return Article(content, title=_title(page))


def _is_chrome(el: Element) -> bool:
    return bool(classes(el) & _CHROME_CLASSES) or el.get("id") in _CHROME_IDS


def _drop_empty_sections(content: Element) -> None:
    for el in list(content.iter("p", "div")):
        if el is not content and not text_of(el) and next(el.iter("img"), None) is None:
            remove(el)


def _title(page: Page) -> str | None:
    heading = page.root.find('.//*[@id="firstHeading"]')
    if heading is not None and text_of(heading):
        return text_of(heading)
    return _TITLE_SUFFIX.sub("", page.title) if page.title else None


def register() -> None:
    register_reader("wikipedia", PATTERNS, read, recognise=recognise)
