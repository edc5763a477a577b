"""A Mermaid diagram follows the theme: switched with the toolbar, and when the system's scheme changes while
the setting follows the system, it is drawn again in the theme shown (the SVG's computed fill changes)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

from playwright.async_api import Page, expect

from tests.contract.helpers import wait_until
from tests.ui.conftest import ARTIFACTS, Pages
from tests.ui.everyday import open_file_in
from vmark.app.server import RunningApp

DIAGRAM = "# Flow\n\n```mermaid\ngraph TD\n  A[Start] --> B[End]\n```\n"
SVG_PREFIX = "data:image/svg+xml;charset=utf-8,"


async def _image_src(page: Page) -> str:
    return str(await page.locator(".md-diagram img").get_attribute("src"))


async def _node_colours(pages: Pages, page: Page) -> tuple[str, str]:
    """The computed fill and stroke of the diagram's first node, in its SVG as the image shows it."""
    src = await _image_src(page)
    assert src.startswith(SVG_PREFIX), src[:60]
    blank = await page.context.new_page()
    try:
        await blank.set_content(unquote(src[len(SVG_PREFIX) :]))
        node = blank.locator(".node rect").first
        fill = await node.evaluate("e => getComputedStyle(e).fill")
        stroke = await node.evaluate("e => getComputedStyle(e).stroke")
        return str(fill), str(stroke)
    finally:
        await blank.close()


def _luminance(rgb: str) -> float:
    r, g, b = (int(part) for part in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


async def test_a_diagram_is_drawn_again_on_a_theme_switch(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page, _ = await open_file_in(pages, workspace, "flow.md", DIAGRAM.encode(), "wysiwyg")
    diagram = page.locator(".md-diagram")
    await expect(diagram).to_have_attribute("data-state", "rendered", timeout=30_000)
    light_fill, light_stroke = await _node_colours(pages, page)
    assert _luminance(light_fill) > 180, light_fill  # a light node
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / "everyday-mermaid-light.png"))

    # The setting follows the system ("system", the default): the system turns dark.
    light_src = await _image_src(page)
    await page.emulate_media(color_scheme="dark")
    await expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    await wait_until(lambda: _changed(page, light_src), "the diagram drawn again", timeout=30)
    dark_fill, dark_stroke = await _node_colours(pages, page)
    assert _luminance(dark_fill) < 100, dark_fill  # a dark node
    assert (dark_fill, dark_stroke) != (light_fill, light_stroke)
    await page.screenshot(path=str(ARTIFACTS / "everyday-mermaid-dark.png"))

    # The toolbar's theme button: from the system's dark to light.
    dark_src = await _image_src(page)
    await page.click("#theme-toggle")
    await expect(page.locator("html")).to_have_attribute("data-theme", "light")
    await wait_until(lambda: _changed(page, dark_src), "the diagram drawn again in light", timeout=30)
    assert await _node_colours(pages, page) == (light_fill, light_stroke)


async def _changed(page: Page, before: str) -> bool:
    return await _image_src(page) != before
