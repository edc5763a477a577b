"""``vmark coherence`` and ``vmark delegations`` as real processes, on a real workspace."""

from __future__ import annotations

import re
from pathlib import Path

from tests.e2e.helpers import Home, cli
from vmark.coherence.kernel import Actor, Kernel, ReadPin
from vmark.storage.datadir import installation_writer

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"


def make_stale_edge(world: Home) -> None:
    """An agent derived b.md from a.md and saved it (recorded as the app does), then a.md changed on disk."""
    ws = world.workspace
    kernel = Kernel(ws, installation_writer(world.data))
    read = ReadPin(str(ws / "a.md"), (ws / "a.md").read_text())
    agent, path = Actor("agent", "alice"), str(ws / "b.md")
    kernel.record_write(path, "# B\n\nfrom alpha\n", agent, "document.write", [read])
    saved = kernel.text_to_save(path, "# B\n\nfrom alpha\n")
    (ws / "b.md").write_text(saved)
    kernel.record_save(path, saved, agent)
    (ws / "a.md").write_text((ws / "a.md").read_text() + "\nmoved\n")


async def test_init_status_edges_resolve(world: Home) -> None:
    env, ws = world.env(), str(world.workspace)
    before = await cli(env, "coherence", "status", ws, "--json")
    assert before.code == 0 and before.json()["initialized"] is False
    assert not (world.workspace / ".vmark").exists()
    done = await cli(env, "coherence", "init", ws)
    assert (done.code, done.out, done.err) == (0, f"tracking {ws}: 5 objects, 0 open items\n", "")
    status = (await cli(env, "coherence", "status", ws, "--json")).json()
    assert status["writer"] == installation_writer(world.data)
    assert (status["initialized"], status["objects"], status["open_items"]) == (True, 5, 0)

    make_stale_edge(world)
    listing = await cli(env, "coherence", "edges", ws)
    found = re.fullmatch(rf"version-stale\tb\.md <- a\.md\t({UUID}) 0\n", listing.out)
    assert found, listing.out
    txf = found.group(1)
    rows = (await cli(env, "coherence", "edges", ws, "--json")).json()
    assert [(r["txf"], r["state"]) for r in rows] == [(txf, "version-stale")]

    waived = await cli(env, "coherence", "resolve", ws, txf, "0", "--waive", "chapter keeps it", "--expires", "7d")
    assert waived.code == 0 and re.fullmatch(rf"{txf}#0\twaived\t{UUID}\n", waived.out), waived
    accepted = await cli(env, "coherence", "resolve", ws, txf, "0", "--accept-newer")
    assert accepted.code == 0 and accepted.out.split("\t")[1] == "ratified"
    assert (await cli(env, "coherence", "edges", ws)).out == ""
    everything = await cli(env, "coherence", "edges", ws, "--all")
    assert everything.out.startswith("ratified\tb.md <- a.md\t")

    again = await cli(env, "coherence", "resolve", ws, txf, "0", "--accept-newer")
    assert (again.code, again.out) == (2, "")
    assert again.err == "vmark: the edge is ratified: nothing to resolve\n"
    missing = await cli(env, "coherence", "status", str(world.root / "nope"))
    assert (missing.code, missing.err) == (2, f"vmark: {str(world.root / 'nope')!r} is not a folder\n")


async def test_claims_and_contexts(world: Home) -> None:
    env, ws = world.env(), str(world.workspace)
    assert (await cli(env, "coherence", "init", ws)).code == 0
    made = await cli(env, "coherence", "claim-add", ws, "Elena is tall", "--established")
    claim = made.out.strip()
    assert made.code == 0 and re.fullmatch(UUID, claim)
    draft = (await cli(env, "coherence", "claim-add", ws, "Elena is 30")).out.strip()
    listing = (await cli(env, "coherence", "claims", ws)).out
    assert listing == f"{claim}\testablished\tElena is tall\n{draft}\tdraft\tElena is 30\n"
    assert (await cli(env, "coherence", "claim-set", ws, draft, "--invalid-at", "2000-01-01T00:00:00Z")).code == 0
    listing = (await cli(env, "coherence", "claims", ws)).out
    assert listing == f"{claim}\testablished\tElena is tall\n{draft}\tdraft (hidden)\tElena is 30\n"
    bad = await cli(env, "coherence", "claim-set", ws, "nope", "--maturity", "draft")
    assert (bad.code, bad.err) == (2, "vmark: no claim 'nope'\n")

    made = await cli(env, "coherence", "context-set", ws, "act-two", "--name", "Act two", "--exclude", claim)
    assert made.code == 0, made.err
    orphan = await cli(env, "coherence", "context-set", ws, "orphan", "--name", "Orphan", "--parent", "ghost")
    assert orphan.code == 0, orphan.err
    lines = (await cli(env, "coherence", "contexts", ws)).out.splitlines()
    assert lines[0] == "default\tgreenhouse\t1 claims\t"
    assert lines[1] == "act-two\tgreenhouse\t0 claims\t"
    assert lines[2].startswith("orphan\tgreenhouse\t") and "ghost" in lines[2]
    assert (await cli(env, "coherence", "context-delete", ws, "orphan")).code == 0
    gone = await cli(env, "coherence", "context-delete", ws, "orphan")
    assert (gone.code, gone.err) == (2, "vmark: no context 'orphan'\n")
    reserved = await cli(env, "coherence", "context-set", ws, "default", "--name", "x")
    assert reserved.code == 2 and "not 'default'" in reserved.err


async def test_delegations_grant_list_revoke(world: Home) -> None:
    env = world.env()
    granted = await cli(env, "delegations", "grant", "--principal", "alice", "--scope", "accept-newer,waive")
    grant = granted.out.strip()
    assert granted.code == 0 and re.fullmatch(r"dlg-[0-9A-Za-z]{10}", grant)
    rows = (await cli(env, "delegations", "list", "--json")).json()
    assert [(r["id"], r["principal"], r["scope"], r["state"], r["workspace"]) for r in rows] == [
        (grant, "alice", ["accept-newer", "waive"], "live", None)
    ]
    assert abs(rows[0]["expires"] - rows[0]["created"] - 7 * 86400) < 1
    assert (await cli(env, "delegations", "revoke", grant)).code == 0
    assert (await cli(env, "delegations", "list", "--json")).json()[0]["state"] == "revoked"
    text = (await cli(env, "delegations", "list")).out
    assert text.startswith(f"{grant}\talice\taccept-newer,waive\trevoked (until ")

    for args, message in (
        (("--scope", "delete"), "scope must be one or more of ['accept-newer', 'waive']; got ['delete']"),
        (("--scope", "waive", "--expires", "forever"),
         "expiry 'forever' must be a number and a unit: 30m, 12h, 7d or 2w"),
        (
            ("--scope", "waive", "--expires", "400d"),
            "a delegation lasts between a minute and a year; none lasts forever",
        ),
        (("--scope", "waive", "--workspace", "rel/dir"), "workspace must be an absolute path"),
    ):
        refused = await cli(env, "delegations", "grant", "--principal", "alice", *args)
        assert (refused.code, refused.out, refused.err) == (2, "", f"vmark: {message}\n")
    unknown = await cli(env, "delegations", "revoke", "dlg-0000000000")
    assert (unknown.code, unknown.err) == (2, "vmark: no delegation 'dlg-0000000000'\n")
    assert len((await cli(env, "delegations", "list", "--json")).json()) == 1


def test_writer_id_is_stable(tmp_path: Path) -> None:
    first = installation_writer(tmp_path)
    assert re.fullmatch(UUID, first) and installation_writer(tmp_path) == first
