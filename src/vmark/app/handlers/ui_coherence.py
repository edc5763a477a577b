"""The person's side of the coherence layer (the Coherence panel and ``vmark coherence``): switch tracking
on, read the breakdown, resolve edges without a delegation, govern claims and contexts, and grant or
revoke delegations. None of this is reachable over MCP: the canon stays the person's.

A workspace is named by ``workspaceRoot``; a page may leave it out for its window's active workspace.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from ...coherence.kernel import PERSON, CoherenceError, Kernel
from ...protocol import wire_types as wire
from ...protocol.errors import ArgumentError
from ...protocol.jsontypes import JSONObject
from ...protocol.limits import DELEGATION_DEFAULT_SECONDS
from ...storage.delegations import DelegationError, parse_duration
from ..coherence import CoherenceTimeout
from .registry import PersonAction

if TYPE_CHECKING:
    from ..context import RequestContext

T = TypeVar("T")


def _kernel(ctx: RequestContext, args: JSONObject) -> Kernel:
    root = args.get("workspaceRoot")
    if root is None and ctx.connection.window is not None:
        window = ctx.session.windows.get(ctx.connection.window)
        instance = window.workspace(window.active_workspace) if window else None
        root = instance.root if instance else None
    if root is None:
        raise ArgumentError("name the workspace: workspaceRoot (the window has no workspace open)")
    return ctx.coherence.kernel(root)


def _index(args: JSONObject) -> int:
    index = args.get("input")
    if not isinstance(index, int) or isinstance(index, bool):
        raise ArgumentError("argument 'input' must be an integer")
    return index


async def _run(ctx: RequestContext, call: Callable[[], T], *, changes: bool = False) -> T:
    try:
        result = await ctx.coherence.run(call)
    except CoherenceTimeout as exc:
        raise ArgumentError("the coherence kernel did not answer within 20 s; try again") from exc
    except (CoherenceError, DelegationError) as exc:
        raise ArgumentError(str(exc)) from exc
    if changes:
        ctx.coherence.changed()
    return result


async def overview(ctx: RequestContext, args: JSONObject) -> wire.CoherenceOverview:
    """What the panel shows: status, the open edges (grouped by the page), and whether tracking is on."""
    kernel = _kernel(ctx, args)

    def read() -> wire.CoherenceOverview:
        edges = kernel.edges() if kernel.initialized else []
        return {"workspaceRoot": str(kernel.root), "status": kernel.status(), "edges": edges}

    return await _run(ctx, read)


async def init(ctx: RequestContext, args: JSONObject) -> wire.CoherenceStatus:
    kernel = _kernel(ctx, args)
    return await _run(ctx, kernel.init, changes=True)


async def add_identities(ctx: RequestContext, args: JSONObject) -> wire.IdentitiesAdded:
    """The person's "Add identities": each tracked document without one gets it in its front matter (saved
    like any save; documents open with unsaved changes are skipped and get it when saved)."""
    kernel = _kernel(ctx, args)
    try:
        return await ctx.coherence.add_identities(kernel)
    except CoherenceTimeout as exc:
        raise ArgumentError("the coherence kernel did not answer within 20 s; try again") from exc
    except CoherenceError as exc:
        raise ArgumentError(str(exc)) from exc


async def resolve(ctx: RequestContext, args: JSONObject) -> wire.Resolved:
    kernel = _kernel(ctx, args)
    txf, index = args["txf"], _index(args)
    resolution = args["resolution"]
    reason = args.get("reason")
    expires = args.get("expires")
    if reason is not None and not isinstance(reason, str):
        raise ArgumentError("argument 'reason' must be a string")
    return await _run(
        ctx,
        lambda: kernel.resolve(txf, index, resolution, by=PERSON, reason=reason, expires=expires),
        changes=True,
    )


async def diff(ctx: RequestContext, args: JSONObject) -> wire.EdgeTexts:
    """An edge with the upstream's pinned and current text, for "revise"."""
    kernel = _kernel(ctx, args)
    txf, index = args["txf"], _index(args)
    return await _run(ctx, lambda: kernel.edge_texts(txf, index))


async def claims(ctx: RequestContext, args: JSONObject) -> wire.Claims:
    kernel = _kernel(ctx, args)
    return {"claims": await _run(ctx, kernel.claims)}


async def claim_add(ctx: RequestContext, args: JSONObject) -> wire.ClaimPut:
    kernel = _kernel(ctx, args)
    statement = args["statement"]
    maturity = args.get("maturity", "draft")
    supersedes = args.get("supersedes")
    return await _run(ctx, lambda: kernel.add_claim(statement, maturity, supersedes), changes=True)


async def claim_update(ctx: RequestContext, args: JSONObject) -> wire.ClaimPut:
    kernel = _kernel(ctx, args)
    claim = args["claim"]
    changes: JSONObject = {k: args[k] for k in ("statement", "maturity", "invalidAt") if k in args}
    if not changes:
        raise ArgumentError("nothing to change: give statement, maturity or invalidAt")
    return await _run(ctx, lambda: kernel.update_claim(claim, changes), changes=True)


async def contexts(ctx: RequestContext, args: JSONObject) -> wire.Contexts:
    kernel = _kernel(ctx, args)
    return {"contexts": await _run(ctx, kernel.contexts)}


async def context_save(ctx: RequestContext, args: JSONObject) -> wire.Contexts:
    kernel = _kernel(ctx, args)
    context_id = args["id"]
    data: JSONObject = {k: args[k] for k in ("name", "parent", "enforcement", "include", "exclude") if k in args}
    return {"contexts": await _run(ctx, lambda: kernel.save_context(context_id, data), changes=True)}


async def context_delete(ctx: RequestContext, args: JSONObject) -> wire.Contexts:
    kernel = _kernel(ctx, args)
    context_id = args["id"]
    return {"contexts": await _run(ctx, lambda: kernel.delete_context(context_id), changes=True)}


async def delegations_list(ctx: RequestContext, args: JSONObject) -> wire.Delegations:
    now = time.time()
    return {
        "grants": [g.describe(now) for g in ctx.coherence.delegations.list()],
        "principals": [p["name"] for p in ctx.principals.list()],
    }


async def delegations_grant(ctx: RequestContext, args: JSONObject) -> wire.Delegation:
    principal = args["principal"]
    scope = args.get("scope")
    if not isinstance(scope, list) or not all(isinstance(s, str) for s in scope):
        raise ArgumentError("argument 'scope' must be a list of resolutions")
    expires = args.get("expires")
    workspace = args.get("workspaceRoot")
    if workspace is not None and not isinstance(workspace, str):
        raise ArgumentError("argument 'workspaceRoot' must be a string")

    def grant() -> wire.Delegation:
        seconds = DELEGATION_DEFAULT_SECONDS if expires is None else parse_duration(str(expires))
        made = ctx.coherence.delegations.grant(principal, scope, seconds=seconds, workspace=workspace)
        return made.describe(time.time())

    return await _run(ctx, grant, changes=True)


async def delegations_revoke(ctx: RequestContext, args: JSONObject) -> wire.Delegation:
    grant_id = args["id"]
    revoked = await _run(ctx, lambda: ctx.coherence.delegations.revoke(grant_id), changes=True)
    return revoked.describe(time.time())


ACTIONS = {
    "coherence.overview": PersonAction(overview),
    "coherence.init": PersonAction(init),
    "coherence.add_identities": PersonAction(add_identities),
    "coherence.resolve": PersonAction(resolve, checks=("txf", "resolution"), values=("resolution",)),
    "coherence.diff": PersonAction(diff, checks=("txf",)),
    "coherence.claims": PersonAction(claims),
    "coherence.claim_add": PersonAction(claim_add, checks=("statement",)),
    "coherence.claim_update": PersonAction(claim_update, checks=("claim",)),
    "coherence.contexts": PersonAction(contexts),
    "coherence.context_save": PersonAction(context_save, checks=("id",)),
    "coherence.context_delete": PersonAction(context_delete, checks=("id",)),
    "delegations.list": PersonAction(delegations_list),
    "delegations.grant": PersonAction(delegations_grant, checks=("principal",)),
    "delegations.revoke": PersonAction(delegations_revoke, checks=("id",)),
}
