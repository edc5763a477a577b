"""Settings from the person's side: ``settings.list`` / ``settings.set`` and the page's settings dialog."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, expect

from tests.conftest import fail_code, make_client, ok
from tests.contract.helpers import open_tab
from tests.ui.conftest import Pages
from tests.ui.helpers import open_folder, open_from_tree
from vmark.app.server import RunningApp
from vmark.mcp.bridge_client import BridgeClient
from vmark.storage.settings import SETTINGS
from vmark.testing.uiclient import UIClient, UIError

KNOWN = ", ".join(sorted(SETTINGS))


def _stored(data_dir: Path) -> dict[str, Any]:
    return dict(json.loads((data_dir / "settings.json").read_text("utf-8")))


# --- the protocol ------------------------------------------------------------------------------------------
async def test_the_list_is_the_settings_table_with_current_values(
    person: UIClient, data_dir: Path, tmp_path: Path
) -> None:
    listing = (await person.call("settings.list"))["settings"]
    assert [s["key"] for s in listing] == list(SETTINGS)  # the app's own keys, then the registered cjk.* ones
    by_key = {s["key"]: s for s in listing}
    assert by_key["auto_approve_save_as"] == {
        "key": "auto_approve_save_as",
        "type": "bool",
        "value": False,
        "default": False,
    }
    assert by_key["review_backlog_limit"] == {"key": "review_backlog_limit", "type": "int", "value": 50, "default": 50}
    assert by_key["readable_roots"] == {
        "key": "readable_roots",
        "type": "list",
        "value": [str(tmp_path)],  # what the data_dir fixture stored
        "default": [],
    }
    assert by_key["cjk.quote_style"] == {"key": "cjk.quote_style", "type": "str", "value": "curly", "default": "curly"}
    assert all((s["type"], s["default"]) == (SETTINGS[s["key"]][0].__name__, SETTINGS[s["key"]][1]) for s in listing)


async def test_set_stores_each_type(person: UIClient, vmark: RunningApp, data_dir: Path) -> None:
    changes: dict[str, Any] = {
        "auto_approve_save_as": True,
        "review_backlog_limit": 7,
        "readable_roots": ["/srv/notes", "/opt/docs"],
        "cjk.quote_style": "corner",
    }
    for key, value in changes.items():
        assert await person.call("settings.set", key=key, value=value) == {"key": key, "value": value}
    assert _stored(data_dir) == {**changes, "editor.default_mode": "source"}  # the data_dir fixture's
    listing = {s["key"]: s["value"] for s in (await person.call("settings.list"))["settings"]}
    assert {key: listing[key] for key in changes} == changes
    assert vmark.app.settings.get("review_backlog_limit") == 7


async def test_refusals_are_argument_errors_and_store_nothing(person: UIClient, data_dir: Path) -> None:
    settings_file = data_dir / "settings.json"
    before = settings_file.read_bytes()
    cases: list[tuple[dict[str, Any], str]] = [
        ({"key": "nope", "value": 1}, f"unknown setting 'nope'; known: {KNOWN}"),
        ({"key": "auto_approve_save_as", "value": 1}, "setting 'auto_approve_save_as' takes a bool, not 1"),
        ({"key": "review_backlog_limit", "value": True}, "setting 'review_backlog_limit' takes a int, not True"),
        ({"key": "review_backlog_limit", "value": "9"}, "setting 'review_backlog_limit' takes a int, not '9'"),
        ({"key": "readable_roots", "value": "/srv"}, "setting 'readable_roots' takes a list, not '/srv'"),
        ({"key": "readable_roots", "value": ["/srv", 2]}, "setting 'readable_roots' takes a list of strings"),
        ({"key": "cjk.punctuation_limit", "value": 12}, "setting 'cjk.punctuation_limit' takes 0..9, not 12"),
        (
            {"key": "cjk.quote_style", "value": "fancy"},
            "setting 'cjk.quote_style' takes one of curly, corner, guillemets, not 'fancy'",
        ),
        ({"key": "review_backlog_limit"}, "argument 'value' is required"),
        ({"value": 3}, "argument 'key' must be a string"),
    ]
    for payload, message in cases:
        with pytest.raises(UIError) as info:
            await person.call("settings.set", **payload)
        assert info.value.error == message, payload
        assert settings_file.read_bytes() == before, payload


async def test_agents_cannot_list_or_change_settings(vmark: RunningApp, data_dir: Path) -> None:
    before = (data_dir / "settings.json").read_bytes()
    bridge = BridgeClient(data_dir, autostart=False)
    await bridge.connect()
    try:
        for kind, payload in (("settings.set", {"key": "auto_approve_save_as", "value": True}), ("settings.list", {})):
            reply = await bridge.request(kind, payload)
            refusal = f"{kind!r} is a person's action; agents cannot send it"
            assert (reply["success"], reply["error"]) == (False, refusal)
    finally:
        await bridge.close()
    assert (data_dir / "settings.json").read_bytes() == before


# --- the page ------------------------------------------------------------------------------------------------
async def _open_settings(page: Page) -> None:
    await page.click("#settings-open")
    await expect(page.get_by_test_id("settings")).to_be_visible()


async def test_the_dialog_is_generated_from_the_table_and_stores_each_change(
    pages: Pages, vmark: RunningApp, data_dir: Path, tmp_path: Path
) -> None:
    page = await pages.open()
    await _open_settings(page)
    rows = page.locator("#settings-fields .setting")
    await expect(rows).to_have_count(len(SETTINGS))
    assert sorted(await rows.evaluate_all("rows => rows.map(r => r.dataset.key)")) == sorted(SETTINGS)
    # Grouped, in words, each with the control its value needs (the key stays, to copy).
    legends = await page.locator("#settings-fields fieldset legend").all_inner_texts()
    assert legends == [
        "Prompts for agents",  # the person's prompt files (tests/ui/test_agents_hear.py)
        "Editor",
        "Saving",
        "Export",
        "AI agents and review",
        "Browser",
        "CJK formatting",
        "Provenance checker",
    ]
    assert await page.locator(".setting[data-key='browser.posture'] select option").all_inner_texts() == [
        "Sandbox (a separate, empty profile)",
        "Shared (your signed-in profile)",
    ]
    spacing = page.locator(".setting[data-key='cjk.spacing'] label")
    assert await spacing.inner_text() == "Space between CJK and Latin text"
    assert await page.locator(".setting[data-key='cjk.spacing'] .setting-key").inner_text() == "cjk.spacing"
    assert await page.locator(".setting[data-key='editor.save_automatically'] [role=switch]").count() == 1
    await expect(page.locator(".setting[data-key='editor.save_automatically'] input")).not_to_be_checked()
    auto = page.locator(".setting[data-key=auto_approve_save_as] input[type=checkbox]")
    limit = page.locator(".setting[data-key=review_backlog_limit] input[type=number]")
    roots = page.locator(".setting[data-key=readable_roots] textarea")
    await expect(auto).not_to_be_checked()
    await expect(limit).to_have_value("50")
    await expect(roots).to_have_value(str(tmp_path))
    await expect(page.locator(".setting[data-key='cjk.quote_style'] select")).to_have_value("curly")
    await expect(page.locator(".setting[data-key='cjk.spacing'] input[type=checkbox]")).to_be_checked()

    await auto.click()
    await expect(page.locator(".setting[data-key=auto_approve_save_as]")).to_have_attribute("data-state", "saved")
    await limit.fill("7")
    await limit.press("Tab")
    await expect(page.locator(".setting[data-key=review_backlog_limit]")).to_have_attribute("data-state", "saved")
    await roots.fill(f"{tmp_path}\n\n  /srv/notes  \n")
    await roots.press("Tab")
    await expect(page.locator(".setting[data-key=readable_roots]")).to_have_attribute("data-state", "saved")
    await expect(roots).to_have_value(f"{tmp_path}\n/srv/notes")  # shown as stored
    assert _stored(data_dir) == {
        "auto_approve_save_as": True,
        "review_backlog_limit": 7,
        "readable_roots": [str(tmp_path), "/srv/notes"],
        "editor.default_mode": "source",  # the data_dir fixture's
    }
    await page.click("#settings-close")
    await expect(page.get_by_test_id("settings")).to_be_hidden()
    # Reopened, it shows what is stored.
    await _open_settings(page)
    await expect(auto).to_be_checked()
    await expect(limit).to_have_value("7")


async def test_a_refused_value_is_shown_and_nothing_is_stored(pages: Pages, data_dir: Path) -> None:
    before = (data_dir / "settings.json").read_bytes()
    page = await pages.open()
    await _open_settings(page)
    row = page.locator(".setting[data-key='cjk.punctuation_limit']")
    await row.locator("input").fill("12")
    await row.locator("input").press("Tab")
    await expect(row).to_have_attribute("data-state", "error")
    await expect(row.locator(".setting-status")).to_have_text("setting 'cjk.punctuation_limit' takes 0..9, not 12")
    style = page.locator(".setting[data-key='cjk.quote_style'] select")  # a choice: no other value can be typed
    values = await style.locator("option").evaluate_all("os => os.map(o => o.value)")
    assert values == ["curly", "corner", "guillemets"]
    limit = page.locator(".setting[data-key=review_backlog_limit]")
    await limit.locator("input").fill("2.5")
    await limit.locator("input").press("Tab")
    await expect(limit.locator(".setting-status")).to_have_text("Enter a whole number")  # never sent
    assert (data_dir / "settings.json").read_bytes() == before


async def test_auto_approve_in_the_dialog_lets_an_agent_save_to_a_new_location(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page = await pages.open()
    await open_folder(page, workspace)
    await open_from_tree(page, "a.md")
    target = workspace / "copy.md"
    async with make_client(vmark.data_dir) as agent:
        tab = await open_tab(agent, workspace / "b.md")
        refused = await fail_code(agent, "workspace", "save_as", tabId=tab, filePath=str(target))
        assert refused["error"] == "APPROVAL_REQUIRED"
        assert not target.exists()
        await _open_settings(page)
        await page.click(".setting[data-key=auto_approve_save_as] input")
        await expect(page.locator(".setting[data-key=auto_approve_save_as]")).to_have_attribute("data-state", "saved")
        saved = await ok(agent, "workspace", "save_as", tabId=tab, filePath=str(target))
        assert saved["revision"]
    assert target.read_bytes() == b"# B\n\nbeta\n"
