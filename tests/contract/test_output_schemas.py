"""Every tool declares an ``outputSchema`` and every result's ``structuredContent`` conforms to it (MCP 2025-06-18),
checked here with jsonschema through the official client; error results carry the spec's envelope (domain
errors) or no ``structuredContent`` (argument errors), as MCP leaves error results outside the output schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import mcp_types as types
import pytest
from mcp import Client

from tests.conftest import call
from vmark.app.server import RunningApp
from vmark.protocol.results import ERROR_SCHEMA, RESULTS, output_schema
from vmark.protocol.schema import json_schema
from vmark.protocol.tools import TOOLS
from vmark.testing.uiclient import UIClient

pytestmark = pytest.mark.legacy_protocol


async def _schemas(client: Client) -> dict[str, dict[str, Any]]:
    listing = await client.list_tools()
    return {tool.name: tool.output_schema for tool in listing.tools if tool.output_schema is not None}


class _Checked:
    """Calls through the official client; every answer checked against the listed schema, on the spot."""

    def __init__(self, client: Client, schemas: dict[str, dict[str, Any]]) -> None:
        self.client, self.schemas, self.seen = client, schemas, set[tuple[str, str]]()

    async def ok(self, tool: str, action: str, **args: Any) -> dict[str, Any]:
        result = await call(self.client, tool, action, **args)
        assert not result.is_error, result.content
        structured = result.structured_content
        assert structured is not None
        jsonschema.validate(structured, self.schemas[tool], cls=jsonschema.Draft202012Validator)
        # and against the action's own result: anyOf alone could let an action answer another's shape
        jsonschema.validate(structured, json_schema(RESULTS[tool][action]), cls=jsonschema.Draft202012Validator)
        text = json.loads(result.content[0].text)  # type: ignore[union-attr]
        # an array answer travels as itself in the text and as {"result": [...]} in structuredContent
        assert text == (structured["result"] if isinstance(text, list) else structured)
        self.seen.add((tool, action))
        return dict(structured)

    async def domain_error(self, tool: str, action: str, **args: Any) -> dict[str, Any]:
        result = await call(self.client, tool, action, **args)
        assert result.is_error
        envelope = result.structured_content
        assert envelope is not None
        jsonschema.validate(envelope, ERROR_SCHEMA, cls=jsonschema.Draft202012Validator)
        return dict(envelope)

    async def argument_error(self, tool: str, arguments: dict[str, Any]) -> str:
        result: types.CallToolResult = await self.client.call_tool(tool, arguments)
        assert result.is_error and result.structured_content is None
        text: str = result.content[0].text  # type: ignore[union-attr]
        return text


async def test_every_tool_lists_a_valid_output_schema_for_each_of_its_actions(mcp: Client) -> None:
    schemas = await _schemas(mcp)
    assert set(schemas) == set(TOOLS)
    for name, spec in TOOLS.items():
        assert set(RESULTS[name]) == set(spec.actions), name
        jsonschema.Draft202012Validator.check_schema(schemas[name])
        assert schemas[name] == output_schema(name)


def test_a_result_without_a_required_key_or_of_the_wrong_type_does_not_conform() -> None:
    """The schemas can fail: a missing key, a wrong type, a wrong enum value each break them."""
    schema = output_schema("workspace")
    valid = jsonschema.Draft202012Validator(schema)
    assert valid.is_valid({"tabId": "tab-1"})
    assert not valid.is_valid({"tabId": 7})
    assert not valid.is_valid({"closed": "yes"})
    assert not valid.is_valid({"closed": False, "reason": "LOST"})
    written = jsonschema.Draft202012Validator(output_schema("document"))
    assert not written.is_valid({"revision": "rev-aaaaaaaa", "applied": True})  # no durable, no read's keys
    assert not written.is_valid({"revision": "rev-a", "applied": True, "durable": True, "journaled": "maybe"})
    assert not jsonschema.Draft202012Validator(output_schema("coherence")).is_valid({"result": [{"txf": "t"}]})


async def test_every_editor_action_answers_its_schema(
    mcp: Client, vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    checked = _Checked(mcp, await _schemas(mcp))
    (opened / "a.md").write_text("# A\n\nfirst\n", encoding="utf-8")
    (opened / "b.md").write_text("# B\n", encoding="utf-8")
    workflow = opened / ".github" / "workflows" / "ci.yml"
    workflow.parent.mkdir(parents=True, exist_ok=True)
    workflow.write_text("name: ci\non: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: x\n")

    state = await checked.ok("session", "get_state")
    cursor = (await checked.ok("session", "changes"))["cursor"]
    tab = (await checked.ok("workspace", "open", filePath=str(opened / "a.md")))["tabId"]
    other = (await checked.ok("workspace", "open", filePath=str(opened / "b.md")))["tabId"]
    read = await checked.ok("document", "read", tabId=tab)
    assert read["content"] == "# A\n\nfirst\n" and read["kind"] == "markdown"
    paged = await checked.ok("document", "read", tabId=tab, limit=2)
    assert paged["nextOffset"] == 2
    second = "# A\n\nsecond\n"
    written = await checked.ok("document", "write", tabId=tab, content=second, expected_revision=read["revision"])
    assert written["saved"] is True and written["applied"] is True
    unsaved = await checked.ok("document", "write", tabId=tab, content="# A\n\nthird\n", save=False)
    assert unsaved["save_skipped"] == "opt_out"
    await checked.ok("document", "edit", tabId=tab, edits=[{"old": "third", "new": "fourth"}])
    await checked.ok("document", "transform", tabId=tab, kind="cjk-spacing")
    await checked.ok("workspace", "save", tabId=tab)
    refusal = await checked.domain_error("workspace", "save_as", tabId=tab, filePath=str(opened / "c.md"))
    assert refusal["error"] == "APPROVAL_REQUIRED"
    vmark.app.settings.set("auto_approve_save_as", True)
    await checked.ok("workspace", "save_as", tabId=tab, filePath=str(opened / "c.md"))
    await checked.ok("workspace", "switch_tab", tabId=other)
    await checked.ok("workspace", "focus_window", windowLabel="main")
    untitled = (await checked.ok("workspace", "new"))["tabId"]
    await checked.ok("document", "write", tabId=untitled, content="draft\n")
    refused = await checked.ok("workspace", "close", tabId=untitled)
    assert refused == {"closed": False, "reason": "DIRTY"}
    assert await checked.ok("workspace", "close", tabId=untitled, force=True) == {"closed": True}
    asks = await checked.ok("workspace", "open_workspace", folderPath=str(opened.parent))
    assert asks["needsApproval"] is True
    flow = (await checked.ok("workspace", "open", filePath=str(workflow)))["tabId"]
    await checked.ok("workflow", "validate", tabId=flow)
    patch = [{"kind": "job.set", "jobId": "build", "path": "timeout-minutes", "value": 5}]
    await checked.ok("workflow", "apply_patch", tabId=flow, patches=patch)
    await checked.ok("comments", "list", tabId=tab)
    await checked.ok("session", "changes", since=cursor)
    root = str(opened)
    await person.call("coherence.init", workspaceRoot=root)
    for action in ("status", "edges", "claims", "contexts"):
        await checked.ok("coherence", action, workspace_root=root)
    assert state["capabilities"]["supportedKinds"] == ["markdown", "yaml-workflow"]

    stale = await checked.domain_error("document", "write", tabId=tab, content="x", expected_revision="rev-00000000")
    assert stale["error"] == "STALE" and isinstance(stale["current_revision"], str)
    missing = await checked.domain_error("document", "read", tabId="tab-nope")
    assert missing["error"] == "INVALID_TAB"
    text = await checked.argument_error("document", {"action": "write", "tabId": tab})
    assert text == "document.write: missing required argument 'content'"
