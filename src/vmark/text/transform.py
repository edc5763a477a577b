"""``document.transform``: CJK formatting of a whole Markdown document or of a range of it.

The document is parsed (:mod:`vmark.text.blocks`, :mod:`vmark.text.inline`); the text of every block that
contains CJK goes through the rules (:mod:`vmark.text.rules`) with syntax and protected runs replaced by
placeholders; the changed lines are written back into the source at their exact offsets. Nothing else is
re-rendered: every character outside a changed run, line ends included, stays byte for byte as it was.

Running a transform on its own result changes nothing.

Protected, never changed: fenced and indented code, inline code, link and image destinations and titles,
autolinks, raw HTML, front matter, math, entities, and backslash escapes. An escape stays in the source:
``价格\\,很贵`` is kept as written and renders as ``价格,很贵`` (dropping the backslash would let the next run
convert the comma). Inside text, URLs, e-mail addresses, versions, times, numbers and domains are protected.
A block whose inline structure would change (a space removed next to a ``$`` can open math), or a paragraph
that starts like a link reference definition, stays as it is.
"""

from __future__ import annotations

import bisect
import difflib
import itertools
import re
from dataclasses import dataclass

from . import blocks, inline, rules
from .chars import CJK_BLOCK_RE, CLOSE, CODE, OPEN, SEP_LINE, STOP
from .cjk import CjkRules

#: the transform kinds of ``document.transform``
KINDS: tuple[str, ...] = ("cjk-format", "cjk-spacing", "cjk-punctuation")

_PLACEHOLDER = {"O": OPEN, "X": CLOSE, "C": CODE, "S": STOP}
_SCANNER_PLACEHOLDERS = re.compile(f"[{OPEN}{CLOSE}{CODE}{STOP}]")
_LINE_BREAK = re.compile(r"\r\n?")
_ANY_LINE_BREAK = re.compile(r"\r\n?|\n")


@dataclass(frozen=True, slots=True, order=True)
class Edit:
    """Replace ``markdown[start:end]`` by ``text``."""

    start: int
    end: int
    text: str


def rules_for_kind(kind: str, person_rules: CjkRules) -> CjkRules:
    """The rules a transform kind applies: ``cjk-format`` the person's enabled set, the others one rule."""
    if kind == "cjk-format":
        return person_rules
    if kind == "cjk-spacing":
        return CjkRules.none().replace(spacing=True)
    if kind == "cjk-punctuation":
        return CjkRules.none().replace(punctuation=True)
    raise ValueError(f"unknown transform kind {kind!r}; expected one of {', '.join(KINDS)}")


#: Rules can enable each other (cleanup removes a space, then a comma touches CJK punctuation), so a
#: transform runs to its fixed point; a few passes always suffice, the bound only guards against a cycle.
MAX_PASSES = 4


def transform(markdown: str, kind: str, rules: CjkRules) -> str:
    """``markdown`` formatted by ``kind`` (see :data:`KINDS`) with the person's ``rules``: running it again
    changes nothing."""
    active = rules_for_kind(kind, rules)
    text = markdown
    for _ in range(MAX_PASSES):
        changes = edits(text, active)
        if not changes:
            break
        text = apply_edits(text, changes)
    return text


def transform_range(markdown: str, start: int, end: int, kind: str, rules: CjkRules) -> str:
    """``markdown`` with only the changes of :func:`transform` that lie inside ``markdown[start:end]``
    ("format selection"; character offsets). The rules still read the text around the range, so the result
    inside it is what formatting the whole document would give; a change that would reach outside the range,
    or insert text exactly at its edges, is not made."""
    if not 0 <= start <= end <= len(markdown):
        raise ValueError(f"range {start}..{end} is outside the document (0..{len(markdown)})")
    inside = [
        edit
        for line_edit in edits(markdown, rules_for_kind(kind, rules))
        for edit in _fine_edits(markdown, line_edit)
        if _inside(edit, start, end)
    ]
    return apply_edits(markdown, inside)


def edits(markdown: str, rules: CjkRules) -> list[Edit]:
    """The changes the rules make to ``markdown``: sorted, not overlapping, each within one line."""
    if not rules.enabled or not CJK_BLOCK_RE.search(markdown):
        return []
    if "\r" not in markdown:
        return _edits(markdown, rules)
    normalized = _LINE_BREAK.sub("\n", markdown)
    to_source = _OffsetMap(markdown, normalized)
    return [Edit(to_source(edit.start), to_source(edit.end), edit.text) for edit in _edits(normalized, rules)]


def apply_edits(markdown: str, changes: list[Edit]) -> str:
    """``markdown`` with ``changes`` (sorted, not overlapping) made."""
    if not changes:
        return markdown
    parts: list[str] = []
    done = 0
    for edit in changes:
        parts.append(markdown[done : edit.start])
        parts.append(edit.text)
        done = edit.end
    parts.append(markdown[done:])
    return "".join(parts)


# a paragraph starting like a link reference definition (``[label]: ...``) that is not one: removing a space
# could turn it into one, so it is left alone
_LIKE_DEFINITION = re.compile(r"\[[^\n]*\]:")


def _wanted(content: str) -> bool:
    return CJK_BLOCK_RE.search(content) is not None and _LIKE_DEFINITION.match(content) is None


def _edits(text: str, person_rules: CjkRules) -> list[Edit]:
    parsed = blocks.parse(text, _wanted)
    scans = [inline.scan(block.content, parsed.references, parsed.footnotes) for block in parsed.blocks]
    results = _format(scans, person_rules)
    changes: list[Edit] = []
    for block, pieces, result in zip(parsed.blocks, scans, results, strict=True):
        if result != block.content and _same_syntax(pieces, result, parsed):
            changes.extend(_line_edits(block, result))
        if person_rules.cleanup and block.tail is not None:
            changes.extend(_tail_edit(text, block.tail))
    changes.sort()
    return changes


def _format(scans: list[list[inline.Piece]], person_rules: CjkRules) -> list[str]:
    """The new content of every block: all blocks go through the rules as one text, with placeholders for
    everything but their text. A failure to put them back together leaves every block as it was."""
    protected: list[str] = []
    rule_texts = [_rule_text(pieces, protected) for pieces in scans]
    unchanged = ["".join(text for _, text in pieces) for pieces in scans]
    try:
        formatted = rules.apply(SEP_LINE.join(rule_texts), person_rules)
        formatted = rules.restore(formatted, _SCANNER_PLACEHOLDERS, protected)
    except rules.PlaceholderError:
        return unchanged
    results = formatted.split(SEP_LINE)
    return results if len(results) == len(scans) else unchanged


def _rule_text(pieces: list[inline.Piece], protected: list[str]) -> str:
    """The text of a block with everything but text replaced by placeholders (their texts go to ``protected``)."""
    parts: list[str] = []
    for kind, piece in pieces:
        if kind == "T":
            parts.append(piece)
        else:
            parts.append(_PLACEHOLDER[kind])
            protected.append(piece)
    return "".join(parts)


def _same_syntax(pieces: list[inline.Piece], result: str, parsed: blocks.Parsed) -> bool:
    """Whether the new text of a block has the inline structure of the old one. Changed spacing can make a
    ``$`` or ``<`` in the text open math or an autolink, or emphasis markers pair differently; such a block
    stays as it is. Only blocks with such characters in their text, or with emphasis, are parsed again."""
    if not any(inline.has_syntax(text) if kind == "T" else kind in "OX" and text[0] in "*_~" for kind, text in pieces):
        return True
    before = [piece for piece in pieces if piece[0] != "T"]
    after = [piece for piece in inline.scan(result, parsed.references, parsed.footnotes) if piece[0] != "T"]
    return after == before


def _line_edits(block: blocks.TextBlock, result: str) -> list[Edit]:
    """One edit per changed line; none at all when the lines do not correspond (the block stays as it is)."""
    old_lines = block.content.split("\n")
    new_lines = result.split("\n")
    if len(new_lines) != len(old_lines):
        return []
    changes: list[Edit] = []
    for span, old, new in zip(block.lines, old_lines, new_lines, strict=True):
        if old == new:
            continue
        if new[: span.skip] != old[: span.skip]:
            return []
        changes.append(Edit(span.start, span.start + span.length, new[span.skip :]))
    return changes


def _tail_edit(text: str, tail: tuple[int, int]) -> list[Edit]:
    """Trailing spaces after the last line of a paragraph or heading (never a hard break there)."""
    start, end = tail
    kept = len(text[start:end].rstrip(" \t"))
    return [Edit(start + kept, end, "")] if start + kept < end else []


def _fine_edits(markdown: str, edit: Edit) -> list[Edit]:
    """``edit`` split into the smallest changes (a line edit replaces a whole line)."""
    old = markdown[edit.start : edit.end]
    matcher = difflib.SequenceMatcher(None, old, edit.text, autojunk=False)
    return [
        Edit(edit.start + i1, edit.start + i2, edit.text[j1:j2])
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _inside(edit: Edit, start: int, end: int) -> bool:
    if edit.start == edit.end:
        return start < edit.start < end
    return start <= edit.start and edit.end <= end


class _OffsetMap:
    """Offsets in the text with ``\\n`` line ends -> offsets in the source with its own line ends."""

    def __init__(self, source: str, normalized: str) -> None:
        source_lines = _ANY_LINE_BREAK.split(source)
        breaks = [len(match.group()) for match in _ANY_LINE_BREAK.finditer(source)]
        self.source_starts = _line_starts(source_lines, breaks)
        self.normalized_starts = _line_starts(normalized.split("\n"), [1] * normalized.count("\n"))

    def __call__(self, offset: int) -> int:
        line = bisect.bisect_right(self.normalized_starts, offset) - 1
        return self.source_starts[line] + offset - self.normalized_starts[line]


def _line_starts(lines: list[str], breaks: list[int]) -> list[int]:
    return list(itertools.accumulate((len(line) + size for line, size in zip(lines, breaks, strict=False)), initial=0))
