"""The browser's services through the callbacks the app gives them, without Chromium: a run's prompts,
refusals, clock and registry of completed writes; a recording and a saved session the person refuses; the
screencast's flow control; the person's input and navigation."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from vmark.browser import run_driver
from vmark.browser.asks import Ask
from vmark.browser.person_input import replay
from vmark.browser.recorder import is_recording
from vmark.browser.recording import Recordings
from vmark.browser.runs import Runs
from vmark.browser.saved_sessions import SavedSessions
from vmark.browser.screencast import SCREENCAST, Screencast
from vmark.browser.tabs import UnknownTab
from vmark.browser.vault import VAULT_FILE
from vmark.browser.views import BrowserViews, PanelHooks
from vmark.browser.workflow import bind, parse
from vmark.protocol.errors import ArgumentError, BrowserError
from vmark.protocol.limits import MAX_TIMEOUT_MS
from vmark.storage.atomic import write_text_atomic

SITE = "http://127.0.0.1:9"
#: line 4: the navigate step; line 5: a goal, which pauses the run for the agent
FLOW = f"---\nsite: s\n---\naction: navigate to {SITE}/a\ngoal: check the page\n"
SUBJECT = f"navigate on {SITE}"
SECRET = "q-secret-7a1f"


class Page:
    def __init__(self, url: str = f"{SITE}/form") -> None:
        self.url = url


class Agent:
    def __init__(self, conn_id: str = "conn-a", requester: str = "agent-a") -> None:
        self.id = conn_id
        self.requester = requester


AGENT = Agent()


def a_tab(tab_id: str = "btab-1") -> Any:
    return SimpleNamespace(id=tab_id, page=Page(), url=f"{SITE}/form", title="Form")


class Tabs:
    def __init__(self, *tabs: Any) -> None:
        self.open = {tab.id: tab for tab in tabs}

    def get(self, tab_id: str) -> Any:
        if tab_id not in self.open:
            raise UnknownTab(tab_id)
        return self.open[tab_id]


class Prompts:
    """The person's prompts: the test raises and answers them."""

    def __init__(self) -> None:
        self.up: dict[str, str] = {}
        self.answers: dict[str, asyncio.Event] = {}
        self.withdrawn: list[str] = []

    def raise_(self, subject: str, prompt_id: str) -> None:
        self.up[subject] = prompt_id
        self.answers[prompt_id] = asyncio.Event()

    def answer(self, prompt_id: str) -> None:
        self.up = {s: p for s, p in self.up.items() if p != prompt_id}
        self.answers[prompt_id].set()

    def pending(self, asker: Any, subject: str) -> str | None:
        return self.up.get(subject) if asker is AGENT else None

    def is_pending(self, prompt_id: str) -> bool:
        return prompt_id in self.up.values()

    async def answered(self, prompt_id: str, seconds: float) -> None:
        await self.answers[prompt_id].wait()

    def withdraw(self, prompt_id: str) -> None:
        self.withdrawn.append(prompt_id)
        self.up = {s: p for s, p in self.up.items() if p != prompt_id}


def asking_forever(prompts: Prompts) -> Callable[..., Awaitable[dict[str, Any]]]:
    """A navigate that raises the person's prompt, which they never answer."""

    async def navigate(asker: Any, tab: Any, url: str, timeout_ms: int) -> dict[str, Any]:
        prompts.raise_(SUBJECT, "apr-1")
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    return navigate


async def never(*_: Any) -> None:
    raise AssertionError("not called")


def runs_with(navigate: Callable[..., Awaitable[dict[str, Any]]], *tabs: Any, **kwargs: Any) -> Runs:
    return Runs(Tabs(*tabs), authorize=never, navigate=navigate, prompts=kwargs.pop("prompts", Prompts()), **kwargs)


def start(runs: Runs, tab: Any, source: str = FLOW, inputs: dict[str, str] | None = None, **kwargs: Any) -> str:
    workflow = parse(source)
    given = inputs or {}
    started = runs.start(
        AGENT, tab, workflow, bind(workflow, given), given, kwargs.get("allow_repeat", False), kwargs.get("resume")
    )
    return str(started["runId"])


async def until(runs: Runs, run_id: str, done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    for _ in range(500):
        status = runs.status(run_id, AGENT.requester)
        if done(status):
            return status
        await asyncio.sleep(0.01)
    raise AssertionError(f"the run never got there: {status}")


async def settled(runs: Runs, run_id: str) -> dict[str, Any]:
    return await until(runs, run_id, lambda status: status["status"] != "running")


# --- runs ----------------------------------------------------------------------------------------------
async def test_a_step_the_person_refuses_fails_the_run_and_is_not_remembered() -> None:
    calls: list[tuple[str, str, str, int]] = []

    async def refused(asker: Any, tab: Any, url: str, timeout_ms: int) -> dict[str, Any]:
        calls.append((asker.requester, tab.id, url, timeout_ms))
        raise BrowserError("NOT_GRANTED", f"The user did not allow {SITE} in this tab", tabId=tab.id)

    tab = a_tab()
    runs = runs_with(refused, tab)
    run_id = start(runs, tab)
    reason = f"NOT_GRANTED: The user did not allow {SITE} in this tab"
    assert await settled(runs, run_id) == {
        "runId": run_id,
        "status": "failed",
        "completedSteps": 0,
        "skippedSteps": 0,
        "stepCount": 2,
        "firstStep": 0,
        "reasonCode": "not-granted",
        "reason": f"step 0 (line 4): {reason}",
        "stepResults": [
            {"index": 0, "status": "failed", "attempts": 1, "reason": reason},
            {"index": 1, "status": "pending", "attempts": 0},
        ],
    }
    again = start(runs, tab)  # a refused write is not a completed one: the same job asks again
    assert (await settled(runs, again))["stepResults"][0] == {
        "index": 0,
        "status": "failed",
        "attempts": 1,
        "reason": reason,
    }
    assert calls == [("agent-a", "btab-1", f"{SITE}/a", MAX_TIMEOUT_MS)] * 2  # the bound URL, the longest wait


async def test_a_refusal_that_quotes_an_input_value_is_reported_without_it() -> None:
    async def refused(asker: Any, tab: Any, url: str, timeout_ms: int) -> dict[str, Any]:
        raise BrowserError("TARGET_REFUSED", f"{url} is not this machine")

    tab = a_tab()
    runs = runs_with(refused, tab)
    source = f"---\nsite: s\ninputs: [q]\n---\naction: navigate to {SITE}/find/{{q}}\n"
    status = await settled(runs, start(runs, tab, source, {"q": SECRET}))
    assert status["reason"] == f"step 0 (line 5): TARGET_REFUSED: {SITE}/find/{{q}} is not this machine"
    assert SECRET not in repr(status)


async def test_a_prompt_is_reported_and_the_persons_time_does_not_count() -> None:
    now = [0.0]
    prompts = Prompts()
    answered = asyncio.Event()

    async def asks_the_person_first(asker: Any, tab: Any, url: str, timeout_ms: int) -> dict[str, Any]:
        if url.endswith("/a"):
            prompts.raise_(SUBJECT, "apr-1")
            await answered.wait()
        return {"status": "loaded"}

    tab = a_tab()
    runs = runs_with(asks_the_person_first, tab, prompts=prompts, clock=lambda: now[0])
    source = f"---\nsite: s\n---\naction: navigate to {SITE}/a\naction: navigate to {SITE}/b\ngoal: check it\n"
    run_id = start(runs, tab, source)
    status = await until(runs, run_id, lambda status: "pendingApproval" in status)
    assert status["pendingApproval"] == {"approvalId": "apr-1", "step": 0, "subject": SUBJECT}
    now[0] += 10 * run_driver.TIME_BUDGET_SECONDS  # the person takes their time
    prompts.answer("apr-1")
    answered.set()
    status = await settled(runs, run_id)  # the next step still had all its running time
    assert (status["status"], status["pausedAt"], status["completedSteps"]) == ("paused", 2, 2)
    assert "pendingApproval" not in status and prompts.withdrawn == []


async def test_a_run_out_of_running_time_does_not_act() -> None:
    now = [0.0]
    tab = a_tab()
    runs = runs_with(never, tab, clock=lambda: now[0])
    run_id = start(runs, tab)
    now[0] = run_driver.TIME_BUDGET_SECONDS  # used up before the first step runs
    status = await settled(runs, run_id)
    budget = f"{run_driver.TIME_BUDGET_SECONDS:g}"
    assert (status["status"], status["reasonCode"]) == ("failed", "time-budget")
    assert status["reason"] == f"the run used up its {budget} s of running time at step 0 (line 4)"
    assert status["stepResults"][0] == {"index": 0, "status": "failed", "attempts": 0, "reason": "no running time left"}


@pytest.mark.parametrize(
    ("stop", "code", "reason"),
    [
        ("cancel", "cancelled", "cancelled by the agent"),
        ("person", "taken-over", "the user took over the browser"),
        ("closed", "tab-closed", "the tab was closed"),
    ],
)
async def test_a_stopped_run_withdraws_its_prompt(stop: str, code: str, reason: str) -> None:
    prompts = Prompts()

    tab = a_tab()
    runs = runs_with(asking_forever(prompts), tab, prompts=prompts)
    run_id = start(runs, tab)
    await until(runs, run_id, lambda status: "pendingApproval" in status)
    if stop == "cancel":
        assert await runs.cancel(run_id, AGENT.requester) == {"runId": run_id, "status": "cancelled"}
    else:
        (runs.person_took_over if stop == "person" else runs.tab_closed)(tab.id)
    status = await settled(runs, run_id)
    assert (status["status"], status["reasonCode"], status["reason"]) == ("cancelled", code, reason)
    assert status["stepResults"][0]["status"] == "cancelled"
    assert prompts.withdrawn == ["apr-1"] and prompts.up == {}
    again = await runs.cancel(run_id, AGENT.requester)
    assert again == {"runId": run_id, "status": "cancelled", "alreadyTerminal": True}


async def test_a_completed_write_is_skipped_by_the_same_job_unless_repeated() -> None:
    opened: list[str] = []

    async def loads(asker: Any, tab: Any, url: str, timeout_ms: int) -> dict[str, Any]:
        opened.append(url)
        return {"status": "loaded"}

    tab = a_tab()
    runs = runs_with(loads, tab)
    source = f"---\nsite: s\ninputs: [q]\n---\naction: navigate to {SITE}/{{q}}\n"
    first = await settled(runs, start(runs, tab, source, {"q": "a"}))
    same = await settled(runs, start(runs, tab, source, {"q": "a"}))
    repeated = await settled(runs, start(runs, tab, source, {"q": "a"}, allow_repeat=True))
    other = await settled(runs, start(runs, tab, source, {"q": "b"}))
    assert [s["stepResults"][0]["status"] for s in (first, same, repeated, other)] == [
        "completed",
        "skipped",
        "completed",
        "completed",
    ]
    assert (same["status"], same["skippedSteps"]) == ("completed", 1)
    assert opened == [f"{SITE}/a", f"{SITE}/a", f"{SITE}/b"]


async def test_a_closed_tab_fails_the_step_and_another_agents_run_does_not_exist() -> None:
    tab = a_tab()
    runs = runs_with(never)  # no tab open: it closed before the step ran
    run_id = start(runs, tab)
    status = await settled(runs, run_id)
    assert (status["reasonCode"], status["reason"]) == ("tab-closed", "step 0 (line 4): the tab was closed")
    with pytest.raises(BrowserError) as refused:
        runs.status(run_id, "agent-b")
    assert (refused.value.code, refused.value.extra) == ("RUN_NOT_FOUND", {"runId": run_id})


# --- recordings and saved sessions -------------------------------------------------------------------------
class Person:
    """``authorize``: records each ask; says no, or runs ``meanwhile`` (the page moves) and says yes."""

    def __init__(self, allow: bool = False, meanwhile: Callable[[], None] | None = None) -> None:
        self.allow = allow
        self.meanwhile = meanwhile
        self.asked: list[tuple[str, str, Ask]] = []

    async def __call__(self, asker: Any, tab: Any, ask: Ask) -> None:
        self.asked.append((asker.requester, tab.id, ask))
        if self.meanwhile is not None:
            self.meanwhile()
        if not self.allow:
            raise BrowserError("NOT_GRANTED", f"The user denied {ask.describe(SITE)}", operation=ask.operation)


async def test_a_recording_the_person_refuses_never_starts() -> None:
    person, tab = Person(), a_tab()
    with pytest.raises(BrowserError) as refused:
        await Recordings(person).start(AGENT, tab, "shop")
    assert (refused.value.code, refused.value.message) == ("NOT_GRANTED", f"The user denied record on {SITE}")
    assert person.asked == [("agent-a", "btab-1", Ask("record"))]
    assert not is_recording(tab.page)
    with pytest.raises(ArgumentError, match="argument 'site' must be one line of 1-200 printable characters"):
        await Recordings(person).start(AGENT, tab, "a\nb")
    assert len(person.asked) == 1  # a bad argument is refused before the person is asked


async def test_a_session_the_person_refuses_is_not_saved(tmp_path: Path) -> None:
    person, tab = Person(), a_tab()
    sessions = SavedSessions(tmp_path, write_text_atomic, person)
    with pytest.raises(BrowserError) as refused:
        await sessions.save(AGENT, tab, "mail.work")
    assert refused.value.code == "NOT_GRANTED"
    assert person.asked == [("agent-a", "btab-1", Ask("session", value="save:mail.work"))]
    assert not (tmp_path / VAULT_FILE).exists()


async def test_a_page_that_left_its_origin_while_the_person_was_asked_is_not_saved(tmp_path: Path) -> None:
    tab = a_tab()
    person = Person(allow=True, meanwhile=lambda: setattr(tab.page, "url", "http://localhost:9/elsewhere"))
    with pytest.raises(BrowserError) as refused:
        await SavedSessions(tmp_path, write_text_atomic, person).save(AGENT, tab, "mail.work")
    assert (refused.value.code, refused.value.extra) == ("SESSION_ORIGIN_MISMATCH", {"origin": "http://localhost:9"})
    assert str(refused.value.message) == f"the page left {SITE} while the user was asked; nothing was saved"
    assert not (tmp_path / VAULT_FILE).exists()


async def test_a_session_is_refused_before_the_person_is_asked(tmp_path: Path) -> None:
    person = Person(allow=True)
    sessions = SavedSessions(tmp_path, write_text_atomic, person)
    with pytest.raises(BrowserError) as missing:
        await sessions.load(AGENT, a_tab(), "never.saved")
    assert (missing.value.code, missing.value.extra) == ("SESSION_NOT_FOUND", {"handle": "never.saved"})
    with pytest.raises(ArgumentError, match="argument 'handle' must be 1-128 characters"):
        await sessions.save(AGENT, a_tab(), "../up")
    blank = SimpleNamespace(id="btab-2", page=Page("about:blank"))
    with pytest.raises(ArgumentError, match="a session is saved from an http\\(s\\) page"):
        await sessions.save(AGENT, blank, "mail.work")
    assert person.asked == []


# --- the person's side -------------------------------------------------------------------------------------
class CDP:
    def __init__(self) -> None:
        self.handlers: dict[str, Callable[[dict[str, Any]], None]] = {}
        self.sent: list[tuple[str, Any]] = []

    def on(self, event: str, handler: Callable[[dict[str, Any]], None]) -> None:
        self.handlers[event] = handler

    async def send(self, method: str, params: Any = None) -> None:
        self.sent.append((method, params))

    async def detach(self) -> None:
        self.sent.append(("detach", None))


class Viewer:
    def __init__(self, fails: bool = False) -> None:
        self.id = "conn-p"
        self.frames: list[dict[str, Any]] = []
        self.fails = fails

    async def send(self, message: dict[str, Any]) -> None:
        if self.fails:
            raise ConnectionError("gone")
        self.frames.append(message["payload"])


class Spawned:
    def __init__(self) -> None:
        self.tasks: list[asyncio.Future[Any]] = []

    def __call__(self, work: Coroutine[Any, Any, Any]) -> None:
        self.tasks.append(asyncio.ensure_future(work))

    async def settle(self) -> None:
        while self.tasks:
            done, self.tasks = self.tasks, []
            await asyncio.gather(*done)


def frame(number: int) -> dict[str, Any]:
    return {"sessionId": number, "data": f"jpeg-{number}", "metadata": {"deviceWidth": 1280, "deviceHeight": 720}}


async def test_a_view_has_one_frame_in_flight_and_the_newest_replaces_a_waiting_one() -> None:
    cdp, viewer, spawned, ended = CDP(), Viewer(), Spawned(), []
    tab = SimpleNamespace(id="btab-1", url=f"{SITE}/form", page=SimpleNamespace(is_closed=lambda: False))
    cast = Screencast(viewer, tab, cdp, attached=lambda v: True, spawn=spawned, end=lambda: ended.append(1))
    await cast.start()
    for number in (1, 2, 3):
        cdp.handlers["Page.screencastFrame"](frame(number))
    await spawned.settle()
    assert [f["data"] for f in viewer.frames] == ["jpeg-1"]  # 2 and 3 wait for the viewer's ack
    assert cdp.sent == [("Page.startScreencast", SCREENCAST), ("Page.screencastFrameAck", {"sessionId": 2})]
    cast.drawn()
    await spawned.settle()
    assert [f["data"] for f in viewer.frames] == ["jpeg-1", "jpeg-3"]
    assert viewer.frames[1] == {"tabId": "btab-1", "data": "jpeg-3", "width": 1280.0, "height": 720.0, "url": tab.url}
    assert cdp.sent[-1] == ("Page.screencastFrameAck", {"sessionId": 1})
    assert cast.viewport == (1280.0, 720.0)
    cast.stop()
    cdp.handlers["Page.screencastFrame"](frame(4))  # a frame after the stop goes nowhere
    await spawned.settle()
    assert cdp.sent[-2:] == [("Page.stopScreencast", None), ("detach", None)]
    assert len(viewer.frames) == 2 and ended == []


async def test_a_view_whose_viewer_is_gone_ends_itself() -> None:
    cdp, spawned, ended = CDP(), Spawned(), []
    tab = SimpleNamespace(id="btab-1", url=f"{SITE}/form", page=SimpleNamespace(is_closed=lambda: False))
    cast = Screencast(Viewer(fails=True), tab, cdp, attached=lambda v: True, spawn=spawned, end=lambda: ended.append(1))
    await cast.start()
    cdp.handlers["Page.screencastFrame"](frame(1))
    await spawned.settle()
    assert ended == [1]
    cast.stop()


class Keyboard:
    def __init__(self, log: list[tuple[Any, ...]]) -> None:
        self.log = log

    async def press(self, chord: str) -> None:
        self.log.append(("press", chord))

    async def insert_text(self, text: str) -> None:
        self.log.append(("insert_text", text))

    async def type(self, text: str) -> None:
        self.log.append(("type", text))


class Mouse:
    def __init__(self, log: list[tuple[Any, ...]]) -> None:
        self.log = log

    async def click(self, x: float, y: float, button: str, click_count: int) -> None:
        self.log.append(("click", x, y, button, click_count))


def input_page() -> Any:
    log: list[tuple[Any, ...]] = []
    viewport = {"width": 800, "height": 600}
    return SimpleNamespace(log=log, keyboard=Keyboard(log), mouse=Mouse(log), viewport_size=viewport)


async def test_the_persons_input_is_scaled_to_the_viewport_and_checked_before_it_reaches_the_page() -> None:
    page = input_page()
    click = {"kind": "mouse", "x": 320, "y": 200, "width": 640, "height": 400, "clickCount": 2}
    await replay(page, click, lambda: (1280.0, 800.0))  # the view's latest frame
    await replay(page, {**click, "button": "right", "clickCount": 1}, lambda: None)  # no frame yet: the page's
    await replay(page, {"kind": "key", "key": "a", "modifiers": {"shift": True, "ctrl": True}}, lambda: None)
    await replay(page, {"kind": "text", "text": "héllo", "paste": True}, lambda: None)
    await replay(page, {"kind": "text", "text": "hi"}, lambda: None)
    assert page.log == [
        ("click", 640.0, 400.0, "left", 2),
        ("click", 400.0, 300.0, "right", 1),
        ("press", "Control+Shift+a"),
        ("insert_text", "héllo"),
        ("type", "hi"),
    ]
    refused = [
        ({"kind": "scroll"}, "kind must be 'mouse', 'key', 'wheel' or 'text'"),
        ({**click, "x": 641}, "argument 'x' must be a number from 0 to 640"),
        ({**click, "clickCount": 4}, "clickCount must be an integer from 1 to 3"),
        ({"kind": "key", "key": "Enter Enter"}, "argument 'key' must be a key name"),
        ({"kind": "text", "text": ""}, "argument 'text' must be a string of 1 to 4096 characters"),
    ]
    for args, message in refused:
        with pytest.raises(ArgumentError, match=message):
            await replay(page, args, lambda: None)
    assert len(page.log) == 5  # nothing refused reached the page


def views_with(runs: Runs, tab: Any, require_enabled: Callable[[], None] = lambda: None) -> BrowserViews:
    """The Browser panel's service on ``tab``; nothing opens, closes or notifies in these tests."""
    hooks = PanelHooks(require_enabled, never, never, lambda tab_id: None, lambda viewer: True, never, Spawned())
    return BrowserViews(Tabs(tab), runs, hooks)


async def test_the_persons_input_stops_the_run_on_the_tab_even_when_it_is_refused() -> None:
    prompts = Prompts()

    tab = a_tab()
    runs = runs_with(asking_forever(prompts), tab, prompts=prompts)
    views = views_with(runs, tab)
    run_id = start(runs, tab)
    await until(runs, run_id, lambda status: "pendingApproval" in status)
    with pytest.raises(ArgumentError, match="kind must be"):
        await views.input(Viewer(), tab, {"kind": "nope"})
    status = await settled(runs, run_id)
    assert (status["status"], status["reasonCode"]) == ("cancelled", "taken-over")
    assert prompts.withdrawn == ["apr-1"]


async def test_the_panel_refuses_while_the_browser_is_off() -> None:
    def off() -> None:
        raise BrowserError("BROWSER_DISABLED", "The embedded browser is turned off (setting browser.enabled)")

    views = views_with(runs_with(never), a_tab(), require_enabled=off)
    with pytest.raises(BrowserError) as refused:
        views.tab("btab-1")
    assert refused.value.code == "BROWSER_DISABLED"
    with pytest.raises(BrowserError) as refused_open:
        await views.open_human("example.org")
    assert refused_open.value.code == "BROWSER_DISABLED"
