"""The person's export in the page: the toolbar's Export menu and the palette's "Export as …" commands, with
real clicks and keys; the dialog's progress, its refusals, screenshots of the menu and the dialog in both
themes. The document stays as it was (text, revision, clean)."""

from __future__ import annotations

from pathlib import Path

import pypdf
import pytest
from playwright.async_api import Page, expect

from tests.export import checks
from tests.export.sample import TEXT, make_document
from tests.ui.conftest import Pages
from tests.ui.helpers import doc_of, open_folder, open_from_tree
from tests.ui.test_theme import shot, themed_page
from vmark.app.server import RunningApp
from vmark.storage.settings import Settings


async def survey_page(pages: Pages, workspace: Path, scheme: str = "light") -> tuple[Page, str, Path]:
    doc = make_document(workspace)
    page = await themed_page(pages, scheme)
    await open_folder(page, workspace)
    tab = await open_from_tree(page, "survey.md")
    return page, tab, doc


async def exported(page: Page, path: Path) -> None:
    """The dialog closes and the page says where the file went."""
    await expect(page.locator("#export-dialog")).to_be_hidden(timeout=120_000)
    # The newest toast: an earlier export's toast for the same path may still be showing.
    await expect(page.locator(".toast").last).to_have_text(f"Exported {path}")


@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_the_export_menu_makes_a_pdf(vmark: RunningApp, pages: Pages, workspace: Path, scheme: str) -> None:
    page, tab, doc = await survey_page(pages, workspace, scheme)
    revision = doc_of(vmark, tab).state.revision
    await page.click("#export-open")
    menu = page.locator("#export-menu")
    await expect(menu).to_be_visible()
    await expect(page.locator("#export-open")).to_have_attribute("aria-expanded", "true")
    labels = await menu.locator("[role=menuitem]").all_inner_texts()
    assert labels == ["HTML", "PDF", "Word (.docx)", "OpenDocument (.odt)", "EPUB"]
    await expect(menu.locator("[role=menuitem]").first).to_be_focused()
    await shot(page, f"export-menu-{scheme}")
    await page.keyboard.press("ArrowDown")
    await expect(menu.locator("[data-format=pdf]")).to_be_focused()
    await page.keyboard.press("Enter")
    dialog = page.locator("#export-dialog")
    await expect(dialog).to_be_visible()
    await expect(menu).to_have_count(0)
    await expect(page.locator("#export-format")).to_have_value("pdf")
    await expect(page.locator("#export-folder")).to_have_value(str(workspace))
    await expect(page.locator("#export-name")).to_have_value("survey.pdf")
    await expect(page.locator("#export-name")).to_be_focused()
    await shot(page, f"export-dialog-{scheme}")
    await page.keyboard.press("Enter")
    await expect(dialog).to_have_attribute("data-state", "exporting")
    await expect(page.locator("#export-confirm")).to_be_disabled()
    await expect(page.locator("[data-testid=export-status]")).not_to_be_empty()
    await shot(page, f"export-progress-{scheme}")
    await exported(page, workspace / "survey.pdf")
    checks.check_pdf(workspace / "survey.pdf")
    doc = doc_of(vmark, tab)
    assert (doc.state.text, doc.state.revision, doc.dirty) == (TEXT, revision, False)
    await expect(page.locator(f".tab[data-tab-id='{tab}']")).to_have_attribute("data-dirty", "false")
    assert (workspace / "survey.md").read_text("utf-8") == TEXT


async def test_the_palette_exports_and_the_dialog_keeps_a_refusal(
    vmark: RunningApp, pages: Pages, workspace: Path
) -> None:
    page, tab, doc = await survey_page(pages, workspace)
    revision = doc_of(vmark, tab).state.revision
    await page.keyboard.press("Control+Shift+P")
    await page.keyboard.type("Export as Word")
    await expect(page.locator("#command-palette .picker-option[aria-selected=true] .picker-label")).to_have_text(
        "Export as Word (.docx)"
    )
    await page.keyboard.press("Enter")
    await expect(page.locator("#export-dialog")).to_be_visible()
    await expect(page.locator("#export-format")).to_have_value("docx")
    await expect(page.locator("#export-name")).to_have_value("survey.docx")
    await page.keyboard.press("Control+A")
    await page.keyboard.type("report.docx")
    await page.keyboard.press("Enter")
    await exported(page, workspace / "report.docx")
    checks.check_docx(workspace / "report.docx")

    # The same name again: refused in the dialog, the file untouched; Replace writes over it.
    before = (workspace / "report.docx").read_bytes()
    await page.keyboard.press("Control+Shift+P")
    await page.keyboard.type("Export as Word")
    await page.keyboard.press("Enter")
    await page.keyboard.press("Control+A")
    await page.keyboard.type("report.docx")
    await page.keyboard.press("Enter")
    error = page.locator("[data-testid=export-error]")
    await expect(error).to_have_text(
        f"APPROVAL_REQUIRED: {workspace / 'report.docx'} already exists; an export replaces a file only when asked "
        "(--force, or Replace)"
    )
    await expect(page.locator("#export-dialog")).to_be_visible()
    assert (workspace / "report.docx").read_bytes() == before
    # A folder outside the workspace: refused too.
    await page.fill("#export-folder", "/")
    await page.locator("#export-name").press("Enter")
    await expect(error).to_have_text("INVALID_PATH: '/report.docx' lies outside the open workspace and documents")
    await page.fill("#export-folder", str(workspace))
    await page.click("label[for=export-replace]")
    await expect(page.locator("#export-replace")).to_be_checked()
    inode_before = (workspace / "report.docx").stat().st_ino
    await page.click("#export-confirm")
    await exported(page, workspace / "report.docx")
    assert (workspace / "report.docx").stat().st_ino != inode_before  # a new file renamed over the old
    checks.check_docx(workspace / "report.docx")
    assert sorted(p.name for p in workspace.iterdir() if p.name.startswith("report")) == ["report.docx"]

    # The format follows the choice; Escape closes without exporting.
    await page.keyboard.press("Control+Shift+P")
    await page.keyboard.type("Export as HTML")
    await page.keyboard.press("Enter")
    await page.select_option("#export-format", "epub")
    await expect(page.locator("#export-name")).to_have_value("survey.epub")
    await page.keyboard.press("Escape")
    await expect(page.locator("#export-dialog")).to_be_hidden()
    assert not (workspace / "survey.epub").exists()
    doc = doc_of(vmark, tab)
    assert (doc.state.revision, doc.dirty) == (revision, False)


async def test_the_pdf_page_comes_from_the_settings_dialog(
    vmark: RunningApp, pages: Pages, workspace: Path, data_dir: Path
) -> None:
    page, _, _ = await survey_page(pages, workspace)
    await page.click("#settings-open")
    size = page.locator(".setting[data-key='export.page_size']")
    margin = page.locator(".setting[data-key='export.margin_mm']")
    await expect(size.locator("label")).to_have_text("PDF page size")
    await expect(size.locator("select")).to_have_value("A4")
    await size.locator("select").select_option("Letter")
    await expect(size).to_have_attribute("data-state", "saved")
    await margin.locator("input").fill("99")
    await margin.locator("input").press("Tab")
    await expect(margin).to_have_attribute("data-state", "error")
    await expect(margin.locator(".setting-status")).to_have_text(
        "setting 'export.margin_mm' must be from 0 to 60 (millimetres), not 99"
    )
    await margin.locator("input").fill("12")
    await margin.locator("input").press("Tab")
    await expect(margin).to_have_attribute("data-state", "saved")
    settings = Settings(data_dir / "settings.json")
    assert (settings.get("export.page_size"), settings.get("export.margin_mm")) == ("Letter", 12)
    await page.click("#settings-close")
    await page.click("#export-open")
    await page.click("#export-menu [data-format=pdf]")
    await page.locator("#export-name").press("Enter")
    await exported(page, workspace / "survey.pdf")
    box = pypdf.PdfReader(str(workspace / "survey.pdf")).pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (612, 792)  # US Letter, in points


async def test_the_picker_chooses_where_the_export_goes(vmark: RunningApp, pages: Pages, workspace: Path) -> None:
    page, _, _ = await survey_page(pages, workspace)
    (workspace / "out").mkdir()
    await page.click("#export-open")
    await page.click("#export-menu [data-format=html]")
    await page.click("#export-browse")
    picker = page.get_by_test_id("picker")
    await expect(picker).to_be_visible()
    await expect(picker.locator("#picker-title")).to_have_text("Export as HTML")
    await expect(page.get_by_test_id("picker-name")).to_have_value("survey.html")
    await expect(page.get_by_test_id("picker-choose")).to_have_text("Choose")
    await shot(page, "export-picker-light")
    # into the folder "out" (typed as a path in the filter), a bare name gets the format's suffix
    await page.get_by_test_id("picker-filter").fill("out/")
    await expect(page.get_by_test_id("picker-crumbs")).to_contain_text("out")
    await page.get_by_test_id("picker-name").fill("picked")
    await page.get_by_test_id("picker-name").press("Enter")
    await expect(picker).to_be_hidden()
    await expect(page.locator("#export-folder")).to_have_value(str(workspace / "out"))
    await expect(page.locator("#export-name")).to_have_value("picked.html")
    await expect(page.locator("#export-confirm")).to_be_focused()
    await page.keyboard.press("Enter")
    await exported(page, workspace / "out" / "picked.html")
    await checks.check_html(workspace / "out" / "picked.html")

    # an existing file may be picked: the picker says it exists, the export refuses it until Replace is ticked
    await page.click("#export-open")
    await page.click("#export-menu [data-format=html]")
    await page.click("#export-browse")
    await page.get_by_test_id("picker-filter").fill("out/")
    await page.get_by_test_id("picker-name").fill("picked.html")
    await expect(page.get_by_test_id("picker-status")).to_have_text(
        "A file named “picked.html” already exists in this folder."
    )
    await page.get_by_test_id("picker-name").press("Enter")
    await expect(picker).to_be_hidden()
    await page.keyboard.press("Enter")
    await expect(page.get_by_test_id("export-error")).to_contain_text("APPROVAL_REQUIRED")
