"""Sessions of ``vmark mcp --http``: one process, several clients, each its token's principal; the
``MCP-Protocol-Version`` header, ``DELETE`` of a session, and resuming an SSE stream with ``Last-Event-ID``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.conftest import ok
from tests.contract.helpers import journal, open_tab, wait_until
from tests.http.helpers import (
    ACCEPT,
    CURRENT,
    PREVIOUS,
    client_with_header,
    client_with_url,
    sse_messages,
)
from vmark.app.server import RunningApp
from vmark.storage.principals import Principals
from vmark.testing.uiclient import UIClient

JSON_HEADERS = {"Content-Type": "application/json", "Accept": ACCEPT}


def _agents(vmark: RunningApp) -> list[str | None]:
    return sorted(a["principal"] for a in vmark.app.page_push.page_state()["agents"])


@pytest.mark.parametrize("mode", ["auto", "legacy"], ids=["protocol-current", "protocol-previous"])
async def test_two_principals_in_one_process(
    mode: str, http_url: str, alice: str, bob: str, vmark: RunningApp, opened: Path, person: UIClient
) -> None:
    async with client_with_url(http_url, alice, mode) as a, client_with_header(http_url, bob, mode) as b:
        assert (a.protocol_version, b.protocol_version) == ((CURRENT,) * 2 if mode == "auto" else (PREVIOUS,) * 2)
        tab_a = await open_tab(a, opened / "a.md")
        tab_b = await open_tab(b, opened / "b.md")
        assert _agents(vmark) == ["alice", "bob"]  # two bridge connections, one per principal
        for client, tab, text in ((a, tab_a, "# by alice\n"), (b, tab_b, "# by bob\n")):
            revision = (await ok(client, "document", "read", tabId=tab))["revision"]
            await ok(client, "document", "write", tabId=tab, content=text, expected_revision=revision)
        by_file = {Path(e["file"]).name: e["principal"] for e in await journal(vmark)}
        assert by_file == {"a.md": "alice", "b.md": "bob"}
        assert (opened / "a.md").read_bytes() == b"# by alice\n" and (opened / "b.md").read_bytes() == b"# by bob\n"
    await wait_until(lambda: _agents(vmark) == [] or mode == "auto", "the sessions' bridge connections closed")


async def _open_session(http: httpx2.AsyncClient, url: str) -> str:
    init = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": PREVIOUS, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }  # fmt: skip
    response = await http.post(url, json=init, headers=JSON_HEADERS)
    assert response.status_code == 200, response.text
    [answer] = sse_messages(response.text)
    assert answer["result"]["protocolVersion"] == PREVIOUS
    session = response.headers["Mcp-Session-Id"]
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    headers = {**JSON_HEADERS, "Mcp-Session-Id": session, "MCP-Protocol-Version": PREVIOUS}
    assert (await http.post(url, json=note, headers=headers)).status_code == 202
    return session


def _get_state(request_id: int = 2) -> dict[str, Any]:
    params = {"name": "session", "arguments": {"action": "get_state"}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


async def test_delete_ends_the_session_and_its_bridge_connection(
    http_url: str, alice: str, bob: str, vmark: RunningApp
) -> None:
    url = f"{http_url}?token={alice}"
    async with httpx2.AsyncClient(timeout=30) as http:
        session = await _open_session(http, url)
        headers = {**JSON_HEADERS, "Mcp-Session-Id": session, "MCP-Protocol-Version": PREVIOUS}
        assert (await http.post(url, json=_get_state(), headers=headers)).status_code == 200
        assert _agents(vmark) == ["alice"]
        # Refused: without a token (401), with another principal's token (404: no such session for bob).
        assert (await http.delete(http_url, headers={"Mcp-Session-Id": session})).status_code == 401
        assert (await http.delete(f"{http_url}?token={bob}", headers={"Mcp-Session-Id": session})).status_code == 404
        assert (await http.post(url, json=_get_state(3), headers=headers)).status_code == 200  # still alive
        assert (await http.delete(url, headers={"Mcp-Session-Id": session})).status_code == 200
        await wait_until(lambda: _agents(vmark) == [], "the session's bridge connection closed")
        gone = await http.post(url, json=_get_state(4), headers=headers)
        assert gone.status_code == 404, gone.text
        assert (await http.delete(url, headers={"Mcp-Session-Id": session})).status_code == 404


async def test_protocol_version_header(http_url: str, alice: str, vmark: RunningApp) -> None:
    url = f"{http_url}?token={alice}"
    async with httpx2.AsyncClient(timeout=30) as http:
        session = await _open_session(http, url)
        base = {**JSON_HEADERS, "Mcp-Session-Id": session}
        for version in (PREVIOUS, None):  # absent: the spec's default for a session, still served
            headers = base if version is None else {**base, "MCP-Protocol-Version": version}
            answer = await http.post(url, json=_get_state(), headers=headers)
            assert answer.status_code == 200 and sse_messages(answer.text)[0]["result"]["isError"] is False
        for bad in ("1999-01-01", "2025-11-25x", ""):
            refused = await http.post(url, json=_get_state(), headers={**base, "MCP-Protocol-Version": bad})
            assert refused.status_code == 400, refused.text
            error = json.loads(refused.text)["error"]
            assert error["code"] == -32022 and bad in error["message"] and CURRENT in error["message"]


async def test_sse_stream_resumes_after_last_event_id(http_url: str, alice: str, vmark: RunningApp) -> None:
    url = f"{http_url}?token={alice}"
    async with httpx2.AsyncClient(timeout=30) as http:
        session = await _open_session(http, url)
        headers = {**JSON_HEADERS, "Mcp-Session-Id": session, "MCP-Protocol-Version": PREVIOUS}
        first = await http.post(url, json=_get_state(), headers=headers)
        events = _sse_events(first.text)
        # The priming event (an id, no data) comes first; the answer follows under its own id.
        assert [bool(e.get("data")) for e in events] == [False, True] and all(e.get("id") for e in events)
        answer = json.loads(events[1]["data"])
        assert answer["id"] == 2 and answer["result"]["isError"] is False
        # A client that lost the stream after the priming event asks for the rest and gets the answer again.
        resume = {**headers, "Accept": "text/event-stream", "Last-Event-ID": events[0]["id"]}
        async with http.stream("GET", url, headers=resume) as stream:
            assert stream.status_code == 200
            replayed = await _first_data_event(stream)
        assert replayed == {"id": events[1]["id"], "data": events[1]["data"], "event": "message"}
        # An id the store never issued resumes nothing.
        unknown = {**resume, "Last-Event-ID": "no-such-event"}
        async with http.stream("GET", url, headers=unknown) as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")


def _sse_events(body: str) -> list[dict[str, str]]:
    events: list[dict[str, str]] = []
    for block in body.replace("\r\n", "\n").split("\n\n"):
        event = _sse_event(block)
        if event:
            events.append(event)
    return events


def _sse_event(block: str) -> dict[str, str]:
    event: dict[str, str] = {}
    for line in block.split("\n"):
        field, sep, value = line.partition(":")
        if sep and field in ("id", "data", "event", "retry"):
            event[field] = value[1:] if value.startswith(" ") else value
    return event


async def _first_data_event(stream: httpx2.Response) -> dict[str, str]:
    buffer = ""
    async for chunk in stream.aiter_text():
        buffer += chunk.replace("\r\n", "\n")
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            event = _sse_event(block)
            if event.get("data"):
                return event
    raise AssertionError("the stream ended without a data event")


async def test_a_removed_principal_is_refused_in_its_open_session(
    http_url: str, alice: str, vmark: RunningApp, data_dir: Path
) -> None:
    url = f"{http_url}?token={alice}"
    async with httpx2.AsyncClient(timeout=30) as http:
        session = await _open_session(http, url)
        headers = {**JSON_HEADERS, "Mcp-Session-Id": session, "MCP-Protocol-Version": PREVIOUS}
        assert (await http.post(url, json=_get_state(), headers=headers)).status_code == 200
        Principals(data_dir / "principals.json").remove("alice")
        refused = await http.post(url, json=_get_state(3), headers=headers)
        assert refused.status_code == 401, refused.text
