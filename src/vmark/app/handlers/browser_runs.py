"""``browser.workflow_run`` / ``workflow_cancel`` and ``browser_read.workflow_status``: thin adapters over
the workflow grammar (:mod:`vmark.browser.workflow`) and the run registry (:mod:`vmark.browser.runs`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...browser.workflow import WorkflowError, bind, parse
from ...protocol import browser_results
from ...protocol.errors import ArgumentError
from ...protocol.jsontypes import JSONObject

if TYPE_CHECKING:
    from ..context import RequestContext


async def workflow_run(ctx: RequestContext, args: JSONObject) -> browser_results.RunStarted:
    inputs = args.get("inputs") or {}
    try:
        workflow = parse(args["source"])
        steps = bind(workflow, inputs)
    except WorkflowError as exc:
        raise ArgumentError(f"browser.workflow_run: {exc}") from exc
    tab = ctx.browser.tab(args.get("tabId"), ai_only=True)
    return ctx.browser_runs.start(
        ctx.connection, tab, workflow, steps, inputs, bool(args.get("allowRepeat")), args.get("resumeRunId")
    )


async def workflow_cancel(ctx: RequestContext, args: JSONObject) -> browser_results.RunCancelled:
    ctx.browser.require_enabled()
    return await ctx.browser_runs.cancel(args["runId"], ctx.connection.requester, args.get("tabId"))


async def workflow_status(ctx: RequestContext, args: JSONObject) -> browser_results.RunStatus:
    ctx.browser.require_enabled()
    return ctx.browser_runs.status(args["runId"], ctx.connection.requester, args.get("tabId"))


ACTIONS = {"workflow_run": workflow_run, "workflow_cancel": workflow_cancel}
READ_ACTIONS = {"workflow_status": workflow_status}
