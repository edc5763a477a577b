"""``browser_read.query``: structured DOM data for a CSS selector, read in the isolated world.

``{count, elements: [{ref, tag, text, attributes?, box?, styles?}], truncated?}``: at most 50
elements (``truncated: true`` when the selector matched more) and 500 characters of text (and
of each attribute or style value). Refs are the snapshot's refs: the same element keeps its
ref across reads and queries. ``box`` is the border box in viewport CSS pixels, rounded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from vmark.browser.isolated import world_for
from vmark.protocol.browser_results import QueryMatches
from vmark.protocol.jsontypes import JSONObject

if TYPE_CHECKING:
    from playwright.async_api import Page


class InvalidSelector(ValueError):
    """The selector is not valid CSS (the message is the browser's)."""


class QueryFields(TypedDict, total=False):
    attributes: bool
    box: bool
    styles: list[str]


async def query(page: Page, selector: str, fields: QueryFields | None = None) -> QueryMatches:
    """Elements of the page's top document matching ``selector``."""
    answer: JSONObject = await world_for(page).call("query", selector, dict(fields or {}))
    if "error" in answer:
        raise InvalidSelector(f"invalid selector {selector!r}: {answer['message']}")
    matches: QueryMatches = {"count": answer["count"], "elements": answer["elements"]}
    if "truncated" in answer:
        matches["truncated"] = answer["truncated"]
    return matches
