"""Who made a history entry, as the person's History shows it (``history.list`` / ``history.get``)."""

from __future__ import annotations

from ..core.agentname import agent_label
from ..protocol import wire_types as wire
from ..protocol.wire_types import SnapshotRecord

#: snapshot kind -> who made that text
_ACTOR_KINDS: dict[str, wire.ActorKind] = {
    "manual": "person",
    "auto": "person",
    "edit": "person",
    "reject": "person",
    "mcp": "agent",
    "disk": "disk",
    "revert": "revert",
}


def snapshot_actor(snap: SnapshotRecord) -> wire.Actor:
    """``{kind, principal?, label?, tool?}``: an agent entry names its principal, how the person sees it when its
    MCP client named itself (the client's name with the principal: ``claude-code (laptop)``), and its tool when
    the history recorded one (entries from before tools were recorded have none)."""
    kind = _ACTOR_KINDS.get(snap["kind"], "person")
    actor: wire.Actor = {"kind": kind}
    if kind == "agent":
        actor["principal"] = snap.get("principal") or "anonymous"
        client = snap["client"]
        if client:
            actor["label"] = agent_label(client, snap["principal"])
    tool = snap["tool"]
    if tool:
        actor["tool"] = tool
    return actor
