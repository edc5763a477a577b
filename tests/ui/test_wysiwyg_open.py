"""Opening a long document in WYSIWYG (issue 26): the first screens are parsed and shown first, the rest of the text
is parsed in parts and its blocks appended after them (editors/mdsource/partial.ts and fill.ts, the editor
`aria-busy` meanwhile). What the person types, an agent's change, find and the outline all see the whole
document; links resolve by definitions anywhere in it; the saved bytes are exact."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Page, expect

from tests.conftest import make_client, ok
from tests.contract.helpers import wait_until
from tests.ui.conftest import Pages
from tests.ui.helpers import open_folder, open_from_tree, pages_flushed, wait_doc_text
from tests.ui.lossless import click_after
from vmark.app.server import RunningApp

PARTS = 1800
PARAGRAPH = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon"
LAST = "## Last part\n\nThe final word is zanzibar."


def long_doc() -> str:
    """About 2 MB: a heading and paragraphs per part (a list and a table now and then), a unique word at the end."""
    parts = []
    for k in range(PARTS):
        body = "\n\n".join(f"{PARAGRAPH} {k} {n}." for n in range(10))
        extra = f"\n\n- item {k}\n- another {k}" if k % 3 == 0 else ""
        if k % 5 == 0:
            extra += f"\n\n| a | b |\n| --- | --- |\n| {k} | x |"
        parts.append(f"## Part {k}\n\n{body}{extra}")
    return "# Long document\n\n" + "\n\n".join(parts) + f"\n\n{LAST}\n"


async def open_long(pages: Pages, workspace: Path, text: str) -> tuple[Page, str]:
    """The document opened and switched to WYSIWYG; the page records whether the editor was still being filled at
    the person's first key (the test is about keys pressed during the fill)."""
    (workspace / "long.md").write_text(text, "utf-8")
    page = await pages.open()
    await open_folder(page, workspace)
    tab = await open_from_tree(page, "long.md")
    await page.evaluate(
        """() => document.addEventListener("keydown", () => {
             window.__busyAtFirstKey ??= document.querySelector(".ProseMirror")?.getAttribute("aria-busy") ?? "none";
           }, { capture: true })"""
    )
    await page.click("#mode-toggle")
    await page.locator(".ProseMirror h1").first.wait_for()
    return page, tab


async def filled(page: Page) -> None:
    await expect(page.locator(".ProseMirror")).not_to_have_attribute("aria-busy", "true", timeout=120_000)


async def test_keys_and_an_agent_change_during_the_fill_land_in_the_right_bytes(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    text = long_doc()
    assert len(text.encode()) > 2_000_000
    page, tab = await open_long(pages, workspace, text)
    await page.click(".ProseMirror h1")
    await page.keyboard.press("Control+Home")
    await page.keyboard.type("New ")
    assert await page.evaluate("window.__busyAtFirstKey") == "true"
    # An agent changes a heading far below the first screen, while the rest is still being added.
    await pages_flushed(vmark)
    async with make_client(vmark.data_dir) as agent:
        read = await ok(agent, "document", "read", tabId=tab)
        assert read["content"].startswith("# New Long document\n")
        await ok(
            agent,
            "document",
            "edit",
            tabId=tab,
            edits=[{"old": "\n## Part 700\n", "new": "\n## Part 700 by the agent\n"}],
        )
    await filled(page)
    await expect(page.locator(".ProseMirror h2", has_text="Part 700 by the agent")).to_have_count(1)
    # At the end, once everything is there.
    expected = (
        text.replace("# Long document\n", "# New Long document\n", 1)
        .replace("\n## Part 700\n", "\n## Part 700 by the agent\n")
        .replace("zanzibar.\n", "zanzibar. Done.\n")
    )
    await _typed_at_the_end_and_saved(page, vmark, workspace, tab, " Done.", expected)
    await _outline_shows_every_heading(page)


async def test_find_and_the_outline_see_the_whole_document_from_the_start(pages: Pages, workspace: Path) -> None:
    text = long_doc()
    page, _tab = await open_long(pages, workspace, text)
    await page.click(".ProseMirror h1")
    await page.keyboard.press("Control+f")
    assert await page.evaluate("window.__busyAtFirstKey") == "true"
    await page.get_by_role("searchbox", name="Find").fill("zanzibar")
    await expect(page.get_by_test_id("find-count")).to_have_text("1 of 1")
    await page.keyboard.press("Enter")
    match = page.locator(".ProseMirror > .pm-section > p", has_text="The final word is").locator(".md-find-match")
    await expect(match).to_have_text("zanzibar")
    await expect(page.locator(".ProseMirror")).not_to_have_attribute("aria-busy", "true")  # find took it all
    await _outline_shows_every_heading(page)


async def test_select_all_during_the_fill_selects_the_whole_document(pages: Pages, workspace: Path) -> None:
    text = long_doc()
    page, _tab = await open_long(pages, workspace, text)
    await page.click(".ProseMirror h1")
    await page.keyboard.press("Control+a")
    assert await page.evaluate("window.__busyAtFirstKey") == "true"
    selected = await page.evaluate("getSelection().toString()")
    assert selected.startswith("Long document") and selected.rstrip().endswith("The final word is zanzibar.")


async def test_ctrl_end_shows_the_last_line_of_a_long_document(pages: Pages, workspace: Path) -> None:
    """The blocks laid out around the caret for the first time are taller than their placeholders: the jump's view
    follows the caret until it stays on screen."""
    page, _tab = await open_long(pages, workspace, long_doc())
    await page.click(".ProseMirror h1")
    await page.keyboard.press("Control+End")  # the rest parsed and shown at once
    await filled(page)
    paragraphs = page.locator(".ProseMirror > .pm-section > p")
    await expect(paragraphs.filter(has_text="The final word is zanzibar.")).to_be_in_viewport()
    await page.keyboard.type(" End.")
    await expect(paragraphs.filter(has_text="The final word is zanzibar. End.")).to_be_in_viewport()
    await page.keyboard.press("Control+Home")
    await expect(page.locator(".ProseMirror h1", has_text="Long document")).to_be_in_viewport()


FENCE = "```text\n" + "\n\n".join(f"line {n}\n## Not a heading {n}" for n in range(400)) + "\n```"


def linked_doc() -> str:
    """The long document with links at its top defined at its end (one in a quote, which the first scan of the
    definitions misses), and a fence with blank lines and unindented lines across where the first part ends."""
    top = "# Linked\n\nSee [the spec] and [the quote].\n\n" + "\n\n".join(f"{PARAGRAPH} {n}." for n in range(200))
    definitions = "[the spec]: https://example.com/spec\n\n> [the quote]: https://example.com/quote\n"
    return f"{top}\n\n{FENCE}\n\n{long_doc()}\n{definitions}"


async def test_links_defined_at_the_end_and_a_fence_across_the_first_part(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    text = linked_doc()
    assert text.index("```text") < 24_000 < text.index("\n```\n")  # the fence runs across the first part's end
    page, tab = await open_long(pages, workspace, text)
    first = page.locator(".ProseMirror > .pm-section > p").first
    await expect(first.locator("a", has_text="the spec")).to_have_attribute("href", "https://example.com/spec")
    await first.click(position={"x": 2, "y": 5})
    await page.keyboard.press("Home")
    await page.keyboard.type("Now: ")
    assert await page.evaluate("window.__busyAtFirstKey") == "true"
    await pages_flushed(vmark)
    async with make_client(vmark.data_dir) as agent:
        await ok(
            agent, "document", "edit", tabId=tab, edits=[{"old": "\n## Part 1700\n", "new": "\n## Part 1700 again\n"}]
        )
    expected = (
        text.replace("See [the spec]", "Now: See [the spec]", 1)
        .replace("\n## Part 1700\n", "\n## Part 1700 again\n")
        .replace("example.com/quote\n", "example.com/quote!\n")
    )
    # Ctrl+End parses and shows the rest at once (on a loaded machine the idle-time fill takes minutes).
    await _typed_at_the_end_and_saved(page, vmark, workspace, tab, "!", expected)
    await filled(page)
    # The definition in a quote, which the first scan missed, is read once the whole text is parsed (with the "!"
    # just typed at its end).
    await expect(first.locator("a", has_text="the quote")).to_have_attribute("href", "https://example.com/quote!")
    await expect(page.locator(".ProseMirror h2", has_text="Not a heading")).to_have_count(0)
    await expect(page.locator(".ProseMirror h2", has_text="Part 1700 again")).to_have_count(1)


async def _typed_at_the_end_and_saved(
    page: Page, vmark: RunningApp, workspace: Path, tab: str, typed: str, expected: str
) -> None:
    """Keys at the document's end (Ctrl+End), then Ctrl+S: the app's text and the file's bytes are `expected`."""
    await page.keyboard.press("Control+End")
    await page.keyboard.type(typed)
    await page.keyboard.press("Control+s")
    await wait_doc_text(vmark, tab, expected)
    await wait_until(lambda: (workspace / "long.md").read_bytes() == expected.encode(), "the saved bytes")


async def _outline_shows_every_heading(page: Page) -> None:
    items = page.get_by_role("navigation", name="Outline").locator(".outline-item")
    await expect(items.last).to_have_text("Last part")
    await expect(items).to_have_count(PARTS + 2)


_LAST_SHOWN_PARAGRAPH = """() => {
  const paragraphs = document.querySelectorAll(".ProseMirror > .pm-section > p");
  const last = paragraphs[paragraphs.length - 1];
  last.scrollIntoView({ block: "center" });
  return last.textContent;
}"""


async def test_a_paste_at_the_end_of_the_shown_part_during_the_fill_lands_as_typed(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    """The blocks a paste joins reach past what the view shows yet: the rest is shown first, then the Markdown goes
    in as its characters (`&amp;` stays: ProseMirror's nodes, written by the engine, would say `&`)."""
    text = long_doc()
    page, tab = await open_long(pages, workspace, text)
    await page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=vmark.ui_url.split("/?")[0])
    pasted = "- pasted *one* &amp; more\n- pasted two"
    await page.evaluate("(t) => navigator.clipboard.writeText(t)", pasted)
    # The fill waits while the person clicks and types: the view shows the same blocks from here to the paste.
    await page.click(".ProseMirror h1")
    last = await page.evaluate(_LAST_SHOWN_PARAGRAPH)
    await click_after(page, last)
    await page.keyboard.press("Control+v")
    assert await page.evaluate("window.__busyAtFirstKey") == "true"
    await expect(page.locator(".ProseMirror li", has_text="pasted one & more")).to_have_count(1)
    expected = text.replace(f"{last}\n", f"{last}\n\n{pasted}\n", 1).replace("zanzibar.\n", "zanzibar. Done.\n")
    await _typed_at_the_end_and_saved(page, vmark, workspace, tab, " Done.", expected)
