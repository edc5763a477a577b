"""What an agent's MCP server asks beside the tools: its clients' resources, prompts and completions.

Requests ``mcp.<family>.<op>`` on the bridge, each a thin adapter over a service (:class:`Resources`,
:class:`PromptService`). A URI that names no resource, an unknown prompt or a missing argument is a plain
argument error; a path outside the scope is ``INVALID_PATH``, as for the tools. A read of a tab's resource is a
read of its document, as ``document.read`` is (a later write's ``STALE_PARENT`` and coherence see it).
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

from ...core.model import Tab
from ...core.prompt_text import TAB_ARGUMENT
from ...protocol import surface
from ...protocol.errors import ArgumentError
from ...protocol.jsontypes import JSONObject
from ...protocol.limits import COMPLETION_MAX_VALUES
from ...storage.tree import list_files
from ..resources import FILE_TEMPLATE, TAB_TEMPLATE, TEMPLATES, NotFound
from . import selection
from .registry import OBJECT, STR, Action

if TYPE_CHECKING:
    from ..context import RequestContext


def _not_found(uri: str, exc: NotFound) -> ArgumentError:
    return ArgumentError(f"Resource not found: {uri} ({exc})")


async def resources_list(ctx: RequestContext, args: JSONObject) -> surface.Resources:
    return {"resources": ctx.resources.listing()}


async def resources_templates(ctx: RequestContext, args: JSONObject) -> surface.ResourceTemplates:
    return {"resourceTemplates": TEMPLATES}


async def resources_read(ctx: RequestContext, args: JSONObject) -> surface.ResourceRead:
    uri: str = args["uri"]
    try:
        contents, tab = await ctx.resources.read(uri)
    except NotFound as exc:
        raise _not_found(uri, exc) from None
    if tab is not None:
        tab.basis_seq = tab.doc.write_seq
        ctx.coherence.note_read(ctx.connection, tab.doc)
    return {"contents": [contents]}


async def resources_check(ctx: RequestContext, args: JSONObject) -> surface.ResourceChecked:
    """A subscription's URI: a resource the agent may read, or the refusal a read would get."""
    uri: str = args["uri"]
    try:
        ctx.resources.check(uri)
    except NotFound as exc:
        raise _not_found(uri, exc) from None
    return {"uri": uri}


async def prompts_list(ctx: RequestContext, args: JSONObject) -> surface.Prompts:
    return {"prompts": ctx.prompts.listing()}


async def prompts_get(ctx: RequestContext, args: JSONObject) -> surface.PromptGot:
    arguments = args.get("arguments") or {}
    if not all(isinstance(v, str) for v in arguments.values()):
        raise ArgumentError("a prompt's arguments are text: {name: value}")

    async def selection_of(tab: Tab) -> str:
        answer = await selection.get(ctx, {"tabId": tab.id})
        return str(answer["text"])

    return await ctx.prompts.get(args["name"], arguments, selection_of)


async def complete(ctx: RequestContext, args: JSONObject) -> surface.Completion:
    """``completion/complete``: values for a prompt's or a resource template's argument that start with (or, for
    tabs and files, contain) what was typed."""
    ref, argument = args["ref"], args["argument"]
    name, value = argument.get("name"), argument.get("value", "")
    if not isinstance(name, str) or not isinstance(value, str):
        raise ArgumentError("completion needs argument {name, value} (strings)")
    if ref.get("type") == "ref/prompt":
        prompt = ctx.prompts.find(str(ref.get("name")))
        declared = prompt.argument(name)
        if declared is None:
            raise ArgumentError(f"prompt {prompt.name!r} has no argument {name!r}")
        if name == TAB_ARGUMENT:
            values = ctx.resources.complete_tab(value)
        else:
            values = [v for v in declared.values if v.lower().startswith(value.lower())]
    elif ref.get("type") == "ref/resource":
        uri = ref.get("uri")
        if uri == TAB_TEMPLATE and name == "tabId":
            values = ctx.resources.complete_tab(value)
        elif uri == FILE_TEMPLATE and name == "path":
            values = await _paths(ctx, value)
        else:
            raise ArgumentError(f"no resource template {uri!r} with an argument {name!r}")
    else:
        raise ArgumentError("ref must be {type: ref/prompt, name} or {type: ref/resource, uri}")
    shown = values[:COMPLETION_MAX_VALUES]
    return {"values": shown, "total": len(values), "hasMore": len(values) > len(shown)}


async def _paths(ctx: RequestContext, prefix: str) -> list[str]:
    roots = sorted({w.root for window in ctx.session.windows.values() for w in window.workspaces})

    def walk() -> list[str]:
        found: list[str] = []
        for root in roots:
            for item in list_files(root)[0]:
                path = os.path.join(root, item["path"])
                if path.startswith(prefix) or (not prefix.startswith("/") and prefix.lower() in path.lower()):
                    found.append(path)
        return found

    return await asyncio.to_thread(walk)


ACTIONS = {
    "mcp.resources.list": Action(resources_list),
    "mcp.resources.templates": Action(resources_templates),
    "mcp.resources.read": Action(resources_read, required={"uri": STR}),
    "mcp.resources.check": Action(resources_check, required={"uri": STR}),
    "mcp.prompts.list": Action(prompts_list),
    "mcp.prompts.get": Action(prompts_get, required={"name": STR}, optional={"arguments": OBJECT}),
    "mcp.complete": Action(complete, required={"ref": OBJECT, "argument": OBJECT}),
}
