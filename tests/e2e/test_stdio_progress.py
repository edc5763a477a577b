"""Progress over the real ``vmark mcp`` stdio process: a paged ``document.read`` with a progress token."""

from __future__ import annotations

import pytest

from tests.contract.test_progress import Recorder
from tests.e2e.conftest import StartApp
from tests.e2e.helpers import Home, stdio_client
from vmark.protocol.limits import OUTPUT_BOUND_BYTES


@pytest.mark.parametrize("mode", ["auto", "legacy"], ids=["protocol-current", "protocol-previous"])
async def test_paged_read_reports_progress_over_stdio(world: Home, start_app: StartApp, mode: str) -> None:
    text = "y" * (2 * OUTPUT_BOUND_BYTES)
    (world.workspace / "long.md").write_text(text, "utf-8")
    await start_app(world.workspace).aready()
    async with stdio_client(world, mode) as client:
        opened = await client.call_tool("workspace", {"action": "open", "filePath": str(world.workspace / "long.md")})
        assert opened.structured_content is not None, opened.content
        recorder = Recorder()
        args = {"action": "read", "tabId": opened.structured_content["tabId"]}
        page = (await client.call_tool("document", args, progress_callback=recorder)).structured_content
    assert page is not None and page["totalLength"] == len(text)
    assert recorder.reports == [(page["nextOffset"], len(text), "characters read")]
