"""Resources, prompts and completion: thin adapters that ask the app over the bridge (``mcp.<family>.<op>``).

What the app answers becomes the SDK's result types. A refusal is a JSON-RPC error ``-32602`` (Invalid params):
a resource that is not there says "Resource not found" with the URI in ``data`` (SEP-2164); a domain refusal
(``INVALID_PATH`` for a path outside the scope, ``INVALID_TAB``, ``NO_EDITOR``) carries the tools' envelope in
``data``, so a client can tell the codes apart as it does for tools.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from ..protocol.errors import parse_wire_error
from .bridge_client import BridgeClient, BridgeUnavailable


class AppAnswer:
    """One request to the app on behalf of a client, its refusal as the JSON-RPC error the client gets."""

    def __init__(self, bridge: BridgeClient) -> None:
        self.bridge = bridge

    async def ask(self, kind: str, payload: dict[str, Any], uri: str | None = None) -> dict[str, Any]:
        try:
            response = await self.bridge.request(kind, payload)
        except (BridgeUnavailable, ConnectionError) as exc:
            raise MCPError(types.INTERNAL_ERROR, f"VMark app unavailable: {exc}") from None
        if response.get("success"):
            data = response.get("data")
            return data if isinstance(data, dict) else {}
        error = parse_wire_error(str(response.get("error", "unknown error")))
        extra: dict[str, Any] = {} if uri is None else {"uri": uri}
        if isinstance(error, dict):
            message = f"{error.get('error')}: {error.get('message')}"
            raise MCPError(types.INVALID_PARAMS, message, {**error, **extra})
        if error.startswith("Resource not found"):
            raise MCPError(types.INVALID_PARAMS, "Resource not found", {**extra, "detail": error})
        raise MCPError(types.INVALID_PARAMS, error, extra or None)

    async def resources(self) -> types.ListResourcesResult:
        data = await self.ask("mcp.resources.list", {})
        return types.ListResourcesResult(resources=[types.Resource.model_validate(r) for r in data["resources"]])

    async def templates(self) -> types.ListResourceTemplatesResult:
        data = await self.ask("mcp.resources.templates", {})
        found = [types.ResourceTemplate.model_validate(t) for t in data["resourceTemplates"]]
        return types.ListResourceTemplatesResult(resource_templates=found)

    async def read(self, uri: str) -> types.ReadResourceResult:
        data = await self.ask("mcp.resources.read", {"uri": uri}, uri)
        contents = [types.TextResourceContents.model_validate(c) for c in data["contents"]]
        return types.ReadResourceResult(contents=list(contents))

    async def check(self, uri: str) -> None:
        """That a client may subscribe to ``uri``: the refusal a read would get, else nothing."""
        await self.ask("mcp.resources.check", {"uri": uri}, uri)

    async def prompts(self) -> types.ListPromptsResult:
        data = await self.ask("mcp.prompts.list", {})
        return types.ListPromptsResult(prompts=[types.Prompt.model_validate(p) for p in data["prompts"]])

    async def prompt(self, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        data = await self.ask("mcp.prompts.get", {"name": params.name, "arguments": params.arguments or {}})
        return types.GetPromptResult.model_validate(data)

    async def complete(self, params: types.CompleteRequestParams) -> types.CompleteResult:
        ref = params.ref.model_dump(by_alias=True, exclude_none=True)
        argument = params.argument.model_dump(by_alias=True, exclude_none=True)
        data = await self.ask("mcp.complete", {"ref": ref, "argument": argument})
        return types.CompleteResult(completion=types.Completion.model_validate(data))
