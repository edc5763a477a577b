"""Parsing untrusted HTML into an inert lxml tree, and the small DOM helpers the readers share.

Nothing here fetches, resolves entities from the network or runs anything: the parser is libxml2's HTML
parser with network access off, and every element that can only carry code, styling or form chrome is
dropped before a reader sees the tree. Depth: libxml2's default cap (256) silently drops everything after
the first subtree that reaches it, so the parser runs with its higher cap and the tree is then flattened
here: below ``EXTRACT_DOM_MAX_DEPTH`` every subtree becomes its bare text, which bounds every walker's recursion.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import cast

from lxml import etree

from vmark.protocol.limits import EXTRACT_DOM_MAX_DEPTH

# Elements whose content is never article text (code, styling, metadata, embedded documents and media).
_DROPPED_TAGS = frozenset(
    {
        "script", "style", "noscript", "template", "link", "meta", "base", "title", "head",
        "object", "embed", "applet", "iframe", "frame", "frameset", "canvas", "svg", "math",
        "dialog", "audio", "video", "source", "track",
    }
)  # fmt: skip
# Form controls: kept while readers judge blocks (a box full of them is a widget, not prose), dropped before
# the Markdown is written.
CONTROL_TAGS = ("input", "button", "select", "textarea", "option", "optgroup", "datalist")

BLOCK_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "center", "dd", "details", "dialog", "dir", "div", "dl",
        "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
        "header", "hgroup", "hr", "li", "main", "menu", "nav", "ol", "p", "pre", "section", "summary",
        "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "caption",
    }
)  # fmt: skip


# The plain etree element: lxml.html's element classes would cost a Python-level class lookup per node.
Element = etree._Element

_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")
_WHITESPACE = re.compile(r"\s+")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


def parse(source: str) -> Element:
    """The document of ``source`` (comments, processing instructions and control characters gone; never fails)."""
    data = _CONTROL.sub("", source).encode("utf-8")
    parser = etree.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True, no_network=True, huge_tree=True)
    try:
        root = etree.fromstring(data, parser)
    except (etree.ParserError, ValueError):
        root = None
    if root is None:  # nothing parseable (empty or blank input)
        root = etree.fromstring(b"<html><body></body></html>", parser)
    _flatten_below(root, EXTRACT_DOM_MAX_DEPTH)
    return root


def _flatten_below(root: Element, limit: int) -> None:
    """Replace every subtree that starts at depth ``limit`` by its text (iteratively: no recursion here)."""
    stack: list[tuple[Element, int]] = [(root, 0)]
    while stack:
        el, depth = stack.pop()
        if depth >= limit:
            if len(el):
                text = raw_text(el)
                for child in list(el):
                    el.remove(child)
                el.text = text
            continue
        stack.extend((child, depth + 1) for child in el if isinstance(child.tag, str))


def strip_inert(root: Element) -> None:
    """Drop code, styling and widgets, and whatever the page hides from a reader."""
    doomed = [
        el
        for el in root.iter()
        if not isinstance(el.tag, str) or el.tag in _DROPPED_TAGS or (el.tag != "body" and is_hidden(el))
    ]
    for el in doomed:
        remove(el)


def strip_controls(root: Element) -> None:
    for el in list(root.iter(*CONTROL_TAGS)):
        remove(el)


def is_hidden(el: Element) -> bool:
    if el.get("hidden") is not None:
        return True
    # aria-hidden hides from screen readers, not from sight: an image so marked (the picture of a formula
    # next to its MathML) is still shown
    if el.get("aria-hidden") == "true" and el.tag != "img":
        return True
    style = el.get("style")
    return style is not None and _HIDDEN_STYLE.search(style) is not None


def body_of(root: Element) -> Element:
    body = root.find("body")
    if body is None:
        body = root.makeelement("body", {})
        root.append(body)
    return body


def remove(el: Element) -> None:
    """Remove ``el`` and its subtree, keeping its tail text in place."""
    parent = el.getparent()
    if parent is None:
        return
    if el.tail:
        previous = el.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)


def raw_text(el: Element) -> str:
    """The element's text as in the source (its descendants' text and tails, in order)."""
    return "".join(cast("Iterator[str]", el.itertext()))


def text_of(el: Element) -> str:
    """The element's text with every whitespace run collapsed to one space."""
    return _WHITESPACE.sub(" ", raw_text(el)).strip()


def class_and_id(el: Element) -> str:
    return f"{el.get('class') or ''} {el.get('id') or ''}".strip()


def classes(el: Element) -> set[str]:
    return set((el.get("class") or "").split())
