"""Title and byline from the document's head (meta tags, ``<title>``), read before the head is dropped."""

from __future__ import annotations

import json
import re

from vmark.protocol.limits import EXTRACT_BYLINE_CHARS

from .dom import Element, text_of

_SEPARATORS = re.compile(r"\s+[|\-–—\\/>»·:]\s+")


def _meta(root: Element, *keys: str) -> str | None:
    wanted = {k.lower() for k in keys}
    for meta in root.iter("meta"):
        key = (meta.get("property") or meta.get("name") or meta.get("itemprop") or "").strip().lower()
        if key in wanted:
            content = re.sub(r"\s+", " ", meta.get("content") or "").strip()
            if content:
                return content
    return None


def _clean_title(title: str) -> str:
    """Drop a site name joined to the end of the title by a separator, when what is left still reads as one."""
    separators = list(_SEPARATORS.finditer(title))
    if not separators:
        return title
    last = separators[-1]
    head = title[: last.start()].strip()
    return head if len(head.split()) >= 3 else title


def title_of(root: Element) -> str | None:
    title = _meta(root, "og:title", "twitter:title", "dc.title", "title")
    if title is None:
        node = root.find(".//title")
        if node is not None:
            title = text_of(node)
            if title:
                title = _clean_title(title)
    if not title:
        h1 = next(iter(root.iter("h1")), None)
        title = text_of(h1) if h1 is not None else None
    return title or None


def _json_ld_author(root: Element) -> str | None:
    for script in root.iter("script"):
        if (script.get("type") or "").lower() != "application/ld+json" or not script.text:
            continue
        try:
            data = json.loads(script.text)
        except ValueError:
            continue
        for item in data if isinstance(data, list) else [data]:
            author = item.get("author") if isinstance(item, dict) else None
            people = author if isinstance(author, list) else [author]
            names = [str(a["name"]).strip() for a in people if isinstance(a, dict) and isinstance(a.get("name"), str)]
            names = [n for n in names if n]
            if names:
                return ", ".join(names)
    return None


def byline_of(root: Element) -> str | None:
    byline = _json_ld_author(root) or _meta(root, "author", "article:author", "dc.creator", "byl", "parsely-author")
    if byline and not byline.startswith(("http://", "https://")) and len(byline) <= EXTRACT_BYLINE_CHARS:
        return byline
    return None
