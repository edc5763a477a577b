"""The kernel's derived state of one workspace: which file is which object, each object's current
revision, which content each revision has, and a stat cache like git's index.

All of it is derived from the ledger (append-only) and the files; ``.vmark/index.db`` keeps the stat
cache and the current revisions only to answer quickly: delete it and the next call rebuilds it. This
module also mints the records that change that state (objects, revisions, transformations), so the
derived state and the ledger move together. Not thread-safe: the kernel holds its lock around it.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.actor import Actor
from ..core.kinds import MARKDOWN_SUFFIXES, kind_for_path
from .graph import RevisionGraph
from .identity import revision_id
from .layout import VMARK_DIR, is_initialized
from .ledger import Ledger
from .records import Record
from .snapshots import SnapshotStore


@dataclass
class FileEntry:
    """What the last look at a file saw: its stat, its object (None: a copy), its content digest."""

    size: int
    mtime_ns: int
    object: str | None
    content: str


@dataclass
class DerivedState:
    """What the kernel derived from the ledger and the files (all of it rebuildable)."""

    records: list[Record] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    fingerprint: Any = None
    quarantined: int = 0
    graph: RevisionGraph | None = None
    files: dict[str, FileEntry] = field(default_factory=dict)
    current: dict[str, str | None] = field(default_factory=dict)
    paths: dict[str, str] = field(default_factory=dict)
    duplicates: dict[str, list[str]] = field(default_factory=dict)
    by_content: dict[tuple[str, str], str] = field(default_factory=dict)
    rev_content: dict[str, str] = field(default_factory=dict)
    revised: set[str] = field(default_factory=set)
    dirty_files: set[str] = field(default_factory=set)
    dirty_current: set[str] = field(default_factory=set)
    version: int = 0


class WorkspaceIndex:
    """The derived state of one workspace, loaded from its ledger and ``index.db``."""

    def __init__(self, root: Path, writer: str) -> None:
        self.root = root
        self.vmark = root / VMARK_DIR
        self.writer = writer
        self.state = DerivedState()
        self._loaded = False

    @property
    def initialized(self) -> bool:
        return is_initialized(self.root)

    def reload(self) -> None:
        """Read the ledger again on the next :meth:`load` (tracking was just switched on)."""
        self._loaded = False

    # --- loading ------------------------------------------------------------------------------
    def load(self) -> None:
        """Bring the derived state up to the ledger (re-read only when a ledger file changed)."""
        if not self.initialized:
            return
        ledger = Ledger(self.vmark, self.writer)
        if self._loaded and ledger.fingerprint() == self.state.fingerprint:
            return
        first = not self._loaded
        read = ledger.read()
        st = self.state
        st.records, st.quarantined = read.records, read.quarantined
        st.ids = {r.id for r in read.records}
        st.fingerprint = ledger.fingerprint()
        st.graph = None
        self._index_records()
        if first:
            self._load_db()
        lost = {oid for oid, rev in st.current.items() if rev is not None and rev not in st.rev_content}
        for oid in lost:  # the ledger no longer knows it (a checkout rolled it back): look at the file again
            self.set_current(oid, None)
        for rel in [rel for rel, f in st.files.items() if f.object in lost]:
            del st.files[rel]
            st.dirty_files.add(rel)
        self._loaded = True
        st.version += 1

    def _index_records(self) -> None:
        st = self.state
        st.paths, st.by_content, st.rev_content, st.revised = {}, {}, {}, set()
        for record in st.records:
            self._index_record(record)

    def _index_record(self, record: Record) -> None:
        st, body = self.state, record.body
        if record.kind in ("object", "move"):
            st.paths[body["object"]] = body["path"]
        elif record.kind == "revision":
            st.by_content[(body["object"], body["content"])] = body["rev"]
            st.rev_content[body["rev"]] = body["content"]
            st.revised.add(body["object"])
            st.paths.setdefault(body["object"], body["path"])

    def graph(self) -> RevisionGraph:
        st = self.state
        if st.graph is None:
            st.graph = RevisionGraph.from_records(st.records)
        return st.graph

    # --- index.db -----------------------------------------------------------------------------
    def _load_db(self) -> None:
        st = self.state
        st.files, st.current = {}, {}
        try:
            db = _connect(self.vmark / "index.db")
            try:
                for path, size, mtime_ns, obj, content in db.execute(
                    "SELECT path, size, mtime_ns, object, content FROM files"
                ):
                    st.files[path] = FileEntry(size, mtime_ns, obj, content)
                for obj, rev in db.execute("SELECT object, rev FROM current"):
                    st.current[obj] = rev
            finally:
                db.close()
        except sqlite3.DatabaseError:
            st.files, st.current = {}, {}  # a damaged index is rebuilt by the next scan
            (self.vmark / "index.db").unlink(missing_ok=True)

    def save(self) -> None:
        """Write what changed since the last save to ``index.db`` (a cache: a failure only costs a rescan)."""
        st = self.state
        if not st.dirty_files and not st.dirty_current:
            return
        path = self.vmark / "index.db"
        files = [(p, st.files.get(p)) for p in st.dirty_files]
        current = [(o, st.current.get(o)) for o in st.dirty_current]
        st.dirty_files, st.dirty_current = set(), set()
        try:
            db = _connect(path)
            try:
                db.execute("BEGIN")
                db.executemany("DELETE FROM files WHERE path = ?", [(p,) for p, f in files if f is None])
                db.executemany(
                    "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?)",
                    [(p, f.size, f.mtime_ns, f.object, f.content) for p, f in files if f is not None],
                )
                db.executemany("INSERT OR REPLACE INTO current VALUES (?, ?)", current)
                db.execute("COMMIT")
            finally:
                db.close()
        except sqlite3.DatabaseError:
            path.unlink(missing_ok=True)  # derived: better none than a broken one

    # --- changing the derived state ---------------------------------------------------------------
    def set_file(self, rel: str, entry: FileEntry) -> None:
        self.state.files[rel] = entry
        self.state.dirty_files.add(rel)

    def drop_file(self, rel: str) -> None:
        del self.state.files[rel]
        self.state.dirty_files.add(rel)

    def set_current(self, oid: str, rev: str | None) -> None:
        self.state.current[oid] = rev
        self.state.dirty_current.add(oid)

    def note_file(self, rel: str, oid: str, content: str) -> None:
        """The file at ``rel`` was just written with ``content`` of ``oid``: cache its stat."""
        try:
            stat = os.stat(self.root / rel)
        except OSError:
            return
        self.set_file(rel, FileEntry(stat.st_size, stat.st_mtime_ns, oid, content))
        self.save()

    def append(self, records: list[Record]) -> list[Record]:
        """Append ``records`` to this writer's ledger and index them."""
        st = self.state
        ledger = Ledger(self.vmark, self.writer)
        stored = ledger.append(records)
        for record in stored:
            if record.id not in st.ids:
                st.ids.add(record.id)
                st.records.append(record)
                self._index_record(record)
        st.fingerprint = ledger.fingerprint()
        st.graph = None
        st.version += 1
        return stored

    # --- minting ----------------------------------------------------------------------------
    def object_record(self, oid: str, rel: str) -> Record:
        """A new object born at ``rel`` (known to the derived state at once)."""
        self.state.paths[oid] = rel
        return Record("object", {"object": oid, "path": rel}, self.writer, idem=f"object:{oid}")

    def revision_records(
        self, oid: str, rel: str, content_text: str, cause: str, by: Actor, tool: str, inputs: Sequence[dict[str, Any]]
    ) -> list[Record]:
        """A new revision of ``oid`` with ``content_text`` (snapshotted now), and the transformation that
        made it (none for a first capture). The object's current revision moves to it."""
        st = self.state
        content = SnapshotStore(self.vmark).put(content_text)
        current = st.current.get(oid)
        parents = [current] if current is not None else []
        rev = revision_id(content, parents)
        body = {"object": oid, "rev": rev, "content": content, "parents": parents, "path": rel, "cause": cause}
        self.set_current(oid, rev)
        st.by_content[(oid, content)] = rev
        revision = Record("revision", body, self.writer, idem=f"revision:{rev}")
        if cause == "capture":
            return [revision]  # a file seen for the first time: nothing was transformed
        return [revision, self.txf_record(oid, rev, inputs, by, tool)]

    def txf_record(self, oid: str, rev: str, inputs: Sequence[dict[str, Any]], by: Actor, tool: str) -> Record:
        body = {"outputs": [{"object": oid, "rev": rev}], "inputs": list(inputs), "agent": by.body(), "tool": tool}
        return Record("txf", body, self.writer)

    # --- looking up -------------------------------------------------------------------------
    def rel(self, path: str) -> str | None:
        """``path`` relative to the workspace (posix), or None outside it or inside ``.vmark/``."""
        real = os.path.realpath(path)
        try:
            rel = Path(real).relative_to(self.root)
        except ValueError:
            return None
        if not rel.parts or rel.parts[0] == VMARK_DIR:
            return None
        return rel.as_posix()

    def object_at(self, rel: str) -> str | None:
        entry = self.state.files.get(rel)
        if entry is not None and entry.object is not None:
            return entry.object
        return next((oid for oid, path in self.state.paths.items() if path == rel), None)

    def content(self, rev: str) -> str | None:
        return self.state.rev_content.get(rev)

    def text_of(self, rev: str | None) -> str | None:
        digest = self.content(rev) if rev else None
        return SnapshotStore(self.vmark).get(digest) if digest else None


def is_markdown(name: str) -> bool:
    dot = name.rfind(".")
    return dot > 0 and name[dot:].lower() in MARKDOWN_SUFFIXES


def is_tracked(rel: str) -> bool:
    """Markdown documents and GitHub Actions workflows are tracked; nothing else."""
    return is_markdown(rel) or kind_for_path(rel) == "yaml-workflow"


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(
        """
        CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER,
                                          object TEXT, content TEXT);
        CREATE TABLE IF NOT EXISTS current (object TEXT PRIMARY KEY, rev TEXT);
        """
    )
    return db
