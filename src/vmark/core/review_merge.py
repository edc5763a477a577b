"""An agent's edit (or a revert) over the pending changes of a document, as a value.

The edit's word hunks (:func:`vmark.core.review.word_hunks`) that meet pending changes (touching counts; a
chain of touching ones is one group) become one change with them, whose old text is the text before all of
them: an agent changing its own pending change again, or a revert to a text that still holds some of the
agent's changes. Where the old text is back, nothing is left to judge. An agent's hunks that meet nothing
are new changes; a revert's are the person's text (no change). Pending changes no hunk meets move.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, chain

from .review import Change, Hunk, SpanIndex, hunk_spans, map_change, merged_old, touches, word_hunks
from .spans import Spans


@dataclass(frozen=True)
class Author:
    """Who makes the new changes of an agent's edit: its revision, principal and tool, the time, and how the person
    sees the agent (its client's name with the principal)."""

    revision: str
    principal: str
    tool: str
    at: float
    agent: str = ""


@dataclass
class Merged:
    #: the pending set after the edit, in range order
    changes: list[Change] = field(default_factory=list)
    #: pending changes before the edit that live on in a new change (merged into it)
    merged: list[Change] = field(default_factory=list)
    #: pending changes before the edit whose old text the edit put back
    undone: list[Change] = field(default_factory=list)
    #: how many of ``changes`` the agent's edit made (0 for a revert)
    made: int = 0


def merge_edit(
    pending: Sequence[Change], old: str, new: str, spans: Spans, author: Author | None, make_id: Callable[[], str]
) -> Merged:
    """``spans`` (of ``old``) made ``new``; ``author`` is the agent (None: a revert, whose merged changes keep
    the latest merged change's principal, tool and time). New changes take their ids from ``make_id``."""
    hunks = word_hunks(old, new, spans)
    groups, untouched = _groups(hunks, pending)
    # Running sums (the hunks are in text order): a rewrite of a thousand lines has a thousand groups.
    starts = [h.old_start for h in hunks]
    growth_before = [0, *accumulate(_growth(h) for h in hunks)]
    moves = SpanIndex(hunk_spans(hunks, new))
    result = Merged([c for c in (map_change(c, moves) for c in untouched) if c is not None])
    for group_hunks, group_changes in groups:
        if author is None and not group_changes:
            continue
        start = min([h.old_start for h in group_hunks] + [c.start for c in group_changes])
        end = max([h.old_end for h in group_hunks] + [c.end for c in group_changes])
        # Hunks outside the group that start before it end before it (they would meet it otherwise).
        shift = growth_before[bisect_left(starts, start)]
        new_start, new_end = start + shift, end + shift + sum(_growth(h) for h in group_hunks)
        was = merged_old(old, start, end, group_changes)
        if was == new[new_start:new_end]:
            result.undone += group_changes
            continue
        result.merged += group_changes
        # Each change carries every revision merged into it (a long run of rewrites: many): one change's are
        # taken as they are, several are joined in C loops.
        if len(group_changes) == 1:
            revisions = group_changes[0].revisions
        else:
            revisions = tuple(dict.fromkeys(chain.from_iterable(c.revisions for c in group_changes)))
        if author is not None:
            revisions, principal, tool, at = (*revisions, author.revision), author.principal, author.tool, author.at
            agent = author.agent
            result.made += 1
        else:
            latest = max(group_changes, key=lambda c: c.at)
            principal, tool, at, agent = latest.principal, latest.tool, latest.at, latest.agent
        result.changes.append(Change(make_id(), revisions, principal, tool, new_start, new_end, was, at, agent))
    result.changes.sort(key=lambda c: (c.start, c.end))
    return result


def _growth(hunk: Hunk) -> int:
    return (hunk.new_end - hunk.new_start) - (hunk.old_end - hunk.old_start)


_Group = tuple[list[Hunk], list[Change]]


def _groups(hunks: Sequence[Hunk], pending: Sequence[Change]) -> tuple[list[_Group], list[Change]]:
    """The hunks grouped with the pending changes they meet, in text order (groups of hunks only), and the
    pending changes no hunk meets."""
    items: list[tuple[int, int, Hunk | None, Change | None]] = [(h.old_start, h.old_end, h, None) for h in hunks]
    items += [(c.start, c.end, None, c) for c in pending if _meets_any(c, hunks)]
    items.sort(key=lambda i: (i[0], i[1]))
    groups: list[_Group] = []
    end = -1
    for start, stop, hunk, change in items:
        if not groups or start > end:
            groups.append(([], []))
            end = stop
        end = max(end, stop)
        if hunk is not None:
            groups[-1][0].append(hunk)
        if change is not None:
            groups[-1][1].append(change)
    touched = {c.id for _, changes in groups for c in changes}
    return [g for g in groups if g[0]], [c for c in pending if c.id not in touched]


def _meets_any(change: Change, hunks: Sequence[Hunk]) -> bool:
    """Whether a hunk meets ``change``: the hunks are in order and apart, so the last one starting by its end
    reaches furthest (a bisection, not a scan: a rewrite's thousand hunks over a thousand pending changes)."""
    k = bisect_right(hunks, change.end, key=lambda h: h.old_start) - 1
    return k >= 0 and touches(change, hunks[k])
