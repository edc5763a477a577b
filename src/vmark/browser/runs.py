"""Browser workflow runs: ``workflow_run`` starts one, ``workflow_status`` watches it, ``workflow_cancel``
stops it.

A run executes asynchronously (:mod:`vmark.browser.run_driver`), one at a time per tab. A run paused for
the agent (a ``goal`` / ``confirm`` / ``api`` step, prose) is resumed by a new run with ``resumeRunId``: it
carries the completed steps, treats the paused step as done and supersedes the paused run. Write steps a
run completed are remembered per job (:mod:`vmark.browser.run_jobs`). Input values are used to act and
nowhere else: every reason a run reports has them replaced by their ``{name}``, and they are never logged.

What the app gives: ``authorize`` and ``navigate`` (each asks the person as a hand-made call would), the
person's prompts (:class:`~vmark.browser.asks.Prompts`) and the clock that measures a run's running time.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping

from vmark.browser.asks import Asker, Authorize, Prompts
from vmark.browser.run import TERMINAL, Clock, Run, RunClock, RunStatus, StepResult
from vmark.browser.run_driver import Navigate, OpenTabs, RunDriver
from vmark.browser.run_jobs import Jobs
from vmark.browser.tabs import BrowserTab
from vmark.browser.workflow import Step, Workflow
from vmark.core.ids import new_id
from vmark.protocol.browser_results import RunCancelled, RunStarted
from vmark.protocol.browser_results import RunStatus as StatusAnswer
from vmark.protocol.errors import ArgumentError, BrowserError
from vmark.protocol.limits import MAX_BROWSER_RUNS_KEPT

log = logging.getLogger(__name__)


class Runs:
    """Every run of this app session (the finished ones bounded), and the registry of completed writes."""

    def __init__(
        self,
        tabs: OpenTabs,
        *,
        authorize: Authorize,
        navigate: Navigate,
        prompts: Prompts,
        clock: Clock = time.monotonic,
    ) -> None:
        self._prompts = prompts
        #: what a run started from now on measures its running time with
        self.clock = clock
        self._jobs = Jobs()
        self._driver = RunDriver(tabs, authorize, navigate, prompts, self._jobs)
        self._runs: dict[str, Run] = {}

    # --- the tool's actions ---------------------------------------------------------------------
    def start(
        self,
        asker: Asker,
        tab: BrowserTab,
        workflow: Workflow,
        steps: tuple[Step, ...],
        inputs: Mapping[str, str],
        allow_repeat: bool,
        resume_run_id: str | None,
    ) -> RunStarted:
        """Start a run on ``tab`` and answer at once: ``{runId, steps, firstStep}``."""
        active = next((r for r in self._runs.values() if r.tab_id == tab.id and r.status == "running"), None)
        if active is not None:
            message = f"{active.id} is running on {tab.id}: wait for it or workflow_cancel it"
            raise BrowserError("RUN_ACTIVE", message, runId=active.id, tabId=tab.id)
        run = Run(
            id=new_id("run"),
            tab_id=tab.id,
            asker=asker,
            workflow=workflow,
            steps=steps,
            values=dict(inputs),
            job=self._jobs.job(workflow.source, inputs),
            allow_repeat=allow_repeat,
            results=[StepResult(step.index) for step in steps],
            clock=RunClock(self.clock),
        )
        if resume_run_id is not None:
            _resume(run, self._get(resume_run_id, asker.requester))
        self._keep(run)
        run.task = asyncio.create_task(self._driver.drive(run), name=f"workflow {run.id}")
        run.task.add_done_callback(_retrieve)
        log.info("workflow %s started on %s (%d steps, from step %d)", run.id, tab.id, len(steps), run.first_step)
        return run.started()

    def status(self, run_id: str, requester: str, tab_id: str | None = None) -> StatusAnswer:
        run = self._get(run_id, requester, tab_id)
        waiting = run.waiting
        return run.describe(waiting is not None and self._prompts.is_pending(waiting.prompt_id))

    async def cancel(self, run_id: str, requester: str, tab_id: str | None = None) -> RunCancelled:
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

    def _keep(self, run: Run) -> None:
        self._runs[run.id] = run
        finished = [r.id for r in self._runs.values() if r.status in TERMINAL]
        for old in finished[: max(0, len(self._runs) - MAX_BROWSER_RUNS_KEPT)]:
            del self._runs[old]

    def _stop_tab(self, tab_id: str, code: str, reason: str) -> None:
        for run in list(self._runs.values()):
            if run.tab_id == tab_id and run.status == "running":
                self._stop(run, "cancelled", code, reason)

    def _stop(self, run: Run, status: RunStatus, code: str, reason: str) -> None:
        """End a running or paused run now: its prompts are withdrawn, its task cancelled."""
        if run.status in TERMINAL:
            return
        run.end(status, code, reason)
        for result in run.results:
            if result.status in ("running", "paused"):
                result.status = "cancelled"
        self._withdraw(run)
        if run.task is not None and not run.task.done():
            run.task.cancel()
        log.info("workflow %s %s (%s)", run.id, status, code)

    def _withdraw(self, run: Run) -> None:
        """The run's prompts vanish from the person's list: nobody waits for them any more."""
        prompts = self._prompts
        waited = run.waiting.prompt_id if run.waiting is not None else None
        asked = prompts.pending(run.asker, run.asking) if run.asking is not None else None
        for prompt_id in {waited, asked} - {None}:  # the same prompt, once the run saw it up
            prompts.withdraw(str(prompt_id))
        run.waiting = None


def _resume(run: Run, paused: Run) -> None:
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
    run.results[:at] = [StepResult(r.index, r.status, r.attempts, r.reason, r.data) for r in paused.results[:at]]
    run.results[at] = StepResult(at, "completed", 0, f"done outside the run (paused in {paused.id})")
    run.first_step = at + 1
    run.resumed_from = paused.id
    paused.status = "superseded"
    paused.reason_code = "resumed"
    paused.reason = f"resumed by {run.id}"


def _retrieve(task: asyncio.Task[None]) -> None:
    """A run's task ends: a bug in it is logged (never with a value: only the exception's type)."""
    if not task.cancelled() and task.exception() is not None:
        log.error("workflow task %s failed: %s", task.get_name(), type(task.exception()).__name__)
