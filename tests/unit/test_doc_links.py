"""Every link of the README and ``docs/*.md`` stays inside the repository (a clone has nothing beside it):
relative, to a file that is there, and to a heading that is there when it names one. Links are read as
Markdown is rendered (markdown-it, with tables): a link shown in a code span or block is not a link."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_MD = MarkdownIt("commonmark").enable("table")
#: ``href`` / ``src`` of raw HTML in a page
_HTML_TARGET = re.compile(r"""\b(?:href|src)\s*=\s*["']([^"']*)["']""", re.IGNORECASE)


def _tokens(text: str) -> list[Token]:
    flat: list[Token] = []
    for token in _MD.parse(text):
        flat.append(token)
        flat.extend(token.children or ())
    return flat


def links(text: str) -> list[str]:
    """The targets of the links and images of a Markdown text, in order (raw HTML's too)."""
    found: list[str] = []
    for token in _tokens(text):
        if token.type == "link_open":
            found.append(str(token.attrs["href"]))
        elif token.type == "image":
            found.append(str(token.attrs["src"]))
        elif token.type in ("html_inline", "html_block"):
            found += _HTML_TARGET.findall(token.content)
    return found


def slug(heading: str, seen: dict[str, int]) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens; a repeated
    one gets ``-1``, ``-2``, ..."""
    base = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
    count = seen.get(base, 0)
    seen[base] = count + 1
    return base if count == 0 else f"{base}-{count}"


def anchors(text: str) -> set[str]:
    """The anchors of a Markdown text's headings."""
    tokens = _MD.parse(text)
    seen: dict[str, int] = {}
    found = set()
    for at, token in enumerate(tokens):
        if token.type == "heading_open":
            inline = tokens[at + 1].children or ()
            words = "".join(child.content for child in inline if child.type in ("text", "code_inline"))
            found.add(slug(words, seen))
    return found


def problem(page: Path, target: str) -> str | None:
    """What is wrong with a link of ``page`` (None: it resolves to a file of the repository, and to one of its
    headings when it names one)."""
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return "points outside the repository"
    if parts.path.startswith("/"):
        return "is an absolute path (relative links resolve in a clone wherever it lies)"
    path = (page.parent / unquote(parts.path)).resolve() if parts.path else page
    if not path.is_relative_to(ROOT):
        return "leaves the repository"
    if not path.exists():
        return "names no file of the repository"
    if parts.fragment and path.suffix == ".md" and unquote(parts.fragment) not in anchors(path.read_text("utf-8")):
        return f"names no heading of {path.relative_to(ROOT)}"
    return None


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_link_resolves_inside_the_repository(page: Path) -> None:
    broken = [
        f"{target}: {why}" for target in links(page.read_text("utf-8")) if (why := problem(page, target)) is not None
    ]
    assert broken == []


def test_the_readme_and_the_index_link_every_page_of_docs() -> None:
    """No page of docs/ is an orphan: the index (or the README) links each one."""
    linked = {
        (page.parent / urlsplit(target).path).resolve()
        for page in (ROOT / "README.md", ROOT / "docs" / "index.md")
        for target in links(page.read_text("utf-8"))
    }
    orphans = [p.name for p in PAGES[1:] if p.name != "index.md" and p.resolve() not in linked]
    assert orphans == []


def test_links_are_read_as_markdown_renders_them() -> None:
    text = (
        "# Intro\n\nSee [a](a.md#intro), ![pic](img/p.png) and <https://example.org>.\n\n"
        "| x |\n|---|\n| [in a table](t.md) |\n\n`[not](code.md)`\n\n```\n[nor](fence.md)\n```\n\n"
        '<img src="raw.png">\n\n[ref]: r.md\n\nA [reference][ref].\n\n## Intro\n\n## `code` *and* words!\n'
    )
    assert links(text) == ["a.md#intro", "img/p.png", "https://example.org", "t.md", "raw.png", "r.md"]
    assert anchors(text) == {"intro", "intro-1", "code-and-words"}


def test_a_link_outside_or_missing_is_a_problem() -> None:
    page = ROOT / "docs" / "index.md"
    assert problem(page, "development.md") is None
    assert problem(page, "architecture.md#layers") is None
    assert problem(page, "../README.md#quick-start") is None
    assert problem(page, "#using-vmark") is None
    assert problem(page, "architecture.md#no-such-heading") == "names no heading of docs/architecture.md"
    assert problem(page, "nothing-here.md") == "names no file of the repository"
    assert problem(page, "../../shared/spec/mcp-tools.en.md") == "leaves the repository"
    assert problem(page, "https://example.org/") == "points outside the repository"
    assert problem(page, "/etc/hosts").startswith("is an absolute path")  # type: ignore[union-attr]
