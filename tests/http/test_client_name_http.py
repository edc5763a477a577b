"""Over ``vmark mcp --http`` (the official client, both protocol eras), each session's client name reaches
the app: the agent is shown as ``NAME (principal)``; two clients with the same token stay two connections."""

from __future__ import annotations

from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.conftest import ok
from tests.contract.helpers import open_tab, wait_until
from tests.http.helpers import CURRENT, PREVIOUS
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient


def _named(url: str, token: str, name: str, mode: str) -> Client:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    info = types.Implementation(name=name, version="1.0")
    return Client(streamable_http_client(url, http_client=http), mode=mode, client_info=info)  # type: ignore[arg-type]


def _labels(vmark: RunningApp) -> list[str]:
    return sorted(a["label"] for a in vmark.app.page_push.page_state()["agents"])


@pytest.mark.parametrize("mode", ["auto", "legacy"], ids=["protocol-current", "protocol-previous"])
async def test_http_sessions_carry_their_client_names(
    mode: str, http_url: str, alice: str, vmark: RunningApp, opened: Path, person: UIClient
) -> None:
    async with _named(http_url, alice, "claude-code", mode) as a:
        assert a.protocol_version == (CURRENT if mode == "auto" else PREVIOUS)
        tab = await open_tab(a, opened / "a.md")
        assert "claude-code (alice)" in _labels(vmark)
        read = await ok(a, "document", "read", tabId=tab)
        await ok(a, "document", "write", tabId=tab, content="# A\n\nfrom http\n", expected_revision=read["revision"])
        listed = await person.call("review.list", tabId=tab)
        assert {(c["principal"], c["agent"]) for c in listed["changes"]} == {("alice", "claude-code (alice)")}
        async with _named(http_url, alice, "cursor\u202e", mode) as b:
            await ok(b, "session", "get_state")
            await wait_until(lambda: "cursor (alice)" in _labels(vmark), "the second client's name")
            if mode == "legacy":  # one bridge connection per session: both are shown, each by its own name
                assert _labels(vmark) == ["claude-code (alice)", "cursor (alice)"]
