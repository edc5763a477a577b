"""The projection: liveness of edges and every edge state, from hand-built ledger records."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

from vmark.coherence.graph import RevisionGraph
from vmark.coherence.projection import EDGE_STATES, FRESH_STATES, EdgeView, live_edge, project
from vmark.coherence.records import Record

BASE = datetime(2026, 1, 1, tzinfo=UTC)
NOW = (BASE + timedelta(days=10)).timestamp()
DIGEST = "digest-1"
U, D, V = "obj-u", "obj-d", "obj-v"
PATHS = {U: "notes/u.md", D: "scenes/d.md", V: "notes/v.md"}


def stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Ledger:
    """Records in the order they are added (one second apart), with readable ids."""

    def __init__(self) -> None:
        self.records: list[Record] = []

    def add(self, kind: str, body: dict[str, Any]) -> str:
        n = len(self.records) + 1
        record = Record(kind, body, "w", id=f"r{n:04d}", time=stamp(BASE + timedelta(seconds=n)))
        self.records.append(record)
        return record.id

    def obj(self, obj: str, path: str | None = None) -> None:
        self.add("object", {"object": obj, "path": path or PATHS[obj]})

    def rev(self, obj: str, rev: str, *parents: str, path: str | None = None) -> None:
        body = {"object": obj, "rev": rev, "content": "c-" + rev, "parents": list(parents), "path": path or PATHS[obj]}
        self.add("revision", {**body, "cause": "save"})

    def txf(self, outputs: list[tuple[str, str]], inputs: list[tuple[str, str]]) -> str:
        return self.add(
            "txf",
            {
                "outputs": [{"object": o, "rev": r} for o, r in outputs],
                "inputs": [
                    {"object": o, "rev": r, "path": PATHS.get(o, o), "provenance": "inferred"} for o, r in inputs
                ],
                "agent": {"kind": "agent", "principal": "claude"},
                "tool": "document.write",
            },
        )

    def ratify(self, txf: str, slot: int, rev: str) -> str:
        by = {"kind": "person", "principal": None}
        return self.add("ratify", {"txf": txf, "input": slot, "upstream_rev": rev, "by": by})

    def waive(self, txf: str, slot: int, rev: str, **extra: Any) -> str:
        by = {"kind": "person", "principal": None}
        return self.add("waive", {"txf": txf, "input": slot, "upstream_rev": rev, "reason": "ok", "by": by, **extra})

    def check(self, txf: str, slot: int, up: str, down: str, verdict: str, claims: str = DIGEST) -> str:
        body = {"txf": txf, "input": slot, "upstream_rev": up, "downstream_rev": down, "claims": claims}
        return self.add("check", {**body, "verdict": verdict, "checker": "fake"})

    def rows(self, current: dict[str, str | None], now: float = NOW, digest: str = DIGEST) -> list[dict[str, Any]]:
        graph = RevisionGraph.from_records(self.records)
        return [view.as_row() for view in project(self.records, graph, current, PATHS, now, digest)]

    def states(self, current: dict[str, str | None], **kwargs: Any) -> list[str]:
        return [row["state"] for row in self.rows(current, **kwargs)]


def chapter() -> tuple[Ledger, str]:
    """U: u1 -> u2 -> u3; D: d1 -> d2; D was generated (d1) from U at u1."""
    led = Ledger()
    led.obj(U)
    led.rev(U, "u1")
    led.rev(U, "u2", "u1")
    led.rev(U, "u3", "u2")
    led.obj(D)
    txf = led.txf([(D, "d1")], [(U, "u1")])
    led.rev(D, "d1")
    led.rev(D, "d2", "d1")
    return led, txf


def row(txf: str, state: str, pinned: str = "u1", downstream_rev: str = "d1", slot: int = 0) -> dict[str, Any]:
    return {
        "txf": txf,
        "input": slot,
        "upstream": U,
        "upstream_path": "notes/u.md",
        "pinned": pinned,
        "downstream": D,
        "downstream_path": "scenes/d.md",
        "downstream_rev": downstream_rev,
        "state": state,
    }


# --- the constants and the row ---------------------------------------------------------------


def test_state_names_and_row_shape() -> None:
    assert EDGE_STATES == (
        "version-stale",
        "stale-valid",
        "stale-contradicted",
        "stale-unknown",
        "waived",
        "diverged",
        "diverged-multi-head",
        "unpinnable",
    )
    assert FRESH_STATES == ("fresh", "ratified")
    view = EdgeView("t", 0, U, "notes/u.md", "u1", D, "scenes/d.md", "d1", "waived")
    assert list(view.as_row()) == [
        "txf",
        "input",
        "upstream",
        "upstream_path",
        "pinned",
        "downstream",
        "downstream_path",
        "downstream_rev",
        "state",
    ]
    assert view.open is True
    assert view._replace(state="fresh").open is False
    assert view._replace(state="ratified").open is False


# --- fresh, version-stale, ratified ---------------------------------------------------------


def test_fresh_when_the_upstream_is_where_it_was_pinned() -> None:
    led, txf = chapter()
    assert led.rows({U: "u1", D: "d1"}) == [row(txf, "fresh")]


def test_version_stale_when_the_upstream_moved_on() -> None:
    led, txf = chapter()
    assert led.rows({U: "u3", D: "d1"}) == [row(txf, "version-stale")]


def test_a_later_revision_of_the_downstream_keeps_the_edge_live() -> None:
    led, txf = chapter()
    assert led.rows({U: "u2", D: "d2"}) == [row(txf, "version-stale", downstream_rev="d2")]


def test_ratified_moves_the_pin_and_goes_stale_again_when_the_upstream_moves() -> None:
    led, txf = chapter()
    led.ratify(txf, 0, "u2")
    assert led.rows({U: "u2", D: "d1"}) == [row(txf, "ratified", pinned="u2")]
    assert led.rows({U: "u3", D: "d1"}) == [row(txf, "version-stale", pinned="u2")]


def test_ratify_at_the_original_pin_is_ratified_not_fresh() -> None:
    led, txf = chapter()
    led.ratify(txf, 0, "u1")
    assert led.rows({U: "u1", D: "d1"}) == [row(txf, "ratified")]


def test_the_newest_ratify_wins_and_one_to_an_unknown_revision_is_ignored() -> None:
    led, txf = chapter()
    led.ratify(txf, 0, "u3")
    led.ratify(txf, 0, "u2")
    led.ratify(txf, 0, "rev-nobody-recorded")
    assert led.rows({U: "u2", D: "d1"}) == [row(txf, "ratified", pinned="u2")]
    assert led.rows({U: "u3", D: "d1"}) == [row(txf, "version-stale", pinned="u2")]


def test_a_ratify_of_another_input_does_not_apply() -> None:
    led, txf = chapter()
    led.ratify(txf, 1, "u2")
    assert led.rows({U: "u2", D: "d1"}) == [row(txf, "version-stale")]


# --- semantic checks ------------------------------------------------------------------------


def test_stale_with_each_check_verdict() -> None:
    for verdict in ("valid", "contradicted", "unknown"):
        led, txf = chapter()
        led.check(txf, 0, "u2", "d1", verdict)
        assert led.rows({U: "u2", D: "d1"}) == [row(txf, f"stale-{verdict}")]


def test_the_newest_check_wins() -> None:
    led, txf = chapter()
    led.check(txf, 0, "u2", "d1", "valid")
    led.check(txf, 0, "u2", "d1", "contradicted")
    assert led.states({U: "u2", D: "d1"}) == ["stale-contradicted"]


def test_a_check_expires_when_the_downstream_moves() -> None:
    led, txf = chapter()
    led.check(txf, 0, "u2", "d1", "valid")
    assert led.rows({U: "u2", D: "d2"}) == [row(txf, "version-stale", downstream_rev="d2")]


def test_a_check_expires_when_the_upstream_moves() -> None:
    led, txf = chapter()
    led.check(txf, 0, "u2", "d1", "valid")
    assert led.states({U: "u3", D: "d1"}) == ["version-stale"]


def test_a_check_expires_when_the_claim_set_changes() -> None:
    led, txf = chapter()
    led.check(txf, 0, "u2", "d1", "valid")
    assert led.states({U: "u2", D: "d1"}, digest="digest-2") == ["version-stale"]
    assert led.states({U: "u2", D: "d1"}, digest=DIGEST) == ["stale-valid"]


def test_a_check_with_a_verdict_this_version_does_not_know_is_ignored() -> None:
    led, txf = chapter()
    led.check(txf, 0, "u2", "d1", "valid")
    led.check(txf, 0, "u2", "d1", "probably")
    assert led.states({U: "u2", D: "d1"}) == ["stale-valid"]


def test_a_check_of_a_fresh_edge_changes_nothing() -> None:
    led, txf = chapter()
    led.check(txf, 0, "u1", "d1", "contradicted")
    assert led.states({U: "u1", D: "d1"}) == ["fresh"]


# --- waivers --------------------------------------------------------------------------------


def test_waived_at_the_current_upstream_revision() -> None:
    led, txf = chapter()
    led.waive(txf, 0, "u2")
    assert led.rows({U: "u2", D: "d1"}) == [row(txf, "waived")]


def test_a_waiver_at_an_older_upstream_revision_no_longer_covers() -> None:
    led, txf = chapter()
    led.waive(txf, 0, "u2")
    assert led.rows({U: "u3", D: "d1"}) == [row(txf, "version-stale")]


def test_an_expired_waiver_is_stale_again() -> None:
    led, txf = chapter()
    led.waive(txf, 0, "u2", expires=stamp(BASE + timedelta(days=1)))
    assert led.states({U: "u2", D: "d1"}) == ["version-stale"]
    # before it lapsed it covered the edge
    assert led.states({U: "u2", D: "d1"}, now=(BASE + timedelta(hours=1)).timestamp()) == ["waived"]


def test_a_waiver_expiring_exactly_now_has_lapsed() -> None:
    led, txf = chapter()
    led.waive(txf, 0, "u2", expires=stamp(BASE + timedelta(days=10)))
    assert led.states({U: "u2", D: "d1"}) == ["version-stale"]


def test_a_running_waiver_is_not_cancelled_by_a_newer_expired_one() -> None:
    led, txf = chapter()
    led.waive(txf, 0, "u2", expires=None)
    led.waive(txf, 0, "u2", expires=stamp(BASE + timedelta(days=1)))
    assert led.states({U: "u2", D: "d1"}) == ["waived"]


def test_a_waiver_with_an_unreadable_expiry_covers_nothing() -> None:
    led, txf = chapter()
    led.waive(txf, 0, "u2", expires="next tuesday")
    led.waive(txf, 0, "u2", expires=17)
    assert led.states({U: "u2", D: "d1"}) == ["version-stale"]


def test_a_waiver_outranks_a_check_and_divergence() -> None:
    led, txf = chapter()
    led.check(txf, 0, "u2", "d1", "contradicted")
    led.waive(txf, 0, "u2")
    assert led.states({U: "u2", D: "d1"}) == ["waived"]
    led.rev(U, "u2b", "u1")  # a second branch: two heads
    led.waive(txf, 0, "u2b")
    assert led.states({U: "u2b", D: "d1"}) == ["waived"]


# --- divergence -----------------------------------------------------------------------------


def test_diverged_when_the_upstream_was_navigated_back_before_the_pin() -> None:
    led, txf = chapter()
    led.ratify(txf, 0, "u3")  # the pin is now u3; a checkout brings U back to u1
    assert led.rows({U: "u1", D: "d1"}) == [row(txf, "diverged", pinned="u3")]


def test_diverged_when_generated_from_a_revision_the_upstream_no_longer_descends_from() -> None:
    led = Ledger()
    led.obj(U)
    led.rev(U, "u1")
    led.rev(U, "u2", "u1")
    led.obj(D)
    txf = led.txf([(D, "d1")], [(U, "u2")])
    led.rev(D, "d1")
    assert led.rows({U: "u1", D: "d1"}) == [row(txf, "diverged", pinned="u2")]


def test_diverged_multi_head_when_the_upstream_forked() -> None:
    led, txf = chapter()
    led.rev(U, "u2b", "u1")  # u1 -> u2 -> u3 and u1 -> u2b
    assert led.rows({U: "u2b", D: "d1"}) == [row(txf, "diverged-multi-head")]
    assert led.rows({U: "u3", D: "d1"}) == [row(txf, "diverged-multi-head")]
    # the fork does not matter while the pin is where the upstream is
    assert led.states({U: "u1", D: "d1"}) == ["fresh"]


def test_a_merge_ends_the_multi_head_state() -> None:
    led, txf = chapter()
    led.rev(U, "u2b", "u1")
    led.rev(U, "u4", "u3", "u2b")
    assert led.rows({U: "u4", D: "d1"}) == [row(txf, "version-stale")]


def test_a_check_does_not_outrank_divergence() -> None:
    led, txf = chapter()
    led.ratify(txf, 0, "u3")
    led.check(txf, 0, "u1", "d1", "valid")
    assert led.states({U: "u1", D: "d1"}) == ["diverged"]


# --- unpinnable -----------------------------------------------------------------------------


def test_unpinnable_when_the_pin_is_not_a_known_revision() -> None:
    led, _ = chapter()
    txf = led.txf([(D, "d2")], [(U, "rev-never-recorded")])
    assert led.rows({U: "u1", D: "d2"}) == [row(txf, "unpinnable", pinned="rev-never-recorded", downstream_rev="d2")]


def test_unpinnable_when_the_upstream_file_is_missing() -> None:
    led, txf = chapter()
    assert led.rows({U: None, D: "d1"}) == [row(txf, "unpinnable")]
    assert led.rows({D: "d1"}) == [row(txf, "unpinnable")]


def test_unpinnable_when_the_upstream_object_is_unknown() -> None:
    led, _ = chapter()
    txf = led.txf([(D, "d2")], [("obj-ghost", "g1")])
    assert led.rows({U: "u1", D: "d2", "obj-ghost": "g1"}) == [
        {
            "txf": txf,
            "input": 0,
            "upstream": "obj-ghost",
            "upstream_path": "obj-ghost",  # the path the txf recorded for its input
            "pinned": "g1",
            "downstream": D,
            "downstream_path": "scenes/d.md",
            "downstream_rev": "d2",
            "state": "unpinnable",
        }
    ]


def test_unpinnable_outranks_ratify_and_waive() -> None:
    led, txf = chapter()
    led.ratify(txf, 0, "u2")
    led.waive(txf, 0, "u2")
    assert led.states({U: None, D: "d1"}) == ["unpinnable"]


# --- liveness -------------------------------------------------------------------------------


def test_a_newer_generation_with_inputs_supersedes_the_older_one() -> None:
    led, _old = chapter()
    led.obj(V)
    led.rev(V, "v1")
    new = led.txf([(D, "d2")], [(V, "v1"), (U, "u2")])
    rows = led.rows({U: "u3", V: "v1", D: "d2"})
    assert rows == [
        {
            "txf": new,
            "input": 0,
            "upstream": V,
            "upstream_path": "notes/v.md",
            "pinned": "v1",
            "downstream": D,
            "downstream_path": "scenes/d.md",
            "downstream_rev": "d2",
            "state": "fresh",
        },
        row(new, "version-stale", pinned="u2", downstream_rev="d2", slot=1),
    ]


def test_a_plain_save_without_inputs_does_not_supersede() -> None:
    led, txf = chapter()
    led.txf([(D, "d2")], [])
    assert led.rows({U: "u2", D: "d2"}) == [row(txf, "version-stale", downstream_rev="d2")]


def test_a_txf_whose_only_input_is_the_downstream_itself_does_not_supersede() -> None:
    led, txf = chapter()
    led.txf([(D, "d2")], [(D, "d1")])
    assert led.rows({U: "u2", D: "d2"}) == [row(txf, "version-stale", downstream_rev="d2")]


def test_a_self_input_is_skipped_and_the_other_slots_keep_their_index() -> None:
    led, _ = chapter()
    txf = led.txf([(D, "d2")], [(D, "d1"), (U, "u2")])
    assert led.rows({U: "u2", D: "d2"}) == [row(txf, "fresh", pinned="u2", downstream_rev="d2", slot=1)]


def test_no_live_edges_when_the_downstream_was_navigated_back_before_its_generation() -> None:
    led = Ledger()
    led.obj(U)
    led.rev(U, "u1")
    led.obj(D)
    led.rev(D, "d0")
    led.txf([(D, "d1")], [(U, "u1")])
    led.rev(D, "d1", "d0")
    assert led.rows({U: "u1", D: "d0"}) == []


def test_navigating_back_revives_the_older_generation() -> None:
    led, old = chapter()
    led.txf([(D, "d3")], [(U, "u3")])
    led.rev(D, "d3", "d2")
    assert led.states({U: "u3", D: "d3"}) == ["fresh"]
    # back at d2 (before the second generation): the first one is live again
    assert led.rows({U: "u3", D: "d2"}) == [row(old, "version-stale", downstream_rev="d2")]


def test_no_live_edges_when_the_downstream_is_missing() -> None:
    led, _ = chapter()
    assert led.rows({U: "u1", D: None}) == []
    assert led.rows({U: "u1"}) == []


def test_a_txf_with_two_outputs_gives_an_edge_per_downstream_sorted_by_path() -> None:
    led = Ledger()
    led.obj(U)
    led.rev(U, "u1")
    led.obj(V)
    led.obj(D)
    txf = led.txf([(V, "v1"), (D, "d1")], [(U, "u1")])
    led.rev(V, "v1")
    led.rev(D, "d1")
    rows = led.rows({U: "u1", V: "v1", D: "d1"})
    assert [(r["downstream_path"], r["txf"], r["input"], r["state"]) for r in rows] == [
        ("notes/v.md", txf, 0, "fresh"),
        ("scenes/d.md", txf, 0, "fresh"),
    ]


def test_malformed_parts_of_records_are_skipped_not_fatal() -> None:
    led, _ = chapter()
    txf = led.add(
        "txf",
        {
            "outputs": [{"object": D, "rev": "d2"}, "junk", {"object": 5}],
            "inputs": ["junk", {"object": U}, {"object": U, "rev": "u2", "path": "notes/u.md"}],
            "agent": {},
            "tool": "x",
        },
    )
    led.add("ratify", {"txf": txf, "input": True, "upstream_rev": "u3", "by": {}})  # a bool is no slot
    led.add("revision", {"object": U, "rev": "u9", "content": "c", "parents": [7], "path": "notes/u.md"})
    assert led.rows({U: "u2", D: "d2"}) == [row(txf, "fresh", pinned="u2", downstream_rev="d2", slot=2)]


def test_upstream_path_comes_from_paths_then_the_latest_record() -> None:
    led, _ = chapter()
    led.add("move", {"object": U, "path": "notes/renamed.md"})
    graph = RevisionGraph.from_records(led.records)
    views = project(led.records, graph, {U: "u1", D: "d1"}, {D: "scenes/d.md"}, NOW, DIGEST)
    assert [(v.upstream_path, v.downstream_path) for v in views] == [("notes/renamed.md", "scenes/d.md")]
    views = project(led.records, graph, {U: "u1", D: "d1"}, {U: "x/u.md", D: "x/d.md"}, NOW, DIGEST)
    assert [(v.upstream_path, v.downstream_path) for v in views] == [("x/u.md", "x/d.md")]


# --- live_edge ------------------------------------------------------------------------------


def test_live_edge_answers_the_edge_while_it_is_live() -> None:
    led, old = chapter()
    led.check(old, 0, "u2", "d1", "valid")
    graph = RevisionGraph.from_records(led.records)
    current: dict[str, str | None] = {U: "u2", D: "d1"}
    view = live_edge(led.records, graph, current, old, 0, paths=PATHS, now=NOW, claims_digest=DIGEST)
    assert view is not None and view.as_row() == row(old, "stale-valid", pinned="u1")
    # without the digest no check applies
    assert live_edge(led.records, graph, current, old, 0) == EdgeView(
        old, 0, U, "notes/u.md", "u1", D, "scenes/d.md", "d1", "version-stale"
    )
    assert live_edge(led.records, graph, current, old, 1) is None
    assert live_edge(led.records, graph, current, "no-such-txf", 0) is None


def test_live_edge_is_none_once_superseded_or_for_a_self_input() -> None:
    led, old = chapter()
    new = led.txf([(D, "d2")], [(D, "d1"), (U, "u2")])
    graph = RevisionGraph.from_records(led.records)
    current: dict[str, str | None] = {U: "u2", D: "d2"}
    assert live_edge(led.records, graph, current, old, 0) is None
    assert live_edge(led.records, graph, current, new, 0) is None
    view = live_edge(led.records, graph, current, new, 1, now=NOW)
    assert view is not None and (view.state, view.pinned, view.downstream_rev) == ("fresh", "u2", "d2")


def test_live_edge_uses_now_for_waivers() -> None:
    led, txf = chapter()
    led.waive(txf, 0, "u2", expires=stamp(BASE + timedelta(days=1)))
    graph = RevisionGraph.from_records(led.records)
    current: dict[str, str | None] = {U: "u2", D: "d1"}
    early = live_edge(led.records, graph, current, txf, 0, now=BASE.timestamp())
    late = live_edge(led.records, graph, current, txf, 0, now=NOW)
    assert (early and early.state, late and late.state) == ("waived", "version-stale")


# --- the graph ------------------------------------------------------------------------------


def test_graph_heads_ancestry_content_and_paths() -> None:
    led, _ = chapter()
    led.rev(U, "u2b", "u1")
    led.add("move", {"object": U, "path": "notes/moved.md"})
    led.rev(D, "d3", "d2", "d-unrecorded")
    graph = RevisionGraph.from_records(led.records)
    assert graph.objects() == (D, U)
    assert graph.heads(U) == frozenset({"u3", "u2b"})
    assert graph.heads(D) == frozenset({"d3"})
    assert graph.heads("nobody") == frozenset()
    assert graph.is_ancestor("u1", "u3") and graph.is_ancestor("u3", "u3")
    assert not graph.is_ancestor("u3", "u1") and not graph.is_ancestor("u2b", "u3")
    assert graph.is_ancestor("d-unrecorded", "d3")  # reachable, though never recorded itself
    assert graph.is_known(U, "u2b") and not graph.is_known(D, "u2b") and not graph.is_known(D, "d-unrecorded")
    assert graph.content_of("u2") == "c-u2" and graph.content_of("d-unrecorded") is None
    assert graph.latest_path(U) == "notes/moved.md"
    assert graph.latest_path(D) == "scenes/d.md"
    assert graph.latest_path("nobody") is None
    info = graph.revisions(D)["d3"]
    assert (info.content, info.parents, info.path) == ("c-d3", ("d2", "d-unrecorded"), "scenes/d.md")


def test_newest_path_wins_by_time_not_by_list_order() -> None:
    older = Record("move", {"object": U, "path": "a.md"}, "w", id="r1", time="2026-01-01T00:00:01.000Z")
    newer = Record("move", {"object": U, "path": "b.md"}, "w", id="r2", time="2026-01-01T00:00:02.000Z")
    assert RevisionGraph.from_records([newer, older]).latest_path(U) == "b.md"


def test_ancestry_of_a_long_history_is_fast() -> None:
    led = Ledger()
    led.rev(U, "u0")
    for i in range(1, 20_000):
        led.rev(U, f"u{i}", f"u{i - 1}")
    graph = RevisionGraph.from_records(led.records)
    started = time.perf_counter()
    assert all(graph.is_ancestor(f"u{i}", "u19999") for i in range(0, 20_000, 7))
    assert not graph.is_ancestor("u19999", "u5")
    assert graph.heads(U) == frozenset({"u19999"})
    assert time.perf_counter() - started < 2.0
