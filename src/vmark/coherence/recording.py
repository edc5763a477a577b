"""Recording what VMark did: a save (the person's or an agent's), an agent's write with what it read,
and, when the person asks for it, an identity put into a document's front matter.

Identities reach a file only with a save: :meth:`Recorder.text_to_save` gives the text VMark saves its
identity, and :meth:`Recorder.add_identity` is the person's explicit "Add identities", saved through
``storage.files`` like every other save. Not thread-safe: the kernel holds its lock around it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core.actor import PERSON, Actor
from ..core.model import DiskStamp
from ..storage.files import read_document, save_replace
from ..storage.pathscope import PathScope, ScopeError
from .actors import ReadPin
from .identity import content_digest, content_of, identity_of, with_identity
from .index import WorkspaceIndex, is_markdown, is_tracked
from .records import uuid7
from .scan import Scanner


@dataclass(frozen=True)
class MissingIdentity:
    """A tracked Markdown file whose front matter does not carry its object's identity yet."""

    path: str  # absolute
    rel: str
    object: str


class Recorder:
    def __init__(self, index: WorkspaceIndex, scanner: Scanner) -> None:
        self.index = index
        self.scanner = scanner

    def text_to_save(self, path: str, text: str) -> str:
        """``text`` with the identity of the object at ``path`` (a new object gets one now)."""
        index = self.index
        rel = index.rel(path)
        if rel is None or not is_markdown(rel):
            return text  # only Markdown carries its identity in the file
        oid = index.object_at(rel)
        if oid is None:
            oid = identity_of(text) if identity_of(text) not in index.state.paths else None
            oid = oid or uuid7()
        return text if identity_of(text) == oid else with_identity(text, oid)

    def record_save(self, path: str, text: str, by: Actor) -> str | None:
        """A save put ``text`` (with its identity) at ``path``: a new revision if the content moved."""
        index = self.index
        rel = index.rel(path)
        if rel is None or not is_tracked(rel):
            return None
        oid = self._ensure_object(rel, identity_of(text) if is_markdown(rel) else None)
        rev = self._mint(oid, rel, text, "save", by, "save", inputs=())
        index.note_file(rel, oid, content_digest(text))
        return rev

    def record_write(self, path: str, text: str, by: Actor, tool: str, reads: Sequence[ReadPin]) -> str | None:
        """An agent's write made ``text`` the document at ``path`` (saved or not); the documents it
        read since its previous write become the transformation's ``inferred`` inputs."""
        index = self.index
        rel = index.rel(path)
        if rel is None or not is_tracked(rel):
            return None
        self.scanner.reconcile(only={rel} | {r for r in (index.rel(p.path) for p in reads) if r})
        oid = index.object_at(rel) or self._ensure_object(rel, None)
        inputs = [pin for pin in (self._pin(read, oid) for read in reads) if pin is not None]
        return self._mint(oid, rel, text, "write", by, tool, inputs=inputs, force_txf=bool(inputs))

    # --- identities the person adds -----------------------------------------------------------
    def missing_identities(self) -> list[MissingIdentity]:
        """The tracked Markdown files whose front matter lacks their object's identity (after a scan)."""
        index = self.index
        self.scanner.reconcile()
        found = []
        for rel, entry in sorted(index.state.files.items()):
            if entry.object is None or not is_markdown(rel):
                continue  # a copy keeps what it carries: it is surfaced, never fixed
            if self.scanner.identity_at(rel) is None:
                found.append(MissingIdentity(str(index.root / rel), rel, entry.object))
        return found

    def add_identity(self, missing: MissingIdentity) -> DiskStamp | None:
        """Save the file with its object's identity in its front matter (no content change), unless it
        moved on meanwhile; the new stamp, or None when nothing was written."""
        index = self.index
        if index.object_at(missing.rel) != missing.object:
            return None
        scope = PathScope.of([str(index.root)])
        try:
            text, stamp, read_only = read_document(missing.path, scope)
        except ScopeError:
            return None
        if read_only or identity_of(text) is not None or content_digest(text) != _cached_content(index, missing.rel):
            return None  # read-only, or changed since the scan: the next scan looks again
        marked = with_identity(text, missing.object)
        now = os.stat(missing.path)
        if (now.st_mtime_ns, now.st_size) != (stamp.mtime_ns, stamp.size):
            return None
        saved = save_replace(missing.path, marked.encode("utf-8"), scope)
        self.record_save(missing.path, marked, PERSON)
        return saved

    # --- minting ------------------------------------------------------------------------
    def _mint(
        self,
        oid: str,
        rel: str,
        text: str,
        cause: str,
        by: Actor,
        tool: str,
        inputs: Sequence[dict[str, Any]],
        force_txf: bool = False,
    ) -> str:
        index = self.index
        st = index.state
        content = content_digest(text)
        current = st.current.get(oid)
        if current is not None and index.content(current) == content and not force_txf:
            return current
        if current is not None and index.content(current) == content:
            index.append([index.txf_record(oid, current, inputs, by, tool)])
            return current
        index.append(index.revision_records(oid, rel, content_of(text), cause, by, tool, inputs))
        return str(st.current[oid])

    def _pin(self, read: ReadPin, downstream: str) -> dict[str, Any] | None:
        """The input a read becomes: the revision with the content it read, else the object's current
        one (a read of unsaved text pins conservatively, so a later save shows as a move)."""
        index = self.index
        rel = index.rel(read.path)
        if rel is None:
            return None
        oid = index.object_at(rel)
        if oid is None or oid == downstream:
            return None
        rev = index.state.by_content.get((oid, content_digest(read.text))) or index.state.current.get(oid)
        if rev is None:
            return None
        return {"object": oid, "rev": rev, "path": rel, "provenance": "inferred"}

    def _ensure_object(self, rel: str, carried: str | None) -> str:
        index = self.index
        oid = index.object_at(rel)
        if oid is not None:
            return oid
        oid = carried if carried is not None and carried not in index.state.paths else uuid7()
        index.append([index.object_record(oid, rel)])
        return oid


def _cached_content(index: WorkspaceIndex, rel: str) -> str | None:
    entry = index.state.files.get(rel)
    return entry.content if entry is not None else None

