"""A page-like client that checks every request it sends, every answer and every event it gets against the
wire shapes the page is typed with (``protocol/wire_types.py``, ``vmark.protocol.wirecheck``).

The wire-shape tests split the requests in two: the editor's (``test_wire_shapes``) and the panels' with a
real embedded browser or a tracked workspace behind them (``test_wire_shapes_panels``); together they send
every request of :data:`wire_types.REQUESTS`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from vmark.protocol import wire_types
from vmark.protocol.wirecheck import event_problems, request_problems, result_problems
from vmark.testing.uiclient import UIClient

_PANEL_FAMILIES = ("browser.", "coherence.", "delegations.")
#: the requests of the Browser and Coherence panels and of a workflow tab's gutter
PANEL_REQUESTS = frozenset(k for k in wire_types.REQUESTS if k.startswith(_PANEL_FAMILIES) or k == "ui.validate")
#: every other request: the editor's, its files', history's, comments', review's, approvals', settings'
EDITOR_REQUESTS = frozenset(wire_types.REQUESTS) - PANEL_REQUESTS
#: a deadline for one answer (the app's Chromium starts with the first tab: slow on a busy machine), so a
#: request the app never answers fails by its name instead of hanging the run
ANSWER_SECONDS = 60.0


class CheckedPage(UIClient):
    """A UI client that checks what it sends and what the app answers (its replies included)."""

    def __init__(self, data_dir: Path) -> None:
        super().__init__(data_dir)
        self.problems: list[str] = []
        self.sent: set[str] = set()

    async def call(self, kind: str, /, **payload: Any) -> Any:
        self.sent.add(kind)
        self.problems += request_problems(kind, payload)
        try:
            data = await asyncio.wait_for(super().call(kind, **payload), ANSWER_SECONDS)
        except TimeoutError:
            raise AssertionError(f"{kind} {payload!r}: no answer within {ANSWER_SECONDS:g} s") from None
        self.problems += result_problems(kind, data)
        return data

    def event_problems(self) -> list[str]:
        return [p for event in self.events for p in event_problems(event)]
