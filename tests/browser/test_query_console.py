"""query, style and the console capture."""

from __future__ import annotations

import pytest
from playwright.async_api import Page

from vmark.browser.act import act
from vmark.browser.console import clear_console, install_console, read_console
from vmark.browser.query import InvalidSelector, query
from vmark.browser.snapshot import StaleRef, read_snapshot
from vmark.browser.style import StyleArgumentError, style


async def test_query_fields_and_refs(page: Page, site: str) -> None:
    await page.goto(f"{site}/basic.html")
    snapshot = await read_snapshot(page)
    press = next(node["ref"] for node in snapshot["snapshot"] if node["name"] == "Press me")
    answer = await query(page, "#plain", {"attributes": True, "box": True, "styles": ["display", "cursor"]})
    assert answer["count"] == 1 and "truncated" not in answer
    [element] = answer["elements"]
    assert element["ref"] == press  # the same element, the same ref
    assert (element["tag"], element["text"], element["attributes"]) == ("button", "Press me", {"id": "plain"})
    assert element["styles"] == {"display": "inline-block", "cursor": "default"}
    assert set(element["box"]) == {"x", "y", "width", "height"} and element["box"]["width"] > 0
    plain = await query(page, "h1")
    assert plain == {"count": 1, "elements": [{"ref": plain["elements"][0]["ref"], "tag": "h1", "text": "Main title"}]}


async def test_query_limits(page: Page, site: str) -> None:
    await page.goto(f"{site}/many.html?n=60")
    answer = await query(page, "button")
    assert answer["count"] == 61 and answer["truncated"] is True
    assert len(answer["elements"]) == 50
    await page.evaluate("document.querySelector('button').textContent = 'y'.repeat(900)")
    first = (await query(page, "button"))["elements"][0]
    assert first["text"] == "y" * 500


async def test_query_invalid_selector(page: Page, site: str) -> None:
    await page.goto(f"{site}/other.html")
    with pytest.raises(InvalidSelector, match=r"invalid selector 'div\[': .*not a valid selector"):
        await query(page, "div[")


async def test_query_ignores_patched_page_globals(page: Page, site: str) -> None:
    await page.goto(f"{site}/globals.html")
    answer = await query(page, "p.para", {"attributes": True})
    assert [(e["tag"], e["text"], e["attributes"]) for e in answer["elements"]] == [("p", "Text", {"class": "para"})]


async def test_style_dismisses_an_overlay(page: Page, site: str) -> None:
    await page.goto(f"{site}/covered.html")
    assert (await act(page, "click", role="button", name="Accept"))["reason"] == "covered"
    assert await style(page, selector=".cmp-overlay", set={"display": "none !important"}) == {"count": 1}
    assert await page.evaluate("getComputedStyle(document.querySelector('.cmp-overlay')).display") == "none"
    assert (await act(page, "click", role="button", name="Accept"))["ok"] is True


async def test_style_classes_css_and_errors(page: Page, site: str) -> None:
    await page.goto(f"{site}/other.html")
    snapshot = await read_snapshot(page)
    ref = snapshot["snapshot"][1]["ref"]
    assert await style(page, ref=ref, add_classes=["hot", "big"]) == {"count": 1}
    assert await page.evaluate("document.querySelectorAll('button')[0].className") == "hot big"
    assert await style(page, ref=ref, remove_classes=["hot"]) == {"count": 1}
    assert await page.evaluate("document.querySelectorAll('button')[0].className") == "big"
    assert await style(page, inject_css=".big { color: rgb(1, 2, 3); }") == {"count": 0, "injected": True}
    assert await page.evaluate("getComputedStyle(document.querySelector('.big')).color") == "rgb(1, 2, 3)"
    with pytest.raises(InvalidSelector):
        await style(page, selector="[[", add_classes=["x"])
    with pytest.raises(StyleArgumentError):
        await style(page, selector="button", add_classes=["x"], remove_classes=["y"])
    with pytest.raises(StyleArgumentError):
        await style(page, add_classes=["x"])
    await page.goto(f"{site}/other.html")
    with pytest.raises(StaleRef):
        await style(page, ref=ref, add_classes=["x"])


async def test_console_capture(page: Page, site: str) -> None:
    buffer_id = await install_console(page)
    assert await install_console(page) == buffer_id
    await page.goto(f"{site}/console.html")
    await page.wait_for_function(
        f"document.getElementById('{buffer_id}') && document.getElementById('{buffer_id}').textContent.includes('nope')"
    )
    await page.wait_for_function(f"document.getElementById('{buffer_id}').textContent.includes('boom')")
    entries = (await read_console(page))["entries"]
    assert sorted(entries, key=lambda e: e["text"]) == sorted(
        [
            {"level": "log", "text": 'early log 1 {"a":1}'},
            {"level": "info", "text": "info line"},
            {"level": "warn", "text": "warn line"},
            {"level": "error", "text": "error line Error: inner"},
            {"level": "debug", "text": "debug line"},
            {"level": "error", "text": "Unhandled rejection: Error: nope"},
            {"level": "error", "text": "Uncaught Error: boom"},
        ],
        key=lambda e: e["text"],
    )
    assert entries[:5] == [
        {"level": "log", "text": 'early log 1 {"a":1}'},
        {"level": "info", "text": "info line"},
        {"level": "warn", "text": "warn line"},
        {"level": "error", "text": "error line Error: inner"},
        {"level": "debug", "text": "debug line"},
    ]


async def test_console_ring_bound_long_text_and_clear(page: Page, site: str) -> None:
    await install_console(page)
    await page.goto(f"{site}/console.html")
    await page.evaluate("spam(250)")
    entries = (await read_console(page))["entries"]
    assert len(entries) == 200
    assert entries[-1] == {"level": "log", "text": "spam 249"}
    assert entries[0] == {"level": "log", "text": "spam 50"}
    cleared = await clear_console(page)
    assert cleared["entries"] == entries
    assert await read_console(page) == {"entries": []}
    await page.evaluate("longLine()")
    assert await read_console(page) == {"entries": [{"level": "log", "text": "x" * 2000}]}


async def test_console_not_installed_or_new_document(page: Page, site: str) -> None:
    await page.goto(f"{site}/console.html")
    assert await read_console(page) == {"entries": []}
    await install_console(page)
    await page.goto(f"{site}/other.html")
    assert await read_console(page) == {"entries": []}
    await page.evaluate("console.log('hello', [1, 2])")
    assert await read_console(page) == {"entries": [{"level": "log", "text": "hello [1,2]"}]}


async def test_console_main_frame_only(page: Page, site: str) -> None:
    await install_console(page)
    await page.goto(f"{site}/frames.html")
    child = page.frame_locator("#same")
    await child.locator("#childbtn").wait_for()
    await page.frames[1].evaluate("console.log('from the child')")
    await page.evaluate("console.log('from the top')")
    assert await read_console(page) == {"entries": [{"level": "log", "text": "from the top"}]}
