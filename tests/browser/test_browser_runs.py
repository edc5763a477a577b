"""Browser workflow runs through the official MCP client: a real app, real Chromium, a local shop (a login
form and an order form that count their submissions), and the person answering every prompt."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.parse
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

import vmark.app.browser as browser_service
import vmark.browser.run_driver as run_driver
from tests.browser.test_browser_tools import ok, plain, token
from tests.conftest import call, make_client
from vmark.app.server import RunningApp
from vmark.protocol.limits import MAX_WORKFLOW_INPUT_BYTES, MAX_WORKFLOW_SOURCE_BYTES
from vmark.testing.sites import serving
from vmark.testing.uiclient import UIClient, UIError

pytestmark = pytest.mark.anyio

SITES = Path(__file__).parent / "sites"
EMAIL, NAME = "ann.secret-mail@example.org", "Ann Hidden-Name"
OTHER_EMAIL, OTHER_NAME = "bob.secret-mail@example.org", "Bob Hidden-Name"


class Shop:
    """The test site: every POST is counted (path, fields) and answered with a redirect, as a shop does."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, dict[str, str]]] = []
        self.base = ""

    def handler(self) -> Any:
        shop = self

        class Handler(SimpleHTTPRequestHandler):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, directory=str(SITES), **kwargs)

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                parts = urllib.parse.urlsplit(self.path)
                if parts.path == "/wf-slow":
                    time.sleep(int(urllib.parse.parse_qs(parts.query)["ms"][0]) / 1000)
                    self._send(200, b"<title>Slow</title><p>finally</p>")
                    return
                super().do_GET()

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
                fields = {k: v[0] for k, v in urllib.parse.parse_qs(body, keep_blank_values=True).items()}
                shop.posts.append((self.path, fields))
                target = {"/wf-login": "/wf_form.html", "/wf-submit": "/wf_done.html"}[self.path]
                self._send(303, b"", location=target)

            def _send(self, status: int, data: bytes, location: str | None = None) -> None:
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler

    def posted(self, path: str) -> list[dict[str, str]]:
        return [fields for where, fields in self.posts if where == path]


@pytest.fixture(scope="module")
def shop_site() -> Iterator[Shop]:
    shop = Shop()
    with serving(shop.handler()) as base:
        shop.base = base
        yield shop


@pytest.fixture
def shop(shop_site: Shop) -> Shop:
    shop_site.posts.clear()
    return shop_site


def order_flow(shop: Shop) -> str:
    return f"""---
site: shop
inputs: [email, name]
trigger: manual
---
1. action: navigate to {shop.base}/wf_login.html
2. action: type {{email}} into "Email" (textbox)
3. action: click "Sign in" (button)
4. action: type {{name}} into "Name" (textbox)
5. action: click "Submit" (button)
6. extract: the order total
"""


def paused_flow(shop: Shop) -> str:
    return f"""---
site: shop
inputs: [email, name]
---
- action: navigate to {shop.base}/wf_login.html
- action: type {{email}} into "Email" (textbox)
- action: click "Sign in" (button)
- confirm: the person checks the order form before it is sent
- action: type {{name}} into "Name" (textbox)
- action: click "Submit" (button)
"""


def click_flow() -> str:
    return '---\nsite: shop\n---\naction: click "Sign in" (button)\n'


class Person:
    """Answers the run's prompts as the person does, and remembers what they were shown."""

    def __init__(self, client: UIClient) -> None:
        self.client = client
        self.seen: list[dict[str, Any]] = []

    async def pending(self) -> list[dict[str, Any]]:
        listing = (await self.client.call("approvals.list"))["approvals"]
        return [a for a in listing if a["kind"] == "browser" and a["state"] == "pending"]

    async def next_prompt(self, timeout: float = 20.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pending = await self.pending()
            if pending:
                return pending[0]
            await asyncio.sleep(0.05)
        raise AssertionError("no browser prompt appeared")

    async def answer(self, prompt: dict[str, Any], allow: bool = True) -> None:
        await self.client.call("approvals.answer", id=prompt["id"], allow=allow)
        self.seen.append(prompt)

    @asynccontextmanager
    async def allowing_everything(self) -> AsyncIterator[Person]:
        async def loop() -> None:
            while True:
                for prompt in await self.pending():
                    await self.answer(prompt)
                await asyncio.sleep(0.05)

        task = asyncio.ensure_future(loop())
        try:
            yield self
        finally:
            task.cancel()


@pytest.fixture
def you(person: UIClient) -> Person:
    return Person(person)


async def status_of(agent: Client, run_id: str) -> dict[str, Any]:
    return await ok(agent, "browser_read", "workflow_status", runId=run_id)


async def settled(agent: Client, run_id: str, timeout: float = 40.0) -> dict[str, Any]:
    """The run's status once it is no longer running."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = await status_of(agent, run_id)
        if status["status"] != "running":
            return status
        await asyncio.sleep(0.1)
    raise AssertionError(f"{run_id} still running")


async def waiting_for_person(agent: Client, run_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        status = await status_of(agent, run_id)
        if "pendingApproval" in status:
            return status
        await asyncio.sleep(0.05)
    raise AssertionError(f"{run_id} never waited for the person")


def results(status: dict[str, Any]) -> list[tuple[int, str, int]]:
    return [(r["index"], r["status"], r["attempts"]) for r in status["stepResults"]]


def assert_value_free(*answers: Any) -> None:
    text = json.dumps(answers)
    for value in (EMAIL, NAME, OTHER_EMAIL, OTHER_NAME):
        assert value not in text


async def open_tab(agent: Client, url: str) -> str:
    return str((await ok(agent, "browser", "open", url=url))["tabId"])


async def test_a_run_asks_step_by_step_and_completes(agent: Client, you: Person, shop: Shop) -> None:
    tab = await open_tab(agent, f"{shop.base}/wf_done.html")
    started = await ok(agent, "browser", "workflow_run", tabId=tab, source=order_flow(shop),
                       inputs={"email": EMAIL, "name": NAME})
    run = started["runId"]
    assert run.startswith("run-") and started["firstStep"] == 0
    assert [(s["index"], s["line"], s["kind"]) for s in started["steps"]] == [
        (0, 6, "navigate"), (1, 7, "type"), (2, 8, "click"), (3, 9, "type"), (4, 10, "click"), (5, 11, "extract")
    ]
    assert started["steps"][1]["text"] == 'action: type {email} into "Email" (textbox)'
    # Every act is asked for on its own, as a hand-made act is; the status names the prompt, value-free.
    expected = [
        (1, f"type textbox 'Email' with {EMAIL!r}", "type textbox 'Email' with '{email}'"),
        (2, "click button 'Sign in'", "click button 'Sign in'"),
        (3, f"type textbox 'Name' with {NAME!r}", "type textbox 'Name' with '{name}'"),
        (4, "click button 'Submit'", "click button 'Submit'"),
    ]
    for step, asked, shown in expected:
        status = await waiting_for_person(agent, run)
        prompt = await you.next_prompt()
        assert prompt["subject"] == f"{asked} on {shop.base}" and prompt["requester"] == "alice"
        assert status["status"] == "running"
        assert status["pendingApproval"] == {"approvalId": prompt["id"], "step": step,
                                             "subject": f"{shown} on {shop.base}"}
        assert status["completedSteps"] == step
        assert_value_free(status)
        await you.answer(prompt)
    status = await settled(agent, run)
    assert status["status"] == "completed", (status.get("reason"), status["stepResults"])
    assert results(status) == [(i, "completed", 1) for i in range(6)]
    assert (status["completedSteps"], status["skippedSteps"], status["stepCount"], status["firstStep"]) == (6, 0, 6, 0)
    assert "pendingApproval" not in status and "reasonCode" not in status and "pausedAt" not in status
    extracted = status["stepResults"][5]["data"]
    assert "Order total: 42.00 EUR" in extracted["markdown"] and extracted["url"] == f"{shop.base}/wf_done.html"
    assert extracted["title"] == "Thank you" and extracted["untrusted"]
    assert [r.get("data") for r in status["stepResults"][:5]] == [None] * 5
    assert shop.posted("/wf-login") == [{"email": EMAIL, "pw": ""}]
    assert shop.posted("/wf-submit") == [{"name": NAME, "note": ""}]
    assert_value_free(started, status)


async def test_replay_with_other_inputs_runs_in_full(agent: Client, you: Person, shop: Shop) -> None:
    tab = await open_tab(agent, f"{shop.base}/wf_login.html")
    source = order_flow(shop)
    async with you.allowing_everything():
        first = await ok(agent, "browser", "workflow_run", tabId=tab, source=source,
                         inputs={"email": EMAIL, "name": NAME})
        assert (await settled(agent, first["runId"]))["status"] == "completed"
        second = await ok(agent, "browser", "workflow_run", tabId=tab, source=source,
                          inputs={"name": OTHER_NAME, "email": OTHER_EMAIL})
        status = await settled(agent, second["runId"])
    assert status["status"] == "completed" and status["skippedSteps"] == 0
    assert [p["email"] for p in shop.posted("/wf-login")] == [EMAIL, OTHER_EMAIL]
    assert [p["name"] for p in shop.posted("/wf-submit")] == [NAME, OTHER_NAME]
    assert len(you.seen) == 8  # four acts a run, each asked for


async def test_the_same_job_twice_skips_its_writes_unless_allowed_to_repeat(
    agent: Client, you: Person, shop: Shop
) -> None:
    tab = await open_tab(agent, f"{shop.base}/wf_login.html")
    source, inputs = order_flow(shop), {"email": EMAIL, "name": NAME}
    async with you.allowing_everything():
        first = await ok(agent, "browser", "workflow_run", tabId=tab, source=source, inputs=inputs)
        assert (await settled(agent, first["runId"]))["status"] == "completed"
        asked = len(you.seen)
        reordered = dict(reversed(inputs.items()))  # the same inputs in another order: the same job
        again = await ok(agent, "browser", "workflow_run", tabId=tab, source=source, inputs=reordered)
        status = await settled(agent, again["runId"])
        assert status["status"] == "completed"
        assert results(status) == [(0, "skipped", 0), (1, "skipped", 0), (2, "skipped", 0), (3, "skipped", 0),
                                   (4, "skipped", 0), (5, "completed", 1)]
        assert (status["completedSteps"], status["skippedSteps"]) == (1, 5)
        assert len(you.seen) == asked and len(shop.posted("/wf-submit")) == 1  # nothing asked, nothing sent
        await ok(agent, "browser", "navigate", tabId=tab, url=f"{shop.base}/wf_login.html")
        repeated = await ok(agent, "browser", "workflow_run", tabId=tab, source=source, inputs=inputs,
                            allowRepeat=True)
        status = await settled(agent, repeated["runId"])
    assert status["status"] == "completed" and results(status) == [(i, "completed", 1) for i in range(6)]
    assert len(you.seen) == asked + 4 and len(shop.posted("/wf-submit")) == 2


async def test_pause_on_confirm_and_resume_submits_nothing_twice(agent: Client, you: Person, shop: Shop) -> None:
    tab = await open_tab(agent, f"{shop.base}/wf_done.html")
    source, inputs = paused_flow(shop), {"email": EMAIL, "name": NAME}
    async with you.allowing_everything():
        first = await ok(agent, "browser", "workflow_run", tabId=tab, source=source, inputs=inputs)
        paused = await settled(agent, first["runId"])
        assert paused["status"] == "paused" and paused["pausedAt"] == 3
        assert results(paused) == [(0, "completed", 1), (1, "completed", 1), (2, "completed", 1), (3, "paused", 0),
                                   (4, "pending", 0), (5, "pending", 0)]
        assert len(shop.posted("/wf-login")) == 1 and shop.posted("/wf-submit") == []
        # The agent (or the person) does the paused step by hand, then resumes.
        resumed = await ok(agent, "browser", "workflow_run", tabId=tab, source=source, inputs=inputs,
                           resumeRunId=first["runId"])
        assert resumed["firstStep"] == 4
        status = await settled(agent, resumed["runId"])
    assert status["status"] == "completed", (status.get("reason"), status["stepResults"])
    assert status["resumedFrom"] == first["runId"] and status["firstStep"] == 4
    assert results(status) == [(0, "completed", 1), (1, "completed", 1), (2, "completed", 1), (3, "completed", 0),
                               (4, "completed", 1), (5, "completed", 1)]
    assert status["stepResults"][3]["reason"] == f"done outside the run (paused in {first['runId']})"
    assert status["completedSteps"] == 6
    assert len(shop.posted("/wf-login")) == 1 and shop.posted("/wf-submit") == [{"name": NAME, "note": ""}]
    old = await status_of(agent, first["runId"])
    assert (old["status"], old["reasonCode"], old["reason"]) == ("superseded", "resumed",
                                                                 f"resumed by {resumed['runId']}")
    assert "pausedAt" not in old


async def test_the_refusals_of_resume(agent: Client, you: Person, shop: Shop, vmark: RunningApp) -> None:
    tab = await open_tab(agent, f"{shop.base}/wf_done.html")
    other_tab = await open_tab(agent, f"{shop.base}/wf_done.html")
    source, inputs = paused_flow(shop), {"email": EMAIL, "name": NAME}
    async with you.allowing_everything():
        first = await ok(agent, "browser", "workflow_run", tabId=tab, source=source, inputs=inputs)
        assert (await settled(agent, first["runId"]))["status"] == "paused"
    run = first["runId"]
    unknown = await token(agent, "browser", "workflow_run", tabId=tab, source=source, inputs=inputs,
                          resumeRunId="run-nope")
    assert unknown == {"error": "RUN_NOT_FOUND", "message": "No workflow run 'run-nope'", "data": {"runId": "run-nope"}}
    refusals = [
        (dict(tabId=other_tab, source=source, inputs=inputs), f"resumeRunId: {run} ran on {tab}, not on {other_tab}"),
        (dict(tabId=tab, source=source + "extract: more\n", inputs=inputs),
         f"resumeRunId: {run} ran another source; resume it with the same source"),
        (dict(tabId=tab, source=source, inputs={"email": EMAIL, "name": OTHER_NAME}),
         f"resumeRunId: {run} ran with other inputs; resume it with the same inputs"),
    ]
    for args, message in refusals:
        assert await plain(agent, "browser", "workflow_run", resumeRunId=run, **args) == message
    assert (await status_of(agent, run))["status"] == "paused"  # a refused resume changes nothing
    async with you.allowing_everything():
        resumed = await ok(agent, "browser", "workflow_run", tabId=tab, source=source, inputs=inputs, resumeRunId=run)
        assert (await settled(agent, resumed["runId"]))["status"] == "completed"
    for done, state in ((run, "superseded"), (resumed["runId"], "completed")):
        refused = await plain(agent, "browser", "workflow_run", tabId=tab, source=source, inputs=inputs,
                              resumeRunId=done)
        assert refused == f"resumeRunId: {done} is {state}, not paused; only a paused run resumes"
    # Another agent's run does not exist for this one.
    async with make_client(vmark.data_dir, client_token=vmark.app.principals.add("bob")) as bob:
        foreign = await token(bob, "browser", "workflow_run", tabId=tab, source=source, inputs=inputs,
                              resumeRunId=run)
        assert foreign["error"] == "RUN_NOT_FOUND"
        assert (await token(bob, "browser_read", "workflow_status", runId=run))["error"] == "RUN_NOT_FOUND"


async def test_cancel_mid_approval_withdraws_the_prompt(agent: Client, you: Person, shop: Shop) -> None:
    tab = await open_tab(agent, f"{shop.base}/wf_login.html")
    started = await ok(agent, "browser", "workflow_run", tabId=tab, source=click_flow())
    run = started["runId"]
    waiting = await waiting_for_person(agent, run)
    prompt = await you.next_prompt()
    assert waiting["pendingApproval"]["approvalId"] == prompt["id"]
    cancelled = await ok(agent, "browser", "workflow_cancel", runId=run)
    assert cancelled == {"runId": run, "status": "cancelled"}
    assert await you.pending() == []
    assert [a["id"] for a in (await you.client.call("approvals.list"))["approvals"]] == []
    status = await status_of(agent, run)
    assert (status["status"], status["reasonCode"], status["reason"]) == ("cancelled", "cancelled",
                                                                          "cancelled by the agent")
    assert results(status) == [(0, "cancelled", 1)] and "pendingApproval" not in status
    # the person's late answer finds nothing; nothing was clicked
    with pytest.raises(UIError) as late:
        await you.client.call("approvals.answer", id=prompt["id"], allow=True)
    assert late.value.args[0] == f"no pending approval {prompt['id']!r} (it may have expired)"
    # the run's task ended before the cancel answered (nothing of it runs on): no click came, none will
    assert shop.posts == [] and (await status_of(agent, run))["status"] == "cancelled"
    again = await ok(agent, "browser", "workflow_cancel", tabId=tab, runId=run)
    assert again == {"runId": run, "status": "cancelled", "alreadyTerminal": True}
    unknown = await token(agent, "browser", "workflow_cancel", runId="run-unknown")
    assert unknown["error"] == "RUN_NOT_FOUND"
    assert (await token(agent, "browser_read", "workflow_status", runId="run-unknown"))["error"] == "RUN_NOT_FOUND"


async def test_a_finished_run_is_already_terminal(agent: Client, you: Person, shop: Shop) -> None:
    tab = await open_tab(agent, f"{shop.base}/wf_done.html")
    started = await ok(agent, "browser", "workflow_run", tabId=tab, source="---\nsite: s\n---\nextract: all\n")
    assert (await settled(agent, started["runId"]))["status"] == "completed"
    answer = await ok(agent, "browser", "workflow_cancel", runId=started["runId"])
    assert answer == {"runId": started["runId"], "status": "completed", "alreadyTerminal": True}


async def test_the_person_taking_over_stops_the_run(
    agent: Client, you: Person, shop: Shop, vmark: RunningApp
) -> None:
    tab = await open_tab(agent, f"{shop.base}/wf_login.html")
    started = await ok(agent, "browser", "workflow_run", tabId=tab, source=click_flow())
    await waiting_for_person(agent, started["runId"])
    vmark.app.browser_runs.person_took_over(tab)
    status = await status_of(agent, started["runId"])
    assert (status["status"], status["reasonCode"]) == ("cancelled", "taken-over")
    assert await you.pending() == []
    # A closed tab ends its run the same way.
    again = await ok(agent, "browser", "workflow_run", tabId=tab, source=click_flow())
    await waiting_for_person(agent, again["runId"])
    vmark.app.browser_runs.tab_closed(tab)
    status = await status_of(agent, again["runId"])
    assert (status["status"], status["reasonCode"], status["reason"]) == ("cancelled", "tab-closed",
                                                                          "the tab was closed")
    assert await you.pending() == [] and shop.posts == []


async def test_one_run_at_a_time_per_tab(agent: Client, you: Person, shop: Shop) -> None:
    tab = await open_tab(agent, f"{shop.base}/wf_login.html")
    other = await open_tab(agent, f"{shop.base}/wf_login.html")
    first = await ok(agent, "browser", "workflow_run", tabId=tab, source=click_flow())
    busy = await token(agent, "browser", "workflow_run", tabId=tab, source=click_flow())
    assert busy["error"] == "RUN_ACTIVE" and busy["data"] == {"runId": first["runId"], "tabId": tab}
    second = await ok(agent, "browser", "workflow_run", tabId=other, source=click_flow())
    for run in (first["runId"], second["runId"]):
        await ok(agent, "browser", "workflow_cancel", runId=run)
    third = await ok(agent, "browser", "workflow_run", tabId=tab, source=click_flow())  # the tab is free again
    await ok(agent, "browser", "workflow_cancel", runId=third["runId"])


async def test_a_navigation_to_a_new_origin_asks_in_the_shared_posture(
    agent: Client, you: Person, shop: Shop, vmark: RunningApp
) -> None:
    vmark.app.settings.set("browser.posture", "shared")
    pending = await token(agent, "browser", "open", url=f"{shop.base}/wf_login.html")
    await you.answer({"id": pending["data"]["approvalId"]})
    tab = pending["data"]["tabId"]
    await ok(agent, "browser", "navigate", tabId=tab, url=f"{shop.base}/wf_login.html")
    other = shop.base.replace("127.0.0.1", "localhost")
    source = f"---\nsite: s\n---\naction: navigate to {other}/wf_done.html\nextract: the total\n"
    started = await ok(agent, "browser", "workflow_run", tabId=tab, source=source)
    waiting = await waiting_for_person(agent, started["runId"])
    prompt = await you.next_prompt()
    assert prompt["subject"] == f"navigate on {other}" and prompt["detail"]["action"] == "navigate"
    assert waiting["pendingApproval"] == {"approvalId": prompt["id"], "step": 0, "subject": f"navigate on {other}"}
    await you.answer(prompt)
    status = await settled(agent, started["runId"])
    assert status["status"] == "completed" and status["stepResults"][1]["data"]["url"] == f"{other}/wf_done.html"


async def test_a_denied_step_fails_the_run_without_its_value(agent: Client, you: Person, shop: Shop) -> None:
    tab = await open_tab(agent, f"{shop.base}/wf_login.html")
    source = '---\nsite: s\ninputs: [email]\n---\naction: type {email} into "Email" (textbox)\n'
    started = await ok(agent, "browser", "workflow_run", tabId=tab, source=source, inputs={"email": EMAIL})
    await you.answer(await you.next_prompt(), allow=False)
    status = await settled(agent, started["runId"])
    reason = f"NOT_GRANTED: The user denied type textbox 'Email' with '{{email}}' on {shop.base}"
    assert (status["status"], status["reasonCode"], status["reason"]) == ("failed", "not-granted",
                                                                          f"step 0 (line 5): {reason}")
    assert status["stepResults"] == [{"index": 0, "status": "failed", "attempts": 1, "reason": reason}]
    assert_value_free(status)


async def test_a_run_waits_past_the_prompts_own_wait(
    agent: Client, you: Person, shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(browser_service, "BROWSER_PROMPT_WAIT_SECONDS", 0.3)
    tab = await open_tab(agent, f"{shop.base}/wf_login.html")
    started = await ok(agent, "browser", "workflow_run", tabId=tab, source=click_flow())
    first = await you.next_prompt()
    await asyncio.sleep(1.2)  # the act's own wait answered APPROVAL_PENDING several times meanwhile
    assert (await status_of(agent, started["runId"]))["pendingApproval"]["approvalId"] == first["id"]
    assert [p["id"] for p in await you.pending()] == [first["id"]]  # one prompt, not one per wait
    await you.answer(first)
    status = await settled(agent, started["runId"])
    assert status["status"] == "completed" and len(shop.posted("/wf-login")) == 1


async def test_the_time_budget_does_not_count_the_persons_time(
    agent: Client, you: Person, shop: Shop, vmark: RunningApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_driver, "TIME_BUDGET_SECONDS", 5.0)
    # The runs' clock reads a time the test moves: the person takes an hour to answer, at once. It stands still
    # until the person has answered (however long a loaded machine takes to reach the prompt), then runs: the
    # slow page (6 s) outlasts the budget (5 s) at step 1.
    person_took = [0.0]
    answered_at: list[float | None] = [None]

    def clock() -> float:
        since = answered_at[0]
        return person_took[0] + (0.0 if since is None else time.monotonic() - since)

    monkeypatch.setattr(vmark.app.browser_runs, "clock", clock)
    tab = await open_tab(agent, f"{shop.base}/wf_login.html")
    source = (
        "---\nsite: s\ninputs: [email]\n---\n"
        'action: type {email} into "Email" (textbox)\n'
        f"action: navigate to {shop.base}/wf-slow?ms=6000\n"
        "extract: never reached\n"
    )
    started = await ok(agent, "browser", "workflow_run", tabId=tab, source=source, inputs={"email": EMAIL})
    prompt = await you.next_prompt()
    await waiting_for_person(agent, started["runId"])  # the run knows it waits: its clock stopped
    person_took[0] = 3600.0  # far longer than the whole budget: the person's time does not count
    assert (await status_of(agent, started["runId"]))["status"] == "running"
    answered_at[0] = time.monotonic()
    await you.answer(prompt)
    status = await settled(agent, started["runId"])
    assert (status["status"], status["reasonCode"]) == ("failed", "time-budget")
    assert status["reason"] == "the run used up its 5 s of running time at step 1 (line 6)"
    assert status["stepResults"] == [
        {"index": 0, "status": "completed", "attempts": 1},
        {"index": 1, "status": "failed", "attempts": 1, "reason": "the run's running time ran out"},
        {"index": 2, "status": "pending", "attempts": 0},
    ]


LIMIT_SOURCE = "---\nsite: s\ninputs: [a]\n---\n"


@pytest.mark.parametrize(
    ("source", "inputs", "message"),
    [
        ("---\nsite: s\n---\n" + "extract: x\n" * 26, {}, "line 29: more than 25 steps"),
        ("---\nsite: s\n---\nextract: " + "x" * MAX_WORKFLOW_SOURCE_BYTES, {},
         f"the source is {MAX_WORKFLOW_SOURCE_BYTES + 25} bytes; at most 65536 are accepted"),
        ("---\nsite: s\ninputs: [" + ", ".join(f"i{n}" for n in range(65)) + "]\n---\n", {},
         "line 3: 65 inputs declared; at most 64 are accepted"),
        (LIMIT_SOURCE, {f"i{n}": "v" for n in range(65)}, "65 inputs given; at most 64 are accepted"),
        (LIMIT_SOURCE, {"a": "v" * (MAX_WORKFLOW_INPUT_BYTES + 1)}, "input a is 4097 bytes; at most 4096 are accepted"),
        (LIMIT_SOURCE, {"a": "v", "b": "w"}, "inputs not declared in the workflow's front matter: b"),
        (LIMIT_SOURCE, {}, "declared inputs not given: a"),
        (LIMIT_SOURCE, {"a": 7}, "input a must be a string"),
        (LIMIT_SOURCE + "action: type {b} into \"X\" (textbox)\n", {"a": "v"},
         "line 5: {b} is not a declared input (inputs: [a])"),
    ],
    ids=["steps", "source", "declared", "given", "value", "undeclared", "missing", "not-a-string", "reference"],
)
async def test_every_limit_is_an_argument_error(
    agent: Client, source: str, inputs: dict[str, Any], message: str
) -> None:
    refused = await plain(agent, "browser", "workflow_run", source=source, inputs=inputs)
    assert refused == f"browser.workflow_run: {message}"


async def test_a_run_needs_an_ai_tab(agent: Client) -> None:
    result = await call(agent, "browser", "workflow_run", source="---\nsite: s\n---\n")
    assert result.is_error and result.structured_content["error"] == "NO_BROWSER_TAB"  # type: ignore[index]
