"""Save automatically (issue 18): off by default (typing leaves the document unsaved); on, a file is saved
a moment after the person stops typing.

That no save comes is shown without waiting: the page's timers run on Playwright's clock, which the test moves
past the automatic save's delay (its timer, had there been one, fired); then the app's flush round trip, whose
answer the page sends after anything that timer sent; then every frame the page sent up to that answer."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Page, expect

from tests.contract.helpers import wait_until
from tests.ui.conftest import Pages
from tests.ui.helpers import doc_of, open_folder, open_from_tree, pages_flushed, type_at_end, wait_doc_text
from tests.ui.test_change_sets import Sent
from vmark.app.server import RunningApp

A = "# A\n\nalpha\n"
#: frontend/src/sync/autosave.ts's AUTOSAVE_DELAY_MS, and then some
PAST_THE_DELAY_MS = 3_000


async def _watched(page: Page, sent: Sent) -> None:
    await page.clock.install()
    await sent.watch(page)


async def _no_save_sent(page: Page, vmark: RunningApp, sent: Sent, saves: int = 0) -> None:
    """The page's clock moves past the automatic save's delay; it sent no save (but the ``saves`` before) by the
    answer to the flush."""
    await page.clock.run_for(PAST_THE_DELAY_MS)
    mark = len(sent.frames)
    await pages_flushed(vmark)
    await wait_until(lambda: any(f["type"] == "ui.reply" for _, f in sent.since(mark)), "the page's flush answer")
    assert len([f for _, f in sent.frames if f["type"] == "ui.save"]) == saves


async def test_off_by_default_typing_stays_unsaved(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    assert vmark.app.settings.get("editor.save_automatically") is False
    sent = Sent()
    page = await pages.open(before=lambda page: _watched(page, sent))
    await open_folder(page, workspace)
    tab = await open_from_tree(page, "a.md")
    await type_at_end(page, "typed")
    await wait_doc_text(vmark, tab, A + "typed")
    await _no_save_sent(page, vmark, sent)
    assert doc_of(vmark, tab).dirty
    assert (workspace / "a.md").read_text("utf-8") == A


async def test_on_it_saves_after_typing_stops(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    sent = Sent()
    page = await pages.open(before=lambda page: _watched(page, sent))
    await page.click("#settings-open")
    switch = page.locator(".setting[data-key='editor.save_automatically'] [role=switch]")
    await switch.click()
    row = page.locator(".setting[data-key='editor.save_automatically']")
    await expect(row).to_have_attribute("data-state", "saved")
    await page.click("#settings-close")
    assert vmark.app.settings.get("editor.save_automatically") is True
    await open_folder(page, workspace)
    tab = await open_from_tree(page, "a.md")
    await type_at_end(page, "typed")
    await wait_until(lambda: (workspace / "a.md").read_text("utf-8") == A + "typed", "the automatic save")
    await wait_until(lambda: not doc_of(vmark, tab).dirty, "the tab to be clean")
    await expect(page.locator(f".tab[data-tab-id='{tab}']")).to_have_attribute("data-dirty", "false")
    # An untitled document has no file: it stays unsaved (Save as names one).
    await page.keyboard.press("Control+n")
    await page.wait_for_selector(".cm-content")
    await type_at_end(page, "draft")
    await wait_until(lambda: any(t.doc.path is None and t.doc.dirty for _, t in vmark.app.session.tabs()), "the draft")
    saves = len([f for _, f in sent.frames if f["type"] == "ui.save"])
    await _no_save_sent(page, vmark, sent, saves)
    assert await page.locator(".toast.error").count() == 0
