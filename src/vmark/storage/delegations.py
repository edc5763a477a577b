"""Delegations: the person lets one principal resolve coherence edges, for a while.

A grant names a principal (a client token's name), the resolutions it covers (``accept-newer``,
``waive``), optionally one workspace, and an expiry: 7 days by default, never forever. Revoked grants
stay listed (an audit record names them).
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vmark.protocol import wire_types
from vmark.protocol.limits import DELEGATION_DEFAULT_SECONDS, DELEGATION_MAX_SECONDS

from ..core.ids import new_id
from .atomic_json import read_json, update_json

SCOPES: tuple[wire_types.Resolution, ...] = ("accept-newer", "waive")
_DURATION = re.compile(r"^(\d{1,5})([mhdw])$")
_UNIT_SECONDS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


class DelegationError(ValueError):
    pass


def parse_duration(text: str) -> int:
    """``30m``, ``12h``, ``7d``, ``2w`` -> seconds (at least a minute, at most a year)."""
    found = _DURATION.match(text.strip())
    if found is None:
        raise DelegationError(f"expiry {text!r} must be a number and a unit: 30m, 12h, 7d or 2w")
    seconds = int(found.group(1)) * _UNIT_SECONDS[found.group(2)]
    if not 60 <= seconds <= DELEGATION_MAX_SECONDS:
        raise DelegationError("a delegation lasts between a minute and a year; none lasts forever")
    return seconds


@dataclass(frozen=True)
class Grant:
    id: str
    principal: str
    scope: tuple[wire_types.Resolution, ...]
    workspace: str | None
    created: float
    expires: float
    revoked: float | None

    def live(self, now: float) -> bool:
        return self.revoked is None and now < self.expires

    def covers(self, principal: str, resolution: str, workspace: str, now: float) -> bool:
        return (
            self.live(now)
            and self.principal == principal
            and resolution in self.scope
            and (self.workspace is None or self.workspace == workspace)
        )

    def describe(self, now: float) -> wire_types.Delegation:
        state: Literal["live", "expired", "revoked"] = (
            "revoked" if self.revoked is not None else ("live" if self.live(now) else "expired")
        )
        return {
            "id": self.id,
            "principal": self.principal,
            "scope": list(self.scope),
            "workspace": self.workspace,
            "created": self.created,
            "expires": self.expires,
            "revoked": self.revoked,
            "state": state,
        }


class Delegations:
    """The grants, in one JSON file of the app data directory (read fresh on every check, so a
    revocation by the CLI counts at once for the running app)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def grant(
        self,
        principal: str,
        scope: list[str],
        *,
        seconds: int = DELEGATION_DEFAULT_SECONDS,
        workspace: str | None = None,
        now: float | None = None,
    ) -> Grant:
        if not principal:
            raise DelegationError("a delegation names a principal")
        wanted = tuple(s for s in SCOPES if s in scope)
        unknown = sorted(set(scope) - set(SCOPES))
        if unknown or not wanted:
            raise DelegationError(f"scope must be one or more of {list(SCOPES)}; got {scope!r}")
        if not 60 <= seconds <= DELEGATION_MAX_SECONDS:
            raise DelegationError("a delegation lasts between a minute and a year; none lasts forever")
        if workspace is not None and not os.path.isabs(workspace):
            raise DelegationError("workspace must be an absolute path")
        created = time.time() if now is None else now
        grant = Grant(
            new_id("dlg"),
            principal,
            wanted,
            os.path.realpath(workspace) if workspace else None,
            created,
            created + seconds,
            None,
        )
        update_json(self.path, lambda data: data.setdefault("grants", []).append(_to_json(grant)))
        return grant

    def revoke(self, grant_id: str, now: float | None = None) -> Grant:
        moment = time.time() if now is None else now
        found: list[Grant] = []

        def change(data: dict[str, Any]) -> None:
            for raw in data.get("grants", []):
                if raw.get("id") == grant_id:
                    if raw.get("revoked") is None:
                        raw["revoked"] = moment
                    found.append(_from_json(raw))
                    return
            raise DelegationError(f"no delegation {grant_id!r}")

        update_json(self.path, change)
        return found[0]

    def list(self) -> list[Grant]:
        data = read_json(self.path)
        raw = data.get("grants", []) if isinstance(data, dict) else []
        return [_from_json(g) for g in raw if isinstance(g, dict)]

    def find(self, principal: str | None, resolution: str, workspace: str, now: float | None = None) -> Grant | None:
        """A live grant that covers ``resolution`` for ``principal`` in ``workspace``, or None."""
        if principal is None:
            return None
        moment = time.time() if now is None else now
        real = os.path.realpath(workspace)
        return next((g for g in self.list() if g.covers(principal, resolution, real, moment)), None)


def _to_json(grant: Grant) -> dict[str, Any]:
    return {
        "id": grant.id,
        "principal": grant.principal,
        "scope": list(grant.scope),
        "workspace": grant.workspace,
        "created": grant.created,
        "expires": grant.expires,
        "revoked": grant.revoked,
    }


def _from_json(raw: dict[str, Any]) -> Grant:
    return Grant(
        str(raw.get("id")),
        str(raw.get("principal")),
        tuple(s for s in raw.get("scope", []) if s in SCOPES),
        raw.get("workspace"),
        float(raw.get("created", 0)),
        float(raw.get("expires", 0)),
        raw.get("revoked"),
    )
