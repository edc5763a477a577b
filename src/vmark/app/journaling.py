"""The journal as the app's services use it: one builder for an entry, one translation of its answers."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from ..core.changes import covering
from ..core.document import DocState
from ..core.model import Tab
from ..protocol.errors import DomainError
from ..protocol.limits import JOURNAL_ANSWER_SECONDS
from ..protocol.results import Journaled
from ..storage.journal import BeforePatch, Journal, JournalEntry, JournalRejected, JournalTransient, JournalUnavailable
from .connection import Connection

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Recorded:
    durable: bool
    journaled: Journaled
    entry_id: int | None


def tab_entry(
    tool: str,
    conn: Connection,
    tab: Tab,
    after: DocState | None = None,
    *,
    before: DocState | None = None,
    addresses: tuple[str, ...] = (),
    before_text: str | None = None,
    before_patch: BeforePatch | None = None,
) -> JournalEntry:
    """The entry of one call by ``conn`` on ``tab``'s document: ``after`` is the state it makes (None: the
    text does not change, both revisions and hashes are the current ones); ``before`` the state it changed
    (None: the current one, for an entry recorded before the change applies)."""
    doc = tab.doc
    before = doc.state if before is None else before
    after = before if after is None else after
    return JournalEntry(
        tool=tool,
        doc=doc.key,
        principal=conn.principal,
        tab=tab.id,
        file=doc.path,
        rev_before=before.revision,
        rev_after=after.revision,
        hash_before=before.content_hash,
        hash_after=after.content_hash,
        before_text=before_text,
        before_patch=before_patch,
        addresses=addresses,
    )


def change_entry(
    tool: str,
    conn: Connection,
    tab: Tab,
    before: DocState,
    after: DocState,
    *,
    addresses: tuple[str, ...] = (),
    whole_text: bool = False,
) -> JournalEntry:
    """The entry of a change from ``before`` to ``after``, keeping what restores the before-text: all of it
    for a whole-text change (or one of unknown spans), else only what its spans replaced, from the first to
    the last (a word changed in a 5 MB document is not a 5 MB entry)."""
    change = after.change
    if whole_text or change is None or change.spans is None:
        return tab_entry(tool, conn, tab, after, before=before, addresses=addresses, before_text=before.text)
    start, old_end, new_end = covering(change.spans)
    patch = BeforePatch(start, new_end - start, before.text[start:old_end])
    return tab_entry(tool, conn, tab, after, before=before, addresses=addresses, before_patch=patch)


def file_entry(tool: str, conn: Connection, path: str) -> JournalEntry:
    """The entry of a call that changes a file no tab needs to show (a coherence resolution)."""
    return JournalEntry(tool=tool, doc=path, principal=conn.principal, file=path)


class Recorder:
    def __init__(self, journal: Journal) -> None:
        self.journal = journal

    async def record(self, entry: JournalEntry) -> Recorded:
        """Record a change before it applies: an unavailable journal refuses it (``JOURNAL_UNAVAILABLE``)."""
        try:
            entry_id = await self.journal.record(entry, JOURNAL_ANSWER_SECONDS)
            return Recorded(True, "yes", entry_id)
        except JournalUnavailable as exc:
            raise DomainError("JOURNAL_UNAVAILABLE", str(exc)) from exc
        except JournalTransient:
            return Recorded(False, "pending", None)
        except JournalRejected as exc:
            log.warning("journal rejected an entry for %s (unrecorded): %s", entry.file or entry.doc, exc)
            return Recorded(False, "no", None)

    async def record_quietly(self, entry: JournalEntry) -> Journaled:
        """Record a save: ``yes`` / ``pending`` / ``no``; a save is never an error because of the journal."""
        try:
            await self.journal.record(entry, JOURNAL_ANSWER_SECONDS)
            return "yes"
        except JournalTransient:
            return "pending"
        except (JournalUnavailable, JournalRejected):
            return "no"

    def degraded(self, doc_key: str) -> bool:
        """Entries for this document wait to be recorded: a new change to it would overtake them."""
        return doc_key in self.journal.pending_docs

    async def abort(self, entry_id: int | None) -> None:
        """The recorded change did not apply after all."""
        if entry_id is not None:
            await self.journal.mark(entry_id, "aborted")
