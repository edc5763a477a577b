"""Canon claims: their current versions, which are visible, and the digest checks are bound to.

A claim is versioned by ``claim`` records: the newest record of a claim id (by
``Record.sort_key``) is its current version, and that record's id is the claim's ``entryId``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..protocol import wire_types
from ..protocol.wire_types import Maturity
from .records import MalformedRecord, Record, parse_time


@dataclass(frozen=True)
class Claim:
    claim: str
    entry_id: str
    statement: str
    maturity: Maturity
    invalid_at: str | None
    supersedes: str | None
    # invalid_at is absent or still in the future
    valid: bool
    # another current claim names this one in ``supersedes``
    superseded: bool

    @property
    def visible(self) -> bool:
        """Visible in the default context: valid and not superseded (any maturity)."""
        return self.valid and not self.superseded

    @property
    def constraining(self) -> bool:
        """Only established visible claims constrain semantic checks."""
        return self.visible and self.maturity == "established"


def current_claims(records: Iterable[Record], now: float) -> list[Claim]:
    """The current version of every claim, sorted by claim id."""
    newest: dict[str, Record] = {}
    for record in records:
        if record.kind != "claim" or not isinstance(record.body.get("claim"), str):
            continue
        claim_id = record.body["claim"]
        known = newest.get(claim_id)
        if known is None or record.sort_key > known.sort_key:
            newest[claim_id] = record
    supersedes = {claim_id: _str_or_none(record.body.get("supersedes")) for claim_id, record in newest.items()}
    superseded = {target for claim_id, target in supersedes.items() if target is not None and target != claim_id}
    claims = []
    for claim_id in sorted(newest):
        body = newest[claim_id].body
        invalid_at = body.get("invalid_at")
        claims.append(
            Claim(
                claim=claim_id,
                entry_id=newest[claim_id].id,
                statement=str(body.get("statement", "")),
                maturity="established" if body.get("maturity") == "established" else "draft",
                invalid_at=invalid_at if isinstance(invalid_at, str) else None,
                supersedes=supersedes[claim_id],
                valid=_valid(invalid_at, now),
                superseded=claim_id in superseded,
            )
        )
    return claims


def default_visible(claims: Iterable[Claim]) -> set[str]:
    """The ids of the claims the default context shows."""
    return {claim.claim for claim in claims if claim.visible}


def claims_digest(claims: Iterable[Claim]) -> str:
    """sha256 hex over the sorted ``"<claim id>\\n<entryId>\\n"`` lines of the constraining claims.

    A check is bound to this digest: it changes when an established visible claim is added,
    revised (new entryId), invalidated or superseded, and never for a draft.
    """
    lines = sorted(f"{claim.claim}\n{claim.entry_id}\n" for claim in claims if claim.constraining)
    return hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()


def claim_rows(claims: Iterable[Claim]) -> list[wire_types.Claim]:
    """The ``coherence`` -> ``claims`` rows."""
    return [
        {
            "claim": claim.claim,
            "entryId": claim.entry_id,
            "statement": claim.statement,
            "maturity": claim.maturity,
            "invalidAt": claim.invalid_at,
            "visible": claim.visible,
        }
        for claim in claims
    ]


def _valid(invalid_at: Any, now: float) -> bool:
    if invalid_at is None:
        return True
    if not isinstance(invalid_at, str):
        return False
    try:
        return parse_time(invalid_at) > now
    except MalformedRecord:
        # an unreadable end of validity: the claim cannot be shown to hold, so it does not
        return False


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None
