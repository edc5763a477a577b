"""Links a person can follow (docs/links.md): Ctrl+click on every kind of link in both modes, the hover text,
a missing file created, wikilinks shown, resolved, followed, completed by keys and kept byte for byte.

These tests run with the app's own default (Markdown opens in WYSIWYG): their data directory is their own.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, Route, expect

from tests.contract.helpers import wait_until
from tests.ui.conftest import ARTIFACTS, Pages
from tests.ui.helpers import (
    active_tab,
    app_defaults,
    editor_text,
    open_folder,
    open_from_tree,
    wait_editor_text,
    wait_shown,
)
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient, UIError

INDEX = (
    "# Index\n\n"
    "Go to [notes](notes.md), [the part](notes.md#second-part), [below](#details) and "
    "[the web](https://example.com/page).\n"
    "Also [ftp](ftp://example.com/f), [outside](../outside.md), [missing](new-page.md) and "
    "[bad](javascript:alert(1)).\n\n"
    "Wiki: [[notes]], [[notes|my notes]], [[notes#Second part]], [[notes#Second part|there]], [[deep]], "
    "[[sub/deep]], [[#Details]] and [[nowhere]].\n\n"
    "`[[in code]]` stays code.\n\n"
    "## Details\n\nThe end.\n"
)
#: the wikilinks of INDEX as written, and as WYSIWYG shows them
WIKILINKS = [
    ("[[notes]]", "notes"),
    ("[[notes|my notes]]", "my notes"),
    ("[[notes#Second part]]", "notes › Second part"),
    ("[[notes#Second part|there]]", "there"),
    ("[[deep]]", "deep"),
    ("[[sub/deep]]", "sub/deep"),
    ("[[#Details]]", "Details"),
    ("[[nowhere]]", "nowhere"),
]
NOTES = "# Notes\n\nFirst.\n\n" + "Filler line.\n\n" * 30 + "## Second part\n\nSecond.\n"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return app_defaults(tmp_path)


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    for name, text in {
        "index.md": INDEX,
        "notes.md": NOTES,
        "sub/deep.md": "# Deep in sub\n",
        "sub/page.md": "See [[deep]] here.\n",
        "zzz/deep.md": "# Deep in zzz\n",
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, "utf-8")
    (tmp_path / "outside.md").write_text("# Outside\n", "utf-8")
    return root


async def opened(pages: Pages, folder: Path, scheme: str = "light") -> Page:
    context = await pages.context(color_scheme=scheme)
    # The web: never reached (tests reach only this machine); the new tab gets this page instead.
    await context.route("https://example.com/**", _fake_site)
    page = await pages.open(context=context)
    await open_folder(page, folder)
    return page


async def _fake_site(route: Route) -> None:
    await route.fulfill(status=200, content_type="text/html", body="<!doctype html><title>Example</title><p>hi</p>")


async def open_index(page: Page) -> str:
    tab = await open_from_tree(page, "index.md")
    await page.wait_for_selector(".ProseMirror .md-wikilink")
    return tab


async def title(page: Page) -> str:
    return await page.inner_text(".tab.active .title")


async def current_heading(page: Page) -> str:
    return await page.inner_text("#outline a[aria-current=location]")


async def toast(page: Page, level: str) -> str:
    item = page.locator(f".toast[data-level={level}]").last
    await expect(item).to_be_visible()
    return await item.inner_text()


async def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


async def back_to(page: Page, tab: str) -> None:
    await page.click(f".tab[data-tab-id='{tab}']")
    await wait_until(lambda: _is_active(page, tab), "the tab to show")


async def _is_active(page: Page, tab: str) -> bool:
    return await active_tab(page) == tab


# --- the protocol: ui.open_link ----------------------------------------------------------------------------
async def refused(person: UIClient, **args: Any) -> str:
    with pytest.raises(UIError) as info:
        await person.call("ui.open_link", **args)
    error = info.value.error
    assert isinstance(error, dict) and error["error"] == "INVALID_PATH", error
    return str(error["message"])


async def test_open_link_opens_only_inside_the_scope(
    vmark: RunningApp, person: UIClient, notes: Path, tmp_path: Path
) -> None:
    root = notes.resolve()
    await person.call("ui.open_folder", path=str(root))
    index = (await person.call("ui.open", path=str(root / "index.md")))["tabId"]
    opened = await person.call("ui.open_link", tabId=index, path="sub/deep.md")
    assert opened == {"path": str(root / "sub" / "deep.md"), "tabId": opened["tabId"]}
    window = vmark.app.session.windows["main"]
    assert window.active_tab == opened["tabId"]
    # The same file again: the same tab; an absolute path too; `..` inside the scope is fine.
    again = await person.call("ui.open_link", tabId=index, path=str(root / "sub" / "deep.md"))
    assert again == opened
    assert await person.call("ui.open_link", tabId=opened["tabId"], path="../notes.md") == {
        "path": str(root / "notes.md"),
        "tabId": window.tabs[-1].id,
    }
    # A missing file: where it would be, no tab (the page offers to create it).
    assert await person.call("ui.open_link", tabId=index, path="sub/new one.md") == {
        "path": str(root / "sub" / "new one.md")
    }
    tabs_before = [t.id for t in window.tabs]
    outside = str((tmp_path / "outside.md").resolve())
    assert (
        await refused(person, tabId=index, path="../outside.md")
        == f"'{outside}' lies outside the open workspace and documents"
    )
    assert (
        await refused(person, tabId=index, path=outside) == f"'{outside}' lies outside the open workspace and documents"
    )
    # A symlink in the workspace to a file outside it: refused where it really points.
    os.symlink(tmp_path / "outside.md", root / "link.md")
    assert (
        await refused(person, tabId=index, path="link.md")
        == "'" + str(root / "link.md") + "' lies outside the open workspace and documents"
    )
    assert await refused(person, tabId=index, path="sub") == f"{root / 'sub'} is a folder, not a file"
    (root / "picture.png").write_bytes(b"\x89PNG")
    assert (
        await refused(person, tabId=index, path="picture.png")
        == "picture.png: VMark opens Markdown and text files only"
    )
    untitled = (await person.call("ui.new"))["tabId"]
    assert (
        await refused(person, tabId=untitled, path="notes.md")
        == "notes.md: save the document first (a relative link starts at its folder)"
    )
    assert [t.id for t in window.tabs] == [*tabs_before, untitled]
    with pytest.raises(UIError) as info:
        await person.call("ui.open_link", tabId=index)
    assert info.value.error == "argument 'path' must be a string"


# --- Markdown links in WYSIWYG ------------------------------------------------------------------------------
async def test_ctrl_click_follows_each_kind_of_link_in_wysiwyg(pages: Pages, notes: Path, vmark: RunningApp) -> None:
    page = await opened(pages, notes)
    index = await open_index(page)
    assert await page.evaluate("window.vmarkPage.mode()") == "wysiwyg"
    link = page.locator(".ProseMirror a[href='notes.md']")

    # Hovering says where it goes.
    await link.hover()
    await expect(page.get_by_test_id("link-hover")).to_have_text("notes.md — Ctrl+click to open")
    # A plain click only places the cursor.
    await link.click()
    assert await active_tab(page) == index

    await link.click(modifiers=["Control"])
    notes_tab = await wait_shown(page, "notes.md")
    assert await editor_text(page) == NOTES
    await expect(page.get_by_test_id("link-hover")).to_be_hidden()

    # file.md#heading: the open tab again (not a second one), at the heading.
    await back_to(page, index)
    await page.locator(".ProseMirror a[href='notes.md#second-part']").click(modifiers=["Control"])
    assert await wait_shown(page, "notes.md") == notes_tab
    await expect(page.locator("#outline a[aria-current=location]")).to_have_text("Second part")
    await expect(page.locator(".ProseMirror h2", has_text="Second part")).to_be_in_viewport()
    assert [t.doc.path for t in vmark.app.session.windows["main"].tabs] == [
        str(notes / "index.md"),
        str(notes / "notes.md"),
    ]

    # #heading: this document's heading.
    await back_to(page, index)
    await page.locator(".ProseMirror a[href='#details']").hover()
    await expect(page.get_by_test_id("link-hover")).to_have_text("#details — Ctrl+click to go to the heading")
    await page.locator(".ProseMirror a[href='#details']").click(modifiers=["Control"])
    await expect(page.locator("#outline a[aria-current=location]")).to_have_text("Details")
    assert await active_tab(page) == index


async def test_a_web_link_opens_a_new_tab_that_cannot_reach_the_app(pages: Pages, notes: Path) -> None:
    page = await opened(pages, notes)
    index = await open_index(page)
    web = page.locator(".ProseMirror a[href='https://example.com/page']")
    await web.hover()
    await expect(page.get_by_test_id("link-hover")).to_have_text(
        "https://example.com/page — Ctrl+click to open in your browser"
    )
    app_url = page.url
    async with page.context.expect_page() as new_page:
        await web.click(modifiers=["Control"])
    site = await new_page.value
    await site.wait_for_load_state()
    assert site.url == "https://example.com/page"
    assert await site.evaluate("window.opener") is None
    assert await site.evaluate("document.referrer") == ""
    # The app's page stayed where it was, showing the same tab.
    assert page.url == app_url
    assert await active_tab(page) == index
    assert len(page.context.pages) == 2
    await site.close()


async def test_links_that_are_not_opened_say_why(pages: Pages, notes: Path, tmp_path: Path) -> None:
    page = await opened(pages, notes)
    index = await open_index(page)
    # Another scheme: refused with a notice, nothing opens.
    ftp = page.locator(".ProseMirror a[href='ftp://example.com/f']")
    await ftp.hover()
    await expect(page.get_by_test_id("link-hover")).to_have_text("ftp://example.com/f — VMark does not open ftp: links")
    await ftp.click(modifiers=["Control"])
    assert await toast(page, "warning") == (
        "VMark does not open ftp: links (ftp://example.com/f): only web pages (http, https) and files"
    )
    # A javascript: destination is no link at all in the WYSIWYG parse: text, nothing to click.
    await expect(page.locator(".ProseMirror p", has_text="[bad](javascript:alert(1))")).to_have_count(1)
    await expect(page.locator(".ProseMirror a[href^='javascript']")).to_have_count(0)
    # Out of the window's path scope: refused, the notice names the file and why.
    await page.locator(".ProseMirror a[href='../outside.md']").click(modifiers=["Control"])
    outside = (tmp_path / "outside.md").resolve()
    assert await toast(page, "error") == (
        f"The link was not opened: INVALID_PATH: '{outside}' lies outside the open workspace and documents"
    )
    assert len(page.context.pages) == 1
    assert await active_tab(page) == index
    assert await page.locator(".tab").count() == 1


async def test_a_link_to_a_missing_file_offers_to_create_it(pages: Pages, notes: Path, vmark: RunningApp) -> None:
    page = await opened(pages, notes)
    index = await open_index(page)
    missing = page.locator(".ProseMirror a[href='new-page.md']")
    # Cancel: nothing is created.
    await missing.click(modifiers=["Control"])
    dialog = page.get_by_test_id("link-create")
    await expect(dialog).to_be_visible()
    await expect(dialog.locator("h2")).to_have_text("new-page.md does not exist")
    await page.keyboard.press("Escape")
    await expect(dialog).to_be_hidden()
    assert not (notes / "new-page.md").exists()
    assert await active_tab(page) == index
    # Create (Enter: the focused button): the empty file, opened in its tab, in the tree.
    await missing.click(modifiers=["Control"])
    await expect(dialog).to_be_visible()
    await page.keyboard.press("Enter")
    await wait_shown(page, "new-page.md")
    assert (notes / "new-page.md").read_bytes() == b""
    assert await page.evaluate("window.vmarkPage.mode()") == "wysiwyg"
    await expect(page.locator("button.file[data-path='new-page.md']")).to_have_count(1)
    assert [t.doc.path for t in vmark.app.session.windows["main"].tabs][-1] == str(notes / "new-page.md")


# --- wikilinks in WYSIWYG ------------------------------------------------------------------------------------
async def test_wikilinks_are_shown_as_links_resolved_or_not(pages: Pages, notes: Path) -> None:
    page = await opened(pages, notes)
    await open_index(page)
    links = page.locator(".ProseMirror .md-wikilink")
    assert await links.all_inner_texts() == [shown for _, shown in WIKILINKS]
    states = [await link.get_attribute("data-state") for link in await links.all()]
    assert states == ["resolved"] * 7 + ["unresolved"]
    # In a code span it is code.
    await expect(page.locator(".ProseMirror code", has_text="[[in code]]")).to_have_count(1)
    await links.nth(4).hover()
    await expect(page.get_by_test_id("link-hover")).to_have_text("sub/deep.md — Ctrl+click to open")
    await links.nth(7).hover()
    await expect(page.get_by_test_id("link-hover")).to_have_text("nowhere does not exist yet — Ctrl+click to create it")


async def test_ctrl_click_follows_wikilinks(pages: Pages, notes: Path) -> None:
    page = await opened(pages, notes)
    index = await open_index(page)
    links = page.locator(".ProseMirror .md-wikilink")
    await links.nth(3).click(modifiers=["Control"])  # [[notes#Second part|there]]
    await wait_shown(page, "notes.md")
    await expect(page.locator("#outline a[aria-current=location]")).to_have_text("Second part")
    await back_to(page, index)
    await links.nth(6).click(modifiers=["Control"])  # [[#Details]]
    await expect(page.locator("#outline a[aria-current=location]")).to_have_text("Details")
    # [[deep]] from the workspace root: sub/deep.md and zzz/deep.md are as near; the first by path wins.
    await links.nth(4).click(modifiers=["Control"])
    await wait_shown(page, "deep.md")
    assert await editor_text(page) == "# Deep in sub\n"
    # From sub/page.md, [[deep]] is the file beside it.
    await open_from_tree(page, "sub/page.md")
    await page.locator(".ProseMirror .md-wikilink").click(modifiers=["Control"])
    await wait_editor_text(page, "# Deep in sub\n")


async def test_an_unresolved_wikilink_creates_its_file_beside_the_document(pages: Pages, notes: Path) -> None:
    page = await opened(pages, notes)
    index = await open_index(page)
    nowhere = page.locator(".ProseMirror .md-wikilink", has_text="nowhere")
    await nowhere.click(modifiers=["Control"])
    await expect(page.get_by_test_id("link-create").locator("h2")).to_have_text("nowhere.md does not exist")
    await page.get_by_role("button", name="Create nowhere.md").click()
    await wait_shown(page, "nowhere.md")
    assert (notes / "nowhere.md").read_bytes() == b""
    await back_to(page, index)
    await expect(page.locator(".ProseMirror .md-wikilink", has_text="nowhere")).to_have_attribute(
        "data-state", "resolved"
    )


async def test_typing_around_a_wikilink_keeps_its_bytes(pages: Pages, notes: Path) -> None:
    (notes / "para.md").write_text("Read [[readability|the *reader* notes]] first.\n\nNext.\n", "utf-8")
    page = await opened(pages, notes)
    await open_from_tree(page, "para.md")
    paragraph = page.locator(".ProseMirror p").first
    await paragraph.click(position={"x": 1, "y": 8})  # before "Read"
    await page.keyboard.type("Please ")
    await page.keyboard.press("End")
    await page.keyboard.press("ArrowLeft")  # before the final "."
    await page.keyboard.type(" of all")
    # Right after the atom: click its end, then type.
    link = page.locator(".ProseMirror .md-wikilink")
    box = await link.bounding_box()
    assert box is not None
    await page.mouse.click(box["x"] + box["width"] + 1, box["y"] + box["height"] / 2)
    await page.keyboard.type(" [x]")
    await page.keyboard.press("Control+s")
    expected = "Please Read [[readability|the *reader* notes]] [x] first of all.\n\nNext.\n"
    await wait_until(lambda: (notes / "para.md").read_text("utf-8") == expected, "the saved bytes")
    assert (notes / "para.md").read_bytes() == expected.encode()


async def test_double_bracket_completes_the_workspace_file_names_by_keys(pages: Pages, notes: Path) -> None:
    (notes / "draft.md").write_text("Start.\n", "utf-8")
    page = await opened(pages, notes)
    await open_from_tree(page, "draft.md")
    await page.locator(".ProseMirror p").click()
    await page.keyboard.press("End")
    await page.keyboard.type(" see [[no")
    complete = page.get_by_test_id("wikilink-complete")
    await expect(complete).to_be_visible()
    await expect(complete.locator("[role=option]").first).to_contain_text("notes")
    # Escape closes the list; the typed text stays.
    await page.keyboard.press("Escape")
    await expect(complete).to_be_hidden()
    await page.keyboard.type("t")  # typing on opens it again
    await expect(complete).to_be_visible()
    await page.keyboard.press("Enter")
    await expect(complete).to_be_hidden()
    await expect(page.locator(".ProseMirror .md-wikilink")).to_have_text("notes")
    # Tab completes too; a path where the name alone is ambiguous from here.
    await page.keyboard.type(" and [[dee")
    await expect(complete.locator("[role=option]").first).to_contain_text("deep")
    await page.keyboard.press("ArrowDown")
    await expect(complete.locator("[role=option][aria-selected=true]")).to_contain_text("zzz/deep.md")
    await page.keyboard.press("Tab")
    await page.keyboard.type(" and [[sub/deep]] typed.")
    await page.keyboard.press("Control+s")
    expected = "Start. see [[notes]] and [[zzz/deep]] and [[sub/deep]] typed.\n"
    await wait_until(lambda: (notes / "draft.md").read_text("utf-8") == expected, "the saved bytes")
    await expect(page.locator(".ProseMirror .md-wikilink")).to_have_text(["notes", "zzz/deep", "sub/deep"])


# --- source mode -------------------------------------------------------------------------------------------
async def source_index(page: Page) -> str:
    tab = await open_index(page)
    await page.click("#mode-toggle")
    await page.wait_for_selector(".cm-content .cm-wikilink")
    return tab


async def test_source_mode_decorates_follows_and_explains_links(pages: Pages, notes: Path) -> None:
    page = await opened(pages, notes)
    index = await source_index(page)
    wikilinks = page.locator(".cm-content .cm-wikilink")
    assert await wikilinks.all_inner_texts() == [written for written, _ in WIKILINKS]
    await expect(page.locator(".cm-content .cm-wikilink-unresolved")).to_have_text("[[nowhere]]")
    # Hover on a link's text.
    text = page.locator(".cm-content .cm-line", has_text="Go to").get_by_text("the part", exact=True)
    await text.hover()
    await expect(page.get_by_test_id("link-hover")).to_have_text("notes.md#second-part — Ctrl+click to open")
    # javascript: is a link in the source's parse: Ctrl+click refuses it.
    await (
        page.locator(".cm-content .cm-line", has_text="Also")
        .get_by_text("bad", exact=True)
        .click(modifiers=["Control"])
    )
    assert await toast(page, "warning") == (
        "VMark does not open javascript: links (javascript:alert(1)): only web pages (http, https) and files"
    )
    assert await active_tab(page) == index
    # Ctrl+click on the link's text: the heading of the other file.
    await text.click(modifiers=["Control"])
    await wait_shown(page, "notes.md")
    await expect(page.locator("#outline a[aria-current=location]")).to_have_text("Second part")
    await back_to(page, index)
    # A wikilink; no second cursor was added by the Ctrl+clicks.
    await page.locator(".cm-content .cm-wikilink", has_text="[[sub/deep]]").click(modifiers=["Control"])
    await wait_shown(page, "deep.md")
    await back_to(page, index)
    assert await page.locator(".cm-content .cm-cursor-secondary").count() == 0


async def test_source_mode_completes_double_brackets_by_keys(pages: Pages, notes: Path) -> None:
    (notes / "draft.md").write_text("Start.\n", "utf-8")
    page = await opened(pages, notes)
    await open_from_tree(page, "draft.md")
    await page.click("#mode-toggle")
    await page.wait_for_selector(".cm-content")
    await page.click(".cm-content")
    await page.keyboard.press("Control+End")
    await page.keyboard.type("See [[not")
    # The list as it takes keys: greyed (``-disabled``) while it waits for the results of the last key typed.
    options = page.locator(".cm-tooltip-autocomplete:not(.cm-tooltip-autocomplete-disabled) [role=option]")
    shown = page.locator(".cm-tooltip-autocomplete [role=option]")
    await expect(options.first).to_contain_text("notes")
    await page.keyboard.press("Tab")
    await wait_editor_text(page, "Start.\nSee [[notes]]")
    await page.keyboard.type(" and [[in")
    await expect(options.first).to_contain_text("index")
    await page.keyboard.press("Escape")
    await expect(shown).to_have_count(0)
    await page.keyboard.type("d")
    await expect(options.first).to_contain_text("index")
    await page.keyboard.press("Enter")
    await wait_editor_text(page, "Start.\nSee [[notes]] and [[index]]")
    # In a code span there is nothing to complete.
    await page.keyboard.type(" `[[no")
    await page.keyboard.press("Escape")  # whatever may be open
    await expect(shown).to_have_count(0)


# --- how it looks ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_screenshots_of_links_and_completion(pages: Pages, notes: Path, scheme: str) -> None:
    page = await opened(pages, notes, scheme)
    await open_index(page)
    await page.locator(".ProseMirror .md-wikilink", has_text="nowhere").hover()
    await expect(page.get_by_test_id("link-hover")).to_be_visible()
    await shot(page, f"links-{scheme}-wysiwyg-hover")
    await page.locator(".ProseMirror h2").click()
    await page.keyboard.press("End")
    await page.keyboard.type(" [[d")
    await expect(page.get_by_test_id("wikilink-complete")).to_be_visible()
    await shot(page, f"links-{scheme}-wysiwyg-complete")
    await page.keyboard.press("Escape")
    await page.click("#mode-toggle")
    await page.wait_for_selector(".cm-content .cm-wikilink")
    await page.locator(".cm-content .cm-line", has_text="Go to").get_by_text("notes", exact=True).hover()
    await expect(page.get_by_test_id("link-hover")).to_be_visible()
    await shot(page, f"links-{scheme}-source-hover")
    await page.click(".cm-content")
    await page.keyboard.press("Control+End")
    await page.keyboard.type("[[no")
    await expect(page.locator(".cm-tooltip-autocomplete")).to_be_visible()
    await asyncio.sleep(0)  # the shot shows what is there now
    await shot(page, f"links-{scheme}-source-complete")
