"""What an agent asks the person for on a tab: who asks (:class:`Asker`), what (:class:`Ask`), the
callback that asks (:data:`Authorize`), and the prompts as a run follows them (:class:`Prompts`).

The prompts themselves (grants, approvals, the person's answer) are the app's; the browser's services
(runs, recordings, saved sessions) are given ``authorize`` and wait for it to pass or refuse.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from vmark.browser.grants import Operation, key_chord
from vmark.browser.tabs import BrowserTab


class Asker(Protocol):
    """The agent's connection a request came on: its prompts are its own, shown under ``requester``."""

    @property
    def id(self) -> str: ...

    @property
    def requester(self) -> str: ...

    @property
    def label(self) -> str:
        """How the person sees the agent (its client's name with its principal's)."""
        ...


@dataclass(frozen=True)
class Ask:
    """One thing an agent wants to do, as the prompt shows it."""

    operation: Operation
    role: str | None = None
    name: str | None = None
    value: str | None = None

    def describe(self, site: str) -> str:
        target = f" {self.role} {self.name!r}" if self.role else ""
        value = f" with {self.value!r}" if self.value is not None else ""
        return f"{self.operation}{target}{value} on {site}"


#: pass when a grant covers the ask on the tab's site (asking the person if none does), else raise
#: ``BrowserError`` (``NOT_GRANTED``, ``APPROVAL_PENDING``, ...)
Authorize = Callable[[Asker, BrowserTab, Ask], Awaitable[None]]


def ask_for(operation: str, role: str | None, name: str | None, args: dict[str, Any]) -> Ask:
    """What an ``act`` asks for: a click binds the element; type, key and scroll also their value."""
    if operation == "type":
        return Ask("type", role, name, str(args.get("text", "")))
    if operation == "key":
        return Ask("key", role, name, key_chord(str(args.get("key", "")), dict(args.get("modifiers") or {})))
    if operation == "scroll":
        return Ask("scroll", role, name, None if args.get("dy") is None else str(args["dy"]))
    return Ask("click", role, name)


class Prompts(Protocol):
    """The person's browser prompts, as a workflow run follows the one its step raised (by id)."""

    def pending(self, asker: Asker, subject: str) -> str | None:
        """The prompt ``asker`` raised under ``subject`` that waits for the person's answer, if any."""
        ...

    def is_pending(self, prompt_id: str) -> bool: ...

    async def answered(self, prompt_id: str, seconds: float) -> None:
        """Return once the person answered the prompt (or it is gone), or after ``seconds``."""
        ...

    def withdraw(self, prompt_id: str) -> None:
        """A prompt nobody waits for any more leaves the person's list (an answered one stays as it is)."""
        ...
