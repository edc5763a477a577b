"""Paged ``document.read``: offset and limit in code points, totalLength, nextOffset, STALE between pages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcp import Client

from tests.conftest import fail_code, ok
from tests.contract.helpers import open_tab, raw_error
from vmark.protocol.limits import OUTPUT_BOUND_BYTES
from vmark.testing.uiclient import UIClient

TEXT = "héllo 😀 wörld\n日本語\n"  # 18 code points; the emoji is one


async def _tab(mcp: Client, folder: Path, name: str, text: str) -> str:
    (folder / name).write_text(text, "utf-8")
    return await open_tab(mcp, folder / name)


async def test_offset_and_limit_count_code_points(mcp: Client, opened: Path) -> None:
    tab = await _tab(mcp, opened, "p.md", TEXT)
    whole = await ok(mcp, "document", "read", tabId=tab)
    assert (whole["content"], whole["totalLength"], "nextOffset" in whole) == (TEXT, 18, False)
    fields = {k: whole[k] for k in ("revision", "filePath", "kind", "dirty")}
    first = await ok(mcp, "document", "read", tabId=tab, limit=7)
    assert first == {"content": "héllo 😀", **fields, "totalLength": 18, "nextOffset": 7}
    second = await ok(mcp, "document", "read", tabId=tab, offset=7, limit=7, expected_revision=whole["revision"])
    assert second == {"content": " wörld\n", **fields, "totalLength": 18, "nextOffset": 14}
    last = await ok(mcp, "document", "read", tabId=tab, offset=14, limit=100)
    assert last == {"content": "日本語\n", **fields, "totalLength": 18}  # nothing remains: no nextOffset
    assert first["content"] + second["content"] + last["content"] == TEXT
    for offset in (18, 500):  # at or past the end: an empty page
        assert await ok(mcp, "document", "read", tabId=tab, offset=offset) == {
            "content": "",
            **fields,
            "totalLength": 18,
        }


async def test_page_arguments_are_checked(mcp: Client, opened: Path) -> None:
    tab = await _tab(mcp, opened, "p.md", TEXT)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"offset": -1}, "document.read: argument 'offset' must be an integer of at least 0"),
        ({"limit": 0}, "document.read: argument 'limit' must be an integer of at least 1"),
        ({"offset": "7"}, "document.read: argument 'offset' must be an integer"),
        ({"limit": 1.5}, "document.read: argument 'limit' must be an integer"),
        ({"offset": True}, "document.read: argument 'offset' must be an integer"),
        ({"expected_revision": 7}, "document.read: argument 'expected_revision' must be a string"),
    ]
    for args, message in cases:
        assert await raw_error(mcp, "document", {"action": "read", "tabId": tab, **args}) == message


async def test_a_long_document_is_read_page_by_page_then_written_with_its_revision(
    mcp: Client, opened: Path, person: UIClient
) -> None:
    line = 'a "quoted" line with \\ and \t and é, 😀 and \x01\n'
    text = line * (1_000_000 // len(line.encode())) + "the last line\n"
    tab = await _tab(mcp, opened, "long.md", text)
    result = await mcp.call_tool("document", {"action": "read", "tabId": tab})
    raw: str = result.content[0].text  # type: ignore[union-attr]
    assert len(raw.encode("utf-8")) <= OUTPUT_BOUND_BYTES and json.loads(raw) == result.structured_content
    first = dict(result.structured_content or {})
    assert "truncated" not in first and first["totalLength"] == len(text)
    # The page is about as long as fits (the room is reckoned with nextOffset as long as totalLength).
    assert first["nextOffset"] == len(first["content"])
    assert len(raw.encode("utf-8")) > OUTPUT_BOUND_BYTES - 2 * len(str(len(text))) - 6  # one \u0001 more
    pages, page = [first["content"]], first
    while "nextOffset" in page:
        page = await ok(
            mcp, "document", "read", tabId=tab, offset=page["nextOffset"], expected_revision=first["revision"]
        )
        pages.append(page["content"])
    assert "".join(pages) == text
    written = await ok(
        mcp,
        "document",
        "edit",
        tabId=tab,
        edits=[{"old": "the last line", "new": "the end"}],
        expected_revision=first["revision"],
    )
    assert written["applied"] is True
    # A document that changes between two pages: the later page answers STALE with the current revision.
    first = await ok(mcp, "document", "read", tabId=tab)
    revision = await person.edit(tab, "x" + (opened / "long.md").read_text("utf-8"))
    stale = await fail_code(
        mcp, "document", "read", tabId=tab, offset=first["nextOffset"], expected_revision=first["revision"]
    )
    assert (stale["error"], stale["current_revision"]) == ("STALE", revision)
    assert set(stale) == {"error", "message", "current_revision"}
