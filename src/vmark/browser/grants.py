"""The person's grants to agents on browser tabs, in memory only.

A grant answers one prompt: "Allow once" is consumed by one use, "Allow on this site" stands for the
tab and origin until that tab navigates, "Deny" stores nothing (the next attempt asks again). What a
grant covers is exact: the tab, the page's origin, the operation and, per operation, what the prompt
showed (a click's element, a typed text, a key chord, a scroll delta, a session handle, a script, a
profile name), so a retry with different content asks again.

Any navigation of a tab, in-page ones included (fragment, ``pushState``), lapses every grant of that
tab (``lapse_tab``): what the person saw in the prompt may no longer be what the page shows.
``eval``, ``session``, ``record`` and ``profile`` are never standing ("Allow on this site" is taken
as "Allow once"); ``upload`` is never granted at all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal, get_args

from ..protocol.wire_types import BrowserOperation

#: what a site permission lets an agent do (the wire's definition: the Browser panel shows the same ones)
Operation = BrowserOperation
Decision = Literal["once", "site", "deny"]

OPERATIONS: tuple[Operation, ...] = get_args(Operation)
#: what the person is shown for each decision
DECISION_LABELS: dict[Decision, str] = {"once": "Allow once", "site": "Allow on this site", "deny": "Deny"}
NEVER_STANDING: frozenset[Operation] = frozenset({"eval", "session", "record", "profile"})
NEVER_GRANTED: frozenset[Operation] = frozenset({"upload"})
#: operations whose grant binds the element (role + name); for a key or a scroll it is the target, if any
_BINDS_ELEMENT: frozenset[Operation] = frozenset({"click", "type", "key", "scroll"})
#: operations whose grant binds ``value``: text, key chord, delta, handle, script, profile name
_BINDS_VALUE: frozenset[Operation] = frozenset({"type", "key", "scroll", "session", "eval", "profile"})
_MODIFIER_ORDER = ("ctrl", "alt", "shift", "meta")
#: (tab, origin, operation, role, name, value): exactly what one grant covers
_Key = tuple[str, str, Operation, str | None, str | None, str | None]


@dataclass(frozen=True)
class GrantRequest:
    """What an agent wants to do; the fields an operation does not bind are ignored."""

    tab: str
    origin: str
    operation: Operation
    role: str | None = None
    name: str | None = None
    #: the exact text to type, key chord (``key_chord``), delta (``str(dy)``), session handle
    #: (with its direction, e.g. ``save:work``), script, or profile name
    value: str | None = None

    def key(self) -> _Key:
        element = self.operation in _BINDS_ELEMENT
        return (
            self.tab,
            self.origin,
            self.operation,
            self.role if element else None,
            self.name if element else None,
            self.value if self.operation in _BINDS_VALUE else None,
        )


@dataclass(frozen=True)
class SitePermission:
    """A standing grant, as the person's site-permissions list shows it."""

    tab: str
    origin: str
    operation: Operation
    role: str | None
    name: str | None
    value: str | None


def key_chord(key: str, modifiers: Mapping[str, bool] | None = None) -> str:
    """The canonical form of a key with modifiers, e.g. ``Ctrl+Shift+Enter``: the order in which the
    agent listed the modifiers does not make it a different grant."""
    held = [m.capitalize() for m in _MODIFIER_ORDER if (modifiers or {}).get(m)]
    return "+".join([*held, key])


class GrantStore:
    """Grants by exact key; once-grants counted (each "Allow once" answer is one use)."""

    def __init__(self) -> None:
        self._once: Counter[_Key] = Counter()
        self._standing: set[_Key] = set()

    def grant(self, request: GrantRequest, decision: Decision) -> Decision | None:
        """Record the person's answer; returns what was stored (``site`` may be stored as ``once``),
        or None when nothing was (a denial, or an upload)."""
        if decision == "deny" or request.operation in NEVER_GRANTED:
            return None
        key = request.key()
        if decision == "site" and request.operation not in NEVER_STANDING:
            self._standing.add(key)
            return "site"
        self._once[key] += 1
        return "once"

    def covers(self, request: GrantRequest) -> bool:
        """Whether a grant covers the request, without using it up."""
        key = request.key()
        return request.operation not in NEVER_GRANTED and (key in self._standing or self._once[key] > 0)

    def standing(self, request: GrantRequest) -> bool:
        """Whether a standing grant covers the request (e.g. an attachment that may serve many reads)."""
        return request.operation not in NEVER_GRANTED and request.key() in self._standing

    def check(self, request: GrantRequest) -> bool:
        """Whether the request may go ahead. A standing grant covers it without using anything up;
        otherwise one once-grant is used up by this answer."""
        if not self.covers(request):
            return False
        key = request.key()
        if key not in self._standing:
            self._once[key] -= 1
            if not self._once[key]:
                del self._once[key]
        return True

    def lapse_tab(self, tab: str) -> None:
        """The tab navigated (in-page too) or closed: every grant of it lapses."""
        self._drop(lambda key: key[0] == tab)

    def revoke(self, origin: str, operation: Operation) -> None:
        """The person revoked a site permission: no grant for it remains, on any tab."""
        self._drop(lambda key: key[1] == origin and key[2] == operation)

    def list_site_permissions(self) -> list[SitePermission]:
        return [SitePermission(*key) for key in sorted(self._standing, key=_sort_key)]

    def _drop(self, doomed: Callable[[_Key], bool]) -> None:
        self._standing = {key for key in self._standing if not doomed(key)}
        for key in [key for key in self._once if doomed(key)]:
            del self._once[key]


def _sort_key(key: _Key) -> tuple[str, ...]:
    return tuple(part or "" for part in key)
