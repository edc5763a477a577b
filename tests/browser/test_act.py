"""Verified acts: every refusal, and real input for what passes."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page

from vmark.browser.act import ActArgumentError, act
from vmark.browser.isolated import world_for
from vmark.browser.query import query
from vmark.browser.snapshot import StaleRef, read_snapshot


async def _clicked(page: Page) -> Any:
    return await world_for(page).evaluate("document.body.dataset.clicked ?? null")


async def _ref(page: Page, name: str) -> str:
    nodes = [node for node in (await read_snapshot(page))["snapshot"] if node["name"] == name]
    assert len(nodes) == 1, nodes
    return str(nodes[0]["ref"])


async def test_click_by_role_and_name_is_trusted(page: Page, site: str) -> None:
    await page.goto(f"{site}/act.html")
    await page.evaluate(
        "document.querySelector('#s-refusals').insertAdjacentHTML('beforeend',"
        " '<button id=t onclick=\"mark(event.isTrusted ? \\'trusted\\' : \\'synthetic\\')\">Probe</button>')"
    )
    answer = await act(page, "click", role="button", name="Probe")
    assert answer == {"ok": True, "matchedTotal": 1, "matchedVisible": 1, "ref": answer["ref"], "input": "trusted"}
    assert await _clicked(page) == "trusted"


async def test_click_scrolls_into_view(page: Page, site: str) -> None:
    await page.goto(f"{site}/act.html")
    answer = await act(page, "click", role="button", name="Bottom button")
    assert answer["ok"] is True
    assert await _clicked(page) == "bottom"
    assert await page.evaluate("scrollY") > 1000


async def test_covered_names_the_overlay(page: Page, site: str) -> None:
    await page.goto(f"{site}/covered.html")
    answer = await act(page, "click", role="button", name="Accept")
    assert answer == {
        "ok": False,
        "reason": "covered",
        "detail": "covered by div.cmp-overlay",
        "matchedTotal": 1,
        "matchedVisible": 1,
        "ref": "e1",
        "input": "none",
    }
    assert await _clicked(page) is None


async def test_duplicates_are_ambiguous_with_candidates(page: Page, site: str) -> None:
    await page.goto(f"{site}/act.html")
    answer = await act(page, "click", role="button", name="Save")
    assert answer["ok"] is False and answer["reason"] == "ambiguous"
    assert answer["matchedTotal"] == 2 and answer["matchedVisible"] == 2
    assert len(answer["candidates"]) == 2
    assert await _clicked(page) is None
    # a candidate ref is precise
    second = answer["candidates"][1]
    assert (await act(page, "click", ref=second))["ok"] is True
    assert await _clicked(page) == "save2"


@pytest.mark.parametrize(
    ("name", "clicked"),
    [("Next", "next-visible"), ("Continue", "cont-visible")],
)
async def test_hidden_duplicate_is_skipped(page: Page, site: str, name: str, clicked: str) -> None:
    """A closed <details> step and a height-0 overflow-hidden accordion hide their duplicate."""
    await page.goto(f"{site}/act.html")
    answer = await act(page, "click", role="button", name=name)
    assert (answer["ok"], answer["matchedTotal"], answer["matchedVisible"]) == (True, 2, 1)
    assert await _clicked(page) == clicked


@pytest.mark.parametrize(
    ("name", "reason", "detail"),
    [
        ("Ghost", "hidden", "not rendered (display, visibility, opacity or a closed section)"),
        ("No pointer", "disabled", "pointer-events: none"),
        ("Inert action", "disabled", "inside an inert subtree"),
        ("Disabled action", "disabled", "the element is disabled"),
        ("Far away", "offscreen", "cannot be scrolled into the viewport"),
        ("Clipped", "offscreen", "cannot be scrolled into the viewport"),
        ("Upload file", "upload", "a file input: uploads are never automated"),
    ],
)
async def test_refusals(page: Page, site: str, name: str, reason: str, detail: str) -> None:
    await page.goto(f"{site}/act.html")
    answer = await act(page, "click", role="button", name=name)
    visible = 0 if reason == "hidden" else 1
    assert answer == {
        "ok": False,
        "reason": reason,
        "detail": detail,
        "matchedTotal": 1,
        "matchedVisible": visible,
        "ref": answer["ref"],
        "input": "none",
    }
    assert await _clicked(page) is None


async def test_collapsed_ancestor_is_hidden_by_ref(page: Page, site: str) -> None:
    await page.goto(f"{site}/act.html")
    found = await query(page, ".collapsed button")
    answer = await act(page, "click", ref=found["elements"][0]["ref"])
    assert (answer["reason"], answer["detail"]) == ("hidden", "inside a collapsed div.collapsed")


async def test_modal_dialog_makes_the_rest_inert(page: Page, site: str) -> None:
    await page.goto(f"{site}/modal.html")
    outside = await act(page, "click", role="button", name="Outside")
    assert (outside["reason"], outside["detail"]) == ("disabled", "inside an inert subtree")
    assert (await act(page, "click", role="button", name="Inside"))["ok"] is True
    assert await _clicked(page) == "inside"


async def test_not_found(page: Page, site: str) -> None:
    await page.goto(f"{site}/act.html")
    answer = await act(page, "click", role="button", name="Nope")
    assert answer == {
        "ok": False,
        "reason": "not-found",
        "detail": "no element with this role and name",
        "matchedTotal": 0,
        "matchedVisible": 0,
        "input": "none",
    }


async def test_shadow_and_frame_targets(page: Page, site: str) -> None:
    await page.goto(f"{site}/shadow.html")
    assert (await act(page, "click", role="button", name="Shadow button"))["ok"] is True
    assert await _clicked(page) == "shadow"
    await page.goto(f"{site}/frames.html")
    await page.frame_locator("#same").locator("#childbtn").wait_for()
    answer = await act(page, "click", role="button", name="Child button")
    assert answer["ok"] is True and answer["ref"].startswith("f")
    assert await _clicked(page) == "child"


async def test_cross_site_frame_targets(page: Page, site: str) -> None:
    port = site.rsplit(":", 1)[1]
    await page.goto(f"{site}/xframes.html?port={port}")
    await page.frame_locator("#x").get_by_text("Cross button").wait_for()
    child = page.frames[1]
    clicked = await act(page, "click", role="button", name="Cross button")
    assert (clicked["ok"], clicked["ref"], clicked["input"]) == (True, "f1e1", "trusted")
    assert await child.evaluate("document.body.dataset.clicked") == "cross"
    typed = await act(page, "type", role="textbox", name="Cross field", text="over there")
    assert typed["ok"] is True
    assert await child.evaluate("document.getElementById('xin').value") == "over there"
    # something of the top page over the frame covers its elements
    await page.evaluate("document.body.insertAdjacentHTML('beforeend', '<div class=cover></div>')")
    covered = await act(page, "click", ref="f1e1")
    assert (covered["ok"], covered["reason"], covered["detail"]) == (False, "covered", "covered by div.cover")


async def test_stale_ref_raises(page: Page, site: str) -> None:
    await page.goto(f"{site}/other.html")
    ref = await _ref(page, "Second")
    await page.goto(f"{site}/other.html")
    with pytest.raises(StaleRef):
        await act(page, "click", ref=ref)


async def test_type_replaces_text(page: Page, site: str) -> None:
    await page.goto(f"{site}/act.html")
    answer = await act(page, "type", role="textbox", name="Name", text="Ada Lovelace")
    assert answer == {"ok": True, "matchedTotal": 1, "matchedVisible": 1, "ref": answer["ref"], "input": "trusted"}
    assert await page.input_value("#name") == "Ada Lovelace"
    assert (await act(page, "type", ref=answer["ref"], text=""))["ok"] is True
    assert await page.input_value("#name") == ""
    story = "line one\nline two"
    assert (await act(page, "type", role="textbox", name="Story", text=story))["ok"] is True
    assert await page.input_value("#ta") == story


async def test_type_rejected_value(page: Page, site: str) -> None:
    await page.goto(f"{site}/act.html")
    sanitized = await act(page, "type", role="textbox", name="No digits", text="a1b2")
    assert (sanitized["ok"], sanitized["reason"]) == (False, "rejected-value")
    assert sanitized["detail"] == "the field holds 'ab', not the text typed"
    assert sanitized["input"] == "trusted"
    short = await act(page, "type", role="textbox", name="Short", text="abcdef")
    assert (short["reason"], short["detail"]) == ("rejected-value", "the field holds 'abc', not the text typed")
    readonly = await act(page, "type", role="textbox", name="Read only", text="x")
    assert (readonly["reason"], readonly["detail"]) == ("disabled", "read-only")
    button = await act(page, "type", role="button", name="Go", text="x")
    assert button["reason"] == "not-editable"


async def test_type_select_by_label_and_value(page: Page, site: str) -> None:
    await page.goto(f"{site}/act.html")
    by_label = await act(page, "type", role="combobox", name="Fruit", text="Banana")
    assert by_label == {
        "ok": True,
        "matchedTotal": 1,
        "matchedVisible": 1,
        "ref": by_label["ref"],
        "input": "synthetic",
    }
    assert await world_for(page).evaluate("document.body.dataset.fruit") == "b"
    assert (await act(page, "type", ref=by_label["ref"], text="a"))["ok"] is True
    assert await page.input_value("#fruit") == "a"
    missing = await act(page, "type", role="combobox", name="Fruit", text="Durian")
    assert (missing["ok"], missing["reason"]) == (False, "no-such-option")
    assert missing["detail"] == 'options: ["Apple","Banana","Cherry"]'
    disabled = await act(page, "type", role="combobox", name="Fruit", text="Cherry")
    assert (disabled["reason"], disabled["detail"]) == ("disabled", "the option is disabled")
    assert await page.input_value("#fruit") == "a"


async def test_type_contenteditable(page: Page, site: str) -> None:
    await page.goto(f"{site}/act.html")
    answer = await act(page, "type", role="textbox", name="Editor", text="new words")
    assert answer["ok"] is True and answer["input"] == "trusted"
    assert await page.inner_text("#ed") == "new words"


async def test_key_enter_submits_form(page: Page, site: str) -> None:
    await page.goto(f"{site}/act.html")
    await act(page, "type", role="textbox", name="Name", text="x")
    answer = await act(page, "key", key="Enter")
    assert answer == {"ok": True, "matchedTotal": 0, "matchedVisible": 0, "input": "trusted", "defaultAction": "submit"}
    await page.wait_for_url("**/submitted.html?name=x")


async def test_key_enter_spa_submit_and_tab(page: Page, site: str) -> None:
    await page.goto(f"{site}/act.html")
    query_field = await _ref(page, "Query")
    answer = await act(page, "key", ref=query_field, key="Enter")
    assert (answer["ok"], answer["defaultAction"], answer["ref"]) == (True, "submit", query_field)
    assert await _clicked(page) == "spa-submit"
    tab = await act(page, "key", ref=query_field, key="Tab")
    assert tab["defaultAction"] == "focus-move"
    assert await page.evaluate("document.activeElement.textContent") == "Go"
    none = await act(page, "key", key="a", modifiers={"shift": True})
    assert none["defaultAction"] == "none"


async def test_scroll(page: Page, site: str) -> None:
    await page.goto(f"{site}/act.html")
    answer = await act(page, "scroll", dy=400)
    assert answer == {"ok": True, "matchedTotal": 0, "matchedVisible": 0, "input": "trusted"}
    await page.wait_for_function("scrollY >= 400")
    by_role = await act(page, "scroll", role="button", name="Bottom button")
    assert (by_role["ok"], by_role["input"]) == (True, "synthetic")
    assert await page.evaluate("scrollY") > 1000
    far = await act(page, "scroll", role="button", name="Far away")
    assert far["reason"] == "offscreen"


async def test_argument_errors(page: Page, site: str) -> None:
    await page.goto(f"{site}/other.html")
    with pytest.raises(ActArgumentError):
        await act(page, "click")
    with pytest.raises(ActArgumentError):
        await act(page, "type", role="textbox", name="x")
    with pytest.raises(ActArgumentError):
        await act(page, "click", ref="e1", role="button")
    with pytest.raises(ActArgumentError):
        await act(page, "key")
