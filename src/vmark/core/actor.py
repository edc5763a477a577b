"""Who did it: the one value every record of a change names (writes, saves, the review, history, coherence).

An :class:`Actor` is the person, an agent, or nobody known (a file changed on disk, the app reloading it). It
carries what the app knows of a connection: its id (None when no connection made the change: the disk, the app
itself, a restore no page typed), the principal its token maps to (who it is: what ownership, approvals and
delegations are checked against), and the name its MCP client gave itself (display only, see
:mod:`vmark.core.agentname`). A bridge connection gives its own as ``Connection.actor``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .agentname import agent_label

ActorKind = Literal["person", "agent", "unknown"]


@dataclass(frozen=True)
class Actor:
    kind: ActorKind
    principal: str | None = None
    connection: str | None = None
    #: the name the agent's MCP client gave itself, cleaned (never who the actor is)
    client_name: str | None = None

    @property
    def requester(self) -> str:
        """Who the actor is: its principal, else its connection (what ownership and a verdict's audience are
        matched against)."""
        if self.principal:
            return self.principal
        return f"anonymous ({self.connection})" if self.connection else "anonymous"

    @property
    def label(self) -> str:
        """How the person sees it: ``claude-code (laptop)`` (:func:`~vmark.core.agentname.agent_label`)."""
        return agent_label(self.client_name, self.principal, self.connection)

    def body(self) -> dict[str, Any]:
        """The actor as the coherence ledger records it: its kind and principal (a record never names a
        connection or a client's name)."""
        return {"kind": self.kind, "principal": self.principal}


#: the person (a save, a verdict), without naming a connection
PERSON = Actor("person")
#: nobody known: an outside edit, a reload from disk
UNKNOWN = Actor("unknown")
