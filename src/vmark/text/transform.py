"""``document.transform``: CJK formatting of a whole Markdown document or of a range of it.

The document is parsed (:mod:`vmark.text.blocks`, :mod:`vmark.text.inline`); the text of every block that
contains CJK goes through the rules (:mod:`vmark.text.rules`) with syntax and protected runs replaced by
placeholders (:mod:`vmark.text.passes`); the changed lines are written back into the source at their exact
offsets. Nothing else is re-rendered: every character outside a changed run, line ends included, stays byte for
byte as it was.

Running a transform on its own result changes nothing: the passes run to their fixed point, the passes after the
first on the changed blocks only (:mod:`vmark.text.structure` says when the document must be parsed again).

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

from . import blocks, passes
from .chars import CJK_BLOCK_RE
from .cjk import CjkRules
from .passes import Edit
from .passes import line_edits as _line_edits  # noqa: F401 (the scanner's tests edit blocks with it)

#: the transform kinds of ``document.transform``
KINDS: tuple[str, ...] = ("cjk-format", "cjk-spacing", "cjk-punctuation")

_LINE_BREAK = re.compile(r"\r\n?")
_ANY_LINE_BREAK = re.compile(r"\r\n?|\n")


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
    if "\r" not in markdown:
        return _fixed_point(markdown, active)
    # the edits never touch a line end: format the text with \n line ends, then give it back its own
    normalized = _LINE_BREAK.sub("\n", markdown)
    formatted = _fixed_point(normalized, active)
    if formatted == normalized:
        return markdown
    breaks = [*_ANY_LINE_BREAK.findall(markdown), ""]
    return "".join(line + end for line, end in zip(formatted.split("\n"), breaks, strict=True))


def _fixed_point(text: str, rules: CjkRules, reuse: bool = True) -> str:
    """Passes of the rules over ``text`` (``\n`` line ends) until one changes nothing, at most
    :data:`MAX_PASSES`. The first pass parses the document; a later one formats only the blocks the pass before
    it changed, where they now are, unless an edit may have changed the block structure
    (:func:`vmark.text.structure.keeps_structure`): then it parses the document again. Blocks a pass left as they
    were would come out of the next one the same way (the rules see each block on its own), so either way every
    pass gives the edits a pass over the whole document parsed again would give (``reuse=False`` parses it
    again for every pass, for the tests that check this)."""
    todo: passes.Todo | None = None
    for _ in range(MAX_PASSES):
        if not rules.enabled or not CJK_BLOCK_RE.search(text):
            break
        if todo is None:
            todo = passes.Todo.every_block(blocks.parse(text, passes.wanted))
        outcomes, changes = passes.format_blocks(text, todo, rules)
        if not changes:
            break
        todo = passes.next_todo(todo.parsed, outcomes, changes) if reuse else None
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
    """The changes the rules make to ``markdown`` in one pass: sorted, not overlapping, each within one line."""
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


def _edits(text: str, person_rules: CjkRules) -> list[Edit]:
    parsed = blocks.parse(text, passes.wanted)
    return passes.format_blocks(text, passes.Todo.every_block(parsed), person_rules)[1]


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
