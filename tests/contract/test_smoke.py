"""One agent's read-write round trip, a stale write and an argument error: on both protocol versions."""

from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import fail, fail_code, ok

pytestmark = pytest.mark.legacy_protocol


async def test_read_write_roundtrip(mcp: Client, opened: Path) -> None:
    tab = (await ok(mcp, "workspace", "open", filePath=str(opened / "a.md")))["tabId"]
    doc = await ok(mcp, "document", "read", tabId=tab)
    assert doc["content"] == "# A\n\nalpha\n"
    out = await ok(mcp, "document", "write", tabId=tab, content="new\n", expected_revision=doc["revision"])
    assert out["saved"] is True and out["journaled"] == "yes"
    assert (opened / "a.md").read_bytes() == b"new\n"
    stale = await fail_code(mcp, "document", "write", tabId=tab, content="x", expected_revision=doc["revision"])
    assert stale["error"] == "STALE" and stale["current_revision"] == out["revision"]
    assert await fail(mcp, "document", "write", tabId=tab) == "document.write: missing required argument 'content'"
