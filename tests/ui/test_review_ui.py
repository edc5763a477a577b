"""Issue 17 in real Chromium with the official MCP client: an agent's changes shown inline in both modes
(inserted text highlighted, deleted text struck through beside it), judged one by one or all at once, the
review bar, the notice, the tab marker, two windows, History's per-version word diffs, a reload, the CLI.

The product does not save a rejection by itself (``editor.save_automatically`` is off by default): the
rejection is the person's edit, the document is dirty until the person saves (Ctrl+S).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from playwright.async_api import Browser, Page, expect

from tests.conftest import fail_code, make_client, ok
from tests.contract.helpers import wait_until
from tests.ui.conftest import Pages
from tests.ui.everyday import open_file_in
from tests.ui.helpers import doc_of, open_folder, open_from_tree, wait_doc_text, wait_editor_text
from tests.ui.test_protocol import vmark_cli
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient

TEXT = "# Plan\n\nThe first step is slow.\n\nThe second step is hard.\n\nThe third step is long.\n"
AGENT = "# Plan\n\nThe first step is quick.\n\nThe second step is easy.\n\nThe third step is short.\n"
#: the agent's text with its second change rejected: changes one and three, the original text at two
REJECTED_TWO = "# Plan\n\nThe first step is quick.\n\nThe second step is hard.\n\nThe third step is short.\n"
INSERTS = ".cm-review-insert, .pm-review-insert"


async def _page_on(pages: Pages, workspace: Path, name: str, mode: str) -> tuple[Page, str]:
    return await open_file_in(pages, workspace, name, mode=mode)


async def _inserted(page: Page) -> list[str]:
    """The highlighted inserted text of each change, in the document's order (a highlight may be split in pieces)."""
    texts: list[str] = await page.locator(INSERTS).evaluate_all(
        """els => {
            const byId = new Map();
            for (const el of els) byId.set(el.dataset.reviewId, (byId.get(el.dataset.reviewId) ?? "") + el.textContent);
            return [...byId.values()];
        }"""
    )
    return texts


async def _deleted(page: Page) -> list[str]:
    """The deleted text each change shows struck through (drawn from ``data-old``: never the editor's text)."""
    return list(await page.locator(".review-deleted").evaluate_all("els => els.map(e => e.dataset.old)"))


async def _wait_deleted(page: Page, expected: list[str]) -> None:
    async def shows() -> bool:
        return await _deleted(page) == expected

    try:
        await wait_until(shows, f"the deleted texts {expected!r}")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the page shows {await _deleted(page)!r}") from None


async def _wait_inserted(page: Page, expected: list[str]) -> None:
    async def shows() -> bool:
        return await _inserted(page) == expected

    try:
        await wait_until(shows, f"the highlights {expected!r}")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the page highlights {await _inserted(page)!r}") from None


async def _listed(vmark: RunningApp, tab: str) -> dict[str, Any]:
    """The app's review state of the tab's document (what every page and the CLI show)."""
    async with UIClient(vmark.data_dir) as person:
        await person.attach()
        listed: dict[str, Any] = await person.call("review.list", tabId=tab)
    return listed


def _agent(vmark: RunningApp, name: str = "alice") -> Client:
    return make_client(vmark.data_dir, client_token=vmark.app.principals.add(name))


async def _write(agent: Client, tab: str, content: str) -> dict[str, Any]:
    read = await ok(agent, "document", "read", tabId=tab)
    return await ok(agent, "document", "write", tabId=tab, content=content, expected_revision=read["revision"])


async def _agent_adds(
    pages: Pages, vmark: RunningApp, workspace: Path, mode: str, name: str, text: str, added: str
) -> tuple[Page, str, list[tuple[str, str]]]:
    """``name`` holding ``text`` shown in ``mode``, then an agent writes ``added``: the page, the tab, and each
    pending change as (its inserted text, what it replaced)."""
    (workspace / name).write_text(text, "utf-8")
    page, tab = await _page_on(pages, workspace, name, mode)
    async with _agent(vmark) as agent:
        await _write(agent, tab, added)
    listed = await _listed(vmark, tab)
    return page, tab, [(added[c["from"] : c["to"]], c["old"]) for c in listed["changes"]]


# --- the scenario ----------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["source", "wysiwyg"])
async def test_three_changes_reject_the_second_save_history_reload_and_cli(
    pages: Pages, vmark: RunningApp, workspace: Path, mode: str
) -> None:
    path = workspace / "plan.md"
    path.write_text(TEXT, "utf-8")
    page, tab = await _page_on(pages, workspace, "plan.md", mode)
    async with _agent(vmark) as agent:
        for old, new in (("slow", "quick"), ("hard", "easy"), ("long", "short")):  # three separate edits
            wrote = await ok(agent, "document", "edit", tabId=tab, edits=[{"old": old, "new": new}])
        assert path.read_bytes() == AGENT.encode()  # an agent's edit is saved

        # Three small changes, each the words it changed, the old words struck through beside them.
        await _wait_inserted(page, ["quick", "easy", "short"])
        await _wait_deleted(page, ["slow", "hard", "long"])
        await expect(page.get_by_role("button", name="Accept change")).to_have_count(3)
        await expect(page.get_by_role("button", name="Reject change")).to_have_count(3)
        await expect(page.get_by_test_id("review-count")).to_have_text("3 changes")
        await expect(page.get_by_test_id("review-notice")).to_have_text(
            "alice made 1 change with document.edit: review it below."  # the latest of the three
        )
        await expect(page.locator(f".tab[data-tab-id='{tab}'] .review-marker")).to_have_attribute("data-count", "3")
        await wait_editor_text(page, AGENT)  # the deleted words are widgets, never in the text

        await page.get_by_role("button", name="Reject change").nth(1).click()
        await wait_doc_text(vmark, tab, REJECTED_TWO)
        await wait_editor_text(page, REJECTED_TWO)
        await _wait_inserted(page, ["quick", "short"])
        await _wait_deleted(page, ["slow", "long"])
        await expect(page.get_by_test_id("review-count")).to_have_text("2 changes")
        await expect(page.locator(f".tab[data-tab-id='{tab}'] .review-marker")).to_have_attribute("data-count", "2")
        assert doc_of(vmark, tab).dirty
        assert path.read_bytes() == AGENT.encode()  # not saved by itself (autosave is off by default)
        # The rejection is the person's edit: an agent holding the revision it wrote is stale now.
        stale = await fail_code(
            agent, "document", "write", tabId=tab, content="x\n", expected_revision=wrote["revision"]
        )
        assert stale["error"] == "STALE"

    await page.keyboard.press("Control+s")
    await expect(page.locator(f".tab[data-tab-id='{tab}']")).to_have_attribute("data-dirty", "false")
    assert path.read_bytes() == REJECTED_TWO.encode()

    # History: each version with what it changed from the one before (never all agent edits in one), and who.
    await page.click("#history-toggle")
    items = page.locator("#history-list .snapshot")
    agent_edit = "alice · document.edit"
    await expect(items.locator(".snapshot-who")).to_have_text(
        ["you (reject)", agent_edit, agent_edit, agent_edit, "on disk"]
    )
    await expect(items.locator(".snapshot-summary")).to_have_text(
        ["+1 −1 words", "+1 −1 words", "+1 −1 words", "+1 −1 words", "16 words"]
    )
    diff = page.get_by_test_id("history-diff")
    await expect(page.locator("#history-selected")).to_have_text(
        "What this version changed from the one before (you (reject)):"  # the newest is shown first
    )
    await expect(diff.locator(".diff-word.removed")).to_have_text(["easy"])
    await expect(diff.locator(".diff-word.added")).to_have_text(["hard"])
    await expect(page.locator("#history-revert")).to_be_disabled()  # the newest version is the text shown
    for n, (old, new) in enumerate((("long", "short"), ("hard", "easy"), ("slow", "quick")), start=1):
        await items.nth(n).locator("button").click()
        await expect(diff.locator(".diff-word.removed")).to_have_text([old])
        await expect(diff.locator(".diff-word.added")).to_have_text([new])
    await items.nth(4).locator("button").click()
    await expect(page.locator("#history-selected")).to_have_text("The first version (on disk):")
    await expect(diff.locator(".diff-word.added")).to_have_text([TEXT])

    # A reload keeps what is left to review.
    await page.reload()
    await page.wait_for_selector("body[data-ready=true]")
    if mode == "wysiwyg":
        await page.wait_for_selector(".ProseMirror")
    await _wait_inserted(page, ["quick", "short"])
    await expect(page.get_by_test_id("review-count")).to_have_text("2 changes")
    await expect(page.get_by_test_id("review-notice")).to_have_text("")  # the notice was for new changes

    # The CLI sees the same changes.
    listed = await _listed(vmark, tab)
    assert [REJECTED_TWO[c["from"] : c["to"]] for c in listed["changes"]] == ["quick", "short"]
    code, out, err = await vmark_cli(vmark.data_dir, "review", "list", str(path), "--json")
    assert (code, err) == (0, "")
    assert [c["id"] for c in json.loads(out)["changes"]] == [c["id"] for c in listed["changes"]]


# --- the review bar ----------------------------------------------------------------------------------------
async def test_next_previous_by_keyboard_accept_with_enter_and_accept_all(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    path = workspace / "plan.md"
    path.write_text(TEXT, "utf-8")
    page, tab = await _page_on(pages, workspace, "plan.md", "source")
    async with _agent(vmark) as agent:
        await _write(agent, tab, AGENT)
    await _wait_inserted(page, ["quick", "easy", "short"])
    accept = page.get_by_role("button", name="Accept change")
    await page.keyboard.press("F7")
    await expect(accept.nth(0)).to_be_focused()
    await page.keyboard.press("F7")
    await expect(accept.nth(1)).to_be_focused()
    await page.keyboard.press("Shift+F7")
    await expect(accept.nth(0)).to_be_focused()
    await page.keyboard.press("Shift+F7")
    await expect(accept.nth(2)).to_be_focused()  # around to the last
    await page.keyboard.press("Enter")  # accepts "short": the text stays, its highlight goes
    await _wait_inserted(page, ["quick", "easy"])
    await expect(accept.nth(1)).to_be_focused()  # the focus stays in the review: on the change now last
    assert doc_of(vmark, tab).state.text == AGENT
    await page.keyboard.press("Escape")  # back to the text
    await expect(page.locator(".cm-content")).to_be_focused()
    # The palette knows the review's commands.
    await page.keyboard.press("Control+Shift+P")
    await page.keyboard.type("Accept all changes")
    await page.keyboard.press("Enter")
    await _wait_inserted(page, [])
    await expect(page.get_by_test_id("review-bar")).to_be_hidden()
    await expect(page.locator(f".tab[data-tab-id='{tab}'] .review-marker")).to_have_attribute("data-count", "0")
    assert (doc_of(vmark, tab).state.text, doc_of(vmark, tab).dirty) == (AGENT, False)
    assert (await _listed(vmark, tab))["changes"] == []


async def test_reject_all_restores_the_text_and_the_backlog_counts_what_is_judged(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    vmark.app.settings.set("review_backlog_limit", 1)
    path = workspace / "plan.md"
    path.write_text(TEXT, "utf-8")
    page, tab = await _page_on(pages, workspace, "plan.md", "source")
    await page.click("#history-toggle")
    count = page.get_by_test_id("history-unreviewed")
    async with _agent(vmark) as agent:
        wrote = await _write(agent, tab, AGENT)
        # One write, three changes: History counts the revision, the review bar the changes, each saying which.
        await expect(count).to_have_text("1 AI revision to review")
        await expect(page.get_by_test_id("review-count")).to_have_text("3 changes")
        await expect(count).to_have_attribute(
            "title",
            "An agent's write is one AI revision; it is reviewed once each change it made is accepted or rejected",
        )
        refused = await fail_code(
            agent, "document", "write", tabId=tab, content=TEXT, expected_revision=wrote["revision"]
        )
        assert refused["error"] == "REVIEW_BACKLOG_FULL"
        # Judging some changes is not enough: the revision waits until each of them is judged.
        await page.get_by_role("button", name="Accept change").first.click()
        await _wait_inserted(page, ["easy", "short"])
        await expect(count).to_have_text("1 AI revision to review")
        await page.click("#review-reject-all")
        await wait_doc_text(vmark, tab, AGENT.replace("easy", "hard").replace("short", "long"))
        await _wait_inserted(page, [])
        await expect(count).to_have_text("All AI revisions reviewed")
        read = await ok(agent, "document", "read", tabId=tab)
        again = await ok(agent, "document", "write", tabId=tab, content=AGENT, expected_revision=read["revision"])
        assert again["applied"] is True
    await _wait_inserted(page, ["easy", "short"])


# --- where changes are -------------------------------------------------------------------------------------
TABLE_LIST = (
    "# Data\n\n| name | value |\n|------|-------|\n| alpha | one |\n\n- first item\n- second item\n\n"
    "```python\nprint('old')\n```\n"
)
TABLE_LIST_AGENT = TABLE_LIST.replace("| one |", "| two |").replace("second item", "second entry").replace("old", "new")


@pytest.mark.parametrize("mode", ["source", "wysiwyg"])
async def test_changes_inside_a_table_cell_and_a_list_item(
    pages: Pages, vmark: RunningApp, workspace: Path, mode: str
) -> None:
    (workspace / "data.md").write_text(TABLE_LIST, "utf-8")
    page, tab = await _page_on(pages, workspace, "data.md", mode)
    async with _agent(vmark) as agent:
        await _write(agent, tab, TABLE_LIST_AGENT)
    await _wait_inserted(page, ["two", "entry", "new"])
    await _wait_deleted(page, ["one", "item", "old"])
    if mode == "wysiwyg":  # inside the cell, the item and the code the view shows, not beside them
        await expect(page.locator("td .pm-review-insert")).to_have_text("two")
        await expect(page.locator("li .pm-review-insert")).to_have_text("entry")
        await expect(page.locator("pre .pm-review-insert")).to_have_text("new")
    await page.get_by_role("button", name="Reject change").first.click()
    await wait_doc_text(vmark, tab, TABLE_LIST_AGENT.replace("| two |", "| one |"))
    await _wait_inserted(page, ["entry", "new"])


@pytest.mark.parametrize("mode", ["source", "wysiwyg"])
async def test_a_change_the_person_then_edits_across(
    pages: Pages, vmark: RunningApp, workspace: Path, mode: str
) -> None:
    """The page shows exactly the ranges the app keeps after the person's edit across a change's edge."""
    (workspace / "plan.md").write_text(TEXT, "utf-8")
    page, tab = await _page_on(pages, workspace, "plan.md", mode)
    async with _agent(vmark) as agent:
        await _write(agent, tab, AGENT)
    await _wait_inserted(page, ["quick", "easy", "short"])
    # Select from before "is " into "quick" (across the change's start) with the keyboard and type over it.
    doc = doc_of(vmark, tab)
    line = page.locator(".cm-line").nth(2) if mode == "source" else page.locator(".ProseMirror p").first
    await line.click()
    await page.keyboard.press("Home")
    for _ in range(len("The first step ")):
        await page.keyboard.press("ArrowRight")
    for _ in range(len("is qu")):
        await page.keyboard.press("Shift+ArrowRight")
    await page.keyboard.type("was sl")
    await wait_until(lambda: "was sl" in doc.state.text and doc.dirty, "the person's edit to arrive")
    edited = doc.state.text
    tail = AGENT[AGENT.index(".\n\nThe second") :]
    assert edited.startswith("# Plan\n\nThe first step was sl") and edited.endswith(tail)
    await wait_editor_text(page, edited)
    listed = await _listed(vmark, tab)
    assert listed["revision"] == doc.state.revision
    expected = [edited[c["from"] : c["to"]] for c in listed["changes"]]
    assert expected[1:] == ["easy", "short"]  # the other changes are as they were
    await _wait_inserted(page, [t for t in expected if t])


# --- everyone showing the document agrees ---------------------------------------------------------------
async def test_two_windows_on_one_document_agree(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    (workspace / "plan.md").write_text(TEXT, "utf-8")
    first, tab = await _page_on(pages, workspace, "plan.md", "source")
    second = await pages.open(window="second")
    await open_folder(second, workspace)
    other = await open_from_tree(second, "plan.md")
    await second.click("#mode-toggle")
    await second.wait_for_selector(".ProseMirror")
    async with _agent(vmark, "bob") as agent:
        await _write(agent, tab, AGENT)
    for page in (first, second):
        await _wait_inserted(page, ["quick", "easy", "short"])
        await expect(page.get_by_test_id("review-notice")).to_have_text(
            "bob made 3 changes with document.write: review them below."
        )
    await second.get_by_role("button", name="Reject change").last.click()
    expected = AGENT.replace("is short", "is long")
    await wait_editor_text(first, expected)
    for page, shown in ((first, tab), (second, other)):
        await _wait_inserted(page, ["quick", "easy"])
        await expect(page.locator(f".tab[data-tab-id='{shown}'] .review-marker")).to_have_attribute("data-count", "2")
    await first.get_by_role("button", name="Accept change").first.click()
    for page in (first, second):
        await _wait_inserted(page, ["easy"])
        await expect(page.get_by_test_id("review-count")).to_have_text("1 change")


WORKFLOW = """\
name: ci
on:
  push:
    branches: [ main ]
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/setup-python@v6
        with:
          python-version: "3.11"   # keep quoted
"""


async def test_a_workflow_patch_is_a_change_to_review(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    path = workspace / ".github" / "workflows" / "ci.yml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(WORKFLOW, "utf-8")
    page, tab = await _page_on(pages, workspace, ".github/workflows/ci.yml", "source")
    patches = [{"kind": "with.set", "jobId": "build", "stepIndex": 0, "key": "python-version", "value": "3.12"}]
    async with _agent(vmark) as agent:
        read = await ok(agent, "document", "read", tabId=tab)
        await ok(agent, "workflow", "apply_patch", tabId=tab, patches=patches, expected_revision=read["revision"])
    patched = WORKFLOW.replace('"3.11"', '"3.12"')
    await wait_editor_text(page, patched)
    listed = await _listed(vmark, tab)
    await _wait_inserted(page, [patched[c["from"] : c["to"]] for c in listed["changes"]])
    await expect(page.get_by_test_id("review-notice")).to_contain_text("with workflow.apply_patch")
    await page.click("#review-reject-all")
    await wait_doc_text(vmark, tab, WORKFLOW)
    await _wait_inserted(page, [])


async def _restart_page(browser: Browser, app: RunningApp, workspace: Path, mode: str) -> tuple[Page, str]:
    context = await browser.new_context(viewport={"width": 1200, "height": 800})
    page = await context.new_page()
    await page.goto(app.ui_url)
    await page.wait_for_selector("body[data-ready=true]")
    await open_folder(page, workspace)
    tab = await open_from_tree(page, "plan.md")
    if mode == "wysiwyg" and await page.evaluate("window.vmarkPage.mode()") != "wysiwyg":
        await page.click("#mode-toggle")
    await page.wait_for_selector(".ProseMirror" if mode == "wysiwyg" else ".cm-content")
    return page, tab


async def test_an_app_restart_keeps_what_is_left_to_review(
    browser: Browser, data_dir: Path, workspace: Path, tmp_path: Path
) -> None:
    """Pending changes are saved with the text they apply to: after a restart the page shows them again; a
    file changed on disk meanwhile has nothing left to review (the ranges would mean nothing in its text)."""
    path, other = workspace / "plan.md", workspace / "other.md"
    path.write_text(TEXT, "utf-8")
    other.write_text(TEXT, "utf-8")
    first = RunningApp(data_dir, test_hooks=True)
    await first.start()
    try:
        page, tab = await _restart_page(browser, first, workspace, "source")
        other_tab = await open_from_tree(page, "other.md")
        async with _agent(first) as agent:
            await _write(agent, tab, AGENT)
            await _write(agent, other_tab, AGENT)
        await _wait_inserted(page, ["quick", "easy", "short"])  # other.md is shown
        await page.get_by_role("button", name="Accept change").first.click()
        await _wait_inserted(page, ["easy", "short"])
        await page.context.close()
    finally:
        await first.stop()
    other.write_text(AGENT.replace("easy", "fine"), "utf-8")  # another program, while the app is down

    second = RunningApp(data_dir, test_hooks=True)
    await second.start()
    try:
        for mode in ("source", "wysiwyg"):
            page, tab = await _restart_page(browser, second, workspace, mode)
            await _wait_inserted(page, ["quick", "easy", "short"])
            await expect(page.get_by_test_id("review-count")).to_have_text("3 changes")
            other_tab = await open_from_tree(page, "other.md")
            await wait_editor_text(page, AGENT.replace("easy", "fine"))
            await _wait_inserted(page, [])
            await expect(page.get_by_test_id("review-bar")).to_be_hidden()
            assert (await _listed(second, other_tab))["changes"] == []
            await page.context.close()
    finally:
        await second.stop()


@pytest.mark.parametrize("mode", ["source", "wysiwyg"])
async def test_a_selection_set_is_a_change_to_review(
    pages: Pages, vmark: RunningApp, workspace: Path, mode: str
) -> None:
    (workspace / "plan.md").write_text(TEXT, "utf-8")
    page, tab = await _page_on(pages, workspace, "plan.md", mode)
    line = page.locator(".cm-line").nth(2) if mode == "source" else page.locator(".ProseMirror p").first
    await line.click()
    await page.keyboard.press("Home")
    for _ in range(len("The first step is ")):
        await page.keyboard.press("ArrowRight")
    for _ in range(len("slow")):
        await page.keyboard.press("Shift+ArrowRight")
    async with _agent(vmark, "carol") as agent:
        got = await ok(agent, "selection", "get", tabId=tab)
        assert got["text"] == "slow"
        await ok(agent, "selection", "set", tabId=tab, content="brisk", expected_revision=got["revision"])
    await wait_doc_text(vmark, tab, TEXT.replace("slow", "brisk"))
    await _wait_inserted(page, ["brisk"])
    await _wait_deleted(page, ["slow"])
    await expect(page.get_by_test_id("review-notice")).to_have_text(
        "carol made 1 change with selection.set: review it below."
    )
    await page.get_by_role("button", name="Reject change").click()
    await wait_doc_text(vmark, tab, TEXT)
    await _wait_inserted(page, [])


async def test_history_open_while_an_agent_edits_shows_each_new_version(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    (workspace / "plan.md").write_text(TEXT, "utf-8")
    page, tab = await _page_on(pages, workspace, "plan.md", "source")
    await page.click("#history-toggle")
    await expect(page.locator("#history-list .panel-empty")).to_be_visible()  # nothing yet: no agent wrote
    diff = page.get_by_test_id("history-diff")
    caption = page.locator("#history-selected")
    async with _agent(vmark, "dave") as agent:
        for old, new in (("slow", "quick"), ("hard", "easy")):
            await ok(agent, "document", "edit", tabId=tab, edits=[{"old": old, "new": new}])
            await expect(caption).to_have_text("What this version changed from the one before (dave · document.edit):")
            await expect(diff.locator(".diff-word.removed")).to_have_text([old])
            await expect(diff.locator(".diff-word.added")).to_have_text([new])
    # The first agent edit brought the text on disk before it: its "before".
    await expect(page.locator("#history-list .snapshot-who")).to_have_text(
        ["dave · document.edit", "dave · document.edit", "on disk"]
    )
    await expect(page.get_by_test_id("history-unreviewed")).to_have_text("2 AI revisions to review")
    await page.click("#history-mark-reviewed")  # accepts every pending change
    await _wait_inserted(page, [])
    await expect(page.get_by_test_id("history-unreviewed")).to_have_text("All AI revisions reviewed")
    assert (await _listed(vmark, tab))["changes"] == []


# --- undo is the person's own ----------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["source", "wysiwyg"])
@pytest.mark.parametrize("where", ["another paragraph", "the same paragraph", "a whole-text write around it"])
async def test_undo_and_redo_are_the_persons_typing_never_the_agents_change(
    pages: Pages, vmark: RunningApp, workspace: Path, mode: str, where: str
) -> None:
    """Ctrl+Z after an agent's change undoes what the person typed before it (mapped through the agent's
    change); the agent's text and its highlight stay (judging it is what Accept / Reject are for)."""
    (workspace / "plan.md").write_text(TEXT, "utf-8")
    page, tab = await _page_on(pages, workspace, "plan.md", mode)
    line = page.locator(".cm-line").nth(2) if mode == "source" else page.locator(".ProseMirror p").first
    await line.click()
    await page.keyboard.press("End")
    # one input, so one undo step: keystrokes typed apart by more than the editor's grouping delay (a loaded
    # machine) would be several steps, and one Ctrl+Z would take only the last of them
    await page.keyboard.insert_text(" Very")
    typed = TEXT.replace("slow.", "slow. Very")
    await wait_doc_text(vmark, tab, typed)
    if mode == "source":
        # The page reports the caret a moment after the text (its own debounce): a report that came while the
        # agent's write below is being recorded would abort that write (a selection move is the person's).
        caret = typed.index(" Very") + len(" Very")
        await wait_until(lambda: vmark.app.session.find_tab(tab)[1].selection == (caret, caret), "the caret's report")
    pairs = {
        "another paragraph": [("long", "short")],
        "the same paragraph": [("first", "1st")],
        # one span from the first difference to the last (over the person's typing): the page splits it
        "a whole-text write around it": [("first", "1st"), ("long", "short")],
    }[where]
    agents = TEXT
    both = typed
    for old, new in pairs:
        agents, both = agents.replace(old, new), both.replace(old, new)
    async with _agent(vmark) as agent:
        if where.startswith("a whole-text write"):
            await _write(agent, tab, both)
        else:
            await ok(agent, "document", "edit", tabId=tab, edits=[{"old": old, "new": new} for old, new in pairs])
    await wait_editor_text(page, both)
    await _wait_inserted(page, [new for _, new in pairs])

    await page.keyboard.press("Control+z")  # the person's typing goes; the agent's changes stay
    await wait_doc_text(vmark, tab, agents)
    await wait_editor_text(page, agents)
    await _wait_inserted(page, [new for _, new in pairs])
    await _wait_deleted(page, [old for old, _ in pairs])
    await page.keyboard.press("Control+z")  # nothing more of the person's: the agent's change is no undo step
    await page.keyboard.press("Control+Shift+z")  # and redo brings the typing back, the agent's text around it
    await wait_doc_text(vmark, tab, both)
    await wait_editor_text(page, both)
    await _wait_inserted(page, [new for _, new in pairs])
    assert [both[c["from"] : c["to"]] for c in (await _listed(vmark, tab))["changes"]] == [new for _, new in pairs]


@pytest.mark.parametrize("mode", ["source", "wysiwyg"])
async def test_undo_is_per_window_and_the_file_reloaded_from_disk_is_no_step(
    pages: Pages, vmark: RunningApp, workspace: Path, mode: str
) -> None:
    """The same rule for every change from elsewhere: another window's typing and the file changed on disk
    are no steps of this window's undo; Ctrl+Z here undoes what was typed here."""
    path = workspace / "plan.md"
    path.write_text(TEXT, "utf-8")
    page, tab = await _page_on(pages, workspace, "plan.md", mode)
    second = await pages.open(window="second")
    await open_folder(second, workspace)
    await open_from_tree(second, "plan.md")
    if await second.evaluate("window.vmarkPage.mode()") != "source":  # the file opens as it was last toggled
        await second.click("#mode-toggle")
        await second.wait_for_selector(".cm-content")
    mine = page.locator(".cm-line").nth(2) if mode == "source" else page.locator(".ProseMirror p").first
    await mine.click()
    await page.keyboard.press("End")
    await page.keyboard.insert_text(" Mine")  # one undo step (see above)
    typed = TEXT.replace("slow.", "slow. Mine")
    await wait_doc_text(vmark, tab, typed)
    await wait_editor_text(second, typed)
    await second.locator(".cm-line").nth(6).click()  # the second window types on "The third step is long."
    await second.keyboard.press("End")
    await second.keyboard.insert_text(" Theirs")
    both = typed.replace("long.", "long. Theirs")
    await wait_doc_text(vmark, tab, both)
    await wait_editor_text(page, both)
    await page.keyboard.press("Control+z")  # here: only " Mine" goes
    await wait_doc_text(vmark, tab, TEXT.replace("long.", "long. Theirs"))
    await wait_editor_text(page, TEXT.replace("long.", "long. Theirs"))
    await page.keyboard.press("Control+s")
    await expect(page.locator(f".tab[data-tab-id='{tab}']")).to_have_attribute("data-dirty", "false")
    # The file changed outside, reloaded into both windows: no undo step here either.
    outside = TEXT.replace("long.", "long. Theirs").replace("# Plan", "# Plan B")
    path.write_text(outside, "utf-8")
    await wait_editor_text(page, outside)
    await page.keyboard.press("Control+z")  # nothing of this window's is left to undo
    await page.keyboard.press("Control+Shift+z")  # redo: " Mine" again, on the reloaded text
    expected = outside.replace("slow.", "slow. Mine")
    await wait_doc_text(vmark, tab, expected)
    await wait_editor_text(page, expected)
    await wait_editor_text(second, expected)


@pytest.mark.parametrize("mode", ["source", "wysiwyg"])
async def test_an_added_list_line_is_highlighted_as_that_line(
    pages: Pages, vmark: RunningApp, workspace: Path, mode: str
) -> None:
    """Of the alignments changing as few words, the one on the line: not " item\\n- new" across two lines."""
    text = "# Plan\n\n- one item\n- two item\n"
    added = text.replace("- one item\n", "- one item\n- new item\n")
    page, _tab, changes = await _agent_adds(pages, vmark, workspace, mode, "plan.md", text, added)
    await _wait_inserted(page, ["- new item" if mode == "source" else "new item"])  # WYSIWYG draws the marker
    assert changes == [("- new item\n", "")]
    line = page.locator(".cm-line" if mode == "source" else "li", has_text="new item")
    await expect(line.get_by_role("button", name="Accept change")).to_have_count(1)  # its buttons end that line
    await page.click("#history-toggle")
    diff = page.get_by_test_id("history-diff")
    await expect(diff.locator(".diff-word.added")).to_have_text(["- new item\n"])


@pytest.mark.parametrize("mode", ["source", "wysiwyg"])
async def test_an_added_paragraph_has_its_buttons_at_its_end_not_on_the_heading_after_it(
    pages: Pages, vmark: RunningApp, workspace: Path, mode: str
) -> None:
    text = "# Plan\n\nThe first step.\n\n## Later\n\nMore.\n"
    added = text.replace("## Later", "A new paragraph.\n\n## Later")
    page, tab, changes = await _agent_adds(pages, vmark, workspace, mode, "para.md", text, added)
    assert changes == [("A new paragraph.\n\n", "")]
    block = page.locator(".cm-line" if mode == "source" else "p", has_text="A new paragraph.")
    await expect(block.get_by_role("button", name="Accept change")).to_have_count(1)
    heading = page.locator(".cm-line" if mode == "source" else "h2", has_text="Later")
    await expect(heading.get_by_role("button", name="Accept change")).to_have_count(0)
    await block.get_by_role("button", name="Accept change").click()
    await wait_until(lambda: _no_changes(vmark, tab), "the change accepted")
    assert (workspace / "para.md").read_text("utf-8") == added


async def _no_changes(vmark: RunningApp, tab: str) -> bool:
    return (await _listed(vmark, tab))["changes"] == []
