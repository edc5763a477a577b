"""Faults and delays the tests inject (``VMARK_TEST_HOOKS=1``, or ``RunningApp(test_hooks=True)``).

App gets a :class:`TestHooks` at construction only in tests; a person's app has none, so no production
path holds a fault, and ``test.fault`` (:mod:`vmark.app.handlers.testing`) is routed only where there is one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.actor import Actor
from ..core.document import DocState
from ..core.model import Document
from ..core.transaction import Transaction
from ..protocol.errors import DomainError
from ..storage.journal import JournalFault
from .journaling import Recorded
from .state import Session


@dataclass
class EditorFaults:
    #: ``after_apply``: the editor fails after the write changed the document;
    #: ``during_apply``: it fails half-way, leaving the document possibly changed.
    fail: str | None = None

    async def after_apply(self, session: Session, doc: Document, recorded: Recorded, actor: Actor) -> None:
        """An agent's write was applied: the injected failure, if any, happens now (once)."""
        fail, self.fail = self.fail, None
        if fail == "after_apply":
            raise DomainError(
                "INTERNAL",
                "The editor failed after the write changed the document; read again before the next write",
                applied=True,
                durable=recorded.durable,
                current_revision=doc.state.revision,
            )
        if fail == "during_apply":
            # No tool made this state (the editor's failure did): nothing records it as the agent's write.
            half = DocState(doc.state.text[: len(doc.state.text) // 2])
            await session.apply(Transaction(doc, half, "agent", actor))
            raise DomainError("INTERNAL", "The write failed part-way; the document may have changed. Read it again")


@dataclass
class Delay:
    """Seconds something waits first; ``once``: only the next one waits."""

    seconds: float = 0.0
    once: bool = False

    def take(self) -> float:
        seconds = self.seconds
        if self.once:
            self.seconds = 0.0
        return seconds


@dataclass
class TestHooks:
    __test__ = False  # not a test class (pytest collects names that start with "Test")

    journal: JournalFault = field(default_factory=JournalFault)
    editor: EditorFaults = field(default_factory=EditorFaults)
    #: a save waits this long before it queues (once: to overtake it with a later one)
    save_delay: Delay = field(default_factory=lambda: Delay(once=True))
    #: every kernel call sleeps this long first (to reach TIMEOUT)
    coherence_delay: Delay = field(default_factory=Delay)
    #: the app's looks at the disk for other programs' changes, finished so far: a test that proves nothing
    #: changed waits for two more (the first may have begun before the change it is about), never a fixed time
    disk_checks: int = 0
