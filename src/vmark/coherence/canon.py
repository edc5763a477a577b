"""Canon: the person's claims (versioned ledger records) and contexts (JSON files in ``.vmark/contexts``).

Agents only read these; the person changes them (the Coherence panel, ``vmark coherence``). Not
thread-safe: the kernel holds its lock around it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..protocol import wire_types
from ..protocol.jsontypes import JSONObject
from ..storage.atomic import write_atomic
from . import claims as _claims
from .contexts import load_contexts, validate_context
from .errors import CoherenceError
from .index import WorkspaceIndex
from .records import MATURITIES, Record, parse_time, utc_now, uuid7

_CONTEXT_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


class Canon:
    def __init__(self, index: WorkspaceIndex, clock: Callable[[], float]) -> None:
        self.index = index
        self._clock = clock

    def claims(self) -> list[wire_types.Claim]:
        return _claims.claim_rows(_claims.current_claims(self.index.state.records, self._clock()))

    def contexts(self) -> list[wire_types.Context]:
        current = _claims.current_claims(self.index.state.records, self._clock())
        return load_contexts(self.index.vmark / "contexts", current)

    def add_claim(self, statement: str, maturity: str, supersedes: str | None = None) -> wire_types.ClaimPut:
        if supersedes is not None:
            self._claim(supersedes)
        return self._put_claim(uuid7(), statement, maturity, None, supersedes)

    def update_claim(self, claim: str, changes: JSONObject) -> wire_types.ClaimPut:
        """A new version of a claim; ``changes`` may hold statement, maturity and invalidAt (or None)."""
        old = self._claim(claim)
        invalid_at = changes.get("invalidAt", old.invalid_at)
        if invalid_at is not None:
            check_time(invalid_at, "invalidAt")
        return self._put_claim(
            claim,
            changes.get("statement", old.statement),
            changes.get("maturity", old.maturity),
            invalid_at,
            old.supersedes,
        )

    def save_context(self, context_id: str, data: JSONObject) -> None:
        _check_context_id(context_id)
        problems = validate_context(data)
        if problems:
            raise CoherenceError("; ".join(problems))
        path = self.index.vmark / "contexts" / f"{context_id}.json"
        write_atomic(path, (json.dumps(data, indent=2) + "\n").encode("utf-8"))

    def delete_context(self, context_id: str) -> None:
        _check_context_id(context_id)
        path = self.index.vmark / "contexts" / f"{context_id}.json"
        if not path.exists():
            raise CoherenceError(f"no context {context_id!r}")
        path.unlink()

    def _claim(self, claim: str) -> _claims.Claim:
        for existing in _claims.current_claims(self.index.state.records, self._clock()):
            if existing.claim == claim:
                return existing
        raise CoherenceError(f"no claim {claim!r}")

    def _put_claim(
        self, claim: str, statement: Any, maturity: Any, invalid_at: str | None, supersedes: str | None
    ) -> wire_types.ClaimPut:
        if not isinstance(statement, str) or not statement.strip():
            raise CoherenceError("a claim needs a statement")
        if maturity not in MATURITIES:
            raise CoherenceError(f"maturity must be one of {list(MATURITIES)}")
        body = {
            "claim": claim,
            "statement": statement,
            "maturity": maturity,
            "invalid_at": invalid_at,
            "supersedes": supersedes,
        }
        record = self.index.append([Record("claim", body, self.index.writer)])[0]
        return {"claim": claim, "entryId": record.id}


def check_time(value: Any, name: str) -> None:
    if not isinstance(value, str):
        raise CoherenceError(f"{name} must be an RFC 3339 time")
    try:
        parse_time(value)
    except ValueError as exc:
        raise CoherenceError(f"{name} must be an RFC 3339 time with a zone, e.g. {utc_now()}") from exc


def _check_context_id(context_id: str) -> None:
    if not (1 <= len(context_id) <= 64 and set(context_id) <= _CONTEXT_ID_CHARS) or context_id == "default":
        raise CoherenceError("a context id is 1-64 of A-Z a-z 0-9 . _ - (and not 'default')")
