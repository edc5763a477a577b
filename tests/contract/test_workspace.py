"""``workspace``: new, open, save, save_as, close, switch_tab, focus_window (open_workspace: its own file)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import fail, fail_code, ok
from tests.contract.helpers import (
    active_tab_id,
    another_page,
    background,
    get_state,
    history,
    journal,
    open_tab,
    person_open,
    tab_of,
    wait_event,
    wait_until,
    window_of,
)
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient

A_TEXT = b"# A\n\nalpha\n"
B_TEXT = b"# B\n\nbeta\n"


async def _tab_ids(client: Client, label: str = "main") -> list[str]:
    return [t["id"] for t in window_of(await get_state(client), label)["tabs"]]


async def _expect_code(client: Client, code: str, action: str, **args: object) -> dict[str, object]:
    envelope = await fail_code(client, "workspace", action, **args)
    assert envelope["error"] == code, envelope
    assert isinstance(envelope["message"], str) and envelope["message"]
    return envelope


def _allow_save_as(vmark: RunningApp) -> None:
    vmark.app.settings.set("auto_approve_save_as", True)


# --- new ------------------------------------------------------------------------------------
async def test_new_creates_an_untitled_markdown_tab(mcp: Client) -> None:
    result = await ok(mcp, "workspace", "new")
    assert set(result) == {"tabId"}
    tab = tab_of(await get_state(mcp), result["tabId"])
    assert (tab["kind"], tab["filePath"], tab["active"]) == ("markdown", None, True)
    assert await _tab_ids(mcp) == [result["tabId"]]
    read = await ok(mcp, "document", "read", tabId=result["tabId"])
    assert (read["content"], read["filePath"], read["kind"], read["dirty"]) == ("", None, "markdown", False)
    # Nothing typed yet: closing loses nothing, so it needs no force.
    assert await ok(mcp, "workspace", "close", tabId=result["tabId"]) == {"closed": True}


async def test_new_yaml_workflow_in_a_named_window(mcp: Client, vmark: RunningApp, person: UIClient) -> None:
    async with another_page(vmark) as second:
        assert second.window == "doc-1"
        await person.focus()  # the focused window is main; the label wins
        tab = (await ok(mcp, "workspace", "new", kind="yaml-workflow", windowLabel="doc-1"))["tabId"]
        assert await _tab_ids(mcp, "doc-1") == [tab]
        assert await _tab_ids(mcp, "main") == []
        assert tab_of(await get_state(mcp), tab)["kind"] == "yaml-workflow"
        other = (await ok(mcp, "workspace", "new"))["tabId"]  # no label: the focused window
        assert await _tab_ids(mcp, "main") == [other]
        assert "doc-9" in str(await fail(mcp, "workspace", "new", windowLabel="doc-9"))
        assert await _tab_ids(mcp, "main") == [other] and await _tab_ids(mcp, "doc-1") == [tab]


# --- open -------------------------------------------------------------------------------------
@pytest.mark.legacy_protocol
async def test_open_goes_into_a_background_tab(mcp: Client, opened: Path, person: UIClient) -> None:
    shown = await person_open(person, opened / "a.md")
    wsi = window_of(await get_state(mcp), "main")["activeWorkspaceInstanceId"]
    assert wsi is not None
    result = await ok(mcp, "workspace", "open", filePath=str(opened / "b.md"))
    assert result == {
        "tabId": result["tabId"],
        "workspaceInstanceId": wsi,
        "activationChanged": False,
        "workspaceSwitched": False,
    }
    state = await get_state(mcp)
    assert active_tab_id(state) == shown
    assert window_of(state, "main")["activeWorkspaceInstanceId"] == wsi
    opened_tab = tab_of(state, result["tabId"])
    assert (opened_tab["active"], opened_tab["visible"], opened_tab["title"]) == (False, True, "b")
    # Opening the same file again answers the same tab.
    again = await ok(mcp, "workspace", "open", filePath=str(opened / "notes" / ".." / "b.md"))
    assert again["tabId"] == result["tabId"] and again["activationChanged"] is False
    assert await _tab_ids(mcp) == [shown, result["tabId"]]
    read = await ok(mcp, "document", "read", tabId=result["tabId"])
    assert read["content"] == B_TEXT.decode()


async def test_open_kinds(mcp: Client, opened: Path) -> None:
    for name in ("x.markdown", "x.mdown", "x.mkd", "x.mdx"):
        (opened / name).write_text("# x\n", "utf-8")
    (opened / ".github/workflows/release.yaml").write_text("name: r\n", "utf-8")
    expected = {
        "a.md": "markdown",
        "x.markdown": "markdown",
        "x.mdown": "markdown",
        "x.mkd": "markdown",
        "x.mdx": "markdown",
        "readme.txt": "markdown",
        ".github/workflows/ci.yml": "yaml-workflow",
        ".github/workflows/release.yaml": "yaml-workflow",
    }
    for name, kind in expected.items():
        tab = await open_tab(mcp, opened / name)
        read = await ok(mcp, "document", "read", tabId=tab)
        assert (read["kind"], read["filePath"]) == (kind, str(opened / name)), name
        assert tab_of(await get_state(mcp), tab)["kind"] == kind


async def test_open_refuses_files_it_cannot_read(mcp: Client, opened: Path, tmp_path: Path) -> None:
    (opened / "binary.md").write_bytes(b"# x\x00\x01\x02")
    (opened / "latin1.md").write_bytes(b"caf\xe9\n")
    (opened / "config.yml").write_text("a: 1\n", "utf-8")  # YAML outside .github/workflows
    outside = tmp_path / "outside.md"
    outside.write_text("# out\n", "utf-8")
    refused = [
        opened / "image.png",
        opened / "binary.md",
        opened / "latin1.md",
        opened / "config.yml",
        opened / "missing.md",
        opened / "notes",
        outside,
        opened / ".." / "outside.md",
        "a.md",
        "",
    ]
    for path in refused:
        envelope = await _expect_code(mcp, "INVALID_PATH", "open", filePath=str(path))
        assert envelope["error"] == "INVALID_PATH", path
    assert await _tab_ids(mcp) == []


async def test_open_without_workspace_or_document_has_no_scope(mcp: Client, workspace: Path) -> None:
    await _expect_code(mcp, "INVALID_PATH", "open", filePath=str(workspace / "a.md"))
    assert await _tab_ids(mcp) == []


async def test_scope_includes_the_directories_of_open_documents(
    mcp: Client, vmark: RunningApp, person: UIClient, workspace: Path
) -> None:
    (workspace / "notes" / "d.md").write_text("# D\n", "utf-8")
    await person_open(person, workspace / "notes" / "c.md")
    tab = await open_tab(mcp, workspace / "notes" / "d.md")
    assert (await ok(mcp, "document", "read", tabId=tab))["content"] == "# D\n"
    # The parent directory is not in scope, and a window has its own scope.
    await _expect_code(mcp, "INVALID_PATH", "open", filePath=str(workspace / "a.md"))
    async with another_page(vmark) as second:
        assert second.window == "doc-1"
        await _expect_code(mcp, "INVALID_PATH", "open", filePath=str(workspace / "notes/d.md"), windowLabel="doc-1")
        assert await _tab_ids(mcp, "doc-1") == []


# --- save -------------------------------------------------------------------------------------
async def test_save_writes_the_tab_and_records_an_mcp_snapshot(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    revision = await person.edit(tab, "# A\n\nédité 😀\n")
    assert tab_of(await get_state(mcp), tab)["dirty"] is True
    result = await ok(mcp, "workspace", "save", tabId=tab)
    assert result == {"filePath": str(opened / "a.md"), "revision": revision, "journaled": "yes"}
    assert (opened / "a.md").read_bytes() == "# A\n\nédité 😀\n".encode()
    described = tab_of(await get_state(mcp), tab)
    assert (described["dirty"], described["revision"]) == (False, revision)
    snapshots = await history(person, tab)
    # The agent opened the file: its text on disk is the history's first entry.
    assert [(s["kind"], s["label"], s["revision"], s["content"]) for s in snapshots] == [
        ("disk", "", snapshots[0]["revision"], A_TEXT.decode()),
        ("mcp", "(mcp)", revision, "# A\n\nédité 😀\n"),
    ]
    assert snapshots[1]["actor"] == {"kind": "agent", "principal": "anonymous", "tool": "workspace.save"}
    entries = await journal(vmark)
    assert [(e["tool"], e["file"], e["rev_after"]) for e in entries] == [
        ("workspace.save", str(opened / "a.md"), revision)
    ]


async def test_save_defaults_to_the_routed_tab(mcp: Client, opened: Path, person: UIClient) -> None:
    await person_open(person, opened / "b.md")
    shown = await person_open(person, opened / "a.md")
    await person.focus()
    await person.edit(shown, "# A2\n")
    result = await ok(mcp, "workspace", "save")
    assert result["filePath"] == str(opened / "a.md")
    assert (opened / "a.md").read_bytes() == b"# A2\n"
    assert (opened / "b.md").read_bytes() == B_TEXT


async def test_save_refusals(mcp: Client, opened: Path, person: UIClient) -> None:
    untitled = (await ok(mcp, "workspace", "new"))["tabId"]
    await _expect_code(mcp, "INVALID_PATH", "save", tabId=untitled)
    await _expect_code(mcp, "INVALID_TAB", "save", tabId="tab-doesnotexist")
    locked = opened / "locked.md"
    locked.write_text("# locked\n", "utf-8")
    locked.chmod(0o444)
    tab = await open_tab(mcp, locked)
    await person.edit(tab, "# changed\n")
    await _expect_code(mcp, "READ_ONLY", "save", tabId=tab)
    assert locked.read_bytes() == b"# locked\n"
    assert [(s["kind"], s["content"]) for s in await history(person, tab)] == [("disk", "# locked\n")]  # the open


# --- save_as ----------------------------------------------------------------------------------
async def test_save_as_needs_approval_except_to_its_own_path(mcp: Client, opened: Path, person: UIClient) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    target = opened / "copy.md"
    envelope = await _expect_code(mcp, "APPROVAL_REQUIRED", "save_as", tabId=tab, filePath=str(target))
    assert envelope["filePath"] == str(target)
    notice = await wait_event(person, "notification")
    assert str(target) in notice["message"]
    assert not target.exists()
    assert tab_of(await get_state(mcp), tab)["filePath"] == str(opened / "a.md")
    # Saving back to the tab's own path is always allowed: a plain save, no notification.
    revision = await person.edit(tab, "# own\n")
    result = await ok(mcp, "workspace", "save_as", tabId=tab, filePath=str(opened / "a.md"))
    assert result == {"revision": revision, "journaled": "yes"}
    assert (opened / "a.md").read_bytes() == b"# own\n"
    assert tab_of(await get_state(mcp), tab)["dirty"] is False
    assert len(person.events_named("notification")) == 1


async def test_save_as_writes_a_new_file_when_auto_approved(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    _allow_save_as(vmark)
    tab = await open_tab(mcp, opened / "a.md")
    text = "# Moved\nzwei Zeilen – ü\n"
    revision = await person.edit(tab, text)
    target = opened / "notes" / "moved.md"
    result = await ok(mcp, "workspace", "save_as", tabId=tab, filePath=str(target))
    assert result == {"revision": revision, "journaled": "yes"}
    assert target.read_bytes() == text.encode()
    assert (opened / "a.md").read_bytes() == A_TEXT
    described = tab_of(await get_state(mcp), tab)
    assert (described["filePath"], described["title"], described["dirty"]) == (str(target), "moved", False)
    read = await ok(mcp, "document", "read", tabId=tab)
    assert (read["filePath"], read["content"]) == (str(target), text)
    assert [s["kind"] for s in await history(person, tab)] == ["mcp"]
    # The tab now saves to its new file.
    await person.edit(tab, "# again\n")
    assert (await ok(mcp, "workspace", "save", tabId=tab))["filePath"] == str(target)
    assert target.read_bytes() == b"# again\n"
    assert (opened / "a.md").read_bytes() == A_TEXT


async def test_save_as_never_replaces_another_file(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    _allow_save_as(vmark)
    tab = await open_tab(mcp, opened / "a.md")
    await person.edit(tab, "# mine\n")
    envelope = await _expect_code(mcp, "APPROVAL_REQUIRED", "save_as", tabId=tab, filePath=str(opened / "b.md"))
    assert envelope["filePath"] == str(opened / "b.md")
    assert (opened / "b.md").read_bytes() == B_TEXT
    assert tab_of(await get_state(mcp), tab)["filePath"] == str(opened / "a.md")


async def test_save_as_outside_scope_or_of_another_kind(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp, tmp_path: Path
) -> None:
    _allow_save_as(vmark)
    tab = await open_tab(mcp, opened / "a.md")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for target in (elsewhere / "x.md", opened / ".." / "x.md", opened / "x.png", "relative.md"):
        await _expect_code(mcp, "INVALID_PATH", "save_as", tabId=tab, filePath=str(target))
    assert list(elsewhere.iterdir()) == []
    assert not (tmp_path / "x.md").exists() and not (opened / "x.png").exists()
    assert tab_of(await get_state(mcp), tab)["filePath"] == str(opened / "a.md")


async def test_a_save_overtaken_by_a_later_save_is_stale(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    await person.edit(tab, "# first\n")
    await person.call("test.fault", save_delay=0.5)
    first = background(fail_code(mcp, "workspace", "save", tabId=tab))
    await wait_until(lambda: vmark.app.hooks.save_delay.seconds == 0, "the first save to take its ticket")
    revision = await person.edit(tab, "# second\n")
    assert (await ok(mcp, "workspace", "save", tabId=tab))["revision"] == revision
    stale = await first
    assert stale["error"] == "STALE"
    assert (opened / "a.md").read_bytes() == b"# second\n"
    assert tab_of(await get_state(mcp), tab)["dirty"] is False


# --- close ------------------------------------------------------------------------------------
async def test_close_outcomes(mcp: Client, opened: Path, person: UIClient) -> None:
    clean, dirty, pinned = [await open_tab(mcp, opened / name) for name in ("a.md", "b.md", "readme.txt")]
    assert await ok(mcp, "workspace", "close", tabId=clean) == {"closed": True}
    assert await _tab_ids(mcp) == [dirty, pinned]
    await _expect_code(mcp, "INVALID_TAB", "close", tabId=clean)
    await _expect_code(mcp, "INVALID_TAB", "close", tabId="tab-doesnotexist")
    # Unsaved work stays unless forced.
    await person.edit(dirty, "# unsaved\n")
    assert await ok(mcp, "workspace", "close", tabId=dirty) == {"closed": False, "reason": "DIRTY"}
    assert await ok(mcp, "workspace", "close", tabId=dirty, force=False) == {"closed": False, "reason": "DIRTY"}
    assert await _tab_ids(mcp) == [dirty, pinned]
    assert await ok(mcp, "workspace", "close", tabId=dirty, force=True) == {"closed": True}
    # A pinned tab never closes, not even with force.
    await person.call("ui.pin", tabId=pinned)
    assert await ok(mcp, "workspace", "close", tabId=pinned) == {"closed": False, "reason": "PINNED"}
    assert await ok(mcp, "workspace", "close", tabId=pinned, force=True) == {"closed": False, "reason": "PINNED"}
    assert await _tab_ids(mcp) == [pinned]
    await person.call("ui.pin", tabId=pinned, pinned=False)
    assert await ok(mcp, "workspace", "close", tabId=pinned) == {"closed": True}
    assert await _tab_ids(mcp) == []
    assert (opened / "a.md").read_bytes() == A_TEXT and (opened / "b.md").read_bytes() == B_TEXT


async def test_close_a_divergent_tab(mcp: Client, opened: Path, person: UIClient) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    await person.edit(tab, "# mine\n")
    (opened / "a.md").write_text("# changed on disk by another program\n", "utf-8")
    await wait_event(person, "divergent", lambda p: p.get("filePath") == str(opened / "a.md"))
    assert await ok(mcp, "workspace", "close", tabId=tab) == {"closed": False, "reason": "DIVERGENT"}
    assert await _tab_ids(mcp) == [tab]
    assert (await ok(mcp, "document", "read", tabId=tab))["content"] == "# mine\n"
    assert await ok(mcp, "workspace", "close", tabId=tab, force=True) == {"closed": True}


async def test_unflushed_keystrokes_count_as_unsaved(mcp: Client, opened: Path, person: UIClient) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    assert tab_of(await get_state(mcp), tab)["dirty"] is False
    person.hold_edit(tab, "# typed but not passed on\n")
    assert await ok(mcp, "workspace", "close", tabId=tab) == {"closed": False, "reason": "DIRTY"}
    assert (await ok(mcp, "document", "read", tabId=tab))["content"] == "# typed but not passed on\n"
    assert await _tab_ids(mcp) == [tab]


# --- switch_tab -----------------------------------------------------------------------------------
async def test_switch_tab_activates(mcp: Client, opened: Path, person: UIClient) -> None:
    await person_open(person, opened / "a.md")
    wsi = window_of(await get_state(mcp), "main")["activeWorkspaceInstanceId"]
    tab = await open_tab(mcp, opened / "b.md")
    result = await ok(mcp, "workspace", "switch_tab", tabId=tab)
    assert result == {"activated": True, "workspaceSwitched": False, "workspaceInstanceId": wsi, "activeTabId": tab}
    state = await get_state(mcp)
    assert active_tab_id(state) == tab and tab_of(state, tab)["visible"] is True
    await _expect_code(mcp, "INVALID_TAB", "switch_tab", tabId="tab-doesnotexist")


async def _two_workspaces(mcp: Client, person: UIClient, workspace: Path, other: Path) -> tuple[str, str, str, str]:
    """``workspace`` then ``other`` opened in main; a tab in each; ``other`` is showing."""
    other.mkdir()
    (other / "o.md").write_text("# O\n", "utf-8")
    first = (await person.call("ui.open_folder", path=str(workspace)))["workspaceInstanceId"]
    in_first = await person_open(person, workspace / "a.md")
    second = (await person.call("ui.open_folder", path=str(other)))["workspaceInstanceId"]
    in_second = await person_open(person, other / "o.md")
    state = await get_state(mcp)
    assert window_of(state, "main")["activeWorkspaceInstanceId"] == second
    assert tab_of(state, in_first)["visible"] is False
    return first, in_first, second, in_second


async def test_switch_tab_into_another_workspace_instance(
    mcp: Client, person: UIClient, workspace: Path, tmp_path: Path
) -> None:
    first, in_first, second, in_second = await _two_workspaces(mcp, person, workspace, tmp_path / "other")
    # The page does not show it (a modal, say): the answer says so, and nothing moved.
    person.refuse_activation = True
    refused = await ok(mcp, "workspace", "switch_tab", tabId=in_first)
    assert refused == {
        "activated": False,
        "workspaceSwitched": False,
        "workspaceInstanceId": first,
        "activeTabId": in_second,
    }
    state = await get_state(mcp)
    assert active_tab_id(state) == in_second
    assert window_of(state, "main")["activeWorkspaceInstanceId"] == second
    assert tab_of(state, in_first)["visible"] is False
    person.refuse_activation = False
    result = await ok(mcp, "workspace", "switch_tab", tabId=in_first)
    assert result == {
        "activated": True,
        "workspaceSwitched": True,
        "workspaceInstanceId": first,
        "activeTabId": in_first,
    }
    state = await get_state(mcp)
    assert window_of(state, "main")["activeWorkspaceInstanceId"] == first
    assert tab_of(state, in_first)["visible"] is True and tab_of(state, in_second)["visible"] is False


# --- focus_window -----------------------------------------------------------------------------------
async def test_focus_window_asks_the_page(mcp: Client, vmark: RunningApp, person: UIClient) -> None:
    async with another_page(vmark) as second:
        await second.focus()
        await ok(mcp, "workspace", "focus_window", windowLabel="main")
        state = await get_state(mcp)
        assert window_of(state, "main")["focused"] is True
        assert window_of(state, "doc-1")["focused"] is False
        assert person.events_named("focus") != []
        assert second.events_named("focus") == []
        message = await fail(mcp, "workspace", "focus_window", windowLabel="doc-7")
        assert isinstance(message, str) and "doc-7" in message
