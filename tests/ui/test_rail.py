"""The workspace rail: a window with several workspace instances shows one; the others' tabs are hidden."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import expect

from tests.conftest import make_client, ok
from tests.contract.helpers import person_open, tab_of
from tests.ui.conftest import Pages
from tests.ui.helpers import active_tab, open_folder, open_from_tree
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient, UIError


def _second_folder(tmp_path: Path) -> Path:
    other = tmp_path / "other"
    other.mkdir()
    (other / "z.md").write_text("# Z\n", encoding="utf-8")
    return other


async def test_switching_hides_the_other_instances_tabs(
    vmark: RunningApp, person: UIClient, workspace: Path, tmp_path: Path
) -> None:
    other = _second_folder(tmp_path)
    first = (await person.call("ui.open_folder", path=str(workspace)))["workspaceInstanceId"]
    a = await person_open(person, workspace / "a.md")
    second = (await person.call("ui.open_folder", path=str(other)))["workspaceInstanceId"]
    z = await person_open(person, other / "z.md")
    async with make_client(vmark.data_dir) as agent:
        state = await ok(agent, "session", "get_state")
        assert (tab_of(state, a)["visible"], tab_of(state, z)["visible"]) == (False, True)
        switched = await person.call("ui.switch_workspace", workspaceInstanceId=first)
        assert switched == {"workspaceInstanceId": first, "activeTabId": a}
        state = await ok(agent, "session", "get_state")
        main = next(w for w in state["windows"] if w["label"] == "main")
        assert main["activeWorkspaceInstanceId"] == first
        assert (tab_of(state, a)["visible"], tab_of(state, z)["visible"]) == (True, False)
        assert (tab_of(state, a)["active"], tab_of(state, z)["active"]) == (True, False)
    with pytest.raises(UIError, match="no workspace instance 'wsi-nope'"):
        await person.call("ui.switch_workspace", workspaceInstanceId="wsi-nope")
    assert vmark.app.session.windows["main"].active_workspace == first
    assert second != first


async def test_the_rail_switches_by_clicking(pages: Pages, vmark: RunningApp, workspace: Path, tmp_path: Path) -> None:
    other = _second_folder(tmp_path)
    page = await pages.open()
    await open_folder(page, workspace)
    a = await open_from_tree(page, "a.md")
    rail = page.locator("[data-testid=workspace-rail]")
    await expect(rail).to_be_hidden()  # one instance: no rail
    await open_folder(page, other)
    z = await open_from_tree(page, "z.md")
    await expect(rail.locator(".rail-item")).to_have_text(["ws", "other"])
    await expect(rail.locator(".rail-item.active")).to_have_text("other")
    await expect(page.locator(".tab")).to_have_count(1)
    await expect(page.locator(".tab .title")).to_have_text("z")
    await rail.locator(".rail-item", has_text="ws").click()
    await expect(page.locator(".tab .title")).to_have_text("a")
    await expect(page.locator(f"section.workspace[data-root='{workspace.resolve()}']")).to_be_visible()
    await expect(page.locator(f"section.workspace[data-root='{other.resolve()}']")).to_have_count(0)
    assert await active_tab(page) == a
    window = vmark.app.session.windows["main"]
    assert [window.is_visible(t) for t in window.tabs] == [True, False]
    assert window.tab(z) is not None  # hidden, still open
