"""The MCP contract of ``coherence`` (status, edges, claims, contexts) and ``coherence_resolve``.

A real app, the official MCP client, real files and a real ledger: an agent reads one document and
writes another, the upstream changes on disk, and the edge shows up, gets resolved (or refused).
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import call, fail, fail_code, make_client, ok
from tests.contract.helpers import disk_checked, open_tab, raw_error
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient

pytestmark = pytest.mark.anyio

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
REV1 = re.compile(r"^rev1:[0-9a-f]{64}$")
ACTIONS = ("status", "edges", "claims", "contexts")


@pytest.fixture
async def tracked(opened: Path, person: UIClient) -> Path:
    await person.call("coherence.init", workspaceRoot=str(opened))
    return opened


@pytest.fixture
async def alice(vmark: RunningApp) -> AsyncIterator[Client]:
    async with make_client(vmark.data_dir, client_token=vmark.app.principals.add("alice")) as client:
        yield client


async def derive(agent: Client, root: Path, upstream: str = "a.md", downstream: str = "b.md") -> None:
    """The agent reads ``upstream`` and writes ``downstream`` from it (saved)."""
    up = await open_tab(agent, root / upstream)
    await ok(agent, "document", "read", tabId=up)
    down = await open_tab(agent, root / downstream)
    await ok(agent, "document", "write", tabId=down, content="# B\n\nfrom alpha\n", save=True)


async def stale_edge(agent: Client, root: Path) -> dict[str, Any]:
    await derive(agent, root)
    (root / "a.md").write_text((root / "a.md").read_text() + "\nalpha moved\n")
    found = await edges(agent, root)
    assert len(found) == 1
    return found[0]


async def rows(agent: Client, action: str, root: Path) -> list[dict[str, Any]]:
    """An action that answers an array: the JSON text is the array, ``structuredContent`` wraps it."""
    result = await call(agent, "coherence", action, workspace_root=str(root))
    text = result.content[0].text  # type: ignore[union-attr]
    assert not result.is_error, text
    assert result.structured_content == {"result": json.loads(text)}
    return list(json.loads(text))


async def edges(agent: Client, root: Path) -> list[dict[str, Any]]:
    return await rows(agent, "edges", root)


def ledger_records(root: Path) -> list[dict[str, Any]]:
    lines = []
    for path in sorted((root / ".vmark" / "ledger").glob("*.jsonl")):
        lines += [json.loads(line) for line in path.read_text().splitlines()]
    return lines


# --- arguments ---------------------------------------------------------------------------------
@pytest.mark.parametrize("action", ACTIONS)
async def test_workspace_root_must_be_an_absolute_directory(mcp: Client, workspace: Path, action: str) -> None:
    assert await raw_error(mcp, "coherence", {"action": action}) == (
        f"coherence.{action}: missing required argument 'workspace_root'"
    )
    text = await raw_error(mcp, "coherence", {"action": action, "workspace_root": "ws/relative"})
    assert text == "workspace_root must be an absolute path, got 'ws/relative'"
    text = await raw_error(mcp, "coherence", {"action": action, "workspace_root": str(workspace / "a.md")})
    assert text == f"workspace_root {str(workspace / 'a.md')!r} is not a directory"
    text = await raw_error(mcp, "coherence", {"action": action, "workspace_root": str(workspace / "nope")})
    assert text == f"workspace_root {str(workspace / 'nope')!r} is not a directory"
    assert not (workspace / ".vmark").exists()


async def test_resolve_arguments_are_checked(mcp: Client, workspace: Path) -> None:
    base = {"action": "resolve", "workspace_root": str(workspace), "txf": "x", "input": 0}
    text = await raw_error(mcp, "coherence_resolve", {**base, "resolution": "delete"})
    assert text == "coherence_resolve.resolve: argument 'resolution' must be one of: accept-newer, waive"
    text = await raw_error(mcp, "coherence_resolve", {**base, "resolution": "waive"})
    assert text == "coherence_resolve.resolve: a waive needs a non-empty 'reason'"
    text = await raw_error(mcp, "coherence_resolve", {**base, "resolution": "waive", "reason": "  "})
    assert text == "coherence_resolve.resolve: a waive needs a non-empty 'reason'"
    text = await raw_error(mcp, "coherence_resolve", {**base, "input": "0", "resolution": "waive"})
    assert text == "coherence_resolve.resolve: argument 'input' must be an integer"
    # A client cannot claim a principal: there is no such argument.
    text = await raw_error(mcp, "coherence_resolve", {**base, "resolution": "waive", "principal": "alice"})
    assert text == (
        "coherence_resolve.resolve: argument 'principal' is not accepted"
        " (coherence_resolve.resolve takes: workspace_root, txf, input, resolution, reason)"
    )


# --- status, claims, contexts --------------------------------------------------------------------
async def test_status_of_an_untracked_workspace_creates_nothing(mcp: Client, workspace: Path) -> None:
    status = await ok(mcp, "coherence", "status", workspace_root=str(workspace))
    writer = status.pop("writer")
    assert UUID.match(writer)
    assert status == {"initialized": False, "objects": 0, "open_items": 0, "quarantined": 0}
    assert await edges(mcp, workspace) == []
    assert await rows(mcp, "claims", workspace) == []
    contexts = await rows(mcp, "contexts", workspace)
    assert contexts == [
        {"id": "default", "name": "default", "parent": None, "enforcement": "greenhouse", "visibleClaims": 0,
         "errors": []}
    ]
    assert not (workspace / ".vmark").exists()


async def test_status_after_init_counts_every_document(mcp: Client, tracked: Path, vmark: RunningApp) -> None:
    status = await ok(mcp, "coherence", "status", workspace_root=str(tracked))
    assert status == {
        "initialized": True,
        "objects": 5,  # a.md, b.md, notes/c.md, readme.txt and the workflow
        "open_items": 0,
        "quarantined": 0,
        "writer": vmark.app.coherence.installation_id,
        "duplicates": [],
    }
    assert (tracked / "a.md").read_text() == "# A\n\nalpha\n"  # tracking on rewrites no document
    assert (tracked / ".github/workflows/ci.yml").read_text() == "name: ci\non: push\njobs: {}\n"
    assert (tracked / ".vmark/.gitattributes").read_text().splitlines()[0] == "ledger/*.jsonl merge=union"
    assert "index.db" in (tracked / ".vmark/.gitignore").read_text().splitlines()


async def test_claims_and_contexts_are_the_persons(mcp: Client, tracked: Path, person: UIClient) -> None:
    made = await person.call("coherence.claim_add", workspaceRoot=str(tracked), statement="Elena is tall",
                             maturity="established")
    await person.call("coherence.claim_add", workspaceRoot=str(tracked), statement="maybe", maturity="draft")
    claims = await rows(mcp, "claims", tracked)
    assert [(r["statement"], r["maturity"], r["visible"], r["invalidAt"]) for r in claims] == [
        ("Elena is tall", "established", True, None),
        ("maybe", "draft", True, None),
    ]
    assert claims[0]["claim"] == made["claim"] and claims[0]["entryId"] == made["entryId"]
    await person.call("coherence.context_save", workspaceRoot=str(tracked), id="draft-room", name="Draft room",
                      parent=None, enforcement="enforcing", include=[], exclude=[made["claim"]])
    contexts = await rows(mcp, "contexts", tracked)
    assert contexts == [
        {"id": "default", "name": "default", "parent": None, "enforcement": "greenhouse", "visibleClaims": 2,
         "errors": []},
        {"id": "draft-room", "name": "Draft room", "parent": "default", "enforcement": "enforcing",
         "visibleClaims": 1, "errors": []},
    ]
    # Over MCP there is no way to change them.
    for action in ("claim_add", "add_claim", "context_save"):
        text = await raw_error(mcp, "coherence", {"action": action, "workspace_root": str(tracked)})
        assert text.startswith(f"coherence: unknown action {action!r}")


# --- edges ---------------------------------------------------------------------------------------
@pytest.mark.legacy_protocol
async def test_a_write_pins_what_the_agent_read_and_an_outside_edit_makes_it_stale(
    mcp: Client, tracked: Path
) -> None:
    await derive(mcp, tracked)
    assert await edges(mcp, tracked) == []  # fresh edges are left out
    (tracked / "a.md").write_text((tracked / "a.md").read_text() + "\nalpha moved\n")
    found = await edges(mcp, tracked)
    assert len(found) == 1
    row = found[0]
    assert list(row) == ["txf", "input", "upstream", "upstream_path", "pinned", "downstream", "downstream_path",
                         "downstream_rev", "state"]
    assert row["input"] == 0 and row["state"] == "version-stale"
    assert (row["upstream_path"], row["downstream_path"]) == ("a.md", "b.md")
    assert UUID.match(row["txf"]) and UUID.match(row["upstream"]) and UUID.match(row["downstream"])
    assert REV1.match(row["pinned"]) and REV1.match(row["downstream_rev"])
    status = await ok(mcp, "coherence", "status", workspace_root=str(tracked))
    assert status["open_items"] == 1
    records = ledger_records(tracked)
    txf = next(r for r in records if r["id"] == row["txf"])
    assert txf["body"]["tool"] == "document.write"
    assert txf["body"]["agent"] == {"kind": "agent", "principal": None}
    assert txf["body"]["inputs"] == [
        {"object": row["upstream"], "rev": row["pinned"], "path": "a.md", "provenance": "inferred"}
    ]
    external = [r for r in records if r["kind"] == "revision" and r["body"]["cause"] == "external"]
    assert [r["body"]["path"] for r in external] == ["a.md"]
    # The downstream's text on disk is the agent's, with its identity; edges changed no document.
    assert (tracked / "b.md").read_text().endswith("---\n# B\n\nfrom alpha\n")


async def test_a_second_write_without_reads_keeps_the_edge(mcp: Client, tracked: Path) -> None:
    await derive(mcp, tracked)
    down = await open_tab(mcp, tracked / "b.md")
    await ok(mcp, "document", "write", tabId=down, content="# B\n\nfrom alpha, polished\n", save=True)
    (tracked / "a.md").write_text("# A\n\nalpha moved\n")
    found = await edges(mcp, tracked)
    assert [(r["upstream_path"], r["downstream_path"], r["state"]) for r in found] == [
        ("a.md", "b.md", "version-stale")
    ]


async def test_edges_work_with_no_window_focused(vmark: RunningApp, tracked: Path) -> None:
    async with make_client(vmark.data_dir) as agent:
        await derive(agent, tracked)
    (tracked / "a.md").write_text("# A\n\nchanged outside\n")
    async with make_client(vmark.data_dir) as other:
        found = await edges(other, tracked)
    assert [r["state"] for r in found] == ["version-stale"]


async def test_timeout_is_a_plain_string_saying_whether_a_write_may_run(
    mcp: Client, tracked: Path, person: UIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("vmark.app.coherence.COHERENCE_TIMEOUT_SECONDS", 0.3)
    monkeypatch.setattr("vmark.app.handlers.coherence.COHERENCE_TIMEOUT_SECONDS", 0.3)
    await person.call("test.fault", coherence_delay=1.0)
    text = await fail(mcp, "coherence", "status", workspace_root=str(tracked))
    assert text == "TIMEOUT: coherence.status did not finish within 0 s; nothing was written. Retry later"
    text = await fail(mcp, "coherence", "edges", workspace_root=str(tracked))
    assert isinstance(text, str) and text.startswith("TIMEOUT: coherence.edges did not finish within 0 s and may")
    assert "may still be running" in text
    await person.call("test.fault", coherence_delay=0.0)


# --- resolve -------------------------------------------------------------------------------------
async def test_resolve_is_refused_without_a_delegation(mcp: Client, alice: Client, tracked: Path) -> None:
    row = await stale_edge(mcp, tracked)
    before = ledger_records(tracked)
    for agent, who in ((mcp, "this anonymous connection (it has no client token)"), (alice, "principal 'alice'")):
        envelope = await fail_code(agent, "coherence_resolve", "resolve", workspace_root=str(tracked),
                                   txf=row["txf"], input=0, resolution="accept-newer")
        assert envelope["error"] == "APPROVAL_REQUIRED"
        assert envelope["message"].startswith(f"No live delegation lets {who} accept-newer edges in {tracked}")
        assert "vmark delegations grant --principal" in envelope["message"]
    assert ledger_records(tracked) == before
    assert [r["state"] for r in await edges(mcp, tracked)] == ["version-stale"]


@pytest.mark.parametrize("grant", ["expired", "wrong-scope", "revoked", "other-principal", "other-workspace"])
async def test_resolve_is_refused_with_a_grant_that_does_not_cover_it(
    alice: Client, vmark: RunningApp, tracked: Path, tmp_path: Path, grant: str
) -> None:
    row = await stale_edge(alice, tracked)
    store = vmark.app.coherence.delegations
    if grant == "expired":
        store.grant("alice", ["accept-newer"], seconds=60, now=0.0)
    elif grant == "wrong-scope":
        store.grant("alice", ["waive"])
    elif grant == "revoked":
        store.revoke(store.grant("alice", ["accept-newer"]).id)
    elif grant == "other-principal":
        store.grant("bob", ["accept-newer", "waive"])
    else:
        (tmp_path / "elsewhere").mkdir()
        store.grant("alice", ["accept-newer"], workspace=str(tmp_path / "elsewhere"))
    before = ledger_records(tracked)
    envelope = await fail_code(alice, "coherence_resolve", "resolve", workspace_root=str(tracked),
                               txf=row["txf"], input=0, resolution="accept-newer")
    assert envelope["error"] == "APPROVAL_REQUIRED"
    assert ledger_records(tracked) == before


async def test_delegated_accept_newer_is_recorded_with_the_grant(
    alice: Client, vmark: RunningApp, tracked: Path
) -> None:
    row = await stale_edge(alice, tracked)
    grant = vmark.app.coherence.delegations.grant("alice", ["accept-newer"])
    result = await ok(alice, "coherence_resolve", "resolve", workspace_root=str(tracked), txf=row["txf"],
                      input=0, resolution="accept-newer")
    assert result["state"] == "ratified" and result["grant"] == grant.id and result["durable"] is True
    assert (result["txf"], result["input"], result["resolution"]) == (row["txf"], 0, "accept-newer")
    assert await edges(alice, tracked) == []
    audit = [r for r in ledger_records(tracked) if r["kind"] == "ratify"]
    assert len(audit) == 1 and audit[0]["id"] == result["entry"]
    assert audit[0]["body"]["by"] == {"kind": "agent", "principal": "alice"}
    assert audit[0]["body"]["grant"] == grant.id
    entries = [e for e in await vmark.app.journal.entries() if e["tool"] == "coherence_resolve"]
    assert [(e["principal"], e["file"]) for e in entries] == [("alice", str(tracked / "b.md"))]
    # The edge is fresh now: resolving it again is STALE, and nothing is appended.
    before = ledger_records(tracked)
    envelope = await fail_code(alice, "coherence_resolve", "resolve", workspace_root=str(tracked),
                               txf=row["txf"], input=0, resolution="accept-newer")
    assert envelope["error"] == "STALE" and envelope["state"] == "ratified"
    assert ledger_records(tracked) == before


async def test_delegated_waiver_never_expires(alice: Client, vmark: RunningApp, tracked: Path) -> None:
    row = await stale_edge(alice, tracked)
    vmark.app.coherence.delegations.grant("alice", ["waive"])
    result = await ok(alice, "coherence_resolve", "resolve", workspace_root=str(tracked), txf=row["txf"],
                      input=0, resolution="waive", reason="the height does not matter in chapter 3")
    assert result["state"] == "waived"
    assert [r["state"] for r in await edges(alice, tracked)] == ["waived"]
    waiver = next(r for r in ledger_records(tracked) if r["kind"] == "waive")
    assert waiver["body"]["expires"] is None
    assert waiver["body"]["reason"] == "the height does not matter in chapter 3"


async def test_unknown_edges_are_argument_errors(alice: Client, vmark: RunningApp, tracked: Path) -> None:
    row = await stale_edge(alice, tracked)
    vmark.app.coherence.delegations.grant("alice", ["accept-newer"])
    text = await fail(alice, "coherence_resolve", "resolve", workspace_root=str(tracked), txf="nope", input=0,
                      resolution="accept-newer")
    assert text == "no transformation 'nope' in this workspace's ledger"
    text = await fail(alice, "coherence_resolve", "resolve", workspace_root=str(tracked), txf=row["txf"],
                      input=3, resolution="accept-newer")
    assert text == f"transformation {row['txf']!r} has no input 3"


async def test_resolve_waits_its_turn_then_write_busy(alice: Client, vmark: RunningApp, tracked: Path) -> None:
    row = await stale_edge(alice, tracked)
    vmark.app.coherence.delegations.grant("alice", ["accept-newer"])
    async with vmark.app.coherence.turn(vmark.app.coherence.kernel(str(tracked))):  # another resolution's turn
        text = await fail(alice, "coherence_resolve", "resolve", workspace_root=str(tracked), txf=row["txf"],
                          input=0, resolution="accept-newer")
    assert text == "WRITE_BUSY: waited 3 s behind another write; not executed, retry"
    assert [r["state"] for r in await edges(alice, tracked)] == ["version-stale"]


# --- recording through the app ------------------------------------------------------------------
async def test_the_persons_save_is_recorded_and_keeps_the_identity(
    mcp: Client, tracked: Path, person: UIClient
) -> None:
    opened = await person.call("ui.open", path=str(tracked / "notes" / "c.md"))
    tab = opened["tabId"]
    text = (tracked / "notes" / "c.md").read_text()
    assert text == "# C\n"  # tracked by its path until VMark saves it
    objects = {r["body"]["path"]: r["body"]["object"] for r in ledger_records(tracked) if r["kind"] == "object"}
    await person.edit(tab, text + "\nthe person wrote this\n")
    await person.call("ui.save", tabId=tab)
    on_disk = (tracked / "notes" / "c.md").read_text()
    assert on_disk == f"---\nvmark: {{id: {objects['notes/c.md']}}}\n---\n" + text + "\nthe person wrote this\n"
    # A second save keeps it (the text the tab sends has none: the file's is not content).
    await person.edit(tab, text + "\nthe person wrote this\n\nand more\n")
    await person.call("ui.save", tabId=tab)
    assert (tracked / "notes" / "c.md").read_text() == on_disk + "\nand more\n"
    saves = [r for r in ledger_records(tracked) if r["kind"] == "txf" and r["body"]["tool"] == "save"]
    assert [r["body"]["agent"] for r in saves] == [{"kind": "person", "principal": None}] * 2
    # The tab shows no identity change as a divergence or a reload.
    state = await person.call("ui.state")
    assert not any(t.get("divergent") for w in state["windows"] for t in w["tabs"])


async def test_tracking_on_and_edges_write_no_document_and_unsaved_typing_sees_no_change(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab = (await person.call("ui.open", path=str(opened / "a.md")))["tabId"]
    await person.edit(tab, "# A\n\nalpha, typed and not saved\n")
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in opened.rglob("*") if p.is_file()}
    await person.call("coherence.init", workspaceRoot=str(opened))
    await edges(mcp, opened)
    await ok(mcp, "coherence", "status", workspace_root=str(opened))
    await person.call("coherence.overview", workspaceRoot=str(opened))
    after = {
        p: (p.read_bytes(), p.stat().st_mtime_ns) for p in opened.rglob("*") if p.is_file() and ".vmark" not in p.parts
    }
    assert after == before
    await disk_checked(vmark)
    state = await person.call("ui.state")
    (shown,) = [t for w in state["windows"] for t in w["tabs"] if t["id"] == tab]
    assert shown["dirty"] and not shown.get("divergent")


async def test_add_identities_is_the_persons_visible_action(opened: Path, person: UIClient, vmark: RunningApp) -> None:
    await person.call("coherence.init", workspaceRoot=str(opened))
    dirty = (await person.call("ui.open", path=str(opened / "a.md")))["tabId"]
    await person.edit(dirty, "# A\n\nalpha, typed and not saved\n")
    clean = (await person.call("ui.open", path=str(opened / "b.md")))["tabId"]
    objects = {r["body"]["path"]: r["body"]["object"] for r in ledger_records(opened) if r["kind"] == "object"}
    count = len(ledger_records(opened))
    done = await person.call("coherence.add_identities", workspaceRoot=str(opened))
    assert done == {"added": ["b.md", "notes/c.md", "readme.txt"], "skipped": ["a.md"]}
    assert (opened / "a.md").read_text() == "# A\n\nalpha\n"  # open with unsaved typing: left for its save
    assert (opened / "b.md").read_text() == f"---\nvmark: {{id: {objects['b.md']}}}\n---\n# B\n\nbeta\n"
    assert (opened / "notes" / "c.md").read_text() == f"---\nvmark: {{id: {objects['notes/c.md']}}}\n---\n# C\n"
    assert len(ledger_records(opened)) == count  # not a content change
    await disk_checked(vmark)
    state = await person.call("ui.state")
    tabs = {t["id"]: t for w in state["windows"] for t in w["tabs"]}
    assert not tabs[dirty].get("divergent") and tabs[dirty]["dirty"]
    assert not tabs[clean].get("divergent") and not tabs[clean]["dirty"]
    await person.call("ui.save", tabId=dirty)
    identity = f"---\nvmark: {{id: {objects['a.md']}}}\n---\n"
    assert (opened / "a.md").read_text() == identity + "# A\n\nalpha, typed and not saved\n"
    done = await person.call("coherence.add_identities", workspaceRoot=str(opened))
    assert done == {"added": [], "skipped": []}


_SLOW_CHECKER = """
import json, os, sys, time
sys.stdin.read()
open(os.environ["VMARK_TEST_STARTED"], "w").close()
deadline = time.monotonic() + 10
while time.monotonic() < deadline and not os.path.exists(os.environ["VMARK_TEST_RELEASE"]):
    time.sleep(0.05)
print(json.dumps({"verdict": "valid"}))
"""


async def test_a_ten_second_check_stalls_no_save_and_no_write(
    alice: Client, vmark: RunningApp, tracked: Path, person: UIClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await derive(alice, tracked)
    (tracked / "a.md").write_text((tracked / "a.md").read_text() + "\nalpha moved\n")
    started, release = tmp_path / "check-started", tmp_path / "check-release"
    monkeypatch.setenv("VMARK_TEST_STARTED", str(started))
    monkeypatch.setenv("VMARK_TEST_RELEASE", str(release))
    script = tmp_path / "slow_checker.py"
    script.write_text(_SLOW_CHECKER)
    vmark.app.settings.set("coherence.checker", "command")
    vmark.app.settings.set("coherence.checker_command", [sys.executable, str(script)])
    vmark.app.settings.set("coherence.checker_timeout_s", 30)
    checking = asyncio.ensure_future(edges(alice, tracked))
    try:
        for _ in range(200):
            if started.exists():
                break
            await asyncio.sleep(0.05)
        assert started.exists(), "the checker did not start"
        # The person saves another document while the check runs ...
        tab = (await person.call("ui.open", path=str(tracked / "notes" / "c.md")))["tabId"]
        await person.edit(tab, "# C\n\nsaved during a check\n")
        begun = time.monotonic()
        await person.call("ui.save", tabId=tab)
        saved_in = time.monotonic() - begun
        # ... and an agent writes (and saves) one, through the official MCP client.
        async with make_client(vmark.data_dir) as writer:
            down = await open_tab(writer, tracked / "b.md")
            begun = time.monotonic()
            written = await ok(writer, "document", "write", tabId=down, content="# B\n\nwritten during a check\n",
                               save=True)
            wrote_in = time.monotonic() - begun
        assert not checking.done() and not release.exists()  # both answered before the check ended
        assert written["saved"] is True
        assert "saved during a check" in (tracked / "notes" / "c.md").read_text()
        assert "written during a check" in (tracked / "b.md").read_text()
        assert saved_in < 5 and wrote_in < 5, (saved_in, wrote_in)  # generous: the check holds them not at all
    finally:
        release.touch()
    rows_after = await checking
    # The verdict was for the b.md the check read; the write moved it on, so it no longer applies ...
    assert [r["state"] for r in rows_after] == ["version-stale"]
    checks = [r["body"] for r in ledger_records(tracked) if r["kind"] == "check"]
    assert [c["verdict"] for c in checks] == ["valid"]
    assert checks[0]["downstream_rev"] != rows_after[0]["downstream_rev"]
    # ... and the next call checks the new one.
    assert [r["state"] for r in await edges(alice, tracked)] == ["stale-valid"]


async def test_an_untracked_new_file_gets_an_identity_when_saved(
    mcp: Client, tracked: Path, vmark: RunningApp
) -> None:
    vmark.app.settings.set("auto_approve_save_as", True)
    tab = (await ok(mcp, "workspace", "new"))["tabId"]
    await ok(mcp, "document", "write", tabId=tab, content="# New\n")
    await ok(mcp, "workspace", "save_as", tabId=tab, filePath=str(tracked / "new.md"))
    text = (tracked / "new.md").read_text()
    assert re.fullmatch(r"---\nvmark: \{id: [0-9a-f-]{36}\}\n---\n# New\n", text), text
    objects = [r["body"]["path"] for r in ledger_records(tracked) if r["kind"] == "object"]
    assert objects.count("new.md") == 1


async def test_reads_count_per_connection_and_every_write_tool_records(
    mcp: Client, alice: Client, tracked: Path
) -> None:
    up = await open_tab(alice, tracked / "a.md")
    await ok(alice, "document", "read", tabId=up)  # alice's read is not mcp's input
    down = await open_tab(mcp, tracked / "b.md")
    await ok(mcp, "document", "write", tabId=down, content="# B\n\n中文English\n")
    await ok(mcp, "document", "transform", tabId=down, kind="cjk-spacing")
    assert (await ok(mcp, "document", "read", tabId=down))["content"] == "# B\n\n中文 English\n"
    txfs = [r["body"] for r in ledger_records(tracked) if r["kind"] == "txf"]
    assert [(t["tool"], t["inputs"], t["agent"]) for t in txfs] == [
        ("document.write", [], {"kind": "agent", "principal": None}),
        ("document.transform", [], {"kind": "agent", "principal": None}),
    ]
    await ok(alice, "document", "write", tabId=down, content="# B\n\nfrom alice\n")
    txfs = [r["body"] for r in ledger_records(tracked) if r["kind"] == "txf"]
    assert txfs[-1]["agent"] == {"kind": "agent", "principal": "alice"}
    assert [i["path"] for i in txfs[-1]["inputs"]] == ["a.md"]
    # Reads are spent by the write: the next write has no inputs.
    await ok(alice, "document", "write", tabId=down, content="# B\n\nfrom alice, again\n")
    assert [r["body"]["inputs"] for r in ledger_records(tracked) if r["kind"] == "txf"][-1] == []
