"""The person answers an agent's ``open_workspace`` in the page's dialog."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import expect

from tests.conftest import fail_code, make_client, ok
from tests.contract.helpers import wait_until
from tests.ui.conftest import Pages
from tests.ui.helpers import active_tab, open_folder, open_from_tree, wait_editor_text
from vmark.app.server import RunningApp


async def test_enter_and_escape_deny_and_a_click_allows(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page = await pages.open()
    # Through a symlink: the dialog names the folder that would really be opened.
    link = workspace.parent / "link-to-ws"
    link.symlink_to(workspace)
    for key in ("Enter", "Escape"):
        async with make_client(vmark.data_dir) as agent:
            await ok(agent, "workspace", "open_workspace", folderPath=str(link))
            dialog = page.get_by_test_id("approval")
            await expect(dialog).to_be_visible()
            await expect(page.get_by_test_id("approval-path")).to_have_text(str(workspace.resolve()))
            await expect(page.get_by_test_id("approval-deny")).to_be_focused()
            await page.keyboard.press(key)
            await expect(dialog).to_be_hidden()
            await _answered(vmark)
            envelope = await fail_code(agent, "workspace", "open_workspace", folderPath=str(link))
            assert (envelope["error"], envelope["folderPath"]) == ("APPROVAL_REQUIRED", str(workspace.resolve()))
        assert vmark.app.session.windows["main"].workspaces == []
    async with make_client(vmark.data_dir) as agent:
        await ok(agent, "workspace", "open_workspace", folderPath=str(link))
        await page.get_by_test_id("approval-allow").click()
        await expect(page.get_by_test_id("approval")).to_be_hidden()
        await _answered(vmark)
        opened = await ok(agent, "workspace", "open_workspace", folderPath=str(link))
        real = str(workspace.resolve())
        assert (opened["opened"], opened["folderPath"], opened["windowLabel"]) == (True, real, "main")
    # The page loaded the new workspace's tree while the switch was in progress.
    await expect(page.locator("button.file[data-path='a.md']")).to_be_visible()
    assert [w.root for w in vmark.app.session.windows["main"].workspaces] == [str(workspace.resolve())]


async def _answered(vmark: RunningApp) -> None:
    """The page hides its dialog at once and sends the answer: the app has it once no prompt is pending (an
    agent asking again before that would be asked to wait for the person again: ci40)."""
    await wait_until(lambda: not vmark.app.approvals.pending_of_kind("open_workspace"), "the app to have the answer")


async def test_a_page_with_an_open_dialog_refuses_to_switch_tabs(
    pages: Pages, vmark: RunningApp, workspace: Path, tmp_path: Path
) -> None:
    page = await pages.open()
    await open_folder(page, workspace)
    first = await open_from_tree(page, "a.md")
    second = await open_from_tree(page, "b.md")
    other = tmp_path / "other"
    other.mkdir()
    async with make_client(vmark.data_dir) as agent:
        await ok(agent, "workspace", "open_workspace", folderPath=str(other))
        await expect(page.get_by_test_id("approval")).to_be_visible()
        switched = await ok(agent, "workspace", "switch_tab", tabId=first)
        assert (switched["activated"], switched["activeTabId"]) == (False, second)
        assert await active_tab(page) == second
        await page.keyboard.press("Escape")
        await expect(page.get_by_test_id("approval")).to_be_hidden()
        switched = await ok(agent, "workspace", "switch_tab", tabId=first)
        assert (switched["activated"], switched["activeTabId"]) == (True, first)
    await wait_editor_text(page, "# A\n\nalpha\n")
