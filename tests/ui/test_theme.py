"""Themes and layout (issue 18): the dark theme under ``prefers-color-scheme: dark`` (and by choice), the
toolbar at 900 px, the tab strip that scrolls; screenshots of every panel and dialog in both themes."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.contract.helpers import wait_until
from tests.ui.conftest import ARTIFACTS, Pages
from tests.ui.helpers import open_folder, open_from_tree

DARK_BG = "rgb(13, 17, 23)"
LIGHT_BG = "rgb(255, 255, 255)"
RICH = (
    "# Trip notes\n\nSome *words* with `code`, a [link](https://example.org) and math $e^{i\\pi}+1=0$.\n\n"
    "- [ ] pack the bag\n- [x] book the train\n\n| Day | Place |\n|:----|------:|\n| 1 | Lyon |\n| 2 | Turin |\n\n"
    "```python\ndef hello():\n    return 'world'\n```\n\n> A quote.\n\n$$\n\\int_0^1 x\\,dx = \\tfrac12\n$$\n"
)


async def themed_page(pages: Pages, scheme: str, width: int = 1200) -> Page:
    context = await pages.context(viewport={"width": width, "height": 800}, color_scheme=scheme)
    return await pages.open(context=context)


async def background(page: Page, selector: str) -> str:
    return str(await page.eval_on_selector(selector, "e => getComputedStyle(e).backgroundColor"))


async def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_the_theme_follows_the_system_in_every_part(pages: Pages, workspace: Path, scheme: str) -> None:
    (workspace / "rich.md").write_text(RICH, "utf-8")
    page = await themed_page(pages, scheme)
    bg = DARK_BG if scheme == "dark" else LIGHT_BG
    assert await page.evaluate("document.documentElement.dataset.theme") == scheme
    await open_folder(page, workspace)
    await open_from_tree(page, "rich.md")
    assert await background(page, "#editor .cm-editor") == bg
    assert await background(page, ".sidebar") == bg
    assert await background(page, "#outline") == bg
    await shot(page, f"theme-{scheme}-source")
    await page.click("#mode-toggle")
    await page.wait_for_selector(".ProseMirror")
    assert await background(page, "#editor") == bg
    await shot(page, f"theme-{scheme}-wysiwyg")
    for toggle, panel in [
        ("#history-toggle", "#history"),
        ("#comments-toggle", "#comments"),
        ("#coherence-toggle", "#coherence"),
        ("#browser-toggle", "#browser"),
    ]:
        await page.click(toggle)
        await expect(page.locator(panel)).to_be_visible()
        assert await background(page, panel) == bg, panel
        await shot(page, f"panel-{panel[1:]}-{scheme}")
        await page.click(toggle)
    for opener, dialog, name in [
        ("#settings-open", "#settings", "settings"),
        ("Control+p", "#quick-open", "quick-open"),
        ("Control+Shift+P", "#command-palette", "palette"),
        ("Control+Shift+F", "#workspace-search", "search"),
        ("Control+/", "#shortcuts", "shortcuts"),
    ]:
        if opener.startswith("#"):
            await page.click(opener)
        else:
            await page.keyboard.press(opener)
        await expect(page.locator(dialog)).to_be_visible()
        assert await background(page, dialog) == bg, dialog
        if name == "search":
            await page.get_by_role("searchbox", name="Search the workspace").fill("a")
            await expect(page.locator(".search-hit").first).to_be_visible()
        await shot(page, f"dialog-{name}-{scheme}")
        await page.keyboard.press("Escape")
        await expect(page.locator(dialog)).to_be_hidden()
    await page.click(".ProseMirror h1")
    await page.keyboard.press("Control+f")
    await page.get_by_role("searchbox", name="Find").fill("the")
    await shot(page, f"findbar-{scheme}")


async def test_the_theme_button_overrides_the_system_and_is_remembered(pages: Pages, workspace: Path) -> None:
    page = await themed_page(pages, "light")
    button = page.locator("#theme-toggle")
    await expect(button).to_have_attribute("aria-label", "Theme: follows the system")
    await button.click()
    await expect(button).to_have_attribute("aria-label", "Theme: dark")
    assert await page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert await background(page, ".sidebar") == DARK_BG
    again = await themed_page(pages, "light")
    await wait_until(
        lambda: again.evaluate("document.documentElement.dataset.theme == 'dark'"), "the stored choice to apply"
    )
    await button.click()
    await expect(button).to_have_attribute("aria-label", "Theme: light")
    await button.click()
    await expect(button).to_have_attribute("aria-label", "Theme: follows the system")


@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_every_toolbar_action_is_visible_at_900_px(pages: Pages, workspace: Path, scheme: str) -> None:
    page = await themed_page(pages, scheme, width=900)
    await open_folder(page, workspace)
    await open_from_tree(page, "a.md")
    boxes = await page.eval_on_selector_all(
        "header.bar button",
        "bs => bs.filter(b => !b.hidden).map(b => { const r = b.getBoundingClientRect();"
        " return [b.getAttribute('aria-label') || b.textContent.trim(), r.left, r.right, r.top, r.bottom, b.title]; })",
    )
    assert len(boxes) >= 14
    for name, left, right, top, bottom, title in boxes:
        assert left >= 0 and right <= 900 and top >= 0 and bottom <= 60, (name, left, right)
        assert title, f"{name} has no tooltip"
    names = [b[0] for b in boxes]
    assert {"New", "Save", "Settings", "Browser", "Outline", "Keyboard shortcuts"} <= set(names)
    width = await page.evaluate("document.documentElement.scrollWidth")
    assert width <= 900
    await shot(page, f"layout-900-{scheme}")


async def test_the_tab_strip_scrolls_to_the_active_tab(pages: Pages, workspace: Path) -> None:
    for n in range(14):
        (workspace / f"chapter-{n:02}.md").write_text(f"# {n}\n", "utf-8")
    page = await themed_page(pages, "light", width=900)
    await open_folder(page, workspace)
    for n in range(14):
        await open_from_tree(page, f"chapter-{n:02}.md")
    strip = page.locator("#tabs")
    assert await strip.evaluate("e => e.scrollWidth > e.clientWidth")
    await expect(page.locator(".tab.active")).to_be_in_viewport()
    assert await page.evaluate("document.documentElement.scrollWidth") <= 900
    await page.keyboard.press("Control+Tab")  # wraps to the first tab: scrolled back into view
    await expect(page.locator(".tab.active .title")).to_have_text("chapter-00")
    await expect(page.locator(".tab.active")).to_be_in_viewport()
    await shot(page, "tabs-many-light")


async def test_each_toolbar_button_draws_its_icon_inline_in_its_own_colour(pages: Pages, workspace: Path) -> None:
    """The icons are inline SVG (no image of a `data:` URL: Chromium builds a document for each), one per button;
    the mode button keeps its icon when its words change."""
    page = await themed_page(pages, "dark", width=1600)
    await open_folder(page, workspace)
    await open_from_tree(page, "a.md")
    icons = await page.eval_on_selector_all(
        "header.bar button[id]",
        "bs => bs.map(b => { const icon = b.querySelector(':scope > svg.icon');"
        " const r = icon?.getBoundingClientRect();"
        " return [b.id, b.querySelectorAll('svg.icon').length, icon ? icon.childElementCount : 0,"
        " r ? [r.width, r.height] : null, getComputedStyle(b).color, icon ? getComputedStyle(icon).color : null,"
        " icon?.getAttribute('stroke'), getComputedStyle(b, '::before').maskImage]; })",
    )
    assert len(icons) >= 16
    for button, count, shapes, size, color, drawn, stroke, mask in icons:
        assert (count, size, mask) == (1, [16, 16], "none"), button
        assert shapes >= 1, f"{button}'s icon draws nothing"
        assert (drawn, stroke) == (color, "currentColor"), button
    toggle = page.locator("#mode-toggle")
    await expect(toggle).to_have_text("WYSIWYG")
    await toggle.click()
    await expect(toggle).to_have_text("Source")
    assert await toggle.evaluate("b => b.querySelectorAll('svg.icon').length") == 1
    await toggle.click()
    await expect(toggle).to_have_text("WYSIWYG")
    assert await toggle.evaluate("b => b.querySelectorAll('svg.icon').length") == 1
