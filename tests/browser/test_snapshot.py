"""The ARIA snapshot (read_snapshot) and ref resolution, in the isolated world."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page

from vmark.browser.isolated import (
    EvalContextLost,
    EvalError,
    EvalTimeout,
    IsolatedWorld,
    execute_script,
    world_for,
)
from vmark.browser.snapshot import StaleRef, UnknownRef, read_snapshot, resolve_ref


def _by_name(snapshot: dict[str, Any], name: str) -> dict[str, Any]:
    matches: list[dict[str, Any]] = [node for node in snapshot["snapshot"] if node["name"] == name]
    assert len(matches) == 1, matches
    return matches[0]


def _strip_refs(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    return [{k: v for k, v in node.items() if k != "ref"} for node in snapshot["snapshot"]]


async def test_roles_names_and_states(page: Page, site: str) -> None:
    await page.goto(f"{site}/basic.html")
    snapshot = await read_snapshot(page)
    assert _strip_refs(snapshot) == [
        {"role": "navigation", "name": "Site"},
        {"role": "list", "name": ""},
        {"role": "listitem", "name": ""},
        {"role": "link", "name": "First link"},
        {"role": "listitem", "name": ""},
        {"role": "link", "name": "Logo image"},
        {"role": "img", "name": "Logo image"},
        {"role": "listitem", "name": ""},
        {"role": "main", "name": ""},
        {"role": "heading", "name": "Main title", "level": 1},
        {"role": "heading", "name": "Level from aria", "level": 4},
        {"role": "button", "name": "Press me"},
        {"role": "button", "name": "Labelled by aria"},
        {"role": "button", "name": "Joined name"},
        {"role": "textbox", "name": "Email address"},
        {"role": "textbox", "name": "Wrapped"},
        {"role": "textbox", "name": "Search here"},
        {"role": "textbox", "name": "Titled field"},
        {"role": "checkbox", "name": "Agree", "checked": True},
        {"role": "radio", "name": "Radio one", "checked": False},
        {"role": "checkbox", "name": "Tri", "checked": "mixed"},
        {"role": "combobox", "name": ""},
        {"role": "option", "name": "Alpha"},
        {"role": "option", "name": "Beta"},
        {"role": "listbox", "name": "Many"},
        {"role": "option", "name": "One"},
        {"role": "textbox", "name": "Notes"},
        {"role": "button", "name": "Submit"},
        {"role": "button", "name": "Value button"},
        {"role": "button", "name": "Attach", "upload": True},
        {"role": "button", "name": "Disabled one", "disabled": True},
        {"role": "button", "name": "Aria disabled", "disabled": True},
        {"role": "button", "name": "Inert button", "disabled": True},
        {"role": "dialog", "name": "Box"},
        {"role": "button", "name": "Inside presentation"},
        {"role": "button", "name": "Visible again"},
        {"role": "group", "name": ""},
        {"role": "button", "name": "More"},
        {"role": "button", "name": "spaced out"},
        {"role": "contentinfo", "name": ""},
    ]
    assert "truncated" not in snapshot and "unreachable" not in snapshot
    refs = [node["ref"] for node in snapshot["snapshot"]]
    assert refs == [f"e{n}" for n in range(1, len(refs) + 1)]


async def test_refs_are_stable_and_invisible_to_the_page(page: Page, site: str) -> None:
    await page.goto(f"{site}/basic.html")
    first = await read_snapshot(page)
    # the page changes around the elements: the same element keeps its ref
    await page.evaluate(
        "document.querySelector('main').prepend(Object.assign(document.createElement('button'), {textContent: 'New'}))"
    )
    second = await read_snapshot(page)
    assert _by_name(second, "Press me")["ref"] == _by_name(first, "Press me")["ref"]
    assert _by_name(second, "New")["ref"] == f"e{len(first['snapshot']) + 1}"
    # no trace of refs in the page's DOM
    markup = await page.content()
    assert '"e12"' not in markup and "=e12" not in markup and "data-ref" not in markup
    handle = await resolve_ref(page, _by_name(second, "Press me")["ref"])
    assert handle.ref == "e12" and handle.object_id


async def test_ref_from_an_older_document_is_refused(page: Page, site: str) -> None:
    await page.goto(f"{site}/basic.html")
    old = _by_name(await read_snapshot(page), "Press me")["ref"]
    await page.goto(f"{site}/other.html")
    fresh = await read_snapshot(page)
    # the new document has its own "Press me" with a new ref; the old ref names nothing
    assert _by_name(fresh, "Press me")["ref"] != old
    assert all(int(node["ref"][1:]) > 40 for node in fresh["snapshot"])
    with pytest.raises(StaleRef, match="earlier view"):
        await resolve_ref(page, old)
    with pytest.raises(UnknownRef, match="never issued"):
        await resolve_ref(page, "e9999")
    with pytest.raises(UnknownRef, match="not a ref"):
        await resolve_ref(page, "button")


async def test_removed_element_ref_is_refused(page: Page, site: str) -> None:
    await page.goto(f"{site}/other.html")
    ref = _by_name(await read_snapshot(page), "Second")["ref"]
    await page.evaluate("document.querySelectorAll('button')[1].remove()")
    with pytest.raises(StaleRef, match="no longer on the page"):
        await resolve_ref(page, ref)


async def test_shadow_roots(page: Page, site: str) -> None:
    await page.goto(f"{site}/shadow.html")
    snapshot = await read_snapshot(page)
    assert _strip_refs(snapshot) == [
        {"role": "heading", "name": "Shadow", "level": 1},
        {"role": "button", "name": "Shadow button"},
        {"role": "link", "name": "Slotted text"},
        {"role": "button", "name": "Light button"},
    ]
    # two closed roots (one with light children); the plain custom element has none
    assert snapshot["unreachable"] == 2


async def test_frames_stitched_with_prefixed_refs(page: Page, site: str) -> None:
    await page.goto(f"{site}/frames.html")
    await page.frame_locator("#same").locator("#childbtn").wait_for()
    snapshot = await read_snapshot(page)
    # the same-origin frame through the DOM, the sandboxed (opaque origin) one through CDP
    assert snapshot == {
        "snapshot": [
            {"role": "heading", "name": "Frames", "ref": "e1", "level": 1},
            {"role": "iframe", "name": "Same origin", "ref": "e2"},
            {"role": "heading", "name": "Child heading", "ref": "f1e3", "level": 2},
            {"role": "button", "name": "Child button", "ref": "f1e4"},
            {"role": "iframe", "name": "Sandboxed", "ref": "e5"},
            {"role": "button", "name": "Unreachable", "ref": "f2e7"},
            {"role": "button", "name": "After frames", "ref": "e6"},
        ]
    }
    assert (await resolve_ref(page, "f1e4")).ref == "f1e4"
    assert (await resolve_ref(page, "f2e7")).ref == "f2e7"
    # the same-origin frame navigates: its old refs are refused
    await page.evaluate("document.getElementById('same').src = 'other.html'")
    await page.frame_locator("#same").get_by_text("Other page").wait_for()
    with pytest.raises(StaleRef):
        await resolve_ref(page, "f1e4")
    again = await read_snapshot(page)
    assert _by_name(again, "Second")["ref"].startswith("f1e")
    assert _by_name(again, "Unreachable")["ref"] == "f2e7"  # the other frame kept its document


async def test_cross_site_frame_has_its_own_world(page: Page, site: str) -> None:
    port = site.rsplit(":", 1)[1]
    await page.goto(f"{site}/xframes.html?port={port}")
    frame = page.frame_locator("#x")
    await frame.get_by_text("Cross button").wait_for()
    snapshot = await read_snapshot(page)
    assert snapshot == {
        "snapshot": [
            {"role": "heading", "name": "Cross frames", "ref": "e1", "level": 1},
            {"role": "iframe", "name": "Cross site", "ref": "e2"},
            {"role": "heading", "name": "Cross heading", "ref": "f1e4", "level": 2},
            {"role": "textbox", "name": "Cross field", "ref": "f1e5"},
            {"role": "button", "name": "Cross button", "ref": "f1e6"},
            {"role": "button", "name": "After", "ref": "e3"},
        ]
    }
    assert (await resolve_ref(page, "f1e6")).ref == "f1e6"
    await page.goto(f"{site}/other.html")
    with pytest.raises(StaleRef):
        await resolve_ref(page, "f1e6")


async def test_limits(page: Page, site: str) -> None:
    await page.goto(f"{site}/many.html")
    snapshot = await read_snapshot(page)
    assert snapshot["truncated"] is True
    assert len(snapshot["snapshot"]) == 2000
    assert snapshot["snapshot"][0]["name"] == "L" * 200
    assert snapshot["snapshot"][-1]["name"] == "B1998"
    await page.goto(f"{site}/many.html?n=1998")
    full = await read_snapshot(page)
    assert len(full["snapshot"]) == 1999 and full["truncated"] is True  # the long name alone


async def test_no_truncation_under_the_limits(page: Page, site: str) -> None:
    await page.goto(f"{site}/many.html?n=0")
    await page.evaluate("document.querySelector('button').textContent = 'L'.repeat(200)")
    snapshot = await read_snapshot(page)
    assert snapshot == {"snapshot": [{"role": "button", "name": "L" * 200, "ref": snapshot["snapshot"][0]["ref"]}]}


async def test_page_globals_do_not_reach_the_isolated_world(page: Page, site: str) -> None:
    await page.goto(f"{site}/globals.html")
    assert await page.evaluate("window.secret") == "page-secret"
    snapshot = await read_snapshot(page)
    assert _strip_refs(snapshot) == [
        {"role": "heading", "name": "Hostile", "level": 1},
        {"role": "button", "name": "Real button"},
    ]
    world = world_for(page)
    assert await world.evaluate("typeof window.secret") == "undefined"
    assert await world.evaluate("() => document.querySelector('#b1').textContent") == "Real button"
    assert await world.evaluate("() => [1, 2].map((x) => x * 2)") == [2, 4]
    assert await world.evaluate("(arg) => ({got: arg, s: JSON.stringify({a: 1})})", {"x": [1]}) == {
        "got": {"x": [1]},
        "s": '{"a":1}',
    }


async def test_evaluate_results_and_errors(page: Page, site: str) -> None:
    await page.goto(f"{site}/other.html")
    world = world_for(page)
    assert await world.evaluate("undefined") is None
    assert await world.evaluate("async () => { await new Promise(r => setTimeout(r, 10)); return 7; }") == 7
    assert await world.evaluate("document.title") == "Other"
    with pytest.raises(EvalError, match=r"^TypeError: boom$"):
        await world.evaluate("() => { throw new TypeError('boom'); }")
    with pytest.raises(EvalError, match="a DOM node is not JSON"):
        await world.evaluate("() => document.body")
    with pytest.raises(EvalError, match="not JSON"):
        await world.evaluate("() => ({f() {}})")
    with pytest.raises(EvalError, match="circular"):
        await world.evaluate("() => { const a = {}; a.a = a; return a; }")
    with pytest.raises(EvalError, match="SyntaxError"):
        await world.evaluate("() => {")
    with pytest.raises(EvalTimeout) as timeout:
        await world.evaluate("() => new Promise(() => {})", timeout=0.3)
    assert timeout.value.indeterminate is True
    with pytest.raises(EvalTimeout):
        await world.evaluate("() => { for (;;) {} }", timeout=0.5)
    # the world still answers after a runaway script was stopped
    assert await world.evaluate("1 + 1") == 2


async def test_execute_script_runs_in_a_world_of_its_own(page: Page, site: str) -> None:
    await page.goto(f"{site}/globals.html")
    await read_snapshot(page)  # the runtime's world exists
    probe = "return [typeof window.secret, typeof globalThis.__vmark, document.querySelector('#b1').id];"
    assert await execute_script(page, probe) == ["undefined", "undefined", "b1"]
    assert await execute_script(page, "await null; // a trailing comment") is None
    with pytest.raises(EvalError, match=r"^Error: nope$"):
        await execute_script(page, "throw new Error('nope')")
    await execute_script(page, "document.body.dataset.x = 'from script'")
    assert await page.evaluate("document.body.dataset.x") == "from script"
    # the runtime cannot be swapped by anything sharing its world
    with pytest.raises(EvalError, match="read only property 'resolve'"):
        await world_for(page).evaluate("() => { 'use strict'; globalThis.__vmark.resolve = null; }")


async def test_navigation_during_evaluation(page: Page, site: str) -> None:
    await page.goto(f"{site}/basic.html")
    world = world_for(page)
    with pytest.raises(EvalContextLost, match="navigated"):
        await world.evaluate(
            "async () => { location.href = 'other.html'; await new Promise(r => setTimeout(r, 5000)); }"
        )
    await page.wait_for_url("**/other.html")
    assert await world.evaluate("document.title") == "Other"


async def test_a_second_driver_object_sees_the_same_refs(page: Page, site: str) -> None:
    """Chromium gives the same named world for the same document: the runtime is installed once."""
    await page.goto(f"{site}/other.html")
    first = await read_snapshot(page)
    again = await IsolatedWorld(page).call("snapshot")
    assert again["snapshot"] == first["snapshot"]
