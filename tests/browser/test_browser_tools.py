"""The MCP contract of ``browser`` and ``browser_read`` for AI-owned tabs: a real app, the official MCP
client, real Chromium, a local test site (private addresses allowed only where a test says so), and the
person answering prompts through the UI protocol."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import pytest
from mcp import Client

from tests.conftest import call, make_client
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient

pytestmark = pytest.mark.anyio


async def ok(client: Client, tool: str, action: str, **args: Any) -> dict[str, Any]:
    result = await call(client, tool, action, **args)
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    return dict(result.structured_content or {})


async def token(client: Client, tool: str, action: str, **args: Any) -> dict[str, Any]:
    """A refusal in the browser's shape: ``TOKEN: message`` as text, {error, message, data} structured."""
    result = await call(client, tool, action, **args)
    assert result.is_error
    envelope = dict(result.structured_content or {})
    assert set(envelope) == {"error", "message", "data"}, envelope
    assert result.content[0].text == f"{envelope['error']}: {envelope['message']}"  # type: ignore[union-attr]
    return envelope


async def plain(client: Client, tool: str, action: str, **args: Any) -> str:
    result = await call(client, tool, action, **args)
    assert result.is_error and result.structured_content is None
    return str(result.content[0].text)  # type: ignore[union-attr]


async def answer_next_prompt(person: UIClient, allow: bool, decision: str | None = None) -> dict[str, Any]:
    """Wait for the browser prompt and answer it as the person does."""
    for _ in range(200):
        pending = [a for a in (await person.call("approvals.list"))["approvals"]
                   if a["kind"] == "browser" and a["state"] == "pending"]
        if pending:
            args: dict[str, Any] = {"id": pending[0]["id"], "allow": allow}
            if decision:
                args["decision"] = decision
            await person.call("approvals.answer", **args)
            return dict(pending[0])
        await asyncio.sleep(0.05)
    raise AssertionError("no browser prompt appeared")


async def acted_with_answer(
    agent: Client, person: UIClient, allow: bool, decision: str | None = None, **args: Any
) -> tuple[Any, dict[str, Any]]:
    task = asyncio.ensure_future(call(agent, "browser", "act", **args))
    prompt = await answer_next_prompt(person, allow, decision)
    return await task, prompt


async def test_open_read_and_the_tab_in_the_session(agent: Client, site: str) -> None:
    opened = await ok(agent, "browser", "open", url=f"{site}/basic.html?token=s3cret#frag")
    assert opened["status"] == "loaded" and opened["title"] == "Basic"
    assert opened["url"] == f"{site}/basic.html" and opened["generation"] >= 1
    assert opened["navigationId"].startswith("nav-") and opened["tabId"].startswith("btab-")
    state = await ok(agent, "session", "get_state")
    assert [(t["tabId"], t["owner"], t["url"]) for t in state["browserTabs"]] == [
        (opened["tabId"], "ai", f"{site}/basic.html")
    ]
    page = await ok(agent, "browser_read", "read")
    assert page["url"] == f"{site}/basic.html" and page["untrusted"]
    buttons = [n for n in page["snapshot"] if n["role"] == "button"]
    assert {"role": "button", "name": "Press me"} in [{"role": n["role"], "name": n["name"]} for n in buttons]
    assert all(n["ref"].startswith("e") for n in page["snapshot"])


async def test_a_private_target_is_refused_unless_allowed(vmark: RunningApp, site: str) -> None:
    async with make_client(vmark.data_dir) as agent:
        refused = await token(agent, "browser", "open", url=f"{site}/basic.html")
        assert refused["error"] == "TARGET_REFUSED" and refused["data"] == {"reason": "loopback"}
        assert (await ok(agent, "session", "get_state"))["browserTabs"] == []
        assert (await token(agent, "browser_read", "read"))["error"] == "NO_BROWSER_TAB"


async def test_the_browser_can_be_switched_off(agent: Client, vmark: RunningApp, site: str) -> None:
    vmark.app.settings.set("browser.enabled", False)
    for tool, action, args in (("browser", "open", {"url": f"{site}/basic.html"}), ("browser_read", "read", {})):
        assert (await token(agent, tool, action, **args))["error"] == "BROWSER_DISABLED"


async def test_a_click_asks_the_person_once(agent: Client, person: UIClient, site: str) -> None:
    opened = await ok(agent, "browser", "open", url=f"{site}/act.html")
    result, prompt = await acted_with_answer(
        agent, person, True, operation="click", role="button", name="Next"
    )
    assert not result.is_error, result.content
    data = result.structured_content
    assert data["ok"] is True and data["input"] == "trusted"
    assert (data["matchedTotal"], data["matchedVisible"]) == (2, 1)  # the one in the closed accordion skipped
    assert prompt["detail"] == {"site": site, "tabId": opened["tabId"], "action": "click",
                                "element": {"role": "button", "name": "Next"}, "value": None}
    assert prompt["subject"] == f"click button 'Next' on {site}" and prompt["requester"] == "alice"
    clicked = await ok(agent, "browser_read", "query", selector="body", fields={"attributes": True})
    assert clicked["elements"][0]["attributes"]["data-clicked"] == "next-visible"
    # "Allow once" was used up: the same click asks again, and a denial is NOT_GRANTED.
    again, _ = await acted_with_answer(agent, person, False, operation="click", role="button", name="Next")
    assert again.is_error and again.structured_content["error"] == "NOT_GRANTED"


async def test_allow_on_this_site_stands_until_navigation(agent: Client, person: UIClient, site: str) -> None:
    opened = await ok(agent, "browser", "open", url=f"{site}/act.html")
    first, _ = await acted_with_answer(agent, person, True, "site", operation="click", role="button",
                                       name="Continue")
    assert not first.is_error
    second = await ok(agent, "browser", "act", operation="click", role="button", name="Continue")
    assert second["ok"] is True
    # A ref is accepted for a granted element, and refused for one that is not.
    refs = {(n["role"], n["name"]): n["ref"] for n in (await ok(agent, "browser_read", "read"))["snapshot"]}
    assert (await ok(agent, "browser", "act", operation="click", ref=refs[("button", "Continue")]))["ok"]
    refused = await token(agent, "browser", "act", operation="click", ref=refs[("button", "Ghost")])
    assert refused["error"] == "NOT_GRANTED"
    # Any navigation lapses the grant (and the refs).
    await ok(agent, "browser", "navigate", tabId=opened["tabId"], url=f"{site}/act.html#moved")
    stale = await token(agent, "browser", "act", operation="click", ref=refs[("button", "Continue")])
    assert stale["error"] == "STALE_COMMAND"
    task = asyncio.ensure_future(call(agent, "browser", "act", operation="click", role="button", name="Continue"))
    await answer_next_prompt(person, False)
    assert (await task).structured_content["error"] == "NOT_GRANTED"


async def test_verification_refusals_carry_their_reason(agent: Client, person: UIClient, site: str) -> None:
    await ok(agent, "browser", "open", url=f"{site}/act.html")
    result, _ = await acted_with_answer(agent, person, True, operation="click", role="button", name="Save")
    assert result.is_error
    envelope = result.structured_content
    assert envelope["error"] == "ACT_REJECTED"
    data = envelope["data"]
    assert data["reason"] == "ambiguous" and len(data["candidates"]) == 2
    assert (data["matchedTotal"], data["matchedVisible"]) == (2, 2)
    assert data["url"] == f"{site}/act.html" and isinstance(data["generation"], int)


async def test_execute_js_is_approved_per_call(agent: Client, person: UIClient, site: str) -> None:
    await ok(agent, "browser", "open", url=f"{site}/globals.html")
    task = asyncio.ensure_future(call(agent, "browser", "execute_js", script="return document.title"))
    prompt = await answer_next_prompt(person, True, "site")  # never standing: taken as once
    assert prompt["detail"]["value"] == "return document.title"
    result = await task
    assert result.structured_content["result"] == "Hostile globals"
    task = asyncio.ensure_future(call(agent, "browser", "execute_js", script="throw new Error('kaput')"))
    await answer_next_prompt(person, True)
    failed = (await task).structured_content
    assert failed["error"] == "EVAL_FAILED" and "kaput" in failed["message"]


async def test_reading_actions(agent: Client, site: str) -> None:
    opened = await ok(agent, "browser", "open", url=f"{site}/console.html")
    console = await ok(agent, "browser_read", "console")
    texts = [e["text"] for e in console["entries"]]
    assert "info line" in texts and any(t.startswith("Uncaught") for t in texts)
    assert any(t.startswith("Unhandled rejection:") for t in texts)
    cleared = await ok(agent, "browser", "console_clear")
    assert cleared["entries"] == console["entries"] or len(cleared["entries"]) >= len(console["entries"])
    assert (await ok(agent, "browser_read", "console"))["entries"] == []
    await ok(agent, "browser", "navigate", url=f"{site}/basic.html")
    extracted = await ok(agent, "browser_read", "extract")
    assert extracted["title"] == "Basic" and "Main title" in extracted["markdown"]
    assert extracted["url"] == f"{site}/basic.html" and extracted["truncated"] is False
    waited = await ok(agent, "browser_read", "wait", timeoutMs=2000)
    assert waited["status"] == "loaded" and waited["url"] == f"{site}/basic.html"
    assert (await ok(agent, "browser_read", "wait_for", text="Main title", timeoutMs=500))["matched"] is True
    assert (await ok(agent, "browser_read", "wait_for", text="not there", timeoutMs=200))["matched"] is False
    found = await ok(agent, "browser_read", "wait_for", role="button", name="Press me", timeoutMs=500)
    assert found["matched"] is True and found["ref"].startswith("e")
    assert (await ok(agent, "browser_read", "wait_for", urlContains="basic", timeoutMs=100))["matched"] is True
    text = await plain(agent, "browser_read", "wait_for", urlContains="basic.html?x=1")
    assert "cannot contain ? or #" in text
    text = await plain(agent, "browser_read", "wait_for", text="a", urlContains="b")
    assert text.startswith("browser_read.wait_for: give exactly one of")
    shot = await call(agent, "browser_read", "screenshot", tabId=opened["tabId"])
    assert not shot.is_error
    image, line = shot.content
    assert image.type == "image" and image.mime_type == "image/jpeg"
    assert base64.b64decode(image.data)[:3] == b"\xff\xd8\xff"
    assert line.text.startswith("Screenshot of 'Basic' at " + f"{site}/basic.html")


async def test_close_and_the_tab_limit(agent: Client, site: str) -> None:
    tabs = [(await ok(agent, "browser", "open", url=f"{site}/other.html"))["tabId"] for _ in range(8)]
    limit = await token(agent, "browser", "open", url=f"{site}/other.html")
    assert limit["error"] == "TAB_LIMIT"
    closed = await ok(agent, "browser", "close", tabId=tabs[0])
    assert closed == {"tabId": tabs[0], "closed": True, "destroyed": True}
    assert (await token(agent, "browser", "close", tabId=tabs[0]))["error"] == "NO_BROWSER_TAB"
    assert (await ok(agent, "browser", "open", url=f"{site}/other.html"))["status"] == "loaded"
    text = await plain(agent, "browser", "close")
    assert text == "browser.close: missing required argument 'tabId'"


async def test_a_persons_tab_needs_an_attachment(
    agent: Client, person: UIClient, vmark: RunningApp, site: str
) -> None:
    human = await vmark.app.browser.open_human_tab()
    await human.page.goto(f"{site}/basic.html")
    read = asyncio.ensure_future(call(agent, "browser_read", "read", tabId=human.id))
    prompt = await answer_next_prompt(person, True)  # Allow once: this one read
    assert prompt["detail"]["action"] == "attach" and prompt["subject"] == f"attach on {site}"
    assert not (await read).is_error
    again = asyncio.ensure_future(call(agent, "browser_read", "query", tabId=human.id, selector="h1"))
    await answer_next_prompt(person, False)
    assert (await again).structured_content["error"] == "NOT_GRANTED"
    # Polling is many reads: a once-attachment cannot cover it.
    waiting = asyncio.ensure_future(call(agent, "browser_read", "wait_for", tabId=human.id, text="Main"))
    await answer_next_prompt(person, True)
    assert (await waiting).structured_content["error"] == "ATTACHMENT_ONCE_INSUFFICIENT"
    waiting = asyncio.ensure_future(call(agent, "browser_read", "wait_for", tabId=human.id, text="Main"))
    await answer_next_prompt(person, True, "site")  # Allow until navigation
    assert (await waiting).structured_content["matched"] is True
    assert (await ok(agent, "browser_read", "extract", tabId=human.id))["title"] == "Basic"
    for tool, action in (("browser_read", "console"), ("browser", "console_clear"), ("browser", "close")):
        refused = await token(agent, tool, action, tabId=human.id)
        assert refused["error"] == "TAB_NOT_AI_OWNED" and refused["data"] == {"tabId": human.id}
    await human.page.goto(f"{site}/other.html")  # the person navigates: the attachment lapses
    read = asyncio.ensure_future(call(agent, "browser_read", "read", tabId=human.id))
    await answer_next_prompt(person, False)
    assert (await read).structured_content["error"] == "NOT_GRANTED"


async def test_the_shared_posture_asks_for_each_new_origin(
    agent: Client, person: UIClient, vmark: RunningApp, site: str
) -> None:
    vmark.app.settings.set("browser.posture", "shared")
    pending = await token(agent, "browser", "open", url=f"{site}/basic.html")
    assert pending["error"] == "APPROVAL_PENDING"
    tab = pending["data"]["tabId"]
    assert pending["data"]["retry"] == {"action": "navigate", "tabId": tab, "url": f"{site}/basic.html"}
    assert [t["tabId"] for t in (await ok(agent, "session", "get_state"))["browserTabs"]] == [tab]
    await person.call("approvals.answer", id=pending["data"]["approvalId"], allow=True, decision="site")
    loaded = await ok(agent, "browser", "navigate", tabId=tab, url=f"{site}/basic.html")
    assert loaded["status"] == "loaded" and loaded["title"] == "Basic"
    # The same origin needs nothing more, in this tab or a new one.
    assert (await ok(agent, "browser", "navigate", tabId=tab, url=f"{site}/other.html"))["status"] == "loaded"
    assert (await ok(agent, "browser", "open", url=f"{site}/act.html"))["title"] == "Act"
    other = site.replace("127.0.0.1", "localhost")
    task = asyncio.ensure_future(call(agent, "browser", "navigate", tabId=tab, url=f"{other}/basic.html"))
    prompt = await answer_next_prompt(person, False)
    assert prompt["detail"]["action"] == "navigate" and prompt["detail"]["site"] == other
    assert (await task).structured_content["error"] == "NOT_GRANTED"


async def test_style_and_navigation_tickets(agent: Client, person: UIClient, site: str) -> None:
    opened = await ok(agent, "browser", "open", url=f"{site}/act.html")
    task = asyncio.ensure_future(call(agent, "browser", "style", selector=".cmp-overlay, section",
                                      set={"outline": "2px solid red"}))
    await answer_next_prompt(person, True)
    styled = (await task).structured_content
    assert styled["count"] >= 1 and styled["url"] == f"{site}/act.html"
    text = await plain(agent, "browser", "style", set={"color": "red"})
    assert text == "browser.style: give a target: ref or selector (or injectCss alone)"
    waited = await ok(agent, "browser_read", "wait", navigationId=opened["navigationId"], timeoutMs=100)
    assert waited == {k: opened[k] for k in waited}
    text = await plain(agent, "browser_read", "wait", navigationId="nav-nope")
    assert text == (
        f"no navigation 'nav-nope' on {opened['tabId']}: give a navigationId that open or navigate answered"
        " for this tab, or none for its newest"
    )
    text = await plain(agent, "browser", "navigate", url=f"{site}/basic.html", timeoutMs=0)
    assert text == "browser.navigate: argument 'timeoutMs' must be an integer from 1 to 9000"
    refused = await token(agent, "browser", "navigate", url="file:///etc/passwd")
    assert refused["error"] == "TARGET_REFUSED" and refused["data"]["reason"] == "scheme"


async def test_popups_are_blocked_and_reported(agent: Client, person: UIClient, site: str) -> None:
    await ok(agent, "browser", "open", url=f"{site}/popup.html")
    result, _ = await acted_with_answer(agent, person, True, "site", operation="click", role="button",
                                       name="Open a window")
    data = result.structured_content
    assert data["ok"] is True and data["popup"] == {"url": f"{site}/other.html"}
    assert [t["url"] for t in (await ok(agent, "session", "get_state"))["browserTabs"]] == [f"{site}/popup.html"]
    # confirm() is dismissed by policy: the page sees "no".
    asked, _ = await acted_with_answer(agent, person, True, operation="click", role="button", name="Ask")
    assert asked.structured_content["ok"] is True and "popup" not in asked.structured_content
    assert (await ok(agent, "browser_read", "wait_for", text="", timeoutMs=100))["matched"] is True
    title = await ok(agent, "browser_read", "query", selector="title")
    assert title["elements"][0]["text"] == "dismissed"


async def test_a_script_that_never_answers_is_indeterminate(agent: Client, person: UIClient, site: str) -> None:
    await ok(agent, "browser", "open", url=f"{site}/basic.html")
    task = asyncio.ensure_future(call(agent, "browser", "execute_js", script="await new Promise(() => {})"))
    await answer_next_prompt(person, True)
    envelope = (await task).structured_content
    assert envelope["error"] == "EVAL_TIMEOUT" and envelope["data"] == {"detail": {"indeterminate": True}}
    # The page still answers afterwards.
    assert (await ok(agent, "browser_read", "read"))["url"] == f"{site}/basic.html"


async def test_a_named_profile_is_asked_for_every_time(
    agent: Client, person: UIClient, vmark: RunningApp, site: str
) -> None:
    task = asyncio.ensure_future(call(agent, "browser", "open", url=f"{site}/basic.html", profile="work"))
    prompt = await answer_next_prompt(person, True, "site")  # never standing
    assert prompt["detail"]["action"] == "profile" and prompt["detail"]["value"] == "work"
    opened = (await task).structured_content
    assert opened["status"] == "loaded"
    assert (vmark.data_dir / "browser" / "profiles" / "work").is_dir()
    task = asyncio.ensure_future(call(agent, "browser", "open", url=f"{site}/basic.html", profile="work"))
    await answer_next_prompt(person, False)
    assert (await task).structured_content["error"] == "NOT_GRANTED"
    text = await plain(agent, "browser", "open", url=f"{site}/basic.html", profile="../escape")
    assert text.startswith("argument 'profile' must be 1-64 characters of A-Z a-z 0-9 . _ -")
