"""``document.read`` and ``document.write``: fields, revisions, saving, line endings, journal, history."""

from __future__ import annotations

import itertools
import re
import shutil
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import fail_code, ok
from tests.contract.helpers import (
    REVISION,
    background,
    get_state,
    history,
    journal,
    open_tab,
    person_open,
    tab_of,
    wait_until,
)
from vmark.app.server import RunningApp
from vmark.core.document import content_hash
from vmark.testing.uiclient import UIClient

A_TEXT = "# A\n\nalpha\n"
WRITE_FIELDS = {"revision", "applied", "durable"}


# --- read ---------------------------------------------------------------------------------------
@pytest.mark.legacy_protocol
async def test_read_returns_the_reference_fields(mcp: Client, opened: Path, person: UIClient) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    read = await ok(mcp, "document", "read", tabId=tab)
    assert read == {
        "content": A_TEXT,
        "revision": tab_of(await get_state(mcp), tab)["revision"],
        "filePath": str(opened / "a.md"),
        "kind": "markdown",
        "dirty": False,
        "totalLength": len(A_TEXT),
    }
    assert re.fullmatch(REVISION, read["revision"])
    workflow = await open_tab(mcp, opened / ".github/workflows/ci.yml")
    revision = await person.edit(workflow, "name: ci # edited\non: push\njobs: {}\n")
    assert await ok(mcp, "document", "read", tabId=workflow) == {
        "content": "name: ci # edited\non: push\njobs: {}\n",
        "revision": revision,
        "filePath": str(opened / ".github/workflows/ci.yml"),
        "kind": "yaml-workflow",
        "dirty": True,
        "totalLength": len("name: ci # edited\non: push\njobs: {}\n"),
    }


async def test_read_and_write_default_to_the_routed_tab(mcp: Client) -> None:
    for args in ({}, {"tabId": "tab-doesnotexist"}):
        assert (await fail_code(mcp, "document", "read", **args))["error"] == "INVALID_TAB"
    tab = (await ok(mcp, "workspace", "new"))["tabId"]
    read = await ok(mcp, "document", "read")
    assert set(read) == {"content", "revision", "filePath", "kind", "dirty", "totalLength"}
    assert (read["content"], read["filePath"], read["kind"]) == ("", None, "markdown")
    assert read["revision"] == tab_of(await get_state(mcp), tab)["revision"]
    written = await ok(mcp, "document", "write", content="# draft\n")  # untitled: nothing to save to
    assert written == {
        "revision": written["revision"],
        "applied": True,
        "durable": True,
        "saved": False,
        "save_skipped": "untitled",
    }
    read = await ok(mcp, "document", "read", tabId=tab)
    assert (read["content"], read["revision"]) == ("# draft\n", written["revision"])


# --- write -----------------------------------------------------------------------------------------
async def test_write_saves_journals_and_snapshots(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    before = await ok(mcp, "document", "read", tabId=tab)
    text = "# Ä\n\nnew — 日本語 😀\n"
    result = await ok(
        mcp, "document", "write", tabId=tab, content=text, expected_revision=before["revision"], addresses=[]
    )
    assert result == {
        "revision": result["revision"],
        "applied": True,
        "durable": True,
        "saved": True,
        "journaled": "yes",
    }
    assert re.fullmatch(REVISION, result["revision"]) and result["revision"] != before["revision"]
    assert (opened / "a.md").read_bytes() == text.encode("utf-8")
    after = await ok(mcp, "document", "read", tabId=tab)
    assert after == {**before, "content": text, "revision": result["revision"], "totalLength": len(text)}
    [entry] = await journal(vmark)
    assert (entry["tool"], entry["tab"], entry["file"], entry["state"]) == (
        "document.write",
        tab,
        str(opened / "a.md"),
        "recorded",
    )
    assert (entry["rev_before"], entry["rev_after"]) == (before["revision"], result["revision"])
    assert (entry["hash_before"], entry["hash_after"]) == (content_hash(A_TEXT), content_hash(text))
    assert bytes(entry["before_text"]).decode("utf-8") == A_TEXT
    # The agent opened the file: its text on disk is the history's first entry, the "before" of the write.
    disk, snap = await history(person, tab)
    assert (disk["kind"], disk["revision"], disk["content"], disk["actor"]) == (
        "disk",
        before["revision"],
        A_TEXT,
        {"kind": "disk"},
    )
    assert (snap["kind"], snap["label"], snap["revision"], snap["content"], snap["actor"]) == (
        "mcp",
        "(mcp)",
        result["revision"],
        text,
        {"kind": "agent", "principal": "anonymous", "tool": "document.write"},
    )


async def test_write_with_a_stale_revision_changes_nothing(mcp: Client, opened: Path, person: UIClient) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    old = (await ok(mcp, "document", "read", tabId=tab))["revision"]
    current = await person.edit(tab, "# the person's text\n")
    stale = await fail_code(mcp, "document", "write", tabId=tab, content="# mine\n", expected_revision=old)
    assert stale == {"error": "STALE", "message": stale["message"], "current_revision": current}
    read = await ok(mcp, "document", "read", tabId=tab)
    assert (read["content"], read["revision"]) == ("# the person's text\n", current)
    assert (opened / "a.md").read_text("utf-8") == A_TEXT
    fresh = await ok(mcp, "document", "write", tabId=tab, content="# mine\n", expected_revision=current)
    assert fresh["saved"] is True and (opened / "a.md").read_bytes() == b"# mine\n"


async def test_write_without_save(mcp: Client, opened: Path, person: UIClient, vmark: RunningApp) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    result = await ok(mcp, "document", "write", tabId=tab, content="# only in the tab\n", save=False)
    assert result == {
        "revision": result["revision"],
        "applied": True,
        "durable": True,
        "saved": False,
        "save_skipped": "opt_out",
    }
    assert (opened / "a.md").read_text("utf-8") == A_TEXT
    described = tab_of(await get_state(mcp), tab)
    assert (described["dirty"], described["revision"]) == (True, result["revision"])
    # Every AI revision is a history entry, saved or not (after the text on disk it changed).
    entries = [(s["kind"], s["revision"], s["content"]) for s in await history(person, tab)]
    assert entries == [("disk", entries[0][1], A_TEXT), ("mcp", result["revision"], "# only in the tab\n")]
    assert [e["rev_after"] for e in await journal(vmark)] == [result["revision"]]  # journaled all the same
    saved = await ok(mcp, "workspace", "save", tabId=tab)
    assert saved["revision"] == result["revision"]
    assert (opened / "a.md").read_bytes() == b"# only in the tab\n"
    assert [(s["kind"], s["revision"]) for s in await history(person, tab)] == [e[:2] for e in entries]  # one entry


async def test_write_when_saving_fails(mcp: Client, opened: Path) -> None:
    tab = await open_tab(mcp, opened / "notes" / "c.md")
    shutil.rmtree(opened / "notes")  # as root, permissions would not stop the save: remove the directory
    result = await ok(mcp, "document", "write", tabId=tab, content="# nowhere to go\n")
    assert set(result) == {*WRITE_FIELDS, "saved", "save_error"}
    assert (result["applied"], result["saved"]) == (True, False)
    assert isinstance(result["save_error"], str) and result["save_error"]
    read = await ok(mcp, "document", "read", tabId=tab)
    assert (read["content"], read["revision"], read["dirty"]) == ("# nowhere to go\n", result["revision"], True)
    assert not (opened / "notes").exists()


async def test_write_whose_tab_closes_before_the_save(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    await person.call("test.fault", save_delay=0.5)
    pending = background(ok(mcp, "document", "write", tabId=tab, content="# written, never saved\n"))
    await wait_until(lambda: vmark.app.hooks.save_delay.seconds == 0, "the write to reach its save")
    assert (await person.call("ui.close", tabId=tab, force=True))["closed"] is True
    result = await pending
    assert (result["applied"], result["saved"]) == (True, False)
    assert "closed" in result["save_error"]
    assert (opened / "a.md").read_text("utf-8") == A_TEXT


async def test_line_endings(mcp: Client, opened: Path) -> None:
    (opened / "crlf.md").write_bytes(b"# CRLF\r\n\r\nold\r\n")
    crlf = await open_tab(mcp, opened / "crlf.md")
    await ok(mcp, "document", "write", tabId=crlf, content="# CRLF\n\nnew\nlines\n")
    assert (opened / "crlf.md").read_bytes() == b"# CRLF\r\n\r\nnew\r\nlines\r\n"
    lf = await open_tab(mcp, opened / "a.md")
    await ok(mcp, "document", "write", tabId=lf, content="# LF\r\n\r\nmixed\rlines\n")
    assert (opened / "a.md").read_bytes() == b"# LF\n\nmixed\nlines\n"
    workflow = await open_tab(mcp, opened / ".github/workflows/ci.yml")
    verbatim = "name: ci # keep\r\non: push\njobs:\r\n  build: {}\n"
    await ok(mcp, "document", "write", tabId=workflow, content=verbatim)
    assert (opened / ".github/workflows/ci.yml").read_bytes() == verbatim.encode()
    assert (await ok(mcp, "document", "read", tabId=workflow))["content"] == verbatim


async def test_every_write_gets_a_fresh_revision(mcp: Client, opened: Path, vmark: RunningApp) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    revisions = [(await ok(mcp, "document", "read", tabId=tab))["revision"]]
    for content in ("A\n", "B\n", "A\n"):
        result = await ok(mcp, "document", "write", tabId=tab, content=content, expected_revision=revisions[-1])
        revisions.append(result["revision"])
        assert (opened / "a.md").read_text("utf-8") == content
    assert len(set(revisions)) == 4, revisions
    assert all(re.fullmatch(REVISION, r) for r in revisions)
    entries = await journal(vmark)
    assert [(e["rev_before"], e["rev_after"]) for e in entries] == list(itertools.pairwise(revisions))


async def test_every_ai_save_is_an_mcp_snapshot(mcp: Client, opened: Path, person: UIClient, vmark: RunningApp) -> None:
    vmark.app.settings.set("auto_approve_save_as", True)
    tab = await open_tab(mcp, opened / "a.md")
    first = await ok(mcp, "document", "write", tabId=tab, content="one\n")
    second = await ok(mcp, "document", "write", tabId=tab, content="one\n")  # same text: still its own snapshot
    await person.edit(tab, "three\n")
    await person.call("ui.save", tabId=tab)
    fourth = await person.edit(tab, "four\n")
    await ok(mcp, "workspace", "save", tabId=tab)
    snaps = await history(person, tab)
    assert [(s["kind"], s["label"], s["content"]) for s in snaps] == [
        ("disk", "", A_TEXT),
        ("mcp", "(mcp)", "one\n"),
        ("mcp", "(mcp)", "one\n"),
        ("manual", "", "three\n"),
        ("mcp", "(mcp)", "four\n"),
    ]
    assert [s["revision"] for s in snaps[1:]] == [first["revision"], second["revision"], snaps[3]["revision"], fourth]
    assert snaps[4]["actor"] == {"kind": "agent", "principal": "anonymous", "tool": "workspace.save"}
    # save_as starts the new file's history with an (mcp) snapshot.
    await ok(mcp, "workspace", "save_as", tabId=tab, filePath=str(opened / "five.md"))
    assert [(s["kind"], s["path"], s["content"]) for s in await history(person, tab)] == [
        ("mcp", str(opened / "five.md"), "four\n")
    ]


async def test_a_shared_document_is_one_document(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    """Two tabs on one file (here: the person's and a symlinked path) see the same text and revision."""
    (opened / "alias.md").symlink_to(opened / "a.md")
    mine = await person_open(person, opened / "a.md")
    theirs = await open_tab(mcp, opened / "alias.md")
    assert theirs == mine  # the canonical file is already open in this window
    result = await ok(mcp, "document", "write", tabId=theirs, content="# shared\n")
    assert tab_of(await get_state(mcp), mine)["revision"] == result["revision"]
    assert (opened / "a.md").read_bytes() == b"# shared\n" and (opened / "alias.md").is_symlink()
