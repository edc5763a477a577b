"""One change of a document's text, as a value: the only way a document's text changes.

A :class:`Transaction` names the document, the state it becomes (its spans, when known, are the
state's :attr:`~vmark.core.document.DocState.change`), where the change came from and who sent it (its
:class:`~vmark.core.actor.Actor`).
The app applies one with ``Session.apply``: the document takes the state, and everything that follows
a change (comment anchors, coherence recording, history, page pushes) observes the transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .actor import UNKNOWN, Actor
from .document import DocState, Splice
from .model import Document

#: ``person``: the person's edit (a page typed it); ``agent``: a write through the MCP tools; ``disk``: the
#: file was read again (a reload, or "keep the disk's version"); ``revert``: the person restored a snapshot.
Origin = Literal["agent", "person", "disk", "revert"]


@dataclass(frozen=True)
class Transaction:
    doc: Document
    #: the state the document becomes
    state: DocState
    origin: Origin
    #: who sent it (nobody known: a reload from disk)
    actor: Actor = UNKNOWN
    #: the tool of an agent's write (``document.write``, ...); None for every other change
    tool: str | None = None

    @property
    def change(self) -> Splice | None:
        """The changed spans, when the state is its parent with spans replaced (None: the whole text)."""
        return self.state.change
