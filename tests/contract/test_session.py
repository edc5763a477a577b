"""``session.get_state``: windows, tabs, focus, visibility, capabilities, and request routing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mcp import Client

import vmark
from tests.conftest import ok
from tests.contract.helpers import (
    REVISION,
    TAB_FIELDS,
    another_page,
    get_state,
    open_tab,
    person_open,
    tab_of,
    wait_until,
    window_of,
)
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient

CAPABILITIES = {"version": vmark.__version__, "supportedKinds": ["markdown", "yaml-workflow"], "mcpProtocol": "0.2.0"}


@pytest.mark.legacy_protocol
async def test_fresh_app_has_main_unfocused_without_workspace(mcp: Client) -> None:
    state = await get_state(mcp)
    assert state == {
        "windows": [{"label": "main", "focused": False, "activeWorkspaceInstanceId": None, "tabs": []}],
        "browserTabs": [],
        "capabilities": CAPABILITIES,
    }
    # Focusing a window nobody has a page for routes there, but nobody is looking at it.
    await ok(mcp, "workspace", "focus_window", windowLabel="main")
    assert window_of(await get_state(mcp), "main")["focused"] is False
    tab = (await ok(mcp, "workspace", "new"))["tabId"]
    described = tab_of(await get_state(mcp), tab)
    assert set(described) == TAB_FIELDS
    assert (described["filePath"], described["kind"], described["active"], described["visible"]) == (
        None,
        "markdown",
        True,
        True,
    )
    assert described["title"]


async def test_tabs_carry_exactly_the_reference_fields(mcp: Client, opened: Path, person: UIClient) -> None:
    shown = await person_open(person, opened / "a.md")
    workflow = await open_tab(mcp, opened / ".github/workflows/ci.yml")
    await person.edit(workflow, "name: changed\n")
    state = await get_state(mcp)
    assert set(state) == {"windows", "browserTabs", "capabilities"}
    assert state["browserTabs"] == []
    assert state["capabilities"] == CAPABILITIES
    main = window_of(state, "main")
    assert set(main) == {"label", "focused", "activeWorkspaceInstanceId", "tabs"}
    assert [t["id"] for t in main["tabs"]] == [shown, workflow]
    for tab in main["tabs"]:
        assert set(tab) == TAB_FIELDS
        assert re.fullmatch(REVISION, tab["revision"])
    a, ci = main["tabs"]
    assert {k: v for k, v in a.items() if k not in ("id", "revision")} == {
        "filePath": str(opened / "a.md"),
        "title": "a",
        "dirty": False,
        "kind": "markdown",
        "active": True,
        "visible": True,
    }
    assert {k: v for k, v in ci.items() if k not in ("id", "revision")} == {
        "filePath": str(opened / ".github/workflows/ci.yml"),
        "title": "ci",
        "dirty": True,
        "kind": "yaml-workflow",
        "active": False,
        "visible": True,
    }
    read = await ok(mcp, "document", "read", tabId=ci["id"])
    assert read["revision"] == ci["revision"]


async def test_focused_comes_from_the_page(mcp: Client, vmark: RunningApp) -> None:
    async with UIClient(vmark.data_dir) as page:
        await page.attach("main")
        assert window_of(await get_state(mcp), "main")["focused"] is False
        await page.focus()
        assert window_of(await get_state(mcp), "main")["focused"] is True
        await page.focus(focused=True, visible=False)  # a hidden page is not what the user looks at
        assert window_of(await get_state(mcp), "main")["focused"] is False
        await page.focus()
        await page.focus(focused=False)
        assert window_of(await get_state(mcp), "main")["focused"] is False
        await page.focus()
        async with another_page(vmark) as second:  # the user turns to another window
            assert second.window == "doc-1"
            await second.focus()
            state = await get_state(mcp)
            assert [w["label"] for w in state["windows"]] == ["main", "doc-1"]
            assert [w["focused"] for w in state["windows"]] == [False, True]
        await page.focus()
    # The page went away: nobody is looking at the window any more.
    await wait_until(
        lambda: not vmark.app.session.windows["main"].focused and not vmark.app.session.pages, "the page to detach"
    )
    assert window_of(await get_state(mcp), "main")["focused"] is False


async def test_visibility_follows_the_active_workspace_instance(
    mcp: Client, person: UIClient, workspace: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "o.md").write_text("# O\n", "utf-8")
    first = (await person.call("ui.open_folder", path=str(workspace)))["workspaceInstanceId"]
    in_first = await open_tab(mcp, workspace / "a.md")
    second = (await person.call("ui.open_folder", path=str(other)))["workspaceInstanceId"]
    in_second = await open_tab(mcp, other / "o.md")
    state = await get_state(mcp)
    assert window_of(state, "main")["activeWorkspaceInstanceId"] == second != first
    assert tab_of(state, in_first)["visible"] is False
    assert tab_of(state, in_second)["visible"] is True
    # Showing the first folder again flips them.
    await person.call("ui.switch_tab", tabId=in_first)
    state = await get_state(mcp)
    assert window_of(state, "main")["activeWorkspaceInstanceId"] == first
    assert tab_of(state, in_first)["visible"] is True and tab_of(state, in_first)["active"] is True
    assert tab_of(state, in_second)["visible"] is False and tab_of(state, in_second)["active"] is False


async def test_without_workspace_every_tab_is_visible(mcp: Client, person: UIClient, workspace: Path) -> None:
    a = await person_open(person, workspace / "a.md")
    b = await person_open(person, workspace / "notes/c.md")
    main = window_of(await get_state(mcp), "main")
    assert main["activeWorkspaceInstanceId"] is None
    assert [(t["id"], t["active"], t["visible"]) for t in main["tabs"]] == [(a, False, True), (b, True, True)]


async def _routed_path(client: Client) -> str:
    """Which window a request without a tabId reaches: the file of its active tab."""
    return str((await ok(client, "document", "read"))["filePath"])


async def test_requests_without_tab_go_to_the_focused_window_else_the_most_recent(
    mcp: Client, vmark: RunningApp, person: UIClient, workspace: Path
) -> None:
    in_main = await person_open(person, workspace / "a.md")
    async with another_page(vmark) as second:
        await person_open(second, workspace / "b.md")
        # Nobody focused: the most recently used window (doc-1 attached last), not main.
        assert await _routed_path(mcp) == str(workspace / "b.md")
        await person.call("ui.switch_tab", tabId=in_main)  # the person works in main
        assert await _routed_path(mcp) == str(workspace / "a.md")
        await second.focus()
        await person.call("ui.switch_tab", tabId=in_main)  # used later, but doc-1 has the focus
        assert await _routed_path(mcp) == str(workspace / "b.md")
        new_tab = (await ok(mcp, "workspace", "new"))["tabId"]
        assert new_tab in [t["id"] for t in window_of(await get_state(mcp), "doc-1")["tabs"]]
        await second.focus(focused=False)
        await person.call("ui.switch_tab", tabId=in_main)
        assert await _routed_path(mcp) == str(workspace / "a.md")
