"""One browser workflow run: its steps' results, its running time, the prompt it waits on, and the status
``workflow_status`` answers.

A run holds the bound steps (with the input values in them) to act, and shows them nowhere: every
reason it reports went through :meth:`Run.scrub`, which puts ``{name}`` where a value stood.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from vmark.browser.asks import Asker
from vmark.browser.workflow import Step, Workflow
from vmark.protocol.browser_results import (
    Extracted,
    PendingApproval,
    RunProgress,
    RunStarted,
    RunSummary,
    StepOutcome,
    WorkflowStep,
)
from vmark.protocol.browser_results import RunStatus as StatusAnswer
from vmark.protocol.limits import WORKFLOW_STEP_TEXT_SHOWN

RunStatus = Literal["running", "paused", "completed", "failed", "cancelled", "superseded"]
StepStatus = Literal["pending", "running", "completed", "skipped", "paused", "failed", "cancelled"]
TERMINAL: frozenset[RunStatus] = frozenset({"completed", "failed", "cancelled", "superseded"})
#: seconds from some fixed point (``time.monotonic``)
Clock = Callable[[], float]


class RunClock:
    """A run's running time: stopped while the run waits for the person."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._used = 0.0
        self._since: float | None = clock()

    def used(self) -> float:
        return self._used + (self._clock() - self._since if self._since is not None else 0.0)

    def stop(self) -> None:
        if self._since is not None:
            self._used += self._clock() - self._since
            self._since = None

    def go(self) -> None:
        if self._since is None:
            self._since = self._clock()


@dataclass
class StepResult:
    index: int
    status: StepStatus = "pending"
    attempts: int = 0
    reason: str | None = None
    data: Extracted | None = None

    def describe(self) -> StepOutcome:
        answer: StepOutcome = {"index": self.index, "status": self.status, "attempts": self.attempts}
        if self.reason is not None:
            answer["reason"] = self.reason
        if self.data is not None:
            answer["data"] = self.data
        return answer


@dataclass(frozen=True)
class Waiting:
    """A prompt the run waits on; ``subject`` as the status shows it (no input value in it)."""

    prompt_id: str
    step: int
    subject: str

    def describe(self) -> PendingApproval:
        return {"approvalId": self.prompt_id, "step": self.step, "subject": self.subject}


@dataclass(eq=False)
class Run:
    id: str
    tab_id: str
    asker: Asker
    workflow: Workflow
    #: the bound steps: they hold input values, so they are used to act and never shown
    steps: tuple[Step, ...]
    values: dict[str, str]
    job: str
    allow_repeat: bool
    results: list[StepResult]
    clock: RunClock
    first_step: int = 0
    resumed_from: str | None = None
    status: RunStatus = "running"
    paused_at: int | None = None
    reason_code: str | None = None
    reason: str | None = None
    #: the subject of the prompt the current step may raise, and the prompt once it is up
    asking: str | None = None
    waiting: Waiting | None = None
    task: asyncio.Task[None] | None = field(default=None, repr=False)

    @property
    def requester(self) -> str:
        return self.asker.requester

    def scrub(self, text: str) -> str:
        """``text`` with every input value replaced by its ``{name}`` (longest values first)."""
        for name, value in sorted(self.values.items(), key=lambda item: -len(item[1])):
            if value:
                text = text.replace(value, "{" + name + "}")
        return text

    def pause(self, index: int) -> None:
        """The run stops at step ``index`` for the agent (``resumeRunId`` continues after it)."""
        self.results[index].status = "paused"
        self.status, self.paused_at = "paused", index
        self.clock.stop()

    def end(self, status: RunStatus, code: str | None = None, reason: str | None = None) -> None:
        """The run is over (or paused, superseded): its status, and its clock stops."""
        self.status, self.reason_code, self.reason = status, code, reason
        self.clock.stop()

    def started(self) -> RunStarted:
        """What ``workflow_run`` answers: ``{runId, steps, firstStep}``, the steps as written."""
        shown: list[WorkflowStep] = [
            {"index": s.index, "line": s.line, "kind": s.kind, "text": s.text[:WORKFLOW_STEP_TEXT_SHOWN]}
            for s in self.workflow.steps
        ]
        return {"runId": self.id, "steps": shown, "firstStep": self.first_step}

    def describe(self, prompt_pending: bool) -> StatusAnswer:
        """What ``workflow_status`` answers; ``prompt_pending``: the prompt it waits on is still unanswered."""
        summary: RunSummary = {
            "runId": self.id,
            "status": self.status,
            "completedSteps": sum(r.status == "completed" for r in self.results),
            "skippedSteps": sum(r.status == "skipped" for r in self.results),
            "stepCount": len(self.results),
            "firstStep": self.first_step,
        }
        progress: RunProgress = {}
        if self.status == "paused" and self.paused_at is not None:
            progress["pausedAt"] = self.paused_at
        waiting = self.waiting
        if waiting is not None and prompt_pending:
            progress["pendingApproval"] = waiting.describe()
        if self.reason_code is not None:
            progress["reasonCode"] = self.reason_code
        if self.reason is not None:
            progress["reason"] = self.reason
        if self.resumed_from is not None:
            progress["resumedFrom"] = self.resumed_from
        return {**summary, **progress, "stepResults": [r.describe() for r in self.results]}
