"""What a reader hands back, and what ``extract`` returns."""

from __future__ import annotations

from dataclasses import dataclass

from .dom import Element


@dataclass(frozen=True)
class Page:
    """A parsed page as readers see it: the inert document (no scripts, styles or hidden nodes) and its URL."""

    root: Element
    url: str
    host: str
    title: str | None
    byline: str | None


@dataclass(frozen=True)
class Article:
    """A reader's pick: the subtree to render, and the title and byline if the reader knows better."""

    content: Element
    title: str | None = None
    byline: str | None = None


@dataclass(frozen=True)
class Extraction:
    """What ``browser_read.extract`` answers. ``text_length`` is the length of the article's text (whitespace
    collapsed) before any cut; ``truncated`` says the Markdown was cut at ``max_chars``."""

    title: str | None
    byline: str | None
    url: str
    markdown: str
    text_length: int
    truncated: bool

    def as_dict(self) -> dict[str, object]:
        return {
            "title": self.title,
            "byline": self.byline,
            "url": self.url,
            "markdown": self.markdown,
            "textLength": self.text_length,
            "truncated": self.truncated,
        }
