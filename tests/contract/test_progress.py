"""``notifications/progress`` for long calls, when the client gives a progress token (official client).

Paged ``document.read`` reports how far through the text each page reaches; ``coherence.edges`` on a
large tree reports the files it reads (and the edges it checks). Without a token nothing is sent.
The same server code runs behind stdio and HTTP; one case goes over HTTP as well.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import make_client
from tests.contract.helpers import open_tab
from tests.http.helpers import client_with_url, http_server, post, sse_messages, tool_call, tool_call_headers
from vmark.app.server import RunningApp
from vmark.protocol.limits import OUTPUT_BOUND_BYTES
from vmark.storage.principals import Principals
from vmark.testing.uiclient import UIClient

Report = tuple[float, float | None, str | None]


class Recorder:
    def __init__(self) -> None:
        self.reports: list[Report] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.reports.append((progress, total, message))


async def _paged_reads(client: Client, tab: str) -> tuple[list[list[Report]], int]:
    """Read every page with a progress token; the reports of each call, and the text's length."""
    per_call: list[list[Report]] = []
    offset: int | None = 0
    revision = None
    total = 0
    while offset is not None:
        recorder = Recorder()
        args = {"action": "read", "tabId": tab, "offset": offset}
        if revision is not None:
            args["expected_revision"] = revision
        result = await client.call_tool("document", args, progress_callback=recorder)
        page = result.structured_content
        assert page is not None and not result.is_error, result.content
        revision, total, offset = page["revision"], page["totalLength"], page.get("nextOffset")
        per_call.append(recorder.reports)
    return per_call, total


@pytest.mark.parametrize("transport", ["in-memory", "http"])
async def test_paged_read_reports_how_far_each_page_reaches(
    transport: str, vmark: RunningApp, opened: Path, person: UIClient
) -> None:
    text = "".join(f"line {n:06d} of a very long document\n" for n in range(3 * OUTPUT_BOUND_BYTES // 30))
    (opened / "long.md").write_text(text, "utf-8")
    if transport == "http":
        token = Principals(vmark.data_dir / "principals.json").add("reader")
        async with http_server(vmark.data_dir) as url, client_with_url(url, token, "legacy") as client:
            tab = await open_tab(client, opened / "long.md")
            per_call, total = await _paged_reads(client, tab)
    else:
        async with make_client(vmark.data_dir) as client:
            tab = await open_tab(client, opened / "long.md")
            per_call, total = await _paged_reads(client, tab)
    assert total == len(text) and len(per_call) >= 3
    reached = [reports[0][0] for reports in per_call]
    assert all(len(reports) == 1 for reports in per_call), per_call
    assert [r[1:] for reports in per_call for r in reports] == [(total, "characters read")] * len(per_call)
    assert reached == sorted(set(reached)) and reached[-1] == total


async def test_a_whole_read_reports_nothing(vmark: RunningApp, opened: Path) -> None:
    async with make_client(vmark.data_dir) as client:
        tab = await open_tab(client, opened / "a.md")
        recorder = Recorder()
        await client.call_tool("document", {"action": "read", "tabId": tab}, progress_callback=recorder)
    assert recorder.reports == []  # one page holds it all: nothing to report


@pytest.mark.parametrize("token", ["read-1", 7, None], ids=["string token", "integer token", "no token"])
async def test_progress_on_the_wire_only_with_a_token(
    token: str | int | None, vmark: RunningApp, opened: Path, person: UIClient
) -> None:
    (opened / "long.md").write_text("x" * (2 * OUTPUT_BOUND_BYTES), "utf-8")
    alice = Principals(vmark.data_dir / "principals.json").add("alice")
    async with make_client(vmark.data_dir) as local:
        tab = await open_tab(local, opened / "long.md")
    request = tool_call("document", {"action": "read", "tabId": tab})
    if token is not None:
        request["params"]["_meta"]["progressToken"] = token
    async with http_server(vmark.data_dir) as url:
        response = await post(url, request, tool_call_headers("document", Authorization=f"Bearer {alice}"))
    assert response.status_code == 200, response.text
    messages = sse_messages(response.text)
    answer = messages[-1]["result"]["structuredContent"]
    notes = [m["params"] for m in messages[:-1]]
    if token is None:
        assert notes == []
    else:
        expected = {"progressToken": token, "progress": answer["nextOffset"], "total": answer["totalLength"]}
        assert notes == [{**expected, "message": "characters read"}]


async def test_coherence_edges_reports_the_files_it_reads(vmark: RunningApp, opened: Path, person: UIClient) -> None:
    await person.call("coherence.init", workspaceRoot=str(opened))
    many = 400
    for n in range(many):
        (opened / "bulk" / f"{n // 50:02d}").mkdir(parents=True, exist_ok=True)
        (opened / "bulk" / f"{n // 50:02d}" / f"doc{n:04d}.md").write_text(f"# doc {n}\n\nbody {n}\n", "utf-8")
    async with make_client(vmark.data_dir) as client:
        recorder = Recorder()
        result = await client.call_tool(
            "coherence", {"action": "edges", "workspace_root": str(opened)}, progress_callback=recorder
        )
        assert not result.is_error, result.content
    reports = recorder.reports
    assert reports and reports[-1] == (many, many, "reading changed files"), reports
    done = [r[0] for r in reports]
    assert done == sorted(set(done)) and all(r[1:] == (many, "reading changed files") for r in reports)
    # Nothing changed since: the next call reads nothing and reports nothing.
    async with make_client(vmark.data_dir) as client:
        again = Recorder()
        await client.call_tool("coherence", {"action": "edges", "workspace_root": str(opened)}, progress_callback=again)
    assert again.reports == []
