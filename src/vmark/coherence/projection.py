"""The projection: which dependency edges are live, and the state of each one.

Pure functions over the ledger records, the revision graph and the revisions on disk now
(``current``). An edge is one input slot of a ``txf`` record: ``(txf record id, input index)``.

Liveness: for a downstream object D at its current revision c, the newest ``txf`` (by
``Record.sort_key``) that has at least one input other than D itself and an output (D, r) with
r == c or r an ancestor of c is D's live generation; all its inputs (self-inputs skipped) are
live edges. A txf without such inputs (a plain save) never supersedes an older generation.

State of a live edge, first match wins (see ``_state``): unpinnable, fresh/ratified, waived,
diverged-multi-head, diverged, stale-<verdict>, version-stale.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple, get_args

from ..protocol.wire_types import AttentionState, CoherentState, Edge, EdgeState
from .graph import RevisionGraph, paused_gc
from .records import VERDICTS, MalformedRecord, Record, parse_time

#: The states of an edge that needs attention, in the order the tool contract lists them.
EDGE_STATES: tuple[str, ...] = get_args(AttentionState)
#: The states of an edge that is coherent (left out of ``coherence`` -> ``edges``).
FRESH_STATES: tuple[str, ...] = get_args(CoherentState)

_SortKey = tuple[str, str]
_EdgeKey = tuple[str, int]


class EdgeView(NamedTuple):
    """One live edge and its state. Immutable; a NamedTuple because a projection builds tens of
    thousands of them and a frozen dataclass costs four times as much to construct."""

    txf: str
    input: int
    upstream: str
    upstream_path: str | None
    pinned: str
    downstream: str
    downstream_path: str | None
    downstream_rev: str
    state: EdgeState

    @property
    def open(self) -> bool:
        return self.state not in FRESH_STATES

    def as_row(self) -> Edge:
        """The ``coherence`` -> ``edges`` row, keys in the contract's order."""
        return {
            "txf": self.txf,
            "input": self.input,
            "upstream": self.upstream,
            "upstream_path": self.upstream_path,
            "pinned": self.pinned,
            "downstream": self.downstream,
            "downstream_path": self.downstream_path,
            "downstream_rev": self.downstream_rev,
            "state": self.state,
        }


class _Input(NamedTuple):
    slot: int
    object: str
    rev: str
    path: str | None


class _Txf(NamedTuple):
    id: str
    sort_key: _SortKey
    outputs: tuple[tuple[str, str], ...]
    inputs: tuple[_Input, ...]
    first_input: str | None  # the object of the first well-formed input
    mixed_inputs: bool  # inputs from more than one object

    def generates(self, downstream: str) -> bool:
        """Has an input other than ``downstream`` itself (else it is a plain save)."""
        return self.mixed_inputs or (self.first_input is not None and self.first_input != downstream)


class _Index:
    """Every lookup the projection needs, built in one pass over the records."""

    def __init__(self, records: Iterable[Record]) -> None:
        self.txfs: dict[str, _Txf] = {}
        # downstream object -> [(txf, output rev)], newest txf first once built
        self.by_output: dict[str, list[tuple[_Txf, str]]] = {}
        # edge -> [(sort_key, upstream_rev)] of its ratify records
        self.ratifies: dict[_EdgeKey, list[tuple[_SortKey, str]]] = {}
        # (txf, input, upstream_rev) -> the latest expiry of a waiver there (inf: never expires)
        self.waivers: dict[tuple[str, int, str], float] = {}
        # (txf, input, upstream_rev, downstream_rev, claims) -> (sort_key, verdict) of the newest check
        self.checks: dict[tuple[str, int, str, str, str], tuple[_SortKey, str]] = {}
        for record in records:
            kind = record.kind
            if kind == "txf":
                self._add_txf(record)
            elif kind == "ratify":
                self._add_ratify(record)
            elif kind == "waive":
                self._add_waive(record)
            elif kind == "check":
                self._add_check(record)
        for candidates in self.by_output.values():
            if len(candidates) > 1:
                candidates.sort(key=lambda pair: pair[0].sort_key, reverse=True)

    def _add_txf(self, record: Record) -> None:
        txf = _parse_txf(record)
        if txf is None:
            return
        self.txfs[txf.id] = txf
        by_output = self.by_output
        for obj, rev in txf.outputs:
            candidates = by_output.get(obj)
            if candidates is None:
                by_output[obj] = [(txf, rev)]
            else:
                candidates.append((txf, rev))

    def _add_ratify(self, record: Record) -> None:
        edge = _edge_of(record.body)
        rev = record.body.get("upstream_rev")
        if edge is not None and isinstance(rev, str):
            self.ratifies.setdefault(edge, []).append(((record.time, record.id), rev))

    def _add_waive(self, record: Record) -> None:
        edge = _edge_of(record.body)
        rev = record.body.get("upstream_rev")
        if edge is None or not isinstance(rev, str):
            return
        expires = _expiry(record.body.get("expires"))
        if expires is None:
            return  # an unreadable expiry covers nothing: a waiver must not hide staleness by accident
        key = (edge[0], edge[1], rev)
        self.waivers[key] = max(expires, self.waivers.get(key, -math.inf))

    def _add_check(self, record: Record) -> None:
        body = record.body
        edge = _edge_of(body)
        up, down, claims = body.get("upstream_rev"), body.get("downstream_rev"), body.get("claims")
        verdict = body.get("verdict")
        if edge is None or verdict not in VERDICTS:
            return
        if not isinstance(up, str) or not isinstance(down, str) or not isinstance(claims, str):
            return
        key = (edge[0], edge[1], up, down, claims)
        sort_key = (record.time, record.id)
        known = self.checks.get(key)
        if known is None or sort_key > known[0]:
            self.checks[key] = (sort_key, str(verdict))

    def live_txf(self, graph: RevisionGraph, downstream: str, current: str) -> _Txf | None:
        """The newest generation of ``downstream`` that its current revision descends from."""
        for txf, rev in self.by_output.get(downstream, ()):
            if txf.generates(downstream) and (rev == current or graph.is_ancestor(rev, current)):
                return txf
        return None


def project(
    records: Sequence[Record],
    graph: RevisionGraph,
    current: Mapping[str, str | None],
    paths: Mapping[str, str],
    now: float,
    claims_digest: str,
) -> list[EdgeView]:
    """Every live edge with its state (fresh and ratified ones included).

    Ordered by downstream path (then downstream id), and by input slot within a downstream.
    """
    with paused_gc():
        projector = _Projector(_Index(records), graph, current, paths, now, claims_digest)
        located = sorted((projector.path_of(obj) or "", obj) for obj in projector.index.by_output)
        views: list[EdgeView] = []
        for path, downstream in located:
            cd = current.get(downstream)
            if cd is not None:
                views.extend(projector.live_views(downstream, path or None, cd))
        return views


def live_edge(
    records: Sequence[Record],
    graph: RevisionGraph,
    current: Mapping[str, str | None],
    txf_id: str,
    input_index: int,
    *,
    paths: Mapping[str, str] | None = None,
    now: float | None = None,
    claims_digest: str | None = None,
) -> EdgeView | None:
    """The edge ``(txf_id, input_index)`` when it is live now, else None.

    For a txf with several outputs, the first output (in record order) for which the edge is
    live. Without ``now`` the wall clock decides waiver expiry; without ``claims_digest`` no
    check result applies (the state is then at most ``version-stale``): pass both for the
    state ``project`` would give.
    """
    index = _Index(_records_about(records, txf_id))
    txf = index.txfs.get(txf_id)
    if txf is None:
        return None
    moment = time.time() if now is None else now
    projector = _Projector(index, graph, current, paths or {}, moment, claims_digest)
    for downstream, _rev in txf.outputs:
        cd = current.get(downstream)
        if cd is None:
            continue
        for view in projector.live_views(downstream, projector.path_of(downstream), cd):
            if view.txf == txf_id and view.input == input_index:
                return view
    return None


def _records_about(records: Sequence[Record], txf_id: str) -> list[Record]:
    """The records that can decide one txf's edges: the txfs sharing a downstream with it
    (liveness) and the ratify/waive/check records of its edges. Indexing only these keeps a
    single-edge question cheap on a large ledger."""
    target = next((r for r in records if r.id == txf_id and r.kind == "txf"), None)
    if target is None:
        return []
    downstreams = _output_objects(target)
    relevant = []
    for record in records:
        kind = record.kind
        if kind == "txf":
            if not downstreams.isdisjoint(_output_objects(record)):
                relevant.append(record)
        elif (kind == "ratify" or kind == "waive" or kind == "check") and record.body.get("txf") == txf_id:
            relevant.append(record)
    return relevant


def _output_objects(record: Record) -> set[str]:
    outputs = record.body.get("outputs")
    if type(outputs) is not list:
        return set()
    return {entry["object"] for entry in outputs if type(entry) is dict and type(entry.get("object")) is str}


class _Projector:
    """The states of the live edges of one downstream at a time, under one set of inputs."""

    def __init__(
        self,
        index: _Index,
        graph: RevisionGraph,
        current: Mapping[str, str | None],
        paths: Mapping[str, str],
        now: float,
        claims_digest: str | None,
    ) -> None:
        self.index = index
        self.graph = graph
        self.current = current
        self.paths = paths
        self.now = now
        self.claims_digest = claims_digest

    def path_of(self, obj: str) -> str | None:
        return self.paths.get(obj) or self.graph.latest_path(obj)

    def live_views(self, downstream: str, downstream_path: str | None, cd: str) -> list[EdgeView]:
        txf = self.index.live_txf(self.graph, downstream, cd)
        if txf is None:
            return []
        current = self.current
        views = []
        for item in txf.inputs:
            upstream = item.object
            if upstream == downstream:
                continue  # a document is never its own upstream
            pinned, state = self._state(txf.id, item, current.get(upstream), cd)
            upstream_path = self.path_of(upstream) or item.path
            views.append(
                EdgeView(txf.id, item.slot, upstream, upstream_path, pinned, downstream, downstream_path, cd, state)
            )
        return views

    def _state(self, txf_id: str, item: _Input, cu: str | None, cd: str) -> tuple[str, EdgeState]:
        """(the effective pin, the state) of one live edge; the contract's precedence, step by step."""
        graph, index = self.graph, self.index
        upstream, pin = item.object, item.rev
        # 1. nothing to compare against
        if cu is None or not graph.is_known(upstream, pin):
            return pin, "unpinnable"
        # 2. the newest ratification to a revision we know moves the pin
        ratifies = index.ratifies.get((txf_id, item.slot)) if index.ratifies else None
        if ratifies is None and pin == cu:
            return pin, "fresh"  # the common case, decided without building anything
        ratified = [(key, rev) for key, rev in ratifies if graph.is_known(upstream, rev)] if ratifies else None
        effective = max(ratified)[1] if ratified else pin
        # 3. the pin is where the upstream is now
        if effective == cu:
            return effective, "ratified" if ratified else "fresh"
        # 4. someone accepted the upstream as it is now, and the waiver still runs
        if index.waivers and index.waivers.get((txf_id, item.slot, cu), -math.inf) > self.now:
            return effective, "waived"
        # 5./6. the upstream forked, or moved somewhere that does not descend from the pin
        if len(graph.heads(upstream)) > 1:
            return effective, "diverged-multi-head"
        if not graph.is_ancestor(effective, cu):
            return effective, "diverged"
        # 7. a check of exactly these two revisions under exactly this claim set
        if self.claims_digest is not None:
            check = index.checks.get((txf_id, item.slot, cu, cd, self.claims_digest))
            if check is not None:
                return effective, _STALE[check[1]]
        return effective, "version-stale"


#: a check's verdict (one of ``VERDICTS``: others are not read) -> the state it gives a moved edge
_STALE: dict[str, AttentionState] = {
    "valid": "stale-valid",
    "contradicted": "stale-contradicted",
    "unknown": "stale-unknown",
}


def _parse_txf(record: Record) -> _Txf | None:
    outputs_raw, inputs_raw = record.body.get("outputs"), record.body.get("inputs")
    if type(outputs_raw) is not list or type(inputs_raw) is not list:
        return None
    outputs = []
    for entry in outputs_raw:
        if type(entry) is dict:
            obj, rev = entry.get("object"), entry.get("rev")
            if type(obj) is str and type(rev) is str:
                outputs.append((obj, rev))
    inputs = []
    first: str | None = None
    mixed = False
    for position, entry in enumerate(inputs_raw):
        # a malformed input slot is no edge, but the slots after it keep their index
        if type(entry) is dict:
            obj, rev, path = entry.get("object"), entry.get("rev"), entry.get("path")
            if type(obj) is str and type(rev) is str:
                inputs.append(_Input(position, obj, rev, path if type(path) is str else None))
                if first is None:
                    first = obj
                elif obj != first:
                    mixed = True
    return _Txf(record.id, (record.time, record.id), tuple(outputs), tuple(inputs), first, mixed)


def _edge_of(body: Mapping[str, Any]) -> _EdgeKey | None:
    txf, position = body.get("txf"), body.get("input")
    if not isinstance(txf, str) or not isinstance(position, int) or isinstance(position, bool):
        return None
    return (txf, position)


def _expiry(value: Any) -> float | None:
    """When a waiver lapses (inf: never); None when the value is not a time."""
    if value is None:
        return math.inf
    if not isinstance(value, str):
        return None
    try:
        return parse_time(value)
    except MalformedRecord:
        return None
