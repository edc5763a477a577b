"""Approvals: the person's yes or no to something that widens an agent's access.

An approval belongs to the connection that asked for it. It lapses five minutes
after it was asked for (pending) or granted (unused). A denial keeps failing until
the person allows the same record; there is no "remember".
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from ..core.ids import new_id
from ..protocol import wire_types as wire
from ..protocol.limits import APPROVAL_TTL_SECONDS
from ..protocol.wire_types import ApprovalKind, ApprovalState, BrowserDetail


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass
class Approval:
    id: str
    kind: ApprovalKind
    connection: str
    requester: str
    subject: str
    window: str
    created: float
    expires: float
    state: ApprovalState = "pending"
    #: how the person sees the agent that asked (its client's name with the principal); display only: the
    #: approval is the connection's, ``requester`` is who it is
    agent: str = ""
    #: what a browser prompt shows (site, action, element, value) and what the person chose
    detail: BrowserDetail | None = None
    decision: wire.ApprovalDecision | None = None

    def describe(self) -> wire.Approval:
        described: wire.Approval = {
            "id": self.id,
            "kind": self.kind,
            "requester": self.requester,
            "agent": self.agent or self.requester,
            "subject": self.subject,
            "window": self.window,
            "state": self.state,
            "created": _iso(self.created),
            "expires": _iso(self.expires),
        }
        if self.kind == "browser" and self.detail is not None:
            described["detail"], described["decision"] = self.detail, self.decision
        return described


class Approvals:
    def __init__(self, on_change: Callable[[Approval], None], clock: Callable[[], float] = time.time) -> None:
        self._items: dict[str, Approval] = {}
        self._answered: dict[str, asyncio.Event] = {}
        self._on_change = on_change
        self._clock = clock

    def _live(self) -> list[Approval]:
        now = self._clock()
        for a in list(self._items.values()):
            if a.state == "used" or a.expires <= now:
                del self._items[a.id]
        return list(self._items.values())

    def find(self, kind: ApprovalKind, connection: str, subject: str) -> Approval | None:
        matches = [a for a in self._live() if (a.kind, a.connection, a.subject) == (kind, connection, subject)]
        return matches[-1] if matches else None

    def pending_in(self, window: str, kind: ApprovalKind) -> list[Approval]:
        return [a for a in self._live() if a.window == window and a.kind == kind and a.state == "pending"]

    def pending_of_kind(self, kind: ApprovalKind) -> list[Approval]:
        return [a for a in self._live() if a.kind == kind and a.state == "pending"]

    def request(
        self,
        kind: ApprovalKind,
        connection: str,
        requester: str,
        subject: str,
        window: str,
        detail: BrowserDetail | None = None,
        agent: str = "",
    ) -> Approval:
        now = self._clock()
        approval = Approval(
            new_id("apr"), kind, connection, requester, subject, window, now, now + APPROVAL_TTL_SECONDS,
            detail=detail, agent=agent,
        )
        self._items[approval.id] = approval
        self._on_change(approval)
        return approval

    def get(self, approval_id: str) -> Approval | None:
        return next((a for a in self._live() if a.id == approval_id), None)

    def answer(self, approval_id: str, allow: bool, decision: object = None) -> Approval | None:
        """The person's answer; a browser prompt's ``decision`` is ``once`` (default) or ``site``."""
        approval = self.get(approval_id)
        if approval is None:
            return None
        approval.state = "allowed" if allow else "denied"
        if approval.kind == "browser":
            approval.decision = ("site" if decision == "site" else "once") if allow else "deny"
        if allow:
            approval.expires = self._clock() + APPROVAL_TTL_SECONDS
        self._on_change(approval)
        event = self._answered.pop(approval.id, None)
        if event is not None:
            event.set()
        return approval

    async def wait(self, approval: Approval, timeout: float) -> Approval:
        """``approval`` once the person answered it, or still pending after ``timeout`` seconds."""
        if approval.state != "pending":
            return approval
        event = self._answered.setdefault(approval.id, asyncio.Event())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)
        return approval

    def consume(self, approval: Approval) -> None:
        approval.state = "used"
        self._on_change(approval)

    def withdraw_connection(self, connection: str) -> None:
        """A closed connection's approvals can never be used again."""
        for a in self._live():
            if a.connection == connection:
                a.state = "used"
                self._on_change(a)

    def listing(self) -> list[wire.Approval]:
        return [a.describe() for a in self._live()]
