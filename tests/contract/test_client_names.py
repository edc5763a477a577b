"""Agents are shown by the name their MCP client gave itself (``clientInfo.name``) beside their principal's:
in the connected agents, approvals, review changes, History and comment replies. The name is display only:
approvals stay bound to the connection that asked, a hostile name is cleaned, and a client that renames
itself (or a connection shared by clients) is followed through the ``client`` bridge frame."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client

from tests.conftest import ok
from tests.contract.helpers import open_tab, wait_until
from vmark.app.server import RunningApp
from vmark.mcp.bridge_client import BridgeClient
from vmark.mcp.server import build_server
from vmark.testing.uiclient import UIClient

HOSTILE = "\u202eevil\u202c\x07bot\n\x1b[31m" + "x" * 300


def named_client(vmark: RunningApp, name: str, principal: str | None = None) -> Client:
    """The official MCP client (in memory) whose ``initialize`` names it ``name``."""
    token = vmark.app.principals.add(principal) if principal else None
    bridge = BridgeClient(vmark.data_dir, token, autostart=False)
    return Client(build_server(bridge), client_info=types.Implementation(name=name, version="1.0"))


def _agents(vmark: RunningApp) -> list[dict[str, Any]]:
    return list(vmark.app.page_push.page_state()["agents"])


async def test_the_agent_is_shown_by_its_client_name_and_principal_everywhere(
    vmark: RunningApp, person: UIClient, opened: Path, tmp_path: Path
) -> None:
    async with named_client(vmark, "claude-code", "laptop") as agent:
        tab = await open_tab(agent, opened / "a.md")
        [shown] = _agents(vmark)
        assert (shown["name"], shown["principal"], shown["label"]) == ("claude-code", "laptop", "claude-code (laptop)")

        # An approval names it; it stays the asking connection's (its id is what binds it).
        outside = tmp_path / "outside"
        outside.mkdir()
        asked = await ok(agent, "workspace", "open_workspace", folderPath=str(outside))
        assert asked["needsApproval"] is True
        [approval] = await person.approvals()
        assert (approval["requester"], approval["agent"]) == ("laptop", "claude-code (laptop)")
        assert vmark.app.approvals.get(approval["id"]).connection == shown["connectionId"]  # type: ignore[union-attr]

        # Its change to review, the notice, and History say who made it.
        read = await ok(agent, "document", "read", tabId=tab)
        await ok(
            agent, "document", "write", tabId=tab, content="# A\n\nalpha beta\n", expected_revision=read["revision"]
        )
        listed = await person.call("review.list", tabId=tab)
        assert [(c["principal"], c["agent"]) for c in listed["changes"]] == [("laptop", "claude-code (laptop)")]
        history = await person.call("history.list", tabId=tab, content=False)
        newest = history["snapshots"][-1]
        assert (newest["kind"], newest["principal"], newest["client"]) == ("mcp", "laptop", "claude-code")
        assert newest["actor"] == {
            "kind": "agent",
            "principal": "laptop",
            "label": "claude-code (laptop)",
            "tool": "document.write",
        }

        # A reply to the person's comment is signed with the same name.
        added = await person.call("comments.add", tabId=tab, quote="alpha", body="why?")
        thread_id, gen = added["comment"], added["commentGen"]
        await ok(agent, "comments", "reply", commentId=thread_id, body="because", expectedCommentGen=gen)
        threads = await person.call("comments.threads", tabId=tab)
        [mine] = [t for t in threads["threads"] if t["comment"] == thread_id]
        assert [r["author"] for r in mine["replies"]] == ["claude-code (laptop)"]


async def test_a_hostile_name_is_cleaned_and_a_nameless_client_is_anonymous(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    # The official client always sends a name: one of nothing but format characters leaves none to show.
    async with named_client(vmark, HOSTILE) as hostile, named_client(vmark, "\u202e\u200b") as nameless:
        await ok(hostile, "session", "get_state")
        await ok(nameless, "session", "get_state")
        labels = sorted(a["label"] for a in _agents(vmark))
        anonymous = next(a for a in _agents(vmark) if a["name"] is None)
        expected = "evilbot [31m" + "x" * (64 - len("evilbot [31m"))
        assert labels == sorted([expected, f"anonymous ({anonymous['connectionId']})"])


async def test_a_name_given_after_the_connection_follows_and_is_display_only(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    """The bridge connection was made before the client named itself (or a sessionless HTTP connection serves
    several clients): the ``client`` frame renames it for the requests after it, and nothing else changes."""
    bridge = BridgeClient(vmark.data_dir, vmark.app.principals.add("laptop"), autostart=False)
    try:
        await bridge.connect()
        [before] = _agents(vmark)
        assert before["label"] == "laptop"
        await bridge.name_client("cursor\u202e")
        await wait_until(lambda: _agents(vmark)[0]["label"] == "cursor (laptop)", "the new name")
        response = await bridge.request("vmark.session.get_state", {})
        assert response["success"] is True
        [after] = _agents(vmark)
        assert (after["connectionId"], after["principal"]) == (before["connectionId"], "laptop")
        await bridge.name_client(None)  # a client without a name: back to the principal alone
        await wait_until(lambda: _agents(vmark)[0]["label"] == "laptop", "the name dropped")
    finally:
        await bridge.close()


async def test_a_person_connection_cannot_name_itself(vmark: RunningApp, person: UIClient) -> None:
    bridge = BridgeClient(vmark.data_dir, role="person", autostart=False)
    try:
        await bridge.connect()
        assert await bridge.request("client", {"name": "agent"}) == {
            "type": "response",
            "id": "1",
            "success": False,
            "error": "a client frame is an agent's {name}",
        }
    finally:
        await bridge.close()


async def test_what_an_agent_hears_is_bound_to_who_it_is_not_to_its_name(
    vmark: RunningApp, person: UIClient, opened: Path, tmp_path: Path
) -> None:
    """``session.changes``: the verdicts on an agent's changes and the answer to its approval reach the agent that
    made or asked them (matched by principal / connection), whatever its client calls itself; its own edits are
    not echoed back to it; another agent with the same name hears none of it."""
    async with named_client(vmark, "claude-code", "laptop") as agent, named_client(vmark, "claude-code") as other:
        since = (await ok(agent, "session", "changes"))["cursor"]
        since_other = (await ok(other, "session", "changes"))["cursor"]
        tab = await open_tab(agent, opened / "a.md")
        read = await ok(agent, "document", "read", tabId=tab)
        await ok(
            agent, "document", "write", tabId=tab, content="# A\n\nalpha beta\n", expected_revision=read["revision"]
        )
        [change] = (await person.call("review.list", tabId=tab))["changes"]
        await person.call("review.accept", tabId=tab, ids=[change["id"]])
        outside = tmp_path / "elsewhere"
        outside.mkdir()
        assert (await ok(agent, "workspace", "open_workspace", folderPath=str(outside)))["needsApproval"] is True
        [approval] = await person.approvals()
        await person.answer(approval["id"], allow=False)

        heard = (await ok(agent, "session", "changes", since=since, kinds=["verdict", "approval", "edit"]))["events"]
        assert [(e["kind"], e.get("changeId") or e.get("approvalId")) for e in heard] == [
            ("verdict", change["id"]),
            ("approval", approval["id"]),
        ]
        others = await ok(other, "session", "changes", since=since_other, kinds=["verdict", "approval"])
        assert others["events"] == []
