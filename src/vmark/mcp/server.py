"""The MCP server of ``vmark mcp`` (stdio) and ``vmark mcp --http``. Tools are thin adapters over the bridge."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import mcp_types as types
from mcp.server.caching import CacheHint
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions

from .. import __version__
from ..protocol.errors import ArgumentError
from ..protocol.results import output_schema
from ..protocol.tools import TOOLS, ToolSpec
from .bridge_client import BridgeClient, BridgeUnavailable, OnProgress
from .notify import Notifier
from .render import render, render_error
from .surface import AppAnswer

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
VMark is a Markdown workspace the user edits at the same time as you. Recommended workflow:
- Call `session.get_state` once to see windows and tabs ({id, filePath, dirty, revision, kind, active, visible}).
- Small Markdown changes or full rewrites: `document.read` -> reason -> `document.write` with
  `expected_revision` set to the revision you read. `STALE` means the user (or another agent) changed it:
  read again and retry. `BUSY` means the user is typing with an input method: retry shortly.
- Long documents: `document.read` answers at most one page that fits an answer, with `totalLength` and, while
  more remains, `nextOffset`. Read on with `offset` = `nextOffset` and `expected_revision` = the first page's
  revision (`STALE`: it changed meanwhile, start over); the pages joined are the content. `offset` and `limit`
  count characters (code points).
- Small changes to any document: `document.edit` with `edits: [{old, new}]` (each `old` exact text that occurs
  exactly once, in order; `EDIT_NOT_FOUND` / `EDIT_AMBIGUOUS` name the edit and the count, nothing changes),
  with `expected_revision`: you send only the change, not the whole text.
- Targeted edits of a large file the user has selected: `selection.get` -> reason -> `selection.set`.
- GitHub Actions YAML (kind `yaml-workflow`): `workflow.apply_patch` for edits that keep comments and
  anchors; `workflow.validate` for actionlint diagnostics.
- Files, tabs and windows (open, save, save_as, close, switch_tab) live on `workspace`. `open` works only
  inside the open workspace; `open_workspace` needs the user's approval: on `{needsApproval: true}` ask the
  user, then repeat the same call.
- Every write is journaled and shown to the user as an (mcp) revision; never try to hide a change.
- Hear what the user did: call `session.changes` once without `since` for a cursor; then the loop is read ->
  write -> `session.changes` with `since` = the last cursor (and `wait_ms` to wait for the user): the user's
  edits per tab (line ranges and revisions, not the text: read again), saves, tabs opened / closed / switched,
  files changed on disk, the user's verdicts on YOUR changes (accepted / rejected, with the change's text),
  comments and replies the user wrote, approvals decided, and where the user's selection rests.
  `CURSOR_EXPIRED`: too much happened; read the documents again and go on from `oldest_cursor`.
- Open documents are also MCP resources (`vmark://tabs/{tabId}`, files as `file:///path`), with subscriptions;
  the user's prompt templates are MCP prompts.
"""


def tool_definition(spec: ToolSpec) -> types.Tool:
    a = spec.annotations
    return types.Tool(
        name=spec.name,
        description=spec.description,
        input_schema=spec.input_schema(),
        output_schema=output_schema(spec.name),
        annotations=types.ToolAnnotations(
            read_only_hint=a.read_only,
            destructive_hint=a.destructive,
            idempotent_hint=a.idempotent,
            open_world_hint=a.open_world,
        ),
    )


class ToolRouter:
    """Checks arguments against the tool registry and forwards them to the app."""

    def __init__(self, bridge: BridgeClient) -> None:
        self.bridge = bridge

    async def call(
        self, name: str, arguments: dict[str, Any] | None, progress: OnProgress | None = None
    ) -> types.CallToolResult:
        spec = TOOLS.get(name)
        try:
            if spec is None:
                raise ArgumentError(f"unknown tool {name!r}; expected one of: {', '.join(TOOLS)}")
            action, args = spec.check(arguments or {})
        except ArgumentError as exc:
            return render_error(exc.message)
        try:
            response = await self.bridge.request(f"vmark.{name}.{action}", args, progress)
        except BridgeUnavailable as exc:  # raised before the request left: nothing happened
            return render_error(f"VMark app unavailable: {exc}. The call was not sent; nothing was changed.")
        except ConnectionError as exc:  # lost after the request left
            return render_error(f"VMark app unavailable: {exc}. The outcome of this call is unknown; read first.")
        return render(response)


#: the bridge connection a request is served over: one for the whole process on stdio, one per session on HTTP
BridgeFor = Callable[[ServerRequestContext[Any]], BridgeClient]


def _the_one(bridge: BridgeClient) -> BridgeFor:
    return lambda ctx: bridge


def client_name_of(ctx: ServerRequestContext[Any]) -> str | None:
    """The name the MCP client gave itself in ``initialize`` (or a sessionless request's envelope), if any."""
    params = ctx.session.client_params
    info = getattr(params, "client_info", None) if params is not None else None
    name = getattr(info, "name", None)
    return name if isinstance(name, str) else None


async def named_bridge(bridge_for: BridgeFor, ctx: ServerRequestContext[Any]) -> BridgeClient:
    """The request's bridge connection, told the client's name first (the app shows the agent by it)."""
    bridge = bridge_for(ctx)
    await bridge.name_client(client_name_of(ctx))
    return bridge


#: documents change at any moment (the person types): every list and read is fresh for no time, and private
#: to the client that asked (what a principal may see is the app's to decide each time)
_FRESH = CacheHint(ttl_ms=0, scope="private")
CACHE_HINTS: dict[Any, CacheHint] = {
    "tools/list": CacheHint(ttl_ms=60_000, scope="private"),
    "prompts/list": _FRESH,
    "resources/list": _FRESH,
    "resources/templates/list": _FRESH,
    "resources/read": _FRESH,
}


class VMarkServer(Server[Any]):
    """The SDK's server, saying in every handshake that the resource and prompt lists notify of changes."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        notification_options = notification_options or NotificationOptions(prompts_changed=True, resources_changed=True)
        return super().create_initialization_options(notification_options, experimental_capabilities, extensions)


def build_server(bridge: BridgeClient | BridgeFor, notifier: Notifier | None = None) -> Server[Any]:
    bridge_for = _the_one(bridge) if isinstance(bridge, BridgeClient) else bridge
    notifier = notifier or Notifier()

    def app(ctx: ServerRequestContext[Any]) -> AppAnswer:
        the_bridge = bridge_for(ctx)
        the_bridge.remember_client(client_name_of(ctx))  # sent with the connection, or with the next tool call
        notifier.heard_by(the_bridge, ctx)
        return AppAnswer(the_bridge)

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool_definition(spec) for spec in TOOLS.values()])

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        # The app reports progress of long work; the session sends it on as notifications/progress when the
        # client asked (a progressToken, or a callback in-process) and drops it otherwise. Whether it asked
        # is not visible here for every transport, so the app is always asked (a few small frames per call).
        progress = ctx.session.report_progress
        return await ToolRouter(await named_bridge(bridge_for, ctx)).call(params.name, params.arguments, progress)

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return await app(ctx).resources()

    async def list_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return await app(ctx).templates()

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await app(ctx).read(str(params.uri))

    async def subscribe(ctx: ServerRequestContext[Any], params: types.SubscribeRequestParams) -> types.EmptyResult:
        uri = str(params.uri)
        await app(ctx).check(uri)
        notifier.subscribe(bridge_for(ctx), ctx, uri)
        return types.EmptyResult()

    async def unsubscribe(ctx: ServerRequestContext[Any], params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        notifier.unsubscribe(bridge_for(ctx), ctx, str(params.uri))
        return types.EmptyResult()

    async def listen(
        ctx: ServerRequestContext[Any], params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        asked = params.notifications.resource_subscriptions or []
        for uri in asked:  # every URI is checked as a read is, before the stream opens
            await app(ctx).check(uri)
        return await notifier.listen(bridge_for(ctx), ctx, params)

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return await app(ctx).prompts()

    async def get_prompt(ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams) -> types.GetPromptResult:
        return await app(ctx).prompt(params)

    async def complete(ctx: ServerRequestContext[Any], params: types.CompleteRequestParams) -> types.CompleteResult:
        return await app(ctx).complete(params)

    return VMarkServer(
        "vmark",
        version=__version__,
        instructions=INSTRUCTIONS,
        cache_hints=CACHE_HINTS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
        on_subscribe_resource=subscribe,
        on_unsubscribe_resource=unsubscribe,
        on_subscriptions_listen=listen,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_completion=complete,
    )


async def run_stdio(bridge: BridgeClient) -> None:
    """Serve over stdin/stdout through our own line reader (every line the client sends is answered)."""
    from .stdio import stdio_transport

    server = build_server(bridge)
    async with stdio_transport() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
