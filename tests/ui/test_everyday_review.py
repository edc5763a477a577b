"""The review bar says where the person is ("2 of 4") and steps through the changes in the text's order,
whatever was judged meanwhile (a judged change still says where it was: Next after an Accept is the change
after it, never one further), with the buttons, F7 / Shift+F7 and the palette alike; in both modes."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.conftest import make_client, ok
from tests.ui.conftest import ARTIFACTS, Pages
from tests.ui.everyday import open_file_in
from tests.ui.helpers import wait_doc_text
from vmark.app.server import RunningApp

TEXT = "# Steps\n\nOne is red.\n\nTwo is red.\n\nThree is red.\n\nFour is red.\n"
AGENT = "# Steps\n\nOne is blue.\n\nTwo is green.\n\nThree is gold.\n\nFour is pink.\n"
INSERTS = ".cm-review-insert, .pm-review-insert"


async def _agent_changes(vmark: RunningApp, page: Page, tab: str) -> None:
    async with make_client(vmark.data_dir, client_token=vmark.app.principals.add("alice")) as agent:
        read = await ok(agent, "document", "read", tabId=tab)
        await ok(agent, "document", "write", tabId=tab, content=AGENT, expected_revision=read["revision"])
    await expect(page.locator(INSERTS)).to_have_text(["blue", "green", "gold", "pink"])


async def _focused_change(page: Page) -> str:
    """The inserted word of the change whose "Accept change" has the focus."""
    return str(
        await page.evaluate(
            """() => {
                const id = document.activeElement?.dataset?.reviewId;
                if (!id) return 'active: ' + document.activeElement?.outerHTML?.slice(0, 200);
                const parts = [...document.querySelectorAll('.cm-review-insert, .pm-review-insert')];
                return parts.filter(e => e.dataset.reviewId === id).map(e => e.textContent).join('');
            }"""
        )
    )


@pytest.mark.parametrize("mode", ["source", "wysiwyg"])
async def test_the_bar_says_where_you_are_and_next_after_an_accept_is_the_next_change(
    pages: Pages, vmark: RunningApp, workspace: Path, mode: str
) -> None:
    page, tab = await open_file_in(pages, workspace, "steps.md", TEXT.encode(), mode)
    await _agent_changes(vmark, page, tab)
    count = page.get_by_test_id("review-count")
    await expect(count).to_have_text("4 changes")  # nowhere yet

    await page.keyboard.press("F7")
    await expect(count).to_have_text("1 of 4")
    assert await _focused_change(page) == "blue"
    await page.click("#review-next")
    await expect(count).to_have_text("2 of 4")
    assert await _focused_change(page) == "green"

    # Accept "green" with the mouse: the bar counts what is left; Next goes to "gold" (the change after the
    # judged one), and Previous from there to "blue".
    await page.get_by_role("button", name="Accept change").nth(1).click()
    await expect(page.locator(INSERTS)).to_have_text(["blue", "gold", "pink"])
    await expect(count).to_have_text("3 changes")
    await page.keyboard.press("F7")
    await expect(count).to_have_text("2 of 3")
    assert await _focused_change(page) == "gold"
    await page.keyboard.press("Shift+F7")
    await expect(count).to_have_text("1 of 3")
    assert await _focused_change(page) == "blue"

    # Accept "blue" from the keyboard: the focus goes on to the change now in its place.
    await page.keyboard.press("Enter")
    await expect(page.locator(INSERTS)).to_have_text(["gold", "pink"])
    await expect(count).to_have_text("1 of 2")
    assert await _focused_change(page) == "gold"

    # Reject "gold" with the mouse, then Previous: around to the last ("pink"), the only one left before none.
    await page.get_by_role("button", name="Reject change").first.click()
    await wait_doc_text(vmark, tab, AGENT.replace("gold", "red"))
    await expect(page.locator(INSERTS)).to_have_text(["pink"])
    await expect(count).to_have_text("1 change")
    await page.click("#review-prev")
    await expect(count).to_have_text("1 of 1")
    assert await _focused_change(page) == "pink"


async def test_the_caret_in_a_change_is_where_you_are_and_the_palette_steps_from_there(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, tab = await open_file_in(pages, workspace, "steps.md", TEXT.encode())
    await _agent_changes(vmark, page, tab)
    count = page.get_by_test_id("review-count")
    # Click into the middle of "gold" (the third change): the bar says 3 of 4.
    gold = page.locator(".cm-review-insert", has_text="gold")
    box = await gold.bounding_box()
    assert box is not None
    await page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    await expect(count).to_have_text("3 of 4")
    await page.keyboard.press("Control+Shift+P")
    await page.keyboard.type("Previous change")
    await page.keyboard.press("Enter")
    await expect(count).to_have_text("2 of 4")
    assert await _focused_change(page) == "green"
    await page.keyboard.press("Control+Shift+P")
    await page.keyboard.type("Next change")
    await page.keyboard.press("Enter")
    await expect(count).to_have_text("3 of 4")
    assert await _focused_change(page) == "gold"


@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_screenshot_of_the_review_bar(pages: Pages, vmark: RunningApp, workspace: Path, scheme: str) -> None:
    page, tab = await open_file_in(pages, workspace, "steps.md", TEXT.encode(), "wysiwyg", scheme)
    await _agent_changes(vmark, page, tab)
    await page.keyboard.press("F7")
    await page.keyboard.press("F7")
    await expect(page.get_by_test_id("review-count")).to_have_text("2 of 4")
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / f"everyday-review-bar-{scheme}.png"))
