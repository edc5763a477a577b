"""``browser.workflow_record`` through the official MCP client: the person performs real (trusted)
input on the AI tab with Playwright's mouse and keyboard, and the recording is the workflow text."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp import Client
from playwright.async_api import Page

from tests.browser.test_browser_tools import answer_next_prompt, ok, plain, token
from tests.conftest import call
from vmark.app.server import RunningApp
from vmark.browser import isolated, recorder
from vmark.browser.workflow import parse
from vmark.testing.uiclient import UIClient

pytestmark = pytest.mark.anyio

SECRET_NOTE = "by hand (a secret is never recorded)"


async def start(agent: Client, person: UIClient, **args: Any) -> dict[str, Any]:
    task = asyncio.ensure_future(call(agent, "browser", "workflow_record", recordOp="start", **args))
    prompt = await answer_next_prompt(person, True, "site")  # "on this site" is taken as once
    result = await task
    assert not result.is_error, result.content
    assert prompt["detail"]["action"] == "record"
    return dict(result.structured_content or {})


async def click(page: Page, selector: str) -> None:
    box = await page.locator(selector).bounding_box()
    assert box is not None, selector
    await page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


async def fill(page: Page, selector: str, text: str) -> None:
    await click(page, selector)
    await page.keyboard.type(text)


def tab_page(vmark: RunningApp, tab_id: str) -> Page:
    return vmark.app.browser.tabs.get(tab_id).page


async def record_login_and_form(
    agent: Client, person: UIClient, vmark: RunningApp, site: str, secrets: dict[str, str]
) -> dict[str, Any]:
    """Sign in, write a message, go elsewhere by the address bar, follow a link; stop."""
    opened = await ok(agent, "browser", "open", url=f"{site}/rec-login.html?token={secrets['query']}")
    started = await start(agent, person, site="example-mail")
    assert started == {"recording": True, "tabId": opened["tabId"], "url": f"{site}/rec-login.html"}
    page = tab_page(vmark, opened["tabId"])
    await fill(page, "#user", secrets["user"])
    await fill(page, "#pass", secrets["password"])
    await click(page, "button[type=submit]")
    await page.wait_for_url("**/rec-form.html?*")
    await page.wait_for_selector("#subject")
    await fill(page, "#subject", secrets["subject"])
    await fill(page, "#body", secrets["body"])
    await fill(page, "#otp", secrets["otp"])
    await click(page, "#urgent")
    await click(page, "button[type=submit]")
    await page.wait_for_function("document.getElementById('status').textContent === 'Sent'")
    await page.goto(f"{site}/rec-many.html?ref={secrets['query']}")  # the address bar: not the page's doing
    await click(page, "a")
    await page.wait_for_url("**/rec-form.html")
    await page.wait_for_selector("#subject")
    return await ok(agent, "browser", "workflow_record", recordOp="stop")


SECRETS = {
    "query": "q-secret-31",
    "user": "user-secret-52",
    "password": "pw-secret-83",
    "subject": "subj-secret-14",
    "body": "body-secret-65",
    "otp": "otp-secret-96",
}


async def test_a_login_and_form_flow(agent: Client, person: UIClient, vmark: RunningApp, site: str) -> None:
    stopped = await record_login_and_form(agent, person, vmark, site, SECRETS)
    assert (
        stopped["source"]
        == "\n".join(
            [
                "---",
                "site: example-mail",
                "inputs: [user_name, subject, message_body]",
                "---",
                f"action: navigate to {site}/rec-login.html",
                'action: type {user_name} into "User name" (textbox)',
                f'confirm: the user fills in "Password" (textbox) {SECRET_NOTE}',
                'action: click "Sign in" (button)',
                'action: type {subject} into "Subject" (textbox)',
                'action: type {message_body} into "Message body" (textbox)',
                f'confirm: the user fills in "Verification code" (textbox) {SECRET_NOTE}',
                'action: click "Urgent" (checkbox)',
                'action: click "Send" (button)',
                f"action: navigate to {site}/rec-many.html",
                'action: click "Message form" (link)',
            ]
        )
        + "\n"
    )
    assert stopped["inputs"] == ["user_name", "subject", "message_body"]
    assert stopped["eventCount"] == 11
    assert set(stopped) == {"source", "inputs", "eventCount"}
    workflow = parse(stopped["source"])  # what workflow_run takes
    assert workflow.site == "example-mail" and workflow.inputs == ("user_name", "subject", "message_body")
    assert [step.kind for step in workflow.steps] == [
        "navigate",
        "type",
        "confirm",
        "click",
        "type",
        "type",
        "confirm",
        "click",
        "click",
        "navigate",
        "click",
    ]
    for secret in SECRETS.values():
        assert secret not in stopped["source"]


async def test_recording_asks_every_time(agent: Client, person: UIClient, vmark: RunningApp, site: str) -> None:
    await ok(agent, "browser", "open", url=f"{site}/rec-many.html")
    await start(agent, person)
    again = await plain(agent, "browser", "workflow_record", recordOp="start")
    assert again == "browser.workflow_record: a recording is already running in this tab: stop it first"
    stopped = await ok(agent, "browser", "workflow_record", recordOp="stop")
    assert stopped["source"] == f"---\nsite: recording\ninputs: []\n---\naction: navigate to {site}/rec-many.html\n"
    assert (await plain(agent, "browser", "workflow_record", recordOp="stop")) == (
        "browser.workflow_record: no recording is running in this tab: start one first"
    )
    # "Allow on this site" was not kept: the next recording asks again, and a denial refuses it.
    task = asyncio.ensure_future(call(agent, "browser", "workflow_record", recordOp="start"))
    await answer_next_prompt(person, False)
    denied = await task
    assert denied.is_error and denied.structured_content["error"] == "NOT_GRANTED"
    # a dormant shim records nothing
    page = tab_page(vmark, (await ok(agent, "session", "get_state"))["browserTabs"][0]["tabId"])
    await click(page, "#more")
    await start(agent, person)
    await page.evaluate("document.getElementById('more').click()")  # the page's own (untrusted) click
    await page.evaluate("document.getElementById('more').dispatchEvent(new MouseEvent('click', {bubbles: true}))")
    assert (await ok(agent, "browser", "workflow_record", recordOp="stop"))["eventCount"] == 1
    assert await page.evaluate("document.getElementById('more').dataset.count") == "3"


async def test_the_page_limit(agent: Client, person: UIClient, vmark: RunningApp, site: str) -> None:
    opened = await ok(agent, "browser", "open", url=f"{site}/rec-many.html")
    await start(agent, person)
    page = tab_page(vmark, opened["tabId"])
    for _ in range(recorder.RECORDER_PAGE_EVENT_LIMIT + 5):
        await click(page, "#more")
    assert await page.evaluate("document.getElementById('more').dataset.count") == "205"
    stopped = await ok(agent, "browser", "workflow_record", recordOp="stop")
    assert stopped["eventCount"] == 1 + recorder.RECORDER_PAGE_EVENT_LIMIT
    assert stopped["source"].count('action: click "More" (button)') == recorder.RECORDER_PAGE_EVENT_LIMIT
    assert stopped["notRecorded"] == 5
    assert stopped["limit"] == "reached 200 events per page: 5 later events were not recorded"


async def test_the_session_limit(
    agent: Client, person: UIClient, vmark: RunningApp, site: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recorder, "RECORDER_SESSION_EVENT_LIMIT", 4)
    opened = await ok(agent, "browser", "open", url=f"{site}/rec-many.html")
    await start(agent, person)
    page = tab_page(vmark, opened["tabId"])
    for _ in range(3):
        await click(page, "#more")
    await page.goto(f"{site}/rec-form.html")  # a navigation counts too
    await page.wait_for_selector("#subject")
    await fill(page, "#subject", "x")
    stopped = await ok(agent, "browser", "workflow_record", recordOp="stop")
    assert stopped["eventCount"] == 4 and stopped["notRecorded"] == 2
    assert stopped["limit"] == "reached 1000 events per recording: 2 later events were not recorded".replace(
        "1000", "4"
    )
    assert stopped["inputs"] == []


async def test_recording_is_for_ai_tabs_and_checks_its_site(agent: Client, vmark: RunningApp, site: str) -> None:
    await ok(agent, "browser", "open", url=f"{site}/rec-many.html")
    text = await plain(agent, "browser", "workflow_record", recordOp="start", site="two\nlines")
    assert text == "argument 'site' must be one line of 1-200 printable characters"
    human = await vmark.app.browser.open_human_tab()
    refused = await token(agent, "browser", "workflow_record", recordOp="start", tabId=human.id)
    assert refused["error"] == "TAB_NOT_AI_OWNED"


def test_input_names_and_quoting() -> None:
    events = [
        recorder.Captured(1, "type", "textbox", "E-Mail address"),
        recorder.Captured(2, "type", "textbox", "E-Mail  address!"),
        recorder.Captured(3, "type", "searchbox", '2nd "best" \\ search'),
        recorder.Captured(4, "type", "textbox", "Ünïcödé"),
        recorder.Captured(5, "type", "textbox", "***"),
        recorder.Captured(6, "type", "textbox", "E-Mail address"),
        recorder.Captured(7, "navigate", url="https://example.com/a{b}"),
    ]
    built = recorder.build(events, "s")
    assert built["inputs"] == ["e_mail_address", "e_mail_address_2", "field_2nd_best_search", "unicode", "field"]
    lines = built["source"].splitlines()
    assert lines[6] == 'action: type {field_2nd_best_search} into "2nd \\"best\\" \\\\ search" (searchbox)'
    assert lines[9] == 'action: type {e_mail_address} into "E-Mail address" (textbox)'
    assert lines[10] == "action: navigate to https://example.com/a%7Bb%7D"
    step = parse(built["source"]).steps[2]
    assert (step.name, step.role, step.input) == ('2nd "best" \\ search', "searchbox", "field_2nd_best_search")


def test_the_shim_never_reads_a_field_value() -> None:
    source = recorder.shim_source("vmark-rec-x", "__vmarkRec_x")
    reads = [line.strip() for line in source.splitlines() if ".value" in line]
    # the one read left is the caption of an <input type=button|submit|reset>, never a field's text
    assert reads == ["if (el.hasAttribute('value')) return /** @type {HTMLInputElement} */ (el).value;"]
    assert "__RUNTIME__" not in source
    # the limits come from protocol/limits.py, declared once at the top of the shim's own block
    assert source.startswith("{\n" + isolated.limits_prelude() + "\n")
    assert source.count("const LIMITS =") == 1
