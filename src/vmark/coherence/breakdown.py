"""The breakdown: the projection of every live edge's state, and the semantic checks that refine a
``version-stale`` edge into ``stale-valid`` / ``stale-contradicted`` / ``stale-unknown``.

A check may take minutes (a command, an HTTP call), so it is split in three: :meth:`Breakdown.due_checks`
collects what to ask (under the kernel's lock, quick), :func:`run_checks` asks the checker (no lock
held: saves and writes go on meanwhile), :meth:`Breakdown.check_records` turns the verdicts into
records (under the lock again). A verdict names the exact revisions and claim set it judged, so one
that arrives after either document moved simply no longer applies.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.progress import report
from ..protocol.limits import CHECK_BUDGET_SECONDS, MAX_CHECKS_PER_CALL
from ..protocol.wire_types import Edge
from . import claims as _claims
from .checker import Checker, CheckRequest
from .errors import CoherenceError, EdgeNotLive
from .index import WorkspaceIndex
from .projection import EdgeView, live_edge, project
from .records import Record, parse_time


@dataclass
class _Projection:
    key: tuple[Any, ...]
    edges: list[EdgeView]
    valid_until: float
    open_rows: list[Edge] | None = None


@dataclass(frozen=True)
class DueCheck:
    """One edge to ask the checker about, with the revisions and claim set the verdict will be for."""

    view: EdgeView
    request: CheckRequest
    upstream_rev: str | None
    claims_digest: str


class Breakdown:
    """The projection of one workspace's edges, cached until the ledger moves or a waiver lapses."""

    def __init__(self, index: WorkspaceIndex, clock: Callable[[], float]) -> None:
        self.index = index
        self._clock = clock
        self._projection: _Projection | None = None

    def project(self) -> list[EdgeView]:
        st = self.index.state
        now = self._clock()
        key = (st.version, len(st.records))
        cached = self._projection
        if cached is not None and cached.key == key and now < cached.valid_until:
            return cached.edges  # nothing moved, and no waiver or claim lapsed since
        digest = _claims.claims_digest(_claims.current_claims(st.records, now))
        edges = project(st.records, self.index.graph(), st.current, dict(st.paths), now, digest)
        self._projection = _Projection(key, edges, _next_expiry(st.records, now))
        return edges

    def open_rows(self) -> list[Edge]:
        """The rows of the open edges of the last projection (copies: callers may change them)."""
        projection = self._projection
        assert projection is not None
        if projection.open_rows is None:
            projection.open_rows = [e.as_row() for e in projection.edges if e.open]
        return [Edge(**row) for row in projection.open_rows]

    def live_edge(self, txf: str, input_index: int) -> EdgeView | None:
        st = self.index.state
        now = self._clock()
        digest = _claims.claims_digest(_claims.current_claims(st.records, now))
        return live_edge(
            st.records, self.index.graph(), st.current, txf, input_index, paths=st.paths, now=now, claims_digest=digest
        )

    def open_edge(self, txf: str, input_index: int) -> EdgeView:
        """The edge, live and open now; else why not (:class:`CoherenceError` / :class:`EdgeNotLive`)."""
        st = self.index.state
        record = next((r for r in st.records if r.id == txf and r.kind == "txf"), None)
        if record is None:
            raise CoherenceError(f"no transformation {txf!r} in this workspace's ledger")
        if not 0 <= input_index < len(record.body.get("inputs", [])):
            raise CoherenceError(f"transformation {txf!r} has no input {input_index}")
        self._projection = None
        view = self.live_edge(txf, input_index)
        if view is None:
            raise EdgeNotLive("the edge is no longer live (the downstream was generated again or moved away)", None)
        if not view.open:
            raise EdgeNotLive(f"the edge is {view.state}: nothing to resolve", view.state)
        return view

    # --- checks ---------------------------------------------------------------------------
    def due_checks(self, views: Sequence[EdgeView]) -> list[DueCheck]:
        """The ``version-stale`` edges to check now, each with its request (texts read now)."""
        due = [v for v in views if v.state == "version-stale"][:MAX_CHECKS_PER_CALL]
        if not due:
            return []
        index = self.index
        st = index.state
        current_claims = _claims.current_claims(st.records, self._clock())
        digest = _claims.claims_digest(current_claims)
        statements = [c.statement for c in current_claims if c.constraining]
        checks = []
        for view in due:
            upstream_rev = st.current.get(view.upstream)
            request = CheckRequest(
                upstream_before=index.text_of(view.pinned),
                upstream_after=index.text_of(str(upstream_rev)) or "",
                downstream=index.text_of(view.downstream_rev) or "",
                claims=statements,
                upstream_path=view.upstream_path,
                downstream_path=view.downstream_path,
            )
            checks.append(DueCheck(view, request, upstream_rev, digest))
        return checks

    def check_records(self, verdicts: Sequence[tuple[DueCheck, str]], checker: str) -> list[Record]:
        writer = self.index.writer
        records = []
        for due, verdict in verdicts:
            body = {
                "txf": due.view.txf,
                "input": due.view.input,
                "upstream_rev": due.upstream_rev,
                "downstream_rev": due.view.downstream_rev,
                "claims": due.claims_digest,
                "verdict": verdict,
                "checker": checker,
            }
            records.append(Record("check", body, writer))
        return records


def run_checks(checker: Checker, due: Sequence[DueCheck]) -> list[tuple[DueCheck, str]]:
    """Ask the checker about each edge, within :data:`CHECK_BUDGET_SECONDS` (no lock is held here)."""
    verdicts = []
    deadline = time.monotonic() + CHECK_BUDGET_SECONDS
    for done, item in enumerate(due, 1):
        if time.monotonic() > deadline:
            break  # the rest waits for the next call: the tool answers within its 20 s
        verdicts.append((item, checker.check(item.request)))
        report(done, len(due), "checking edges")
    return verdicts


def _next_expiry(records: Sequence[Record], now: float) -> float:
    """The next moment a time-bound record (a waiver's expiry, a claim's invalidity) changes a state."""
    moments = [float("inf")]
    for record in records:
        stamp = record.body.get("expires") if record.kind == "waive" else None
        stamp = record.body.get("invalid_at") if record.kind == "claim" else stamp
        if isinstance(stamp, str):
            try:
                moment = parse_time(stamp)
            except ValueError:
                continue
            if moment > now:
                moments.append(moment)
    return min(moments)
