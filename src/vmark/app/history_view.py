"""Who made a history entry, as the person's History shows it (``history.list`` / ``history.get``)."""

from __future__ import annotations

from typing import Any

from ..core.agentname import agent_label

#: snapshot kind -> who made that text
_ACTOR_KINDS = {
    "manual": "person",
    "auto": "person",
    "edit": "person",
    "reject": "person",
    "mcp": "agent",
    "disk": "disk",
    "revert": "revert",
}


def snapshot_actor(snap: dict[str, Any]) -> dict[str, Any]:
    """``{kind, principal?, label?, tool?}``: an agent entry names its principal, how the person sees it when its
    MCP client named itself (the client's name with the principal: ``claude-code (laptop)``), and its tool when
    the history recorded one (entries from before tools were recorded have none)."""
    kind = _ACTOR_KINDS.get(snap["kind"], "person")
    actor: dict[str, Any] = {"kind": kind}
    if kind == "agent":
        actor["principal"] = snap.get("principal") or "anonymous"
        if snap.get("client"):
            actor["label"] = agent_label(snap["client"], snap.get("principal"))
    if snap.get("tool"):
        actor["tool"] = snap["tool"]
    return actor
