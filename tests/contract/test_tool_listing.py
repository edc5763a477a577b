"""The tool list, the schemas and annotations, argument errors and the 75,000-byte output bound."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import ok
from tests.contract.helpers import open_tab, raw_error
from vmark.mcp.render import render

#: the listing, the schemas and both forms of errors, on both protocol versions
pytestmark = pytest.mark.legacy_protocol

BOUND = 75_000

EXPECTED_ACTIONS = {
    "session": ["get_state", "changes"],
    "workspace": ["new", "open", "open_workspace", "save", "save_as", "close", "switch_tab", "focus_window"],
    "document": ["read", "write", "edit", "transform"],
    "workflow": ["apply_patch", "validate"],
    "comments": ["list", "reply", "mark_addressed"],
    "browser": [
        "act",
        "open",
        "navigate",
        "close",
        "style",
        "execute_js",
        "console_clear",
        "workflow_run",
        "workflow_cancel",
        "workflow_record",
        "session_save",
        "session_load",
    ],
    "browser_read": ["read", "screenshot", "query", "extract", "console", "wait", "wait_for", "workflow_status"],
    "coherence": ["status", "edges", "claims", "contexts"],
    "coherence_resolve": ["resolve"],
}
EXPECTED_FIELDS: dict[str, dict[str, str]] = {
    "session": {"since": "string", "tabId": "string", "kinds": "array", "wait_ms": "integer"},
    "workspace": {
        "kind": "string",
        "windowLabel": "string",
        "filePath": "string",
        "folderPath": "string",
        "tabId": "string",
        "force": "boolean",
    },
    "document": {
        "tabId": "string",
        "content": "string",
        "offset": "integer",
        "limit": "integer",
        "edits": "array",
        "expected_revision": "string",
        "addresses": "array",
        "save": "boolean",
        "kind": "string",
    },
    "workflow": {"tabId": "string", "patches": "array", "expected_revision": "string", "addresses": "array"},
    "comments": {
        "tabId": "string",
        "cursor": "string",
        "commentId": "string",
        "body": "string",
        "expectedCommentGen": "string",
    },
    "browser": {
        "tabId": "string",
        "operation": "string",
        "ref": "string",
        "role": "string",
        "name": "string",
        "text": "string",
        "dy": "integer",
        "key": "string",
        "modifiers": "object",
        "url": "string",
        "timeoutMs": "integer",
        "profile": "string",
        "selector": "string",
        "set": "object",
        "addClasses": "array",
        "removeClasses": "array",
        "injectCss": "string",
        "script": "string",
        "source": "string",
        "inputs": "object",
        "allowRepeat": "boolean",
        "resumeRunId": "string",
        "runId": "string",
        "recordOp": "string",
        "site": "string",
        "handle": "string",
    },
    "browser_read": {
        "tabId": "string",
        "selector": "string",
        "fields": "object",
        "navigationId": "string",
        "timeoutMs": "integer",
        "ref": "string",
        "role": "string",
        "name": "string",
        "text": "string",
        "urlContains": "string",
        "runId": "string",
    },
    "coherence": {"workspace_root": "string"},
    "coherence_resolve": {
        "workspace_root": "string",
        "txf": "string",
        "input": "integer",
        "resolution": "string",
        "reason": "string",
    },
}


async def _tools(client: Client) -> dict[str, Any]:
    return {tool.name: tool for tool in (await client.list_tools()).tools}


ANNOTATIONS = {
    "session": (True, False),
    "workspace": (False, True),
    "document": (False, True),
    "workflow": (False, True),
    "comments": (False, False),
    "browser": (False, True),
    "browser_read": (True, False),
    "coherence": (True, False),
    "coherence_resolve": (False, True),
}


async def test_tools_annotations_and_instructions(mcp: Client) -> None:
    tools = await _tools(mcp)
    # exactly the registered tools
    assert sorted(tools) == [
        "browser",
        "browser_read",
        "coherence",
        "coherence_resolve",
        "comments",
        "document",
        "selection",
        "session",
        "workflow",
        "workspace",
    ]
    for name, (read_only, destructive) in ANNOTATIONS.items():
        annotations = tools[name].annotations
        assert annotations.read_only_hint is read_only, name
        assert annotations.destructive_hint is destructive, name
        assert annotations.open_world_hint is name.startswith("browser"), name
        assert tools[name].description, name
    assert tools["session"].annotations.idempotent_hint is True
    assert tools["workflow"].annotations.idempotent_hint is True  # a patch applied twice is a no-op
    assert tools["comments"].annotations.idempotent_hint is True  # a repeated reply returns the first result
    # Server-level instructions carry the recommended workflow.
    text = mcp.instructions
    assert text
    for needle in ("session.get_state", "document.read", "document.write", "expected_revision", "workspace"):
        assert needle in text, needle
    # ... and how to read a long document page by page, and how to make a small change to it.
    for needle in ("`offset` = `nextOffset`", "totalLength", "`document.edit`", "EDIT_NOT_FOUND", "EDIT_AMBIGUOUS"):
        assert needle in text, needle
    description = tools["document"].description
    for needle in ("offset = nextOffset", "expected_revision", "edits [{old, new}]", "EDIT_AMBIGUOUS", "STALE"):
        assert needle in description, needle


def _check_schema(name: str, schema: dict[str, Any]) -> None:
    assert schema["type"] == "object"
    assert schema["required"] == ["action"]
    properties = schema["properties"]
    assert properties["action"]["type"] == "string"
    assert properties["action"]["enum"] == EXPECTED_ACTIONS[name]
    fields = {key: value["type"] for key, value in properties.items() if key != "action"}
    assert fields == EXPECTED_FIELDS[name]
    for value in properties.values():
        assert value["type"] in ("string", "boolean", "integer", "array", "object")  # flat: no nested objects


async def test_input_schemas_are_a_flat_action_enum_plus_optional_fields(mcp: Client) -> None:
    tools = await _tools(mcp)
    for name in EXPECTED_ACTIONS:
        _check_schema(name, tools[name].input_schema)
    assert tools["workspace"].input_schema["properties"]["kind"]["enum"] == ["markdown", "yaml-workflow"]
    assert tools["document"].input_schema["properties"]["addresses"]["items"] == {"type": "string"}


ARGUMENT_ERRORS: list[tuple[str, dict[str, Any], str]] = [
    ("nope", {"action": "get_state"}, "nope"),
    ("session", {"action": "explode"}, "explode"),
    ("session", {}, "action"),
    ("session", {"action": 7}, "action"),
    ("session", {"action": "get_state", "bogus": 1}, "bogus"),
    ("document", {"action": "write"}, "content"),
    ("document", {"action": "write", "content": 5}, "content"),
    ("document", {"action": "write", "content": "x", "save": "yes"}, "save"),
    ("document", {"action": "write", "content": "x", "addresses": "c-1"}, "addresses"),
    ("document", {"action": "write", "content": "x", "addresses": [1]}, "addresses"),
    ("document", {"action": "read", "content": "x"}, "content"),
    ("document", {"action": "read", "tabId": 3}, "tabId"),
    ("workspace", {"action": "open"}, "filePath"),
    ("workspace", {"action": "open_workspace", "folderPath": "/tmp", "windowLabel": "main"}, "windowLabel"),
    ("workspace", {"action": "open_workspace"}, "folderPath"),
    ("workspace", {"action": "new", "kind": "html"}, "kind"),
    ("workspace", {"action": "close"}, "tabId"),
    ("workspace", {"action": "close", "tabId": "tab-x", "force": "yes"}, "force"),
    ("workspace", {"action": "save_as", "tabId": "tab-x"}, "filePath"),
    ("workspace", {"action": "switch_tab"}, "tabId"),
    ("workspace", {"action": "focus_window"}, "windowLabel"),
    ("workspace", {"action": "save", "filePath": "/tmp/x.md"}, "filePath"),
    ("comments", {"action": "resolve", "commentId": "c-0000000000"}, "resolve"),
    ("comments", {"action": "reply", "commentId": "c-0000000000", "body": "b"}, "expectedCommentGen"),
    ("comments", {"action": "mark_addressed", "expectedCommentGen": "g"}, "commentId"),
    ("comments", {"action": "list", "cursor": 3}, "cursor"),
]


async def test_argument_errors_are_plain_strings(mcp: Client) -> None:
    for tool, arguments, needle in ARGUMENT_ERRORS:
        assert needle in await raw_error(mcp, tool, arguments), (tool, arguments)


async def test_argument_error_changes_nothing(mcp: Client, opened: Path) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    before = await ok(mcp, "document", "read", tabId=tab)
    await raw_error(mcp, "document", {"action": "write", "tabId": tab, "content": "x", "expected_revision": 1})
    assert await ok(mcp, "document", "read", tabId=tab) == before
    assert (opened / "a.md").read_text("utf-8") == "# A\n\nalpha\n"


def _check_truncated(text: str, structured: dict[str, Any], content: str) -> None:
    assert len(text.encode("utf-8")) <= BOUND
    assert set(structured) == {"truncated", "truncation_note", "bytes_total", "bytes_shown", "preview"}
    assert structured["truncated"] is True
    assert isinstance(structured["truncation_note"], str) and "nextOffset" in structured["truncation_note"]
    preview = structured["preview"]
    assert structured["bytes_shown"] == len(preview.encode("utf-8")) > 0
    assert structured["bytes_total"] > BOUND
    assert structured["bytes_total"] >= len(content.encode("utf-8"))
    assert structured["bytes_shown"] < structured["bytes_total"]
    # The preview is the start of the result's JSON text: the content's beginning is in it.
    assert json.dumps(content[:200], ensure_ascii=False)[1:-1] in preview


LARGE = {
    "ascii": "# Big\n\n" + "lorem ipsum dolor sit amet\n" * 4000,
    "multibyte-escapes": "# Groß\n\n" + 'Grüße "€" 😀 日本語\n' * 3000,
    "three-byte-chars": "€" * 25_000,  # 75,000 bytes but only 25,000 characters: the bound counts bytes
}
FITTING = {"ascii": "x" * 70_000, "multibyte": "€" * 24_000}


async def _read_raw(client: Client, tab: str, **args: Any) -> tuple[str, dict[str, Any]]:
    result = await client.call_tool("document", {"action": "read", "tabId": tab, **args})
    assert not result.is_error, result.content
    text: str = result.content[0].text  # type: ignore[union-attr]
    assert json.loads(text) == result.structured_content
    return text, dict(result.structured_content or {})


async def test_a_long_document_comes_in_pages_within_the_bound(mcp: Client, opened: Path) -> None:
    for name, content in LARGE.items():
        (opened / f"big-{name}.md").write_text(content, "utf-8")
        tab = await open_tab(mcp, opened / f"big-{name}.md")
        text, first = await _read_raw(mcp, tab)
        assert len(text.encode("utf-8")) <= BOUND
        assert first["totalLength"] == len(content) and first["nextOffset"] == len(first["content"]) > 0
        pages, answer = [first["content"]], first
        while "nextOffset" in answer:
            text, answer = await _read_raw(
                mcp, tab, offset=answer["nextOffset"], expected_revision=first["revision"]
            )
            assert len(text.encode("utf-8")) <= BOUND, name
            assert answer["revision"] == first["revision"] and answer["totalLength"] == len(content)
            pages.append(answer["content"])
        assert "".join(pages) == content, name
        assert len(pages) >= 2, name
    for name, content in FITTING.items():  # results within the bound are whole
        (opened / f"fits-{name}.md").write_text(content, "utf-8")
        text, structured = await _read_raw(mcp, await open_tab(mcp, opened / f"fits-{name}.md"))
        assert len(text.encode("utf-8")) <= BOUND
        assert structured["content"] == content and "nextOffset" not in structured


def test_any_other_result_past_the_bound_is_replaced_by_the_truncation_note() -> None:
    for content in LARGE.values():
        result = render({"success": True, "data": {"items": [content]}})
        text: str = result.content[0].text  # type: ignore[union-attr]
        assert json.loads(text) == result.structured_content
        _check_truncated(text, dict(result.structured_content or {}), content)
