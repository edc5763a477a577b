"""Tables a person edits in WYSIWYG, in real Chromium, byte for byte on disk after Ctrl+S.

Every table command by its keys, on tables written in several styles (aligned with padding, compact, without outer
pipes, with alignment colons, with escaped pipes and a code span holding a pipe, CRLF line endings): the file holds
exactly the table with the row or column added or taken out, or one delimiter cell changed, every other byte as it
was; Ctrl+Z gives back the bytes before. The table menu by right click, by Shift+F10 and by the ContextMenu key,
driven from the keyboard (screenshots in both themes); the command palette; Tab across the cells and off the last
one; a row typed in a paragraph made a table by Enter; Insert table.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.contract.helpers import wait_until
from tests.ui.conftest import ARTIFACTS
from tests.ui.lossless import Stage, assert_bytes, click_after, open_file, save, switch_mode
from tests.ui.lossless import scene as scene  # the fixtures this module uses
from tests.ui.lossless import stage as stage

BEFORE, AFTER = "Intro\n\n", "\n\nAfter\n"


@dataclass(frozen=True)
class Table:
    id: str
    #: the table's lines (``\n`` between them; the file has ``BEFORE`` and ``AFTER`` around them)
    lines: tuple[str, ...]
    crlf: bool = False

    def text(self, lines: tuple[str, ...] | list[str] | None = None) -> str:
        return BEFORE + "\n".join(self.lines if lines is None else lines) + AFTER

    def data(self, lines: tuple[str, ...] | list[str] | None = None) -> bytes:
        text = self.text(lines)
        return (text.replace("\n", "\r\n") if self.crlf else text).encode("utf-8")


ALIGNED = Table(
    "aligned",
    (
        "| Left     |  Center  |    Right |",
        "|:---------|:--------:|---------:|",
        "| alpha    |   beta   |    gamma |",
        "| delta    |   eps    |     zeta |",
    ),
)
COMPACT = Table("compact", ("| Name | Kind |", "| --- | --- |", "| pear | fruit |", "| leek | vegetable |"))
PIPELESS = Table("pipeless", ("Name | Kind", "--- | ---", "pear | fruit", "leek | vegetable"))
COLONS = Table(
    "colons", ("| Left | Centre | Right |", "|:-----|:------:|------:|", "| l1 | c1 | r1 |", "| l2 | c2 | r2 |")
)
ESCAPED = Table("escaped", ("| Code | Meaning |", "| --- | --- |", "| `a\\|b` | a or b |", "| x \\| y | either |"))
CRLF = Table("crlf", COMPACT.lines, crlf=True)

#: the keys of each command (as the shortcuts sheet names them)
KEYS = {
    "rowBelow": "Control+Enter",
    "rowAbove": "Control+Shift+Enter",
    "deleteRow": "Control+Shift+Backspace",
    "columnLeft": "Alt+Shift+ArrowLeft",
    "columnRight": "Alt+Shift+ArrowRight",
    "deleteColumn": "Alt+Shift+Backspace",
    "alignLeft": "Alt+Shift+L",
    "alignCenter": "Alt+Shift+C",
    "alignRight": "Alt+Shift+R",
    "alignNone": "Alt+Shift+N",
}

#: per style: each command with the cursor in cell ROW COLUMN (-1: the last) and the table it leaves, a blank line
#: between the steps (a note after "#" on the command line says why)
STEPS_TEXT = {
    "aligned": r"""
rowBelow 1 0
| Left     |  Center  |    Right |
|:---------|:--------:|---------:|
| alpha    |   beta   |    gamma |
|          |          |          |
| delta    |   eps    |     zeta |

rowAbove 2 1
| Left     |  Center  |    Right |
|:---------|:--------:|---------:|
| alpha    |   beta   |    gamma |
|          |          |          |
| delta    |   eps    |     zeta |

deleteRow 1 1
| Left     |  Center  |    Right |
|:---------|:--------:|---------:|
| delta    |   eps    |     zeta |

deleteRow 0 0
| alpha    |   beta   |    gamma |
|:---------|:--------:|---------:|
| delta    |   eps    |     zeta |

columnLeft 1 0
|     | Left     |  Center  |    Right |
|-----|:---------|:--------:|---------:|
|     | alpha    |   beta   |    gamma |
|     | delta    |   eps    |     zeta |

columnRight 0 -1
| Left     |  Center  |    Right |     |
|:---------|:--------:|---------:|-----|
| alpha    |   beta   |    gamma |     |
| delta    |   eps    |     zeta |     |

deleteColumn 1 1
| Left     |    Right |
|:---------|---------:|
| alpha    |    gamma |
| delta    |     zeta |

alignCenter 0 0
| Left     |  Center  |    Right |
|:--------:|:--------:|---------:|
| alpha    |   beta   |    gamma |
| delta    |   eps    |     zeta |

alignRight 1 1
| Left     |  Center  |    Right |
|:---------|---------:|---------:|
| alpha    |   beta   |    gamma |
| delta    |   eps    |     zeta |

alignLeft 2 -1
| Left     |  Center  |    Right |
|:---------|:--------:|:---------|
| alpha    |   beta   |    gamma |
| delta    |   eps    |     zeta |

alignNone 0 0
| Left     |  Center  |    Right |
|----------|:--------:|---------:|
| alpha    |   beta   |    gamma |
| delta    |   eps    |     zeta |
""",
    "compact": r"""
rowBelow 1 0
| Name | Kind |
| --- | --- |
| pear | fruit |
|  |  |
| leek | vegetable |

rowAbove 2 1
| Name | Kind |
| --- | --- |
| pear | fruit |
|  |  |
| leek | vegetable |

deleteRow 1 1
| Name | Kind |
| --- | --- |
| leek | vegetable |

deleteRow 0 0
| pear | fruit |
| --- | --- |
| leek | vegetable |

columnLeft 1 0
|  | Name | Kind |
| --- | --- | --- |
|  | pear | fruit |
|  | leek | vegetable |

columnRight 0 -1
| Name | Kind |  |
| --- | --- | --- |
| pear | fruit |  |
| leek | vegetable |  |

deleteColumn 1 1
| Name |
| --- |
| pear |
| leek |

alignCenter 0 0
| Name | Kind |
| :-: | --- |
| pear | fruit |
| leek | vegetable |

alignRight 1 1
| Name | Kind |
| --- | --: |
| pear | fruit |
| leek | vegetable |

alignLeft 2 -1
| Name | Kind |
| --- | :-- |
| pear | fruit |
| leek | vegetable |
""",
    "pipeless": r"""
rowBelow 1 0  # without outer pipes an empty first cell needs one: the new row has them, the other rows keep their bytes
Name | Kind
--- | ---
pear | fruit
|  |  |
leek | vegetable

rowAbove 2 1
Name | Kind
--- | ---
pear | fruit
|  |  |
leek | vegetable

deleteRow 1 1
Name | Kind
--- | ---
leek | vegetable

deleteRow 0 0
pear | fruit
--- | ---
leek | vegetable

columnLeft 1 0
|  | Name | Kind
--- | --- | ---
|  | pear | fruit
|  | leek | vegetable

columnRight 0 -1
Name | Kind |  |
--- | --- | ---
pear | fruit |  |
leek | vegetable |  |

deleteColumn 1 1
Name |
---
pear
leek

alignCenter 0 0
Name | Kind
:-: | ---
pear | fruit
leek | vegetable

alignRight 1 1
Name | Kind
--- | --:
pear | fruit
leek | vegetable
""",
    "colons": r"""
rowBelow 1 0
| Left | Centre | Right |
|:-----|:------:|------:|
| l1 | c1 | r1 |
|  |  |  |
| l2 | c2 | r2 |

deleteRow 0 0
| l1 | c1 | r1 |
|:-----|:------:|------:|
| l2 | c2 | r2 |

columnLeft 1 0
|  | Left | Centre | Right |
|---|:-----|:------:|------:|
|  | l1 | c1 | r1 |
|  | l2 | c2 | r2 |

columnRight 0 -1
| Left | Centre | Right |  |
|:-----|:------:|------:|---|
| l1 | c1 | r1 |  |
| l2 | c2 | r2 |  |

deleteColumn 1 1
| Left | Right |
|:-----|------:|
| l1 | r1 |
| l2 | r2 |

alignCenter 0 0
| Left | Centre | Right |
|:----:|:------:|------:|
| l1 | c1 | r1 |
| l2 | c2 | r2 |

alignRight 1 1
| Left | Centre | Right |
|:-----|-------:|------:|
| l1 | c1 | r1 |
| l2 | c2 | r2 |

alignLeft 2 -1
| Left | Centre | Right |
|:-----|:------:|:------|
| l1 | c1 | r1 |
| l2 | c2 | r2 |

alignNone 0 0
| Left | Centre | Right |
|------|:------:|------:|
| l1 | c1 | r1 |
| l2 | c2 | r2 |
""",
    "escaped": r"""
rowBelow 1 0
| Code | Meaning |
| --- | --- |
| `a\|b` | a or b |
|  |  |
| x \| y | either |

deleteRow 1 1
| Code | Meaning |
| --- | --- |
| x \| y | either |

deleteRow 0 0
| `a\|b` | a or b |
| --- | --- |
| x \| y | either |

columnLeft 1 0
|  | Code | Meaning |
| --- | --- | --- |
|  | `a\|b` | a or b |
|  | x \| y | either |

columnRight 0 -1
| Code | Meaning |  |
| --- | --- | --- |
| `a\|b` | a or b |  |
| x \| y | either |  |

deleteColumn 1 1
| Code |
| --- |
| `a\|b` |
| x \| y |

alignCenter 0 0
| Code | Meaning |
| :-: | --- |
| `a\|b` | a or b |
| x \| y | either |
""",
    "crlf": r"""
rowBelow 2 1
| Name | Kind |
| --- | --- |
| pear | fruit |
| leek | vegetable |
|  |  |

deleteRow 1 0
| Name | Kind |
| --- | --- |
| leek | vegetable |

columnRight 1 0
| Name |  | Kind |
| --- | --- | --- |
| pear |  | fruit |
| leek |  | vegetable |

deleteColumn 0 0
| Kind |
| --- |
| fruit |
| vegetable |

alignRight 2 0
| Name | Kind |
| --: | --- |
| pear | fruit |
| leek | vegetable |
""",
}


def steps(style: str) -> list[tuple[str, int, int, tuple[str, ...]]]:
    """The steps of a style: (command, row, column, the table's lines after it)."""
    found = []
    for block in STEPS_TEXT[style].strip("\n").split("\n\n"):
        head, *table = block.split("\n")
        action, row, column = head.split("#")[0].split()
        found.append((action, int(row), int(column), tuple(table)))
    return found


TABLES = {t.id: t for t in (ALIGNED, COMPACT, PIPELESS, COLONS, ESCAPED, CRLF)}


# --- the person's side ----------------------------------------------------------------------------------------------
_CELL_POINT = """
([row, column]) => {
  // A point in cell `row`, `column` (-1: the last) of the first table, right of its text (the caret goes to its end).
  const tr = document.querySelectorAll(".ProseMirror table tr")[row];
  const cells = tr ? tr.querySelectorAll("th, td") : [];
  const cell = cells[column < 0 ? cells.length + column : column];
  if (!cell) return null;
  cell.scrollIntoView({ block: "center" });
  const r = cell.getBoundingClientRect();
  return { x: r.right - 5, y: r.top + r.height / 2 };
}
"""

_CARET_CELL = """
() => {
  // [row, column] of the cell the caret is in, or null.
  const s = document.getSelection();
  const node = s && s.focusNode;
  const el = node && (node.nodeType === 1 ? node : node.parentElement);
  const cell = el && el.closest(".ProseMirror th, .ProseMirror td");
  if (!cell) return null;
  const tr = cell.parentElement;
  const rows = Array.from(document.querySelectorAll(".ProseMirror table tr"));
  return [rows.indexOf(tr), Array.from(tr.children).indexOf(cell)];
}
"""


async def cell_point(page: Page, row: int, column: int) -> tuple[float, float]:
    point = await page.evaluate(_CELL_POINT, [row, column])
    assert point is not None, f"the view shows no cell {row}, {column}"
    return float(point["x"]), float(point["y"])


async def caret_cell(page: Page) -> list[int] | None:
    found = await page.evaluate(_CARET_CELL)
    return None if found is None else [int(x) for x in found]


async def click_cell(page: Page, row: int, column: int, button: str = "left") -> None:
    """Click into cell ``row``, ``column`` of the table (right of its text), as a person would: again if it missed."""
    for _attempt in range(5):
        x, y = await cell_point(page, row, column)
        await page.mouse.click(x, y, button=button)  # type: ignore[arg-type]
        at = await caret_cell(page)
        if at is not None and at[0] == row and (at[1] == column or column < 0):
            return
        await asyncio.sleep(0.2)
    raise AssertionError(f"the caret does not stay in cell {row}, {column}")


async def focused_item(page: Page) -> str:
    """The action of the menu item that has the focus ("" for none)."""
    return str(await page.evaluate("document.activeElement && document.activeElement.dataset.action || ''"))


async def selected(page: Page) -> str:
    return str(await page.evaluate("document.getSelection().toString()"))


async def editor_text(page: Page) -> str:
    return str(await page.evaluate("window.vmarkPage.editorText()"))


async def shows(page: Page, text: str) -> None:
    """Wait until the editor's text is ``text`` (line breaks as the editor holds them: ``\\n``)."""
    last = ""

    async def same() -> bool:
        nonlocal last
        last = await editor_text(page)
        return last == text

    try:
        await wait_until(same, "the editor's text", timeout=10)
    except AssertionError:
        raise AssertionError(f"the editor holds {last!r}, not {text!r}") from None


async def open_table(s: Stage, name: str, data: bytes) -> Path:
    path = s.write(name, data)
    await open_file(s, path)
    await switch_mode(s, "wysiwyg")
    await s.page.wait_for_selector(".ProseMirror table")
    return path


async def open_at(s: Stage, name: str, data: bytes, anchor: str) -> Path:
    """Open ``data`` as file ``name`` in WYSIWYG with the caret right after the visible text ``anchor``."""
    path = s.write(name, data)
    await open_file(s, path)
    await switch_mode(s, "wysiwyg")
    await click_after(s.page, anchor)
    return path


async def press_into(page: Page, key: str, text: str, cell: list[int]) -> None:
    """Press ``key``: the editor holds ``text`` and the caret is in ``cell`` ([row, column]) of the table."""
    await page.keyboard.press(key)
    await shows(page, text)
    assert await caret_cell(page) == cell


async def undo_until(page: Page, text: str, most: int) -> None:
    """Ctrl+Z until the editor holds ``text`` (at most ``most`` times: how the history grouped the steps is its own)."""
    for _ in range(most):
        if await editor_text(page) == text:
            return
        await page.keyboard.press("Control+z")
    await shows(page, text)


async def saved(s: Stage, path: Path, data: bytes) -> None:
    """Ctrl+S; the file holds ``data``. (The notes of earlier saves go first: the helper waits for a new one.)"""
    await s.page.evaluate("document.querySelectorAll('.toast').forEach(t => t.remove())")
    await save(s, path)
    assert_bytes(path, data, s.errors)


async def leaves_then_undo(s: Stage, path: Path, table: Table, lines: tuple[str, ...]) -> None:
    """The command left the table as ``lines`` (in the editor, then on disk); Ctrl+Z gives back the bytes before."""
    await shows(s.page, table.text(lines))
    await saved(s, path, table.data(lines))
    await undo_to(s, path, table)


async def undo_to(s: Stage, path: Path, table: Table) -> None:
    """Ctrl+Z: the text and the file are what they were before the command."""
    await s.page.keyboard.press("Control+z")
    await shows(s.page, table.text())
    await saved(s, path, table.data())


# --- the commands by their keys ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("style", list(STEPS_TEXT), ids=list(STEPS_TEXT))
async def test_each_command_by_its_keys_changes_exactly_its_bytes_and_undo_gives_them_back(
    scene: Stage, style: str
) -> None:
    table = TABLES[style]
    path = await open_table(scene, f"keys-{style}.md", table.data())
    for action, row, column, lines in steps(style):
        await click_cell(scene.page, row, column)
        await scene.page.keyboard.press(KEYS[action])
        try:
            await leaves_then_undo(scene, path, table, lines)
        except AssertionError as exc:
            raise AssertionError(f"{action} at {row}, {column}: {exc}") from None
    assert scene.errors == []


async def test_the_header_row_gives_its_place_and_a_refused_command_says_why(scene: Stage) -> None:
    table = COMPACT
    path = await open_table(scene, "refused.md", table.data())
    await click_cell(scene.page, 0, 1)
    await scene.page.keyboard.press(KEYS["rowAbove"])
    await expect(
        scene.page.locator(".toast.warning").filter(has_text="The header row stays the first row")
    ).to_be_visible()
    assert await editor_text(scene.page) == table.text()
    # Deleting every row but the header, then the header: the table goes, with the blank line before it.
    for _ in range(2):
        await click_cell(scene.page, 1, 0)
        await scene.page.keyboard.press(KEYS["deleteRow"])
    await shows(scene.page, table.text(("| Name | Kind |", "| --- | --- |")))
    await click_cell(scene.page, 0, 0)
    await scene.page.keyboard.press(KEYS["deleteRow"])
    await shows(scene.page, "Intro\n\nAfter\n")
    await saved(scene, path, b"Intro\n\nAfter\n")


# --- the menu ---------------------------------------------------------------------------------------------------------
MENU = "[data-testid=table-menu]"


async def test_the_table_menu_by_right_click_and_from_the_keyboard(scene: Stage) -> None:
    table = COMPACT
    page = scene.page
    path = await open_table(scene, "menu.md", table.data())
    menu = page.locator(MENU)

    # Right click in a body cell: the menu at the pointer, its first item focused; Down, Enter runs the second.
    await click_cell(page, 1, 0, button="right")
    await expect(menu).to_be_visible()
    await expect(menu.get_by_role("menuitem")).to_have_count(11)
    assert await focused_item(page) == "rowAbove"
    await page.keyboard.press("ArrowDown")
    assert await focused_item(page) == "rowBelow"
    await page.keyboard.press("Enter")
    await expect(menu).to_have_count(0)
    below = ("| Name | Kind |", "| --- | --- |", "| pear | fruit |", "|  |  |", "| leek | vegetable |")
    await leaves_then_undo(scene, path, table, below)

    # Shift+F10 in the header: "Insert row above" is offered greyed, with the reason; Escape gives the keys back.
    await click_cell(page, 0, 0)
    await page.keyboard.press("Shift+F10")
    await expect(menu).to_be_visible()
    above = menu.locator("[data-action=rowAbove]")
    await expect(above).to_have_attribute("aria-disabled", "true")
    await expect(above).to_have_attribute("title", re.compile("header row stays the first"))
    assert await focused_item(page) == "rowBelow"
    await page.keyboard.press("End")
    assert await focused_item(page) == "deleteTable"
    await page.keyboard.press("Home")
    assert await focused_item(page) == "rowBelow"
    await page.keyboard.press("Escape")
    await expect(menu).to_have_count(0)
    await page.keyboard.type("s")
    named = ("| Names | Kind |", *table.lines[1:])
    await shows(page, table.text(named))
    await page.keyboard.press("Control+z")
    await shows(page, table.text())

    # The mouse: right click a cell, click an item.
    await click_cell(page, 2, 1, button="right")
    await menu.locator("[data-action=columnRight]").click()
    right = ("| Name | Kind |  |", "| --- | --- | --- |", "| pear | fruit |  |", "| leek | vegetable |  |")
    await leaves_then_undo(scene, path, table, right)

    # The ContextMenu key; a letter goes to the item it starts; a click elsewhere closes the menu.
    await click_cell(page, 1, 1)
    await page.keyboard.press("ContextMenu")
    await expect(menu).to_be_visible()
    await page.keyboard.press("d")
    assert await focused_item(page) == "deleteRow"
    await page.keyboard.press("d")
    assert await focused_item(page) == "deleteColumn"
    await click_after(page, "Intro")
    await expect(menu).to_have_count(0)
    assert await editor_text(page) == table.text()
    await click_cell(page, 1, 1)
    await page.keyboard.press("ContextMenu")
    await page.keyboard.press("d")
    await page.keyboard.press("Enter")
    deleted = ("| Name | Kind |", "| --- | --- |", "| leek | vegetable |")
    await leaves_then_undo(scene, path, table, deleted)
    assert scene.errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_the_table_menu_in_both_themes(scene: Stage, scheme: str) -> None:
    page = scene.page
    await page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    try:
        await open_table(scene, f"menu-{scheme}.md", ALIGNED.data())
        await click_cell(page, 2, 1, button="right")
        menu = page.locator(MENU)
        await expect(menu).to_be_visible()
        await page.keyboard.press("ArrowDown")
        ARTIFACTS.mkdir(exist_ok=True)
        await page.screenshot(path=str(ARTIFACTS / f"table-menu-{scheme}.png"))
        background = await menu.evaluate("e => getComputedStyle(e).backgroundColor")
        colour = await menu.evaluate("e => getComputedStyle(e).color")
        if scheme == "dark":
            assert (background, colour) == ("rgb(13, 17, 23)", "rgb(230, 237, 243)")
        else:
            assert (background, colour) == ("rgb(255, 255, 255)", "rgb(31, 35, 40)")
        # The menu lies inside the window, at the pointer.
        box = await menu.bounding_box()
        assert box is not None and box["x"] >= 0 and box["y"] >= 0 and box["y"] + box["height"] <= 800
        await page.keyboard.press("Escape")
        await expect(menu).to_have_count(0)
    finally:
        await page.emulate_media(color_scheme="light")


# --- the command palette and the shortcuts sheet --------------------------------------------------------------------
async def run_from_palette(page: Page, label: str) -> None:
    await page.keyboard.press("Control+Shift+P")
    palette = page.locator("dialog#command-palette")
    await expect(palette).to_be_visible()
    await page.keyboard.insert_text(label)
    await expect(palette.locator(".picker-option").first).to_contain_text(label)
    await page.keyboard.press("Enter")
    await expect(palette).to_be_hidden()


async def test_table_commands_from_the_palette(scene: Stage) -> None:
    table = COLONS
    page = scene.page
    path = await open_table(scene, "palette.md", table.data())
    await click_cell(page, 1, 1)
    await run_from_palette(page, "Table: insert column left")
    left = (
        "| Left |  | Centre | Right |",
        "|:-----|---|:------:|------:|",
        "| l1 |  | c1 | r1 |",
        "| l2 |  | c2 | r2 |",
    )
    await leaves_then_undo(scene, path, table, left)
    await click_cell(page, 2, 2)
    await run_from_palette(page, "Table: align column centre")
    centred = ("| Left | Centre | Right |", "|:-----|:------:|:-----:|", "| l1 | c1 | r1 |", "| l2 | c2 | r2 |")
    await shows(page, table.text(centred))
    await saved(scene, path, table.data(centred))


async def test_the_shortcuts_sheet_lists_the_table_keys(scene: Stage) -> None:
    page = scene.page
    await open_table(scene, "sheet.md", COMPACT.data())
    await page.keyboard.press("Control+/")
    sheet = page.get_by_test_id("shortcuts")
    await expect(sheet).to_be_visible()
    for keys, action in [
        ("Ctrl+Enter", "Insert row below"),
        ("Alt+Shift+Backspace", "Delete column"),
        ("Alt+Shift+T", "Insert a 3×3 table"),
    ]:
        await expect(sheet.locator("tr").filter(has_text=action).filter(has_text=keys)).to_have_count(1)
    await page.keyboard.press("Escape")


# --- Tab, Enter -------------------------------------------------------------------------------------------------------
async def test_tab_goes_through_the_cells_and_adds_a_row_after_the_last(scene: Stage) -> None:
    table = COMPACT
    page = scene.page
    path = await open_table(scene, "tab.md", table.data())
    await click_cell(page, 0, 0)
    await page.keyboard.press("Tab")
    assert await caret_cell(page) == [0, 1]
    assert await selected(page) == "Kind"  # selected, as a spreadsheet does: typing replaces it
    await page.keyboard.type("Type")
    await page.keyboard.press("Tab")
    assert await selected(page) == "pear"
    await page.keyboard.press("Shift+Tab")
    assert await selected(page) == "Type"
    for _ in range(4):
        await page.keyboard.press("Tab")
    assert await caret_cell(page) == [2, 1]
    await page.keyboard.press("Tab")  # off the last cell: a new row in the table's style, the caret in its first cell
    assert await caret_cell(page) == [3, 0]
    await page.keyboard.type("kiwi")
    await page.keyboard.press("Tab")
    await page.keyboard.type("fruit")
    lines = ("| Name | Type |", "| --- | --- |", "| pear | fruit |", "| leek | vegetable |", "| kiwi | fruit |")
    await shows(page, table.text(lines))
    await saved(scene, path, table.data(lines))
    # Shift+Tab in the first cell stays in the table.
    await click_cell(page, 0, 0)
    await page.keyboard.press("Shift+Tab")
    assert await caret_cell(page) == [0, 0]
    # Undo takes it all back, byte for byte.
    await undo_until(page, table.text(), 12)
    await saved(scene, path, table.data())


@pytest.mark.parametrize("style", ["aligned", "pipeless", "crlf"])
async def test_tab_off_the_last_cell_adds_a_row_in_the_tables_style(scene: Stage, style: str) -> None:
    table, page = TABLES[style], scene.page
    new = {"aligned": "| Q         |          |          |", "pipeless": "| Q |  |", "crlf": "| Q |  |"}[style]
    lines = (*table.lines, new)
    path = await open_table(scene, f"tab-{style}.md", table.data())
    await click_cell(page, 2, -1)
    await page.keyboard.press("Tab")
    await page.keyboard.type("Q")
    await shows(page, table.text(lines))
    await saved(scene, path, table.data(lines))
    await undo_until(page, table.text(), 2)
    await saved(scene, path, table.data())


async def test_enter_in_a_cell_goes_down_and_adds_a_row_at_the_bottom(scene: Stage) -> None:
    table, page = ESCAPED, scene.page
    lines = (*table.lines, "|  | new |")
    path = await open_table(scene, "enter.md", table.data())
    await click_cell(page, 1, 1)
    for row in (2, 3):  # the cell below, then (from the last row) a new row's
        await page.keyboard.press("Enter")
        assert await caret_cell(page) == [row, 1]
    await page.keyboard.type("new")
    await shows(page, table.text(lines))
    await saved(scene, path, table.data(lines))


# --- a table by typing, a new table -----------------------------------------------------------------------------------
async def test_a_row_in_a_paragraph_becomes_a_table_on_enter(scene: Stage) -> None:
    page = scene.page
    data = b"Intro\n\n| Name | Value |\n\nAfter\n"
    made = "Intro\n\n| Name | Value |\n| --- | --- |\n|  |  |\n\nAfter\n"
    path = await open_at(scene, "typed.md", data, "| Name | Value |")
    await press_into(page, "Enter", made, [1, 0])
    await saved(scene, path, made.encode())
    await page.keyboard.type("n")
    await page.keyboard.press("Tab")
    await page.keyboard.type("v")
    filled = "Intro\n\n| Name | Value |\n| --- | --- |\n| n | v |\n\nAfter\n"
    await shows(page, filled)
    await saved(scene, path, filled.encode())
    await undo_until(page, data.decode(), 6)
    await saved(scene, path, data)


async def test_a_row_typed_in_a_new_paragraph_becomes_a_table(scene: Stage) -> None:
    page = scene.page
    path = await open_at(scene, "typed-new.md", b"Intro\n\nAfter\n", "Intro")
    await page.keyboard.press("Enter")
    # Key by key: the first key typed into the block just made lands at the caret (its block is laid out).
    await page.keyboard.type("|a|b|c|", delay=25)
    # (How a new paragraph writes its pipes, escaped or not, is the engine's; Enter makes the row the person sees.)
    paragraphs = page.locator(".ProseMirror > .pm-section > p")
    await expect(paragraphs.filter(has_text=re.compile(r"^\|a\|b\|c\|$"))).to_have_count(1)
    await page.keyboard.press("End")
    await press_into(page, "Enter", "Intro\n\n|a|b|c|\n|---|---|---|\n||||\n\nAfter\n", [1, 0])
    await page.keyboard.type("1")
    await shows(page, "Intro\n\n|a|b|c|\n|---|---|---|\n|1|||\n\nAfter\n")
    await saved(scene, path, b"Intro\n\n|a|b|c|\n|---|---|---|\n|1|||\n\nAfter\n")


async def test_insert_table_by_its_keys_and_from_the_palette(scene: Stage) -> None:
    page = scene.page
    data = b"First paragraph.\r\n\r\nSecond paragraph.\r\n"
    grid = "|     |     |     |\n| --- | --- | --- |\n|     |     |     |\n|     |     |     |"
    path = await open_at(scene, "insert.md", data, "First paragraph.")
    await press_into(page, "Alt+Shift+T", f"First paragraph.\n\n{grid}\n\nSecond paragraph.\n", [0, 0])
    await page.keyboard.type("Name")
    named = grid.replace("|     |", "| Name    |", 1)
    await shows(page, f"First paragraph.\n\n{named}\n\nSecond paragraph.\n")
    await saved(scene, path, f"First paragraph.\n\n{named}\n\nSecond paragraph.\n".replace("\n", "\r\n").encode())
    await undo_until(page, data.decode().replace("\r\n", "\n"), 4)
    await saved(scene, path, data)
    await click_after(page, "Second paragraph.")
    await run_from_palette(page, "Insert table")
    await shows(page, f"First paragraph.\n\nSecond paragraph.\n\n{grid}\n")
    assert await caret_cell(page) == [0, 0]
    await saved(scene, path, f"First paragraph.\n\nSecond paragraph.\n\n{grid}\n".replace("\n", "\r\n").encode())
    # The small one, in place of an empty paragraph (Enter at the end of the text makes one).
    await undo_until(page, data.decode().replace("\r\n", "\n"), 2)
    await click_after(page, "Second paragraph.")
    await page.keyboard.press("Enter")
    await run_from_palette(page, "Insert table 2×2")
    small = "|     |     |\n| --- | --- |\n|     |     |"
    await shows(page, f"First paragraph.\n\nSecond paragraph.\n\n{small}\n")
    assert await caret_cell(page) == [0, 0]
    await saved(scene, path, f"First paragraph.\n\nSecond paragraph.\n\n{small}\n".replace("\n", "\r\n").encode())
