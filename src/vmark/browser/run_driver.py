"""Running a workflow: its steps in turn, within the run's running time.

click / type / navigate / extract run here, each authorized exactly as a hand-made ``act`` / ``navigate``
would be (the same ask, the same prompt, through the callbacks the app gives): a workflow is never a way
around the person's prompts. A step waiting for the person reports ``pendingApproval`` and keeps waiting
past the prompt's own 20 s (the same call finds the same prompt again) until the person answers or the
run is stopped; that time does not count towards the run's budget. ``goal`` / ``confirm`` / ``api`` steps
and prose pause the run for the agent.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from vmark.browser.asks import Ask, Asker, Authorize, Prompts, ask_for
from vmark.browser.run import Run, RunStatus, Waiting
from vmark.browser.run_jobs import Jobs
from vmark.browser.tabs import BrowserTab, UnknownTab
from vmark.browser.urlpolicy import origin_of
from vmark.browser.workflow import APP_KINDS, Step
from vmark.protocol.browser_results import Extracted, Ticket
from vmark.protocol.errors import BrowserError
from vmark.protocol.limits import APPROVAL_TTL_SECONDS, BROWSER_RUN_TIME_BUDGET_SECONDS, MAX_TIMEOUT_MS

log = logging.getLogger(__name__)

#: a run's running time (a module constant, so a test can shorten it)
TIME_BUDGET_SECONDS = BROWSER_RUN_TIME_BUDGET_SECONDS
#: how often a step that may prompt looks for its prompt (and at the time budget)
WATCH_SECONDS = 0.05
_T = TypeVar("_T")

#: an agent's navigation of the tab, as ``browser.navigate`` does it (the destination's prompt, the ticket)
Navigate = Callable[[Asker, BrowserTab, str, int], Awaitable[Ticket]]


class OpenTabs(Protocol):
    """The open browser tabs by id (:class:`~vmark.browser.tabs.TabRegistry`)."""

    def get(self, tab_id: str) -> BrowserTab:
        """The tab; :class:`~vmark.browser.tabs.UnknownTab` when it is closed."""
        ...


class _OutOfTime(Exception):
    """The run used up its running time."""


class _StepFailed(Exception):
    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class RunDriver:
    """Performs runs; what it may do on a page, it asks through ``authorize`` and ``navigate``."""

    def __init__(self, tabs: OpenTabs, authorize: Authorize, navigate: Navigate, prompts: Prompts, jobs: Jobs) -> None:
        self._tabs = tabs
        self._authorize = authorize
        self._navigate = navigate
        self._prompts = prompts
        self._jobs = jobs

    async def drive(self, run: Run) -> None:
        for step in run.steps[run.first_step :]:
            where = f"step {step.index} (line {step.line})"
            try:
                if not await self._do(run, step):
                    return
            except _OutOfTime:
                used_up = f"the run used up its {TIME_BUDGET_SECONDS:g} s of running time at {where}"
                _finish(run, "failed", "time-budget", used_up)
                return
            except _StepFailed as exc:
                _finish(run, "failed", exc.code, f"{where}: {exc.reason}")
                return
            except Exception as exc:  # a bug must not leave the run "running" for ever
                log.error("workflow %s failed unexpectedly: %s", run.id, type(exc).__name__)
                _finish(run, "failed", "internal", f"{where}: unexpected error {type(exc).__name__}")
                return
        _finish(run, "completed")

    async def _do(self, run: Run, step: Step) -> bool:
        """Perform one step; False when the run paused at it."""
        result = run.results[step.index]
        if step.kind not in APP_KINDS:
            run.pause(step.index)
            log.info("workflow %s paused at step %d (%s)", run.id, step.index, step.kind)
            return False
        if step.write and not run.allow_repeat and self._jobs.done(run.job, step.index):
            result.status = "skipped"
            return True
        if run.clock.used() >= TIME_BUDGET_SECONDS:
            result.status, result.reason = "failed", "no running time left"
            raise _OutOfTime
        result.status = "running"
        result.attempts += 1
        result.data = await self._attempt(run, step)
        result.status = "completed"
        if step.write:
            self._jobs.remember(run.job, step.index)
        return True

    async def _attempt(self, run: Run, step: Step) -> Extracted | None:
        """Perform the step; a failure is written on its result (without an input value) and raised."""
        from vmark.browser import run_steps  # the page half (reader, act, snapshot) at the first run's step

        result = run.results[step.index]
        try:
            return await self._perform(run, step)
        except _OutOfTime:
            result.status, result.reason = "failed", "the run's running time ran out"
            raise
        except _StepFailed as exc:
            result.status, result.reason = "failed", exc.reason
            raise
        except (BrowserError, *run_steps.PAGE_ERRORS) as exc:
            failed = self._failure(run, exc)
            result.status, result.reason = "failed", failed.reason
            raise failed from None

    def _failure(self, run: Run, exc: Exception) -> _StepFailed:
        """A refusal (``not-granted``, ...) or what the page threw, its reason without an input value."""
        if isinstance(exc, BrowserError):
            return _StepFailed(exc.code.lower().replace("_", "-"), run.scrub(f"{exc.code}: {exc.message}"))
        if not self._is_open(run.tab_id):
            return _StepFailed("tab-closed", "the tab was closed")
        return _StepFailed("page-error", run.scrub(f"{type(exc).__name__}: {exc}"))

    def _is_open(self, tab_id: str) -> bool:
        try:
            self._tabs.get(tab_id)
        except UnknownTab:
            return False
        return True

    async def _perform(self, run: Run, step: Step) -> Extracted | None:
        from vmark.browser import run_steps

        try:
            tab = self._tabs.get(run.tab_id)
        except UnknownTab:
            raise _StepFailed("tab-closed", "the tab was closed") from None
        if step.kind == "extract":
            extracted = await self._timed(run, run_steps.extract(tab))
            return _scrubbed(run, extracted)
        if step.kind == "navigate":
            await self._navigate_step(run, step, tab)
        else:
            await self._act_step(run, step, tab)
        return None

    async def _navigate_step(self, run: Run, step: Step, tab: BrowserTab) -> None:
        url = str(step.value)
        subject = Ask("navigate").describe(origin_of(url))
        ticket = await self._gated(
            run, step, subject, subject, lambda: self._navigate(run.asker, tab, url, MAX_TIMEOUT_MS)
        )
        if ticket.get("status") != "loaded":
            failed = f"the navigation {ticket.get('status')}: {ticket.get('error', '')}"
            raise _StepFailed("navigation-failed", run.scrub(failed))

    async def _act_step(self, run: Run, step: Step, tab: BrowserTab) -> None:
        """click / type: exactly the ask of a hand-made act (a type binds the text it types), for the element
        the step finds (the prompt names that element; the status shows the step's ``{input}``, not its value)."""
        from vmark.browser import run_steps

        step = await self._timed(run, run_steps.ready(tab, step))
        ask = ask_for(step.kind, step.role, step.name, {"text": step.value})
        site = origin_of(tab.page.url)
        shown = Ask(ask.operation, ask.role, ask.name, run.workflow.steps[step.index].value).describe(site)
        await self._gated(run, step, ask.describe(site), shown, lambda: self._authorize(run.asker, tab, ask))
        acted = await self._timed(run, run_steps.act(tab, step))
        if not acted.get("ok"):
            # a field's refusal may quote what it holds, i.e. part of the typed value: only its reason is kept
            detail = "" if step.kind == "type" else f": {acted.get('detail', '')}"
            raise _StepFailed("act-rejected", run.scrub(f"{step.kind} refused: {acted.get('reason')}{detail}"))

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

    async def _gated(self, run: Run, step: Step, subject: str, shown: str, call: Callable[[], Awaitable[_T]]) -> _T:
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
        while not task.done():
            prompt_id = self._prompts.pending(run.asker, subject)
            if prompt_id is not None:
                await self._wait_for_person(run, Waiting(prompt_id, step.index, shown), task)
                continue
            remaining = TIME_BUDGET_SECONDS - run.clock.used()
            if remaining <= 0:
                raise _OutOfTime
            await asyncio.wait({task}, timeout=min(WATCH_SECONDS, remaining))

    async def _wait_for_person(self, run: Run, waiting: Waiting, task: asyncio.Future[Any]) -> None:
        run.waiting = waiting
        run.clock.stop()
        answered = asyncio.ensure_future(self._prompts.answered(waiting.prompt_id, APPROVAL_TTL_SECONDS))
        try:
            await asyncio.wait({task, answered}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            answered.cancel()
            run.waiting = None
            if run.status == "running":  # a stopped run's clock stays stopped
                run.clock.go()


def _finish(run: Run, status: RunStatus, code: str | None = None, reason: str | None = None) -> None:
    run.end(status, code, reason)
    log.info("workflow %s %s%s", run.id, status, f" ({code})" if code else "")


def _scrubbed(run: Run, extracted: Extracted) -> Extracted:
    """A page may echo what was typed into it (or a URL carry it): the values stay out of the status."""
    title, byline = extracted["title"], extracted["byline"]
    return {
        "title": None if title is None else run.scrub(title),
        "byline": None if byline is None else run.scrub(byline),
        "url": run.scrub(extracted["url"]),
        "markdown": run.scrub(extracted["markdown"]),
        "textLength": extracted["textLength"],
        "truncated": extracted["truncated"],
        "untrusted": run.scrub(extracted["untrusted"]),
    }
