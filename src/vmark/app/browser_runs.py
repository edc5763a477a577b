"""Browser workflow runs: ``workflow_run`` starts one, ``workflow_status`` watches it, ``workflow_cancel``
stops it.

A run executes asynchronously, one at a time per tab. click / type / navigate / extract run here, each
authorized exactly as a hand-made ``act`` / ``navigate`` would be (the same ``Ask``, the same prompt):
a workflow is never a way around the person's prompts. A step waiting for the person reports
``pendingApproval`` and keeps waiting past the prompt's own 20 s (the same call finds the same prompt
again) until the person answers or the run is stopped; that time does not count towards the run's
budget. ``goal`` / ``confirm`` / ``api`` steps and prose pause the run for the agent, who completes the
step and starts a new run with ``resumeRunId``: it carries the completed steps, treats the paused step
as done and supersedes the paused run.

The registry of completed writes: a write step that succeeded is remembered under its job (a keyed
hash of the source and the inputs), and a later run of the same job skips it (``skipped``) unless
``allowRepeat``. Input values are used to act and nowhere else: every reason a run reports has them
replaced by their ``{name}``, and they are never logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, Request

from ..browser.act import act as page_act
from ..browser.isolated import EvalError
from ..browser.navigation import MAX_TIMEOUT_MS
from ..browser.snapshot import read_snapshot
from ..browser.tabs import BrowserTab, UnknownTab
from ..browser.urlpolicy import origin_of
from ..browser.workflow import APP_KINDS, Step, Workflow
from ..core.errors import ArgumentError, BrowserError
from ..core.ids import new_id
from ..core.limits import (
    APPROVAL_TTL_SECONDS,
    MAX_WORKFLOW_JOBS_KEPT,
    MAX_WORKFLOW_RUNS_KEPT,
    WORKFLOW_EXTRACT_MAX_CHARS,
    WORKFLOW_STEP_READY_SECONDS,
    WORKFLOW_TIME_BUDGET_SECONDS,
)
from .browser import Ask, ask_for
from .handlers.browser import reader_mode

if TYPE_CHECKING:
    from .approvals import Approval
    from .connection import Connection
    from .service import App, RequestContext

log = logging.getLogger(__name__)

#: a run's running time (module constants, so a test can shorten them)
TIME_BUDGET_SECONDS = WORKFLOW_TIME_BUDGET_SECONDS
READY_SECONDS = WORKFLOW_STEP_READY_SECONDS
READY_POLL_SECONDS = 0.1
#: how soon after a click a navigation it started has begun (a form sent by the click)
SETTLE_SECONDS = 0.25
#: how often a step that may prompt looks for its prompt (and at the time budget)
WATCH_SECONDS = 0.05
#: the longest step text the start answer repeats
STEP_TEXT_SHOWN = 200

RunStatus = Literal["running", "paused", "completed", "failed", "cancelled", "superseded"]
StepStatus = Literal["pending", "running", "completed", "skipped", "paused", "failed", "cancelled"]
TERMINAL: frozenset[RunStatus] = frozenset({"completed", "failed", "cancelled", "superseded"})
_T = TypeVar("_T")


class _Clock:
    """A run's running time: stopped while the run waits for the person."""

    def __init__(self) -> None:
        self._used = 0.0
        self._since: float | None = time.monotonic()

    def used(self) -> float:
        return self._used + (time.monotonic() - self._since if self._since is not None else 0.0)

    def stop(self) -> None:
        if self._since is not None:
            self._used += time.monotonic() - self._since
            self._since = None

    def go(self) -> None:
        if self._since is None:
            self._since = time.monotonic()


class _OutOfTime(Exception):
    """The run used up its running time."""


class _StepFailed(Exception):
    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass
class StepResult:
    index: int
    status: StepStatus = "pending"
    attempts: int = 0
    reason: str | None = None
    data: dict[str, Any] | None = None

    def describe(self) -> dict[str, Any]:
        answer: dict[str, Any] = {"index": self.index, "status": self.status, "attempts": self.attempts}
        if self.reason is not None:
            answer["reason"] = self.reason
        if self.data is not None:
            answer["data"] = self.data
        return answer


@dataclass
class _Waiting:
    """A prompt the run waits on; ``subject`` as the status shows it (no input value in it)."""

    approval: Approval
    step: int
    subject: str


@dataclass(eq=False)
class Run:
    id: str
    tab_id: str
    requester: str
    connection: Connection
    workflow: Workflow
    #: the bound steps: they hold input values, so they are used to act and never shown
    steps: tuple[Step, ...]
    values: dict[str, str]
    job: str
    allow_repeat: bool
    results: list[StepResult]
    first_step: int = 0
    resumed_from: str | None = None
    status: RunStatus = "running"
    paused_at: int | None = None
    reason_code: str | None = None
    reason: str | None = None
    #: the subject of the prompt the current step may raise, and the prompt once it is up
    asking: str | None = None
    waiting: _Waiting | None = None
    task: asyncio.Task[None] | None = None
    clock: _Clock = field(default_factory=_Clock)

    def scrub(self, text: str) -> str:
        """``text`` with every input value replaced by its ``{name}`` (longest values first)."""
        for name, value in sorted(self.values.items(), key=lambda item: -len(item[1])):
            if value:
                text = text.replace(value, "{" + name + "}")
        return text


class Runs:
    """Every run of this app session (the finished ones bounded), and the registry of completed writes."""

    def __init__(self, app: App) -> None:
        self.app = app
        self._runs: dict[str, Run] = {}
        #: job -> indexes of its write steps that succeeded
        self._done: dict[str, set[int]] = {}
        #: keys the job hashes, so a hash of short inputs cannot be looked up in a table
        self._key = secrets.token_bytes(32)

    # --- the tool's actions ---------------------------------------------------------------------
    def start(
        self,
        ctx: RequestContext,
        tab: BrowserTab,
        workflow: Workflow,
        steps: tuple[Step, ...],
        inputs: Mapping[str, str],
        allow_repeat: bool,
        resume_run_id: str | None,
    ) -> dict[str, Any]:
        """Start a run on ``tab`` and answer at once: ``{runId, steps, firstStep}``."""
        conn = ctx.connection
        active = next((r for r in self._runs.values() if r.tab_id == tab.id and r.status == "running"), None)
        if active is not None:
            raise BrowserError(
                "RUN_ACTIVE", f"{active.id} is running on {tab.id}: wait for it or workflow_cancel it",
                runId=active.id, tabId=tab.id,
            )
        run = Run(
            id=new_id("run"),
            tab_id=tab.id,
            requester=conn.requester,
            connection=conn,
            workflow=workflow,
            steps=steps,
            values=dict(inputs),
            job=self._job(workflow.source, inputs),
            allow_repeat=allow_repeat,
            results=[StepResult(step.index) for step in steps],
        )
        if resume_run_id is not None:
            self._resume(run, self._get(resume_run_id, conn.requester))
        self._keep(run)
        run.task = asyncio.create_task(self._drive(run), name=f"workflow {run.id}")
        run.task.add_done_callback(_retrieve)
        log.info("workflow %s started on %s (%d steps, from step %d)", run.id, tab.id, len(steps), run.first_step)
        return {
            "runId": run.id,
            "steps": [
                {"index": s.index, "line": s.line, "kind": s.kind, "text": s.text[:STEP_TEXT_SHOWN]}
                for s in workflow.steps
            ],
            "firstStep": run.first_step,
        }

    def status(self, run_id: str, requester: str, tab_id: str | None = None) -> dict[str, Any]:
        run = self._get(run_id, requester, tab_id)
        answer: dict[str, Any] = {
            "runId": run.id,
            "status": run.status,
            "completedSteps": sum(r.status == "completed" for r in run.results),
            "skippedSteps": sum(r.status == "skipped" for r in run.results),
            "stepCount": len(run.results),
            "firstStep": run.first_step,
        }
        if run.status == "paused" and run.paused_at is not None:
            answer["pausedAt"] = run.paused_at
        waiting = run.waiting
        if waiting is not None and waiting.approval.state == "pending":
            answer["pendingApproval"] = {
                "approvalId": waiting.approval.id,
                "step": waiting.step,
                "subject": waiting.subject,
            }
        if run.reason_code is not None:
            answer["reasonCode"] = run.reason_code
        if run.reason is not None:
            answer["reason"] = run.reason
        if run.resumed_from is not None:
            answer["resumedFrom"] = run.resumed_from
        answer["stepResults"] = [r.describe() for r in run.results]
        return answer

    async def cancel(self, run_id: str, requester: str, tab_id: str | None = None) -> dict[str, Any]:
        """Stop a run (never asks anyone); a finished run stays as it is (``alreadyTerminal``)."""
        run = self._get(run_id, requester, tab_id)
        if run.status in TERMINAL:
            return {"runId": run.id, "status": run.status, "alreadyTerminal": True}
        self._stop(run, "cancelled", "cancelled", "cancelled by the agent")
        if run.task is not None:
            await asyncio.gather(run.task, return_exceptions=True)  # nothing of it runs on after the answer
        return {"runId": run.id, "status": run.status}

    def person_took_over(self, tab_id: str) -> None:
        """The person used the tab (its page or its chrome bar): the run on it stops at once."""
        self._stop_tab(tab_id, "taken-over", "the user took over the browser")

    def tab_closed(self, tab_id: str) -> None:
        """The tab is gone: so is the run on it (its prompts too)."""
        self._stop_tab(tab_id, "tab-closed", "the tab was closed")

    def _stop_tab(self, tab_id: str, code: str, reason: str) -> None:
        for run in list(self._runs.values()):
            if run.tab_id == tab_id and run.status == "running":
                self._stop(run, "cancelled", code, reason)

    async def aclose(self) -> None:
        """The app stops: every running run is cancelled."""
        running = [run for run in self._runs.values() if run.status == "running"]
        for run in running:
            self._stop(run, "cancelled", "cancelled", "VMark stopped")
        await asyncio.gather(*(run.task for run in running if run.task is not None), return_exceptions=True)

    # --- bookkeeping ------------------------------------------------------------------------------
    def _get(self, run_id: str, requester: str, tab_id: str | None = None) -> Run:
        run = self._runs.get(run_id)
        # another agent's run is not theirs to see or stop: it does not exist for them
        if run is None or run.requester != requester or (tab_id is not None and run.tab_id != tab_id):
            where = f" on {tab_id}" if tab_id is not None else ""
            raise BrowserError("RUN_NOT_FOUND", f"No workflow run {run_id[:80]!r}{where}", runId=run_id)
        return run

    def _job(self, source: str, inputs: Mapping[str, str]) -> str:
        payload = json.dumps([source, sorted(inputs.items())], ensure_ascii=False).encode("utf-8", "surrogatepass")
        return hmac.new(self._key, payload, hashlib.sha256).hexdigest()

    def _keep(self, run: Run) -> None:
        self._runs[run.id] = run
        finished = [r.id for r in self._runs.values() if r.status in TERMINAL]
        for old in finished[: max(0, len(self._runs) - MAX_WORKFLOW_RUNS_KEPT)]:
            del self._runs[old]

    def _resume(self, run: Run, paused: Run) -> None:
        """``run`` takes over ``paused``: its completed steps, and its paused step as done."""
        if paused.status != "paused" or paused.paused_at is None:
            raise ArgumentError(f"resumeRunId: {paused.id} is {paused.status}, not paused; only a paused run resumes")
        if paused.tab_id != run.tab_id:
            raise ArgumentError(f"resumeRunId: {paused.id} ran on {paused.tab_id}, not on {run.tab_id}")
        if paused.workflow.source != run.workflow.source:
            raise ArgumentError(f"resumeRunId: {paused.id} ran another source; resume it with the same source")
        if paused.job != run.job:
            raise ArgumentError(f"resumeRunId: {paused.id} ran with other inputs; resume it with the same inputs")
        at = paused.paused_at
        run.results[:at] = [
            StepResult(r.index, r.status, r.attempts, r.reason, r.data) for r in paused.results[:at]
        ]
        run.results[at] = StepResult(at, "completed", 0, f"done outside the run (paused in {paused.id})")
        run.first_step = at + 1
        run.resumed_from = paused.id
        paused.status = "superseded"
        paused.reason_code = "resumed"
        paused.reason = f"resumed by {run.id}"

    def _stop(self, run: Run, status: RunStatus, code: str, reason: str) -> None:
        """End a running or paused run now: its prompts are withdrawn, its task cancelled."""
        if run.status in TERMINAL:
            return
        run.status, run.reason_code, run.reason = status, code, reason
        for result in run.results:
            if result.status in ("running", "paused"):
                result.status = "cancelled"
        self._withdraw(run)
        run.clock.stop()
        if run.task is not None and not run.task.done():
            run.task.cancel()
        log.info("workflow %s %s (%s)", run.id, status, code)

    def _withdraw(self, run: Run) -> None:
        """The run's prompts vanish from the person's list: nobody waits for them any more."""
        approvals = self.app.approvals
        found = [run.waiting.approval] if run.waiting is not None else []
        if run.asking is not None:
            asked = approvals.find("browser", run.connection.id, run.asking)
            found += [asked] if asked is not None else []
        for approval in found:
            if approval.state == "pending":
                approvals.consume(approval)
        run.waiting = None

    def _finish(self, run: Run, status: RunStatus, code: str | None = None, reason: str | None = None) -> None:
        run.status, run.reason_code, run.reason = status, code, reason
        run.clock.stop()
        log.info("workflow %s %s%s", run.id, status, f" ({code})" if code else "")

    # --- running ------------------------------------------------------------------------------------
    async def _drive(self, run: Run) -> None:
        for step in run.steps[run.first_step :]:
            where = f"step {step.index} (line {step.line})"
            try:
                if not await self._do(run, step):
                    return
            except _OutOfTime:
                used_up = f"the run used up its {TIME_BUDGET_SECONDS:g} s of running time at {where}"
                self._finish(run, "failed", "time-budget", used_up)
                return
            except _StepFailed as exc:
                self._finish(run, "failed", exc.code, f"{where}: {exc.reason}")
                return
            except Exception as exc:  # a bug must not leave the run "running" for ever
                log.error("workflow %s failed unexpectedly: %s", run.id, type(exc).__name__)
                self._finish(run, "failed", "internal", f"{where}: unexpected error {type(exc).__name__}")
                return
        self._finish(run, "completed")

    async def _do(self, run: Run, step: Step) -> bool:
        """Perform one step; False when the run paused at it."""
        result = run.results[step.index]
        if step.kind not in APP_KINDS:
            result.status = "paused"
            run.status, run.paused_at = "paused", step.index
            run.clock.stop()
            log.info("workflow %s paused at step %d (%s)", run.id, step.index, step.kind)
            return False
        if step.write and not run.allow_repeat and step.index in self._done.get(run.job, ()):
            result.status = "skipped"
            return True
        if run.clock.used() >= TIME_BUDGET_SECONDS:
            result.status, result.reason = "failed", "no running time left"
            raise _OutOfTime
        result.status = "running"
        result.attempts += 1
        try:
            result.data = await self._perform(run, step)
        except _OutOfTime:
            result.status, result.reason = "failed", "the run's running time ran out"
            raise
        except BrowserError as exc:
            reason = run.scrub(f"{exc.code}: {exc.message}")
            result.status, result.reason = "failed", reason
            raise _StepFailed(exc.code.lower().replace("_", "-"), reason) from None
        except _StepFailed as exc:
            result.status, result.reason = "failed", exc.reason
            raise
        except (PlaywrightError, EvalError) as exc:
            gone = run.tab_id not in {t.id for t in self.app.browser.tabs.tabs()}
            code = "tab-closed" if gone else "page-error"
            reason = "the tab was closed" if gone else run.scrub(f"{type(exc).__name__}: {exc}")
            result.status, result.reason = "failed", reason
            raise _StepFailed(code, reason) from None
        result.status = "completed"
        if step.write:
            self._remember(run.job, step.index)
        return True

    def _remember(self, job: str, index: int) -> None:
        self._done.setdefault(job, set()).add(index)
        while len(self._done) > MAX_WORKFLOW_JOBS_KEPT:
            del self._done[next(iter(self._done))]

    async def _perform(self, run: Run, step: Step) -> dict[str, Any] | None:
        browser = self.app.browser
        try:
            tab = browser.tabs.get(run.tab_id)
        except UnknownTab:
            raise _StepFailed("tab-closed", "the tab was closed") from None
        conn = run.connection
        if step.kind == "extract":
            extracted = await self._timed(run, _extract(tab))
            # a page may echo what was typed into it (or a URL carry it): the values stay out of the status
            return {key: run.scrub(value) if isinstance(value, str) else value for key, value in extracted.items()}
        if step.kind == "navigate":
            url = str(step.value)
            subject = Ask("navigate").describe(origin_of(url))
            ticket = await self._gated(
                run, step, subject, subject, lambda: browser.navigate(conn, tab, url, MAX_TIMEOUT_MS)
            )
            if ticket.get("status") != "loaded":
                failed = f"the navigation {ticket.get('status')}: {ticket.get('error', '')}"
                raise _StepFailed("navigation-failed", run.scrub(failed))
            return None
        # click / type: exactly the ask of a hand-made act (a type binds the text it types), for the element
        # the step finds (the prompt names that element)
        step = await self._timed(run, _ready(tab, step))
        ask = ask_for(step.kind, step.role, step.name, {"text": step.value})
        site = origin_of(tab.page.url)
        shown = Ask(ask.operation, ask.role, ask.name, run.workflow.steps[step.index].value).describe(site)
        await self._gated(run, step, ask.describe(site), shown, lambda: browser.authorize(conn, tab, ask, by_ref=False))
        if step.kind == "click":
            acted = await self._timed(run, _click(tab, step))
        else:
            acted = await self._timed(run, page_act(tab.page, "type", role=step.role, name=step.name, text=step.value))
        if not acted.get("ok"):
            # a field's refusal may quote what it holds, i.e. part of the typed value: only its reason is kept
            detail = "" if step.kind == "type" else f": {acted.get('detail', '')}"
            raise _StepFailed("act-rejected", run.scrub(f"{step.kind} refused: {acted.get('reason')}{detail}"))
        return None

    async def _timed(self, run: Run, work: Awaitable[_T]) -> _T:
        """``work`` within the run's remaining running time."""
        remaining = TIME_BUDGET_SECONDS - run.clock.used()
        if remaining <= 0:
            if asyncio.iscoroutine(work):
                work.close()
            raise _OutOfTime
        try:
            return await asyncio.wait_for(work, remaining)
        except TimeoutError:
            if run.clock.used() >= TIME_BUDGET_SECONDS:
                raise _OutOfTime from None
            raise

    async def _gated(
        self, run: Run, step: Step, subject: str, shown: str, call: Callable[[], Awaitable[_T]]
    ) -> _T:
        """``call`` (an authorize or a navigate, which may prompt the person under ``subject``), waiting
        as long as the person takes: the clock stops meanwhile, and a prompt that outlasts the call's own
        wait (APPROVAL_PENDING) is waited on again by the same call, which finds it."""
        run.asking = subject
        try:
            while True:
                task: asyncio.Future[_T] = asyncio.ensure_future(call())
                try:
                    await self._watch(run, step, subject, shown, task)
                    return task.result()
                except BrowserError as exc:
                    if exc.code != "APPROVAL_PENDING":
                        raise
                finally:
                    if not task.done():
                        task.cancel()
        finally:
            run.asking = None

    async def _watch(self, run: Run, step: Step, subject: str, shown: str, task: asyncio.Future[Any]) -> None:
        approvals = self.app.approvals
        while not task.done():
            approval = approvals.find("browser", run.connection.id, subject)
            if approval is not None and approval.state == "pending":
                await self._wait_for_person(run, _Waiting(approval, step.index, shown), task)
                continue
            remaining = TIME_BUDGET_SECONDS - run.clock.used()
            if remaining <= 0:
                raise _OutOfTime
            await asyncio.wait({task}, timeout=min(WATCH_SECONDS, remaining))

    async def _wait_for_person(self, run: Run, waiting: _Waiting, task: asyncio.Future[Any]) -> None:
        run.waiting = waiting
        run.clock.stop()
        answered = asyncio.ensure_future(self.app.approvals.wait(waiting.approval, APPROVAL_TTL_SECONDS))
        try:
            await asyncio.wait({task, answered}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            answered.cancel()
            run.waiting = None
            if run.status == "running":  # a stopped run's clock stays stopped
                run.clock.go()


async def _ready(tab: BrowserTab, step: Step) -> Step:
    """Wait (a little) until the step's element shows on the page, e.g. after the navigation the previous
    step started, and answer the step aimed at it (see :func:`_match`); then the act itself decides (it
    refuses a target that is not there, or several)."""
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        with contextlib.suppress(PlaywrightError, EvalError):
            found = _match((await read_snapshot(tab.page))["snapshot"], step)
            if found is not None:
                return replace(step, role=found[0], name=found[1])
        await asyncio.sleep(READY_POLL_SECONDS)
    return step


def _match(nodes: list[dict[str, Any]], step: Step) -> tuple[str, str] | None:
    """The element a step means: its exact role and name; else (a recording replayed on a page that changed
    a little) one element of the same role family whose name matches ignoring case and spacing, or starts
    with a name the snapshot cut at 200 characters, or the only element of the role when the name is empty.
    Several candidates are no match: a step never picks one by document order."""
    role, name = str(step.role), _normalized(str(step.name))
    if any(n.get("role") == role and n.get("name") == name[:200] for n in nodes):
        return role, name
    family = _FIELD_ROLES if role in _FIELD_ROLES else frozenset({role})
    kin = [n for n in nodes if n.get("role") in family]
    if not name:
        return (str(kin[0]["role"]), str(kin[0].get("name", ""))) if len(kin) == 1 else None
    loose = name.casefold()
    close = [
        n for n in kin
        if _normalized(str(n.get("name", ""))).casefold() == loose
        or (len(str(n.get("name", ""))) >= 200 and loose.startswith(_normalized(str(n["name"])).casefold()))
    ]
    return (str(close[0]["role"]), str(close[0]["name"])) if len(close) == 1 else None


async def _click(tab: BrowserTab, step: Step) -> dict[str, Any]:
    """Click, and when the click started a navigation (a form sent), wait for the new page to load, so the
    next step meets the page the click led to."""
    page = tab.page
    started, loaded = asyncio.Event(), asyncio.Event()

    def on_request(request: Request) -> None:
        if request.is_navigation_request() and request.frame == page.main_frame:
            started.set()

    def on_load(_page: Page) -> None:
        if started.is_set():
            loaded.set()

    page.on("request", on_request)
    page.on("load", on_load)
    try:
        acted = await page_act(page, "click", role=step.role, name=step.name)
        if acted.get("ok"):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(started.wait(), SETTLE_SECONDS)
            if started.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(loaded.wait(), READY_SECONDS)
        return acted
    finally:
        page.remove_listener("request", on_request)
        page.remove_listener("load", on_load)


_FIELD_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})


def _normalized(name: str) -> str:
    """An accessible name as the page's runtime compares it (whitespace runs collapsed, trimmed)."""
    return re.sub(r"[\s\u00a0]+", " ", name).strip()


async def _extract(tab: BrowserTab) -> dict[str, Any]:
    """The page as reader-mode Markdown, as ``browser_read.extract`` reads it, kept short."""
    return await reader_mode(await _content(tab), tab.page.url, WORKFLOW_EXTRACT_MAX_CHARS)


async def _content(tab: BrowserTab) -> str:
    """The page's HTML once it loaded; a page that is navigating right now is waited for (a little)."""
    deadline = time.monotonic() + READY_SECONDS
    while True:
        try:
            await tab.page.wait_for_load_state("load", timeout=READY_SECONDS * 1000)
            return await tab.page.content()
        except PlaywrightError:
            if time.monotonic() >= deadline:
                raise
            await asyncio.sleep(READY_POLL_SECONDS)


def _retrieve(task: asyncio.Task[None]) -> None:
    """A run's task ends: a bug in it is logged (never with a value: only the exception's type)."""
    if not task.cancelled() and task.exception() is not None:
        log.error("workflow task %s failed: %s", task.get_name(), type(task.exception()).__name__)
