"""Change sets: a text's change as replaced spans, all relative to the text before.

A change set is a sorted tuple of non-overlapping :class:`Span` s (code points of the text
before), the semantics of CodeMirror's ``ChangeSet``: pages send the person's edits this way,
the app pushes them to the other pages, and a stale page rebases on the app's composed changes.

Pages show every line break as ``\\n``; a file keeps its own line endings. :func:`shown_to_stored`
maps a change of the shown text to the change of the stored text.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import NamedTuple

from ..protocol.limits import CHANGE_LOG_CHARS, CHANGE_LOG_ENTRIES
from ..protocol.strings import has_lone_surrogate
from ..protocol.wire_types import WireSpan
from .document import DocState, Splice, normalize_line_endings
from .ids import new_revision
from .spans import Span as Span  # the value types live in .spans (a document's state names them too)
from .spans import Spans as Spans


class SpanError(ValueError):
    """A change set that does not fit the text (or is no change set at all); the caller words the refusal."""


def wire(spans: Spans) -> list[WireSpan]:
    """The spans as the UI protocol carries them: ``[[from, to, insert], ...]``."""
    return [(span.start, span.end, span.insert) for span in spans]


def parse_spans(raw: object) -> Spans:
    """``[[from, to, insert], ...]`` checked strictly: the shape, the order (sorted, non-overlapping, each
    ``from <= to``) and the inserts (no lone surrogate). Whether they fit a text is :func:`check_fits`."""
    if not isinstance(raw, list):
        raise SpanError("changes must be a list of [from, to, insert] spans")
    spans: list[Span] = []
    for index, item in enumerate(raw):
        if not (isinstance(item, list) and len(item) == 3):
            raise SpanError(f"changes[{index}] must be [from, to, insert]")
        start, end, insert = item
        if not (_is_int(start) and _is_int(end) and isinstance(insert, str)):
            raise SpanError(f"changes[{index}] must be [from, to, insert] with integer offsets and a string")
        spans.append(Span(start, end, insert))
    return check_order(spans)


def check_order(spans: Sequence[Span]) -> Spans:
    """The spans, when each is ``0 <= from <= to``, they are sorted and do not overlap (one may start where
    the previous ends), and no insert holds a lone surrogate."""
    previous_end = 0
    for index, span in enumerate(spans):
        if not 0 <= span.start <= span.end:
            raise SpanError(f"changes[{index}] {span.start}..{span.end} is not a span (0 <= from <= to)")
        if span.start < previous_end:
            raise SpanError(f"changes[{index}] starts at {span.start}, before the previous span ends ({previous_end})")
        if has_lone_surrogate(span.insert):
            raise SpanError(f"changes[{index}] inserts a lone UTF-16 surrogate")
        previous_end = span.end
    return tuple(spans)


def check_fits(spans: Spans, length: int) -> Spans:
    """The spans, when they end inside a text of ``length`` code points."""
    if spans and spans[-1].end > length:
        raise SpanError(f"changes[{len(spans) - 1}] ends at {spans[-1].end}, past the end of the text ({length})")
    return spans


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def apply_spans(text: str, spans: Spans) -> str:
    """``text`` with every span replaced (one join: no copy of the text per span)."""
    if not spans:
        return text
    pieces: list[str] = []
    at = 0
    for span in spans:
        pieces += (text[at : span.start], span.insert)
        at = span.end
    pieces.append(text[at:])
    return "".join(pieces)


def covering(spans: Spans) -> tuple[int, int, int]:
    """From the first change to the last: ``start``, its end before and its end after the change
    (``0, 0, 0`` for no change)."""
    if not spans:
        return 0, 0, 0
    delta = sum(span.delta for span in spans)
    return spans[0].start, spans[-1].end, spans[-1].end + delta


class _Interval(NamedTuple):
    """An interval of the middle text of a composition: one of ``first``'s inserted runs, or one of the
    ranges ``second`` replaces; ``which`` is the span's index in its set."""

    start: int
    end: int
    of_second: bool
    which: int


def compose(first: Spans, second: Spans) -> Spans:
    """One change set doing ``first`` then ``second`` (whose offsets are of the text after ``first``).

    Intervals of the middle text (``first``'s inserted runs and ``second``'s replaced ranges) that touch
    form one span of the result: each point of such a group is either inserted by ``first`` (its text is
    known) or replaced by ``second``, so the group's insert is known without the texts.
    """
    runs = _inserted_runs(first)
    intervals = sorted(
        [_Interval(s, e, False, i) for i, (s, e) in enumerate(runs)]
        + [_Interval(span.start, span.end, True, i) for i, span in enumerate(second)]
    )
    result: list[Span] = []
    shift = 0  # first's delta before the current group
    group: list[_Interval] = []
    group_end = 0
    for interval in intervals:
        if group and interval.start > group_end:
            result.append(_group_span(group, group_end, first, second, runs, shift))
            shift += sum(first[g.which].delta for g in group if not g.of_second)
            group = []
        group_end = max(group_end, interval.end) if group else interval.end
        group.append(interval)
    if group:
        result.append(_group_span(group, group_end, first, second, runs, shift))
    return tuple(result)


def _inserted_runs(spans: Spans) -> list[tuple[int, int]]:
    """Where each span's insert lies in the text after the change."""
    runs: list[tuple[int, int]] = []
    shift = 0
    for span in spans:
        start = span.start + shift
        runs.append((start, start + len(span.insert)))
        shift += span.delta
    return runs


def _group_span(
    group: list[_Interval], end: int, first: Spans, second: Spans, runs: list[tuple[int, int]], shift: int
) -> Span:
    """One group of touching intervals (middle text ``group[0].start..end``) as a span of the text before."""
    inserted = [(runs[g.which], first[g.which].insert) for g in group if not g.of_second]
    own_delta = sum(first[g.which].delta for g in group if not g.of_second)

    def middle_text(a: int, b: int) -> str:
        """The middle text ``a..b``: inside ``first``'s inserted runs by construction."""
        return "".join(ins[max(a, s) - s : min(b, e) - s] for (s, e), ins in inserted if s < b and e > a)

    pieces: list[str] = []
    at = group[0].start
    for replaced in (second[g.which] for g in group if g.of_second):
        pieces += (middle_text(at, replaced.start), replaced.insert)
        at = replaced.end
    pieces.append(middle_text(at, end))
    return Span(group[0].start - shift, end - shift - own_delta, "".join(pieces))


def shown_to_stored(stored: str, shown: str, spans: Spans, ending: str) -> tuple[str, Spans | None]:
    """A change of the shown text (line breaks ``\\n``) as the stored text's: the new stored text, and its
    spans when the stored text had uniform ``ending`` line breaks (else None: the whole text changed form).

    Inserts get the file's line ending. Offsets move by the line breaks before them (``str.count`` between
    consecutive offsets: one pass over the text for the whole set).
    """
    plain = stored is shown and ending == "\n"  # nothing to map (most files)
    if not plain and normalize_line_endings(shown, ending) != stored:
        return normalize_line_endings(apply_spans(shown, spans), ending), None
    extra = len(ending) - 1
    mapped: list[Span] = []
    breaks, at = 0, 0
    for span in spans:
        if extra:
            breaks += shown.count("\n", at, span.start)
        start = span.start + breaks * extra
        if extra:
            breaks += shown.count("\n", span.start, span.end)
        mapped.append(Span(start, span.end + breaks * extra, normalize_line_endings(span.insert, ending)))
        at = span.end
    stored_spans = tuple(mapped)
    return apply_spans(stored, stored_spans), stored_spans


def diff(old: str, new: str) -> Span | None:
    """The smallest single span that turns ``old`` into ``new`` (None: equal). Slice comparisons run in C,
    so a binary search over the common prefix and suffix is fast for megabyte texts."""
    if old == new:
        return None
    shorter = min(len(old), len(new))
    prefix = _longest(shorter, lambda k: old[:k] == new[:k])
    suffix = _longest(shorter - prefix, lambda k: old[len(old) - k :] == new[len(new) - k :])
    return Span(prefix, len(old) - suffix, new[prefix : len(new) - suffix])


def _longest(limit: int, holds: Callable[[int], bool]) -> int:
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if holds(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _diff_spans(old: str, new: str) -> Spans:
    span = diff(old, new)
    return () if span is None else (span,)


def replaced_state(state: DocState, text: str) -> DocState:
    """``state`` with its whole text replaced by ``text`` (kept exactly): its change is the one span that
    differs, of the stored and of the shown text (two C-speed comparisons, no copy per line)."""
    stored = _diff_spans(state.text, text)
    shown_after = normalize_line_endings(text, "\n")
    same_form = state.shown is state.text and shown_after is text
    shown = stored if same_form else _diff_spans(state.shown, shown_after)
    return DocState(text, new_revision(), Splice(state.revision, stored, shown))


def splice_state(state: DocState, spans: Spans, ending: str) -> DocState:
    """``state`` with a change of its shown text applied: the next state, its change recorded."""
    text, stored = shown_to_stored(state.text, state.shown, spans, ending)
    return DocState(text, new_revision(), Splice(state.revision, stored, spans))


class ChangeLog:
    """A document's recent states' changes (shown spans), bounded in entries and in inserted characters:
    a page a few revisions behind gets the changes since its revision instead of the whole text."""

    def __init__(self, entries: int = CHANGE_LOG_ENTRIES, chars: int = CHANGE_LOG_CHARS) -> None:
        self._limit, self._chars_limit = entries, chars
        self._changes: OrderedDict[str, Splice] = OrderedDict()
        self._chars = 0

    def record(self, state: DocState) -> None:
        change = state.change
        if change is None or state.revision in self._changes:
            return
        self._changes[state.revision] = change
        self._chars += _chars(change)
        while self._changes and (len(self._changes) > self._limit or self._chars > self._chars_limit):
            _, dropped = self._changes.popitem(last=False)
            self._chars -= _chars(dropped)

    def since(self, base: str, state: DocState) -> Spans | None:
        """The shown change from revision ``base`` to ``state``, when every step is still known."""
        steps: list[Spans] = []
        revision = state.revision
        while revision != base:
            change = self._changes.get(revision)
            if change is None:
                return None
            steps.append(change.shown)
            revision = change.parent
        composed: Spans = ()
        for step in reversed(steps):
            composed = compose(composed, step)
        return composed


def _chars(change: Splice) -> int:
    return sum(len(span.insert) for span in change.shown)
