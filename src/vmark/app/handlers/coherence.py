"""``coherence`` and ``coherence_resolve``: thin adapters over the workspace kernel.

The kernel answers from the workspace's files and ledger, so no editor window is needed. A call is
bounded (``TIMEOUT``); ``resolve`` needs the connection's *authenticated* principal to hold a live
delegation, is journaled like every agent write, and goes through the workspace's write turn.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from ...coherence.kernel import CoherenceError, EdgeNotLive, Kernel
from ...protocol import results
from ...protocol import wire_types as wire
from ...protocol.errors import ArgumentError, DomainError, VMarkError
from ...protocol.jsontypes import JSONObject
from ...protocol.limits import COHERENCE_TIMEOUT_SECONDS
from ..coherence import CoherenceTimeout
from ..journaling import file_entry

if TYPE_CHECKING:
    from ..context import RequestContext

T = TypeVar("T")

_TIMEOUT_READ = "TIMEOUT: coherence.{action} did not finish within {s:.0f} s; nothing was written. Retry later"
_TIMEOUT_WRITE = (
    "TIMEOUT: coherence.{action} did not finish within {s:.0f} s and may still be running (it can append to the"
    " ledger); its result is unknown. Read the current state (coherence.status / edges) before retrying"
)
_NO_GRANT = (
    "No live delegation lets {who} {resolution} edges in {root}. Ask the user to grant one in the Coherence"
    " panel, or with `vmark delegations grant --principal {name} --scope {resolution} --expires 7d`; do not retry"
    " until they have"
)


async def _ask(ctx: RequestContext, action: str, call: Callable[[], T], *, writes: bool) -> T:
    try:
        return await ctx.coherence.run(call)
    except CoherenceTimeout as exc:
        template = _TIMEOUT_WRITE if writes else _TIMEOUT_READ
        raise DomainError("TIMEOUT", template.format(action=action, s=COHERENCE_TIMEOUT_SECONDS)) from exc
    except EdgeNotLive as exc:
        raise DomainError("STALE", f"{exc}; call coherence.edges again", state=exc.state) from exc
    except CoherenceError as exc:
        raise ArgumentError(str(exc)) from exc


def _kernel(ctx: RequestContext, args: JSONObject) -> Kernel:
    return ctx.coherence.kernel(args.get("workspace_root"))


async def status(ctx: RequestContext, args: JSONObject) -> wire.CoherenceStatus:
    kernel = _kernel(ctx, args)
    return await _ask(ctx, "status", kernel.status, writes=False)


async def edges(ctx: RequestContext, args: JSONObject) -> list[wire.Edge]:
    """The open edges (``structuredContent`` carries the list as :class:`~vmark.protocol.results.Edges`)."""
    kernel = _kernel(ctx, args)
    rows = await _ask(ctx, "edges", kernel.edges, writes=True)
    ctx.coherence.changed()
    return rows


async def claims(ctx: RequestContext, args: JSONObject) -> list[wire.Claim]:
    kernel = _kernel(ctx, args)
    return await _ask(ctx, "claims", kernel.claims, writes=False)


async def contexts(ctx: RequestContext, args: JSONObject) -> list[wire.Context]:
    kernel = _kernel(ctx, args)
    return await _ask(ctx, "contexts", kernel.contexts, writes=False)


async def resolve(ctx: RequestContext, args: JSONObject) -> results.Resolved:
    kernel = _kernel(ctx, args)
    txf, index, resolution = args["txf"], args["input"], args["resolution"]
    reason = args.get("reason")
    if resolution == "waive" and not (reason and reason.strip()):
        raise ArgumentError("coherence_resolve.resolve: a waive needs a non-empty 'reason'")
    principal = ctx.connection.principal  # who the token says, never what the client claims
    grant = ctx.coherence.delegations.find(principal, resolution, str(kernel.root))
    if grant is None:
        who = f"principal {principal!r}" if principal else "this anonymous connection (it has no client token)"
        raise DomainError(
            "APPROVAL_REQUIRED",
            _NO_GRANT.format(who=who, resolution=resolution, root=kernel.root, name=principal or "NAME"),
        )
    async with ctx.coherence.turn(kernel):
        edge = await _ask(ctx, "resolve", lambda: kernel.open_edge(txf, index), writes=True)
        if edge["downstream_path"] is None:  # its document is gone from the workspace
            raise DomainError("STALE", "the edge's downstream file is gone; call coherence.edges again")
        downstream = os.path.join(kernel.root, edge["downstream_path"])
        recorded = await ctx.recorder.record(file_entry("coherence_resolve", ctx.connection, downstream))
        by = ctx.connection.actor
        try:
            result = await _ask(
                ctx,
                "resolve",
                lambda: kernel.resolve(txf, index, resolution, by=by, reason=reason, grant=grant.id),
                writes=True,
            )
        except VMarkError as exc:
            if getattr(exc, "code", None) != "TIMEOUT":
                await ctx.recorder.abort(recorded.entry_id)
            raise
    ctx.coherence.changed()
    return {**result, "grant": grant.id, "durable": recorded.durable}


ACTIONS = {"status": status, "edges": edges, "claims": claims, "contexts": contexts}
RESOLVE_ACTIONS = {"resolve": resolve}
