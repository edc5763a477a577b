"""``document.edit``: exact-match edits, applied in order, each ``old`` occurring exactly once.

Edit ``i`` applies to the text edits ``0..i-1`` left (as a sequence of find-and-replace steps, the
way agents' multi-edit tools work). Occurrences are counted overlapping (``"aa"`` occurs twice in
``"aaa"``): an ``old`` is unique only if no second match starts anywhere after the first.
All of them, or none: the first that fails raises and the text stays as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..protocol.errors import ArgumentError, DomainError


@dataclass(frozen=True)
class Edit:
    old: str
    new: str


@dataclass(frozen=True)
class Edited:
    """The new text, and the one span of the original it replaced (``start, end, insert``)."""

    text: str
    start: int
    end: int
    insert: str


def parse_edits(raw: list[dict[str, Any]]) -> tuple[Edit, ...]:
    """The edits of a request whose shape ``protocol.tools`` checked; an empty list or ``old`` is an argument error."""
    if not raw:
        raise ArgumentError("document.edit: argument 'edits' is empty; give at least one {old, new}")
    edits = tuple(Edit(item["old"], item["new"]) for item in raw)
    for index, item in enumerate(edits):
        if not item.old:
            raise ArgumentError(
                f"document.edit: edits[{index}].old is empty; to insert, include the text next to the"
                " insertion point in old and in new"
            )
    return edits


def apply_edits(text: str, edits: tuple[Edit, ...]) -> Edited:
    """``text`` with every edit applied in order; ``EDIT_NOT_FOUND`` / ``EDIT_AMBIGUOUS`` for the first that fails."""
    original = len(text)
    prefix, suffix = original, original  # unchanged at the start and at the end, in both texts
    for index, item in enumerate(edits):
        at = _only(text, item.old, index)
        prefix = min(prefix, at)
        suffix = min(suffix, len(text) - at - len(item.old))
        text = text[:at] + item.new + text[at + len(item.old) :]
    return Edited(text, prefix, original - suffix, text[prefix : len(text) - suffix])


def _only(text: str, old: str, index: int) -> int:
    at = text.find(old)
    if at < 0:
        raise DomainError(
            "EDIT_NOT_FOUND",
            f"edits[{index}].old does not occur in the document"
            + (" (as the edits before it left it)" if index else "")
            + "; read it again and copy the text exactly",
            index=index,
            count=0,
        )
    if text.find(old, at + 1) >= 0:
        count = sum(1 for _ in re.finditer(f"(?={re.escape(old)})", text))
        raise DomainError(
            "EDIT_AMBIGUOUS",
            f"edits[{index}].old occurs {count} times in the document; include enough of the text around it"
            " to make it unique",
            index=index,
            count=count,
        )
    return at
