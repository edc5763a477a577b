"""The panels speak the wire shapes the page is typed with, like the editor does (``test_wire_shapes``).

A page-like client drives the real app through every request of the Browser panel (a real embedded
Chromium on a local site: tabs, a live view and its frames, real input, navigation, a crash and its
reload, site permissions), of the Coherence panel (a tracked workspace with a stale edge: the overview,
a diff, an acceptance and a waiver, identities, claims, contexts, delegations) and of a workflow tab's
gutter (``ui.validate``), refusals included. Every request, answer and event seen on the way is checked
strictly against the TypedDicts (``vmark.protocol.wirecheck``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Error as PlaywrightError

from tests.conftest import make_client
from tests.contract.helpers import wait_event, wait_until
from tests.contract.test_coherence_tool import derive
from tests.ui.wirepage import PANEL_REQUESTS, CheckedPage
from vmark.app.server import RunningApp
from vmark.browser.grants import GrantRequest
from vmark.testing.sites import serving_pages
from vmark.testing.uiclient import UIError

#: the app's Chromium starts with the first tab: slow on a busy machine
COLD_START_SECONDS = 30.0
HOME = """<!doctype html><title>Home</title>
<style>body { margin: 0 } button, input { position: absolute; margin: 0 }
#press { left: 100px; top: 100px; width: 200px; height: 80px }
#field { left: 100px; top: 300px; width: 300px; height: 40px }</style>
<p id=out>idle</p>
<button id=press onclick="document.getElementById('out').textContent = 'clicked'">Press</button>
<input id=field>"""
SECOND = "<!doctype html><title>Second</title><p>second page</p>"


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serving_pages({"/second": SECOND, "": HOME}) as base:
        yield base


@pytest.fixture
async def page(vmark: RunningApp) -> AsyncIterator[CheckedPage]:
    vmark.app.settings.set("browser.allow_private_network", True)  # the local site
    async with CheckedPage(vmark.data_dir) as client:
        await client.attach("main")
        yield client


async def _eval(vmark: RunningApp, tab_id: str, script: str) -> Any:
    return await vmark.app.browser.tabs.get(tab_id).page.evaluate(script)


async def _loaded(vmark: RunningApp, tab_id: str, title: str) -> None:
    async def shown() -> bool:
        try:
            return await _eval(vmark, tab_id, "document.readyState === 'complete' && document.title") == title
        except PlaywrightError:  # the page navigates meanwhile
            return False

    await wait_until(shown, f"the page {title!r} loaded")


async def test_the_browser_panel_speaks_its_wire_shapes(vmark: RunningApp, page: CheckedPage, site: str) -> None:
    assert await page.call("browser.tabs") == {"tabs": []}
    assert await page.call("browser.permissions") == {"permissions": []}
    opened = await page.call("browser.human_open", url=site)
    tab = opened["tabId"]
    assert opened == {"tabId": tab, "url": f"{site}/"}
    await wait_event(page, "browser_tabs")
    blank = await page.call("browser.human_open")  # no address: a blank tab, nothing about where it is
    assert blank == {"tabId": blank["tabId"]}
    listed = (await page.call("browser.tabs"))["tabs"]
    assert [(t["tabId"], t["owner"], t["crashed"]) for t in listed] == [
        (tab, "human", False),
        (blank["tabId"], "human", False),
    ]

    # a live view: frames come, each acknowledged; the person's input reaches the page
    viewed = await page.call("browser.view", tabId=tab)
    assert viewed == {"tabId": tab, "url": f"{site}/", "title": "Home", "crashed": False}
    await wait_until(lambda: bool(page.events_named("browser_frame")), "a frame", timeout=COLD_START_SECONDS)
    frame = page.events_named("browser_frame")[0]["payload"]
    assert await page.call("browser.frame_ack", tabId=tab) == {"tabId": tab}
    size = {"width": frame["width"], "height": frame["height"]}  # the view is the frame: no scaling
    click = await page.call("browser.input", tabId=tab, kind="mouse", x=200, y=140, button="left", clickCount=1, **size)
    assert click == {"tabId": tab, "kind": "mouse"}
    assert await _eval(vmark, tab, "document.getElementById('out').textContent") == "clicked"
    await page.call("browser.input", tabId=tab, kind="mouse", x=150, y=320, **size)  # focuses the field
    await page.call("browser.input", tabId=tab, kind="text", text="hix")
    modifiers = {"ctrl": False, "alt": False, "shift": False, "meta": False}
    await page.call("browser.input", tabId=tab, kind="key", key="Backspace", modifiers=modifiers)
    await page.call("browser.input", tabId=tab, kind="text", text=" there", paste=True)
    assert await _eval(vmark, tab, "document.getElementById('field').value") == "hi there"
    wheel = await page.call("browser.input", tabId=tab, kind="wheel", x=10, y=10, dx=0, dy=40, **size)
    assert wheel == {"tabId": tab, "kind": "wheel"}
    with pytest.raises(UIError) as refused:
        await page.call("browser.input", tabId=tab, kind="mouse", x=10, y=10, button="left", clickCount=4, **size)
    assert refused.value.error == "clickCount must be an integer from 1 to 3"  # an argument error: its text

    # navigation: the address bar, back, forward, reload; other schemes are refused
    went = await page.call("browser.nav", tabId=tab, op="go", url=f"{site}/second")
    assert went == {"tabId": tab, "url": f"{site}/second"}
    await _loaded(vmark, tab, "Second")
    for op, where, title in (("back", "/", "Home"), ("forward", "/second", "Second"), ("reload", "/second", "Second")):
        assert await page.call("browser.nav", tabId=tab, op=op) == {"tabId": tab, "url": f"{site}{where}"}
        await _loaded(vmark, tab, title)  # a navigation answers on commit: the next one waits for the page
    with pytest.raises(UIError) as refused:
        await page.call("browser.nav", tabId=tab, op="go", url="javascript:alert(1)")
    assert refused.value.error == "only http and https addresses can be opened, not 'javascript:alert(1)'"

    # a site permission: listed, revoked
    origin = site.rstrip("/")
    vmark.app.browser.grants.grant(GrantRequest(tab, origin, "click", "button", "Press"), "site")
    permission = {
        "tabId": tab,
        "origin": origin,
        "operation": "click",
        "role": "button",
        "name": "Press",
        "value": None,
    }
    assert await page.call("browser.permissions") == {"permissions": [permission]}
    revoked = await page.call("browser.revoke", origin=origin, operation="click")
    assert revoked == {"origin": origin, "operation": "click", "revoked": True}
    assert await page.call("browser.permissions") == {"permissions": []}

    # a crash: the event, the listing says so, a view shows the overlay only, a reload brings it back
    crashed = vmark.app.browser.tabs.get(tab).page
    cdp = await crashed.context.new_cdp_session(crashed)
    crash = asyncio.ensure_future(cdp.send("Page.crash"))  # it never answers: the renderer is gone
    assert await wait_event(page, "browser_crashed") == {"tabId": tab}
    crash.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await crash
    assert [t["crashed"] for t in (await page.call("browser.tabs"))["tabs"] if t["tabId"] == tab] == [True]
    assert (await page.call("browser.view", tabId=tab))["crashed"] is True
    frames = len(page.events_named("browser_frame"))
    assert await page.call("browser.reload_crashed", tabId=tab) == {"tabId": tab, "url": f"{site}/second"}
    # the page that asked to view the crashed tab views it again (it was not, before: a blank view)
    await wait_until(lambda: len(page.events_named("browser_frame")) > frames, "a frame of the reloaded tab")
    with pytest.raises(UIError) as refused:
        await page.call("browser.reload_crashed", tabId=tab)
    assert refused.value.error == f"{tab} has not crashed"

    # the view ends; both tabs close; a closed tab is refused by name
    assert await page.call("browser.unview", tabId=tab) == {"tabId": tab, "stopped": True}
    assert await page.call("browser.unview", tabId=tab) == {"tabId": tab, "stopped": False}
    for closing in (tab, blank["tabId"]):
        assert await page.call("browser.close", tabId=closing) == {"tabId": closing, "closed": True}
    with pytest.raises(UIError) as refused:
        await page.call("browser.view", tabId=tab)
    assert refused.value.error["error"] == "NO_BROWSER_TAB"
    assert await page.call("browser.tabs") == {"tabs": []}

    assert page.problems == []
    assert page.event_problems() == []
    assert {"browser_frame", "browser_crashed", "browser_tabs"} <= {e["event"] for e in page.events}
    assert page.sent - {"ui.attach"} == {k for k in PANEL_REQUESTS if k.startswith("browser.")}


async def test_the_coherence_panel_and_the_gutter_speak_their_wire_shapes(
    vmark: RunningApp, page: CheckedPage, workspace: Path
) -> None:
    await page.call("ui.open_folder", path=str(workspace))
    root = str(workspace.resolve())
    before = await page.call("coherence.overview")
    assert (before["workspaceRoot"], before["status"]["initialized"], before["edges"]) == (root, False, [])
    status = await page.call("coherence.init")
    assert (status["initialized"], status["open_items"], status["duplicates"]) == (True, 0, [])

    # a stale edge: an agent derives b.md from a.md, a.md moves on; diffed, accepted, then waived
    async with make_client(vmark.data_dir) as agent:
        await derive(agent, workspace)
    await wait_event(page, "coherence")
    (workspace / "a.md").write_text("# A\n\nalpha moved\n", "utf-8")
    (edge,) = (await page.call("coherence.overview", workspaceRoot=root))["edges"]
    assert (edge["upstream_path"], edge["downstream_path"], edge["state"]) == ("a.md", "b.md", "version-stale")
    at = {"txf": edge["txf"], "input": edge["input"]}
    texts = await page.call("coherence.diff", **at)
    assert (texts["pinned_text"], texts["current_text"]) == ("# A\n\nalpha\n", "# A\n\nalpha moved\n")
    accepted = await page.call("coherence.resolve", **at, resolution="accept-newer")
    assert (accepted["resolution"], accepted["state"]) == ("accept-newer", "ratified")
    with pytest.raises(UIError) as refused:
        await page.call("coherence.resolve", **at, resolution="waive")
    assert refused.value.error == "a waiver needs a reason"
    (workspace / "a.md").write_text("# A\n\nalpha moved again\n", "utf-8")
    (edge,) = (await page.call("coherence.overview"))["edges"]
    waived = await page.call(
        "coherence.resolve", **at, resolution="waive", reason="wording only", expires="2999-01-01T00:00:00Z"
    )
    assert (waived["resolution"], waived["state"]) == ("waive", "waived")
    added = await page.call("coherence.add_identities")
    assert added == {"added": ["a.md", "notes/c.md", "readme.txt"], "skipped": []}  # b.md got its id when saved

    # the canon: a claim added, established, superseded; a context saved, listed, deleted
    claim = await page.call("coherence.claim_add", statement="Alpha is first", maturity="draft")
    await page.call("coherence.claim_update", claim=claim["claim"], maturity="established", invalidAt=None)
    newer = await page.call("coherence.claim_add", statement="Alpha comes first", supersedes=claim["claim"])
    claims = (await page.call("coherence.claims"))["claims"]
    assert [(c["claim"], c["statement"], c["maturity"]) for c in claims] == [
        (claim["claim"], "Alpha is first", "established"),
        (newer["claim"], "Alpha comes first", "draft"),
    ]
    saved = await page.call(
        "coherence.context_save",
        id="team",
        name="Team",
        parent=None,
        enforcement="greenhouse",
        include=[newer["claim"]],
        exclude=[],
    )
    assert [(c["id"], c["errors"]) for c in saved["contexts"]] == [("default", []), ("team", [])]
    assert await page.call("coherence.contexts") == saved
    assert [c["id"] for c in (await page.call("coherence.context_delete", id="team"))["contexts"]] == ["default"]

    # delegations: listed, granted, revoked
    vmark.app.principals.add("alice")
    assert await page.call("delegations.list") == {"grants": [], "principals": ["alice"]}
    grant = await page.call(
        "delegations.grant", principal="alice", scope=["accept-newer"], expires="8h", workspaceRoot=root
    )
    assert (grant["scope"], grant["workspace"], grant["state"]) == (["accept-newer"], root, "live")
    assert (await page.call("delegations.revoke", id=grant["id"]))["state"] == "revoked"
    assert [g["state"] for g in (await page.call("delegations.list"))["grants"]] == ["revoked"]

    # a workflow tab's gutter: a verdict (with or without actionlint); another kind of tab is refused
    workflow = (await page.call("ui.open", path=str(workspace / ".github" / "workflows" / "ci.yml")))["tabId"]
    verdict = await page.call("ui.validate", tabId=workflow)
    assert set(verdict) == {"ok", "diagnostics", "binaryAvailable"}
    markdown = (await page.call("ui.open", path=str(workspace / "a.md")))["tabId"]
    with pytest.raises(UIError) as refused:
        await page.call("ui.validate", tabId=markdown)
    assert refused.value.error == f"ui.validate checks workflow tabs; {markdown} is a markdown document"

    assert page.problems == []
    assert page.event_problems() == []
    assert "coherence" in {e["event"] for e in page.events}
    browser = {k for k in PANEL_REQUESTS if k.startswith("browser.")}
    assert page.sent - {"ui.attach", "ui.open_folder", "ui.open"} == PANEL_REQUESTS - browser
