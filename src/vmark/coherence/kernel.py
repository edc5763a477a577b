"""The workspace kernel: one workspace's objects, revisions, transformations and edge states.

Everything durable is in the ledger (append-only) and the snapshots; the kernel's own state (which
file is which object, which revision each file has now, a stat cache like git's index) is derived and
kept in ``.vmark/index.db`` only to answer quickly: delete it and the next call rebuilds it from the
ledger and the files.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.kinds import MARKDOWN_SUFFIXES, WORKFLOW_SUFFIXES, kind_for_path
from . import claims as _claims
from .checker import Checker, CheckRequest
from .contexts import load_contexts, validate_context
from .graph import RevisionGraph
from .identity import content_digest, content_of, identity_of, revision_id, with_identity
from .layout import VMARK_DIR, init_layout, is_initialized
from .ledger import Ledger
from .projection import EdgeView, live_edge, project
from .records import MATURITIES, Record, parse_time, utc_now, uuid7
from .snapshots import SnapshotStore
from .watch import FolderWatch

#: Semantic checks run per ``edges`` call at most (each may take the checker's whole timeout).
MAX_CHECKS_PER_CALL = 8
#: ... and stop starting new ones after this long (a check may take the checker's own timeout more)
CHECK_BUDGET_SECONDS = 4.0
_SKIP_DIRS = frozenset({"node_modules", "__pycache__"})
_IDENTITY_PROBE_BYTES = 4096
_CONTEXT_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


class CoherenceError(ValueError):
    """A request the kernel refuses; the message says why (a plain argument error)."""


class EdgeNotLive(CoherenceError):
    """The edge exists but is no longer live, or no longer needs resolving."""

    def __init__(self, message: str, state: str | None) -> None:
        super().__init__(message)
        self.state = state


@dataclass(frozen=True)
class Actor:
    """Who made a record: the person, an agent (by principal), or nobody known (an outside edit)."""

    kind: str
    principal: str | None = None

    def body(self) -> dict[str, Any]:
        return {"kind": self.kind, "principal": self.principal}


PERSON = Actor("person")
UNKNOWN = Actor("unknown")


@dataclass(frozen=True)
class ReadPin:
    """A document an agent read, as it read it (absolute path, text)."""

    path: str
    text: str


@dataclass
class _File:
    size: int
    mtime_ns: int
    object: str | None
    content: str


@dataclass
class _Projection:
    key: tuple[Any, ...]
    edges: list[EdgeView]
    valid_until: float
    open_rows: list[dict[str, Any]] | None = None


@dataclass
class _State:
    """What the kernel derived from the ledger and the files (all of it rebuildable)."""

    records: list[Record] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    fingerprint: Any = None
    quarantined: int = 0
    graph: RevisionGraph | None = None
    files: dict[str, _File] = field(default_factory=dict)
    current: dict[str, str | None] = field(default_factory=dict)
    paths: dict[str, str] = field(default_factory=dict)
    duplicates: dict[str, list[str]] = field(default_factory=dict)
    by_content: dict[tuple[str, str], str] = field(default_factory=dict)
    rev_content: dict[str, str] = field(default_factory=dict)
    revised: set[str] = field(default_factory=set)
    dirty_files: set[str] = field(default_factory=set)
    dirty_current: set[str] = field(default_factory=set)
    version: int = 0


class Kernel:
    """One workspace's coherence kernel. Thread-safe; every public method is one short transaction."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        writer: str,
        *,
        checker: Checker | None = None,
        clock: Callable[[], float] = time.time,
        watch: bool = False,
    ) -> None:
        """``watch``: a long-lived kernel (the app's) keeps inotify watches on the workspace's folders, so a
        warm scan looks only at what changed (where the system has no inotify it walks every time)."""
        self.root = Path(os.path.realpath(root))
        self.vmark = self.root / VMARK_DIR
        self.writer = writer
        self.checker = checker
        self._clock = clock
        self._lock = threading.RLock()
        self._state = _State()
        self._loaded = False
        self._projection: _Projection | None = None
        self._watching = watch
        self._watch: FolderWatch | None = None
        self._watch_armed = False

    # --- public: reading ---------------------------------------------------------------
    @property
    def initialized(self) -> bool:
        return is_initialized(self.root)

    def status(self) -> dict[str, Any]:
        """Counters; reads and derives, never appends (no scan)."""
        with self._lock:
            if not self.initialized:
                return {
                    "initialized": False,
                    "objects": self._count_identities(),
                    "open_items": 0,
                    "quarantined": 0,
                    "writer": self.writer,
                }
            self._load()
            edges = self._project()
            st = self._state
            return {
                "initialized": True,
                "objects": len(st.paths),
                "open_items": sum(1 for e in edges if e.open),
                "quarantined": st.quarantined,
                "writer": self.writer,
                "duplicates": [{"object": o, "paths": sorted(p)} for o, p in sorted(st.duplicates.items())],
            }

    def edges(self, *, include_fresh: bool = False) -> list[dict[str, Any]]:
        """The breakdown: scan-reconcile (may append provenance), run due checks, project. An untracked
        workspace has none (and gets no ``.vmark/``)."""
        with self._lock:
            if not self.initialized:
                return []
            self._load()
            self._reconcile()
            views = self._project()
            if self._run_checks(views):
                views = self._project()
            if include_fresh:
                return [e.as_row() for e in views]
            return self._open_rows()

    def claims(self) -> list[dict[str, Any]]:
        with self._lock:
            self._load()
            return _claims.claim_rows(_claims.current_claims(self._state.records, self._clock()))

    def contexts(self) -> list[dict[str, Any]]:
        with self._lock:
            self._load()
            current = _claims.current_claims(self._state.records, self._clock())
            return load_contexts(self.vmark / "contexts", current)

    def edge_texts(self, txf: str, input_index: int) -> dict[str, Any]:
        """What moved upstream since the pin (for "revise"): the pinned and the current upstream text."""
        with self._lock:
            self._require_initialized()
            self._load()
            view = self._live_edge(txf, input_index)
            if view is None:
                raise EdgeNotLive("the edge is no longer live", None)
            current = self._state.current.get(view.upstream)
            return {
                **view.as_row(),
                "pinned_text": self._text_of(view.pinned),
                "current_text": self._text_of(current),
            }

    # --- public: the person's switch and canon -----------------------------------------------
    def init(self) -> dict[str, Any]:
        """Switch tracking on: create ``.vmark/`` and capture every Markdown file."""
        with self._lock:
            init_layout(self.root)
            self._loaded = False
            self._load()
            self._reconcile()
            return self.status()

    def add_claim(self, statement: str, maturity: str, supersedes: str | None = None) -> dict[str, Any]:
        with self._lock:
            self._require_initialized()
            self._load()
            if supersedes is not None:
                self._claim(supersedes)
            return self._put_claim(uuid7(), statement, maturity, None, supersedes)

    def update_claim(self, claim: str, changes: dict[str, Any]) -> dict[str, Any]:
        """A new version of a claim; ``changes`` may hold statement, maturity and invalidAt (or None)."""
        with self._lock:
            self._require_initialized()
            self._load()
            old = self._claim(claim)
            invalid_at = changes.get("invalidAt", old.invalid_at)
            if invalid_at is not None:
                _check_time(invalid_at, "invalidAt")
            return self._put_claim(
                claim,
                changes.get("statement", old.statement),
                changes.get("maturity", old.maturity),
                invalid_at,
                old.supersedes,
            )

    def save_context(self, context_id: str, data: dict[str, Any]) -> list[dict[str, Any]]:
        with self._lock:
            self._require_initialized()
            _check_context_id(context_id)
            problems = validate_context(data)
            if problems:
                raise CoherenceError("; ".join(problems))
            _write_atomic(self.vmark / "contexts" / f"{context_id}.json", json.dumps(data, indent=2) + "\n")
        return self.contexts()

    def delete_context(self, context_id: str) -> list[dict[str, Any]]:
        with self._lock:
            self._require_initialized()
            _check_context_id(context_id)
            path = self.vmark / "contexts" / f"{context_id}.json"
            if not path.exists():
                raise CoherenceError(f"no context {context_id!r}")
            path.unlink()
        return self.contexts()

    # --- public: resolving ---------------------------------------------------------------
    def resolve(
        self,
        txf: str,
        input_index: int,
        resolution: str,
        *,
        by: Actor,
        reason: str | None = None,
        grant: str | None = None,
        expires: str | None = None,
    ) -> dict[str, Any]:
        """Accept the newer upstream or waive the edge; appended with who did it (and under which grant)."""
        if resolution not in ("accept-newer", "waive"):
            raise CoherenceError("resolution must be 'accept-newer' or 'waive'")
        if resolution == "waive" and not (reason and reason.strip()):
            raise CoherenceError("a waiver needs a reason")
        if expires is not None:
            _check_time(expires, "expires")
        with self._lock:
            self._require_initialized()
            self._load()
            self._reconcile()
            edge = self._open_edge(txf, input_index)
            upstream_rev = self._state.current.get(edge.upstream)
            if upstream_rev is None:
                raise EdgeNotLive("the upstream file is missing: revise the downstream instead", "unpinnable")
            body: dict[str, Any] = {
                "txf": txf,
                "input": input_index,
                "upstream_rev": upstream_rev,
                "by": by.body(),
                "grant": grant,
            }
            if resolution == "waive":
                body.update(reason=reason, expires=expires)
            record = self._append([Record("ratify" if resolution == "accept-newer" else "waive", body, self.writer)])[0]
            after = self._live_edge(txf, input_index)
            return {
                "txf": txf,
                "input": input_index,
                "resolution": resolution,
                "state": after.state if after else None,
                "entry": record.id,
            }

    def open_edge(self, txf: str, input_index: int) -> dict[str, Any]:
        """The row of an edge that is live and open now (after a scan); refuses like :meth:`resolve`."""
        with self._lock:
            self._require_initialized()
            self._load()
            self._reconcile()
            return self._open_edge(txf, input_index).as_row()

    # --- public: recording (the app) -------------------------------------------------------
    def text_to_save(self, path: str, text: str) -> str:
        """``text`` with the identity of the object at ``path`` (a new object gets one now)."""
        with self._lock:
            self._load()
            rel = self._rel(path)
            if rel is None or not _is_markdown(rel):
                return text  # only Markdown carries its identity in the file
            oid = self._object_at(rel)
            if oid is None:
                oid = identity_of(text) if identity_of(text) not in self._state.paths else None
                oid = oid or uuid7()
            return text if identity_of(text) == oid else with_identity(text, oid)

    def record_save(self, path: str, text: str, by: Actor) -> str | None:
        """A save put ``text`` (with its identity) at ``path``: a new revision if the content moved."""
        with self._lock:
            self._load()
            rel = self._rel(path)
            if rel is None or not _is_tracked(rel):
                return None
            oid = self._ensure_object(rel, identity_of(text) if _is_markdown(rel) else None)
            rev = self._mint(oid, rel, text, "save", by, "save", inputs=())
            self._note_file(rel, oid, content_digest(text))
            return rev

    def record_write(self, path: str, text: str, by: Actor, tool: str, reads: Sequence[ReadPin]) -> str | None:
        """An agent's write made ``text`` the document at ``path`` (saved or not); the documents it
        read since its previous write become the transformation's ``inferred`` inputs."""
        with self._lock:
            self._load()
            rel = self._rel(path)
            if rel is None or not _is_tracked(rel):
                return None
            self._reconcile(only={rel} | {r for r in (self._rel(p.path) for p in reads) if r})
            oid = self._object_at(rel) or self._ensure_object(rel, None)
            inputs = [pin for pin in (self._pin(read, oid) for read in reads) if pin is not None]
            return self._mint(oid, rel, text, "write", by, tool, inputs=inputs, force_txf=bool(inputs))

    # --- loading and the index ------------------------------------------------------------
    def _require_initialized(self) -> None:
        if not self.initialized:
            raise CoherenceError(
                f"{self.root} has no coherence ledger yet: the person switches tracking on"
                f" (the Coherence panel, or `vmark coherence init {self.root}`)"
            )

    def _load(self) -> None:
        """Bring the derived state up to the ledger (re-read only when a ledger file changed)."""
        if not self.initialized:
            return
        ledger = Ledger(self.vmark, self.writer)
        if self._loaded and ledger.fingerprint() == self._state.fingerprint:
            return
        first = not self._loaded
        read = ledger.read()
        st = self._state
        st.records, st.quarantined = read.records, read.quarantined
        st.ids = {r.id for r in read.records}
        st.fingerprint = ledger.fingerprint()
        st.graph = None
        self._index_records()
        if first:
            self._load_index()
        lost = {oid for oid, rev in st.current.items() if rev is not None and rev not in st.rev_content}
        for oid in lost:  # the ledger no longer knows it (a checkout rolled it back): look at the file again
            self._set_current(oid, None)
        for rel in [rel for rel, f in st.files.items() if f.object in lost]:
            del st.files[rel]
            st.dirty_files.add(rel)
        self._loaded = True
        st.version += 1

    def _index_records(self) -> None:
        st = self._state
        st.paths, st.by_content, st.rev_content, st.revised = {}, {}, {}, set()
        for record in st.records:
            self._index_record(record)

    def _index_record(self, record: Record) -> None:
        st, body = self._state, record.body
        if record.kind in ("object", "move"):
            st.paths[body["object"]] = body["path"]
        elif record.kind == "revision":
            st.by_content[(body["object"], body["content"])] = body["rev"]
            st.rev_content[body["rev"]] = body["content"]
            st.revised.add(body["object"])
            st.paths.setdefault(body["object"], body["path"])

    def _graph(self) -> RevisionGraph:
        st = self._state
        if st.graph is None:
            st.graph = RevisionGraph.from_records(st.records)
        return st.graph

    def _load_index(self) -> None:
        st = self._state
        st.files, st.current = {}, {}
        try:
            db = _connect(self.vmark / "index.db")
            try:
                for path, size, mtime_ns, obj, content in db.execute(
                    "SELECT path, size, mtime_ns, object, content FROM files"
                ):
                    st.files[path] = _File(size, mtime_ns, obj, content)
                for obj, rev in db.execute("SELECT object, rev FROM current"):
                    st.current[obj] = rev
            finally:
                db.close()
        except sqlite3.DatabaseError:
            st.files, st.current = {}, {}  # a damaged index is rebuilt by the next scan
            (self.vmark / "index.db").unlink(missing_ok=True)

    def _set_file(self, rel: str, entry: _File) -> None:
        self._state.files[rel] = entry
        self._state.dirty_files.add(rel)

    def _set_current(self, oid: str, rev: str | None) -> None:
        self._state.current[oid] = rev
        self._state.dirty_current.add(oid)

    def _save_index(self) -> None:
        """Write what changed since the last save to ``index.db`` (a cache: a failure only costs a rescan)."""
        st = self._state
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

    # --- scan-reconcile -------------------------------------------------------------------
    def close(self) -> None:
        with self._lock:
            if self._watch is not None:
                self._watch.close()
                self._watch, self._watch_armed = None, False

    def _reconcile(self, only: set[str] | None = None) -> None:
        """Compare the Markdown files with the stat cache; capture what moved (like `git status`)."""
        if only is None and self._watch_armed and self._watch is not None:
            found = self._watch.changes()
            if found is not None:
                paths, folders = found
                if paths or folders:
                    self._reconcile_paths({p for p in paths if _is_tracked(p)} | self._scan_new_folders(folders))
                return  # the watch vouches for every other file
        self._reconcile_paths(only)
        if only is None and self._watching:
            self._watch_armed = self._watch is not None

    def _scan_new_folders(self, folders: set[str]) -> set[str]:
        """The tracked files of folders that appeared (watched from now on, with their subfolders)."""
        found: set[str] = set()
        pending = [(str(self.root / rel), rel + "/") for rel in folders]
        while pending:
            path, prefix = pending.pop()
            if self._watch is not None:
                self._watch.add(path, prefix)
            files, subfolders = _scan_folder((path, prefix))
            found.update(rel for rel, _ in files)
            pending.extend(subfolders)
        return found

    def _reconcile_paths(self, only: set[str] | None) -> None:
        st = self._state
        seen: dict[str, os.stat_result] = {}
        changed: list[str] = []
        cached = 0
        files = st.files
        for rel, stat in self._walk(only):
            seen[rel] = stat
            old = files.get(rel)
            if old is None:
                changed.append(rel)
                continue
            cached += 1
            if old.size != stat.st_size or old.mtime_ns != stat.st_mtime_ns:
                changed.append(rel)
        gone: list[str] = []
        if only is not None:
            gone = [p for p in only if p in files and p not in seen]
        elif cached != len(files):
            gone = [p for p in files if p not in seen]
        if not changed and not gone:
            return
        records: list[Record] = []
        for rel in gone:
            del st.files[rel]
            st.dirty_files.add(rel)
        for rel in sorted(changed):
            records.extend(self._capture(rel, seen[rel]))
        self._refresh_current(gone)
        if records:
            self._append(records)
        st.version += 1
        self._save_index()

    def _walk(self, only: set[str] | None) -> Iterator[tuple[str, os.stat_result]]:
        if only is not None:
            for rel in only:
                try:
                    stat = os.stat(self.root / rel)
                except OSError:
                    continue
                yield rel, stat
            return
        # A warm `edges` stats every file of the workspace, like `git status` (threads do not help here:
        # measured slower, the GIL serializes the per-entry work around each stat).
        watch = self._arm_watch()
        folders = [(str(self.root), "")]
        while folders:
            folder = folders.pop()
            if watch is not None:
                watch.add(*folder)  # before its files are stat-ed: a change after that is an event
            files, subfolders = _scan_folder(folder)
            yield from files
            folders.extend(subfolders)

    def _arm_watch(self) -> FolderWatch | None:
        if self._watching and self._watch is None:
            try:
                self._watch = FolderWatch()
            except OSError:
                self._watching = False  # no inotify here: every scan walks the tree
        return self._watch

    def _capture(self, rel: str, stat: os.stat_result) -> list[Record]:
        st = self._state
        text = _read_text(self.root / rel)
        if text is None:
            return []  # not UTF-8: not a document we track
        if not _is_markdown(rel):
            return self._capture_by_path(rel, text, stat)
        oid = identity_of(text)
        content = content_digest(text)
        records: list[Record] = []
        if oid is None and self._object_at(rel) is not None:
            # Another program dropped the identity: the path still names the object, which gets it back.
            oid = self._object_at(rel)
            assert oid is not None
            text, stat = self._write_identity(rel, text, stat, oid)
        elif oid is None or oid not in st.paths:
            if oid is None:
                oid = uuid7()
                text, stat = self._write_identity(rel, text, stat, oid)
            records.append(Record("object", {"object": oid, "path": rel}, self.writer, idem=f"object:{oid}"))
            st.paths[oid] = rel
        elif st.paths[oid] != rel:
            original = st.paths[oid]
            # The original may not be among the paths looked at (a watch reports only the copy): ask the file.
            if self._identity_at(original) == oid:
                st.duplicates.setdefault(oid, [original])
                if rel not in st.duplicates[oid]:
                    st.duplicates[oid].append(rel)
                self._set_file(rel, _File(stat.st_size, stat.st_mtime_ns, None, content))
                return []  # a copy: surfaced, never fixed behind the person's back
            records.append(Record("move", {"object": oid, "path": rel}, self.writer))
            st.paths[oid] = rel
        self._set_file(rel, _File(stat.st_size, stat.st_mtime_ns, oid, content))
        return records + self._content_moved(oid, rel, text, content)

    def _capture_by_path(self, rel: str, text: str, stat: os.stat_result) -> list[Record]:
        """A workflow file has no front matter: its identity is its path (a rename is a new object)."""
        st = self._state
        records: list[Record] = []
        oid = self._object_at(rel)
        if oid is None:
            oid = uuid7()
            records.append(Record("object", {"object": oid, "path": rel}, self.writer, idem=f"object:{oid}"))
            st.paths[oid] = rel
        content = content_digest(text)
        self._set_file(rel, _File(stat.st_size, stat.st_mtime_ns, oid, content))
        return records + self._content_moved(oid, rel, text, content)

    def _content_moved(self, oid: str, rel: str, text: str, content: str) -> list[Record]:
        """The file's content against the object's current revision: same, a known one, or new."""
        st = self._state
        current = st.current.get(oid)
        if current is not None and self._content(current) == content:
            return []
        known = st.by_content.get((oid, content))
        if known is not None:
            self._set_current(oid, known)  # navigation (checkout, reset, undo to a known text): no revision
            return []
        cause = "capture" if current is None and oid not in st.revised else "external"
        return self._revision_records(oid, rel, content_of(text), cause, UNKNOWN, "external-edit", ())

    def _write_identity(self, rel: str, text: str, stat: os.stat_result, oid: str) -> tuple[str, os.stat_result]:
        """Put ``oid`` into the file's front matter (not a content change), unless the file moved meanwhile."""
        path = self.root / rel
        marked = with_identity(text, oid)
        try:
            now = os.stat(path)
            if (now.st_size, now.st_mtime_ns) != (stat.st_size, stat.st_mtime_ns):
                raise OSError("changed while being captured")
            _write_atomic(path, marked, mode=now.st_mode & 0o7777)
            return marked, os.stat(path)
        except OSError:
            return text, stat  # identity lands with the file's next capture or save

    def _identity_at(self, rel: str) -> str | None:
        try:
            with open(self.root / rel, "rb") as handle:
                head = handle.read(_IDENTITY_PROBE_BYTES)
        except OSError:
            return None
        return identity_of(head.decode("utf-8", errors="replace"))

    def _refresh_current(self, gone: list[str]) -> None:
        st = self._state
        for rel in gone:
            for oid, path in st.paths.items():
                if path == rel and not any(f.object == oid for f in st.files.values()):
                    self._set_current(oid, None)
        for oid, paths in list(st.duplicates.items()):
            alive = [p for p in paths if p in st.files]
            if len(alive) > 1:
                st.duplicates[oid] = alive
            else:
                del st.duplicates[oid]

    def _count_identities(self) -> int:
        return sum(1 for rel, _ in self._walk(None) if self._identity_at(rel) is not None)

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
        st = self._state
        content = content_digest(text)
        current = st.current.get(oid)
        if current is not None and self._content(current) == content and not force_txf:
            return current
        if current is not None and self._content(current) == content:
            txf = _txf_record(oid, current, inputs, by, tool, self.writer)
            self._append([txf])
            return current
        self._append(self._revision_records(oid, rel, content_of(text), cause, by, tool, inputs))
        return str(st.current[oid])

    def _revision_records(
        self, oid: str, rel: str, content_text: str, cause: str, by: Actor, tool: str, inputs: Sequence[dict[str, Any]]
    ) -> list[Record]:
        st = self._state
        content = SnapshotStore(self.vmark).put(content_text)
        current = st.current.get(oid)
        parents = [current] if current is not None else []
        rev = revision_id(content, parents)
        body = {"object": oid, "rev": rev, "content": content, "parents": parents, "path": rel, "cause": cause}
        self._set_current(oid, rev)
        st.by_content[(oid, content)] = rev
        revision = Record("revision", body, self.writer, idem=f"revision:{rev}")
        if cause == "capture":
            return [revision]  # a file seen for the first time: nothing was transformed
        return [revision, _txf_record(oid, rev, inputs, by, tool, self.writer)]

    def _pin(self, read: ReadPin, downstream: str) -> dict[str, Any] | None:
        """The input a read becomes: the revision with the content it read, else the object's current
        one (a read of unsaved text pins conservatively, so a later save shows as a move)."""
        rel = self._rel(read.path)
        if rel is None:
            return None
        oid = self._object_at(rel)
        if oid is None or oid == downstream:
            return None
        rev = self._state.by_content.get((oid, content_digest(read.text))) or self._state.current.get(oid)
        if rev is None:
            return None
        return {"object": oid, "rev": rev, "path": rel, "provenance": "inferred"}

    def _ensure_object(self, rel: str, carried: str | None) -> str:
        oid = self._object_at(rel)
        if oid is not None:
            return oid
        oid = carried if carried is not None and carried not in self._state.paths else uuid7()
        self._append([Record("object", {"object": oid, "path": rel}, self.writer, idem=f"object:{oid}")])
        return oid

    def _note_file(self, rel: str, oid: str, content: str) -> None:
        try:
            stat = os.stat(self.root / rel)
        except OSError:
            return
        self._set_file(rel, _File(stat.st_size, stat.st_mtime_ns, oid, content))
        self._save_index()

    def _append(self, records: list[Record]) -> list[Record]:
        st = self._state
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

    # --- projection and checks ------------------------------------------------------------
    def _project(self) -> list[EdgeView]:
        st = self._state
        now = self._clock()
        key = (st.version, len(st.records))
        cached = self._projection
        if cached is not None and cached.key == key and now < cached.valid_until:
            return cached.edges  # nothing moved, and no waiver or claim lapsed since
        digest = _claims.claims_digest(_claims.current_claims(st.records, now))
        paths = dict(st.paths)
        edges = project(st.records, self._graph(), st.current, paths, now, digest)
        self._projection = _Projection(key, edges, _next_expiry(st.records, now))
        return edges

    def _live_edge(self, txf: str, input_index: int) -> EdgeView | None:
        st = self._state
        now = self._clock()
        digest = _claims.claims_digest(_claims.current_claims(st.records, now))
        return live_edge(
            st.records, self._graph(), st.current, txf, input_index, paths=st.paths, now=now, claims_digest=digest
        )

    def _open_rows(self) -> list[dict[str, Any]]:
        projection = self._projection
        assert projection is not None
        if projection.open_rows is None:
            projection.open_rows = [e.as_row() for e in projection.edges if e.open]
        return [dict(row) for row in projection.open_rows]

    def _run_checks(self, views: list[EdgeView]) -> bool:
        if self.checker is None:
            return False
        due = [v for v in views if v.state == "version-stale"][:MAX_CHECKS_PER_CALL]
        if not due:
            return False
        st = self._state
        now = self._clock()
        current_claims = _claims.current_claims(st.records, now)
        digest = _claims.claims_digest(current_claims)
        statements = [c.statement for c in current_claims if c.constraining]
        records = []
        deadline = time.monotonic() + CHECK_BUDGET_SECONDS
        for view in due:
            if time.monotonic() > deadline:
                break  # the rest waits for the next call: the tool answers within its 20 s
            request = CheckRequest(
                upstream_before=self._text_of(view.pinned),
                upstream_after=self._text_of(str(st.current.get(view.upstream))) or "",
                downstream=self._text_of(view.downstream_rev) or "",
                claims=statements,
                upstream_path=view.upstream_path,
                downstream_path=view.downstream_path,
            )
            verdict = self.checker.check(request)
            body = {
                "txf": view.txf,
                "input": view.input,
                "upstream_rev": st.current.get(view.upstream),
                "downstream_rev": view.downstream_rev,
                "claims": digest,
                "verdict": verdict,
                "checker": self.checker.name,
            }
            records.append(Record("check", body, self.writer))
        self._append(records)
        return True

    def _open_edge(self, txf: str, input_index: int) -> EdgeView:
        st = self._state
        record = next((r for r in st.records if r.id == txf and r.kind == "txf"), None)
        if record is None:
            raise CoherenceError(f"no transformation {txf!r} in this workspace's ledger")
        if not 0 <= input_index < len(record.body.get("inputs", [])):
            raise CoherenceError(f"transformation {txf!r} has no input {input_index}")
        self._projection = None
        view = self._live_edge(txf, input_index)
        if view is None:
            raise EdgeNotLive("the edge is no longer live (the downstream was generated again or moved away)", None)
        if not view.open:
            raise EdgeNotLive(f"the edge is {view.state}: nothing to resolve", view.state)
        return view

    # --- small helpers --------------------------------------------------------------------
    def _rel(self, path: str) -> str | None:
        real = os.path.realpath(path)
        try:
            rel = Path(real).relative_to(self.root)
        except ValueError:
            return None
        if not rel.parts or rel.parts[0] == VMARK_DIR:
            return None
        return rel.as_posix()

    def _object_at(self, rel: str) -> str | None:
        entry = self._state.files.get(rel)
        if entry is not None and entry.object is not None:
            return entry.object
        return next((oid for oid, path in self._state.paths.items() if path == rel), None)

    def _content(self, rev: str) -> str | None:
        return self._state.rev_content.get(rev)

    def _text_of(self, rev: str | None) -> str | None:
        digest = self._content(rev) if rev else None
        return SnapshotStore(self.vmark).get(digest) if digest else None

    def _claim(self, claim: str) -> _claims.Claim:
        for existing in _claims.current_claims(self._state.records, self._clock()):
            if existing.claim == claim:
                return existing
        raise CoherenceError(f"no claim {claim!r}")

    def _put_claim(
        self, claim: str, statement: Any, maturity: Any, invalid_at: str | None, supersedes: str | None
    ) -> dict[str, Any]:
        if not isinstance(statement, str) or not statement.strip():
            raise CoherenceError("a claim needs a statement")
        if maturity not in MATURITIES:
            raise CoherenceError(f"maturity must be one of {list(MATURITIES)}")
        body = {
            "claim": claim,
            "statement": statement,
            "maturity": maturity,
            "invalid_at": invalid_at,
            "supersedes": supersedes,
        }
        record = self._append([Record("claim", body, self.writer)])[0]
        return {"claim": claim, "entryId": record.id}


def _txf_record(
    oid: str, rev: str, inputs: Sequence[dict[str, Any]], by: Actor, tool: str, writer: str
) -> Record:
    body = {"outputs": [{"object": oid, "rev": rev}], "inputs": list(inputs), "agent": by.body(), "tool": tool}
    return Record("txf", body, writer)


def _next_expiry(records: Sequence[Record], now: float) -> float:
    """The next moment a time-bound record (a waiver's expiry, a claim's invalidity) changes a state."""
    moments = [float("inf")]
    for record in records:
        stamp = record.body.get("expires") if record.kind == "waive" else None
        stamp = record.body.get("invalid_at") if record.kind == "claim" else stamp
        if isinstance(stamp, str):
            try:
                moment = parse_time(stamp)
            except ValueError:
                continue
            if moment > now:
                moments.append(moment)
    return min(moments)


def _is_markdown(name: str) -> bool:
    dot = name.rfind(".")
    return dot > 0 and name[dot:].lower() in MARKDOWN_SUFFIXES


def _scan_folder(folder: tuple[str, str]) -> tuple[list[tuple[str, os.stat_result]], list[tuple[str, str]]]:
    """The tracked files of one folder with their stats, and its subfolders (plain calls: the hot loop)."""
    path, prefix = folder
    files: list[tuple[str, os.stat_result]] = []
    subfolders: list[tuple[str, str]] = []
    try:
        entries = os.scandir(path)
    except OSError:
        return files, subfolders
    with entries:
        for entry in entries:
            name = entry.name
            if entry.is_dir(follow_symlinks=False):
                if (name[0] != "." or name == ".github") and name not in _SKIP_DIRS:
                    subfolders.append((entry.path, prefix + name + "/"))
                continue
            dot = name.rfind(".")
            if dot <= 0:
                continue
            suffix = name[dot:].lower()
            rel = prefix + name
            if suffix not in MARKDOWN_SUFFIXES and (suffix not in WORKFLOW_SUFFIXES or not _is_tracked(rel)):
                continue
            try:
                if entry.is_file(follow_symlinks=False):
                    files.append((rel, entry.stat(follow_symlinks=False)))
            except OSError:
                continue
    return files, subfolders


def _is_tracked(rel: str) -> bool:
    return _is_markdown(rel) or kind_for_path(rel) == "yaml-workflow"


def _read_text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _write_atomic(path: Path, text: str, mode: int = 0o644) -> None:
    temp = path.with_name(f".{path.name}.vmark-{os.getpid()}-{threading.get_ident()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.write(fd, text.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(temp, mode)
    os.replace(temp, path)


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


def _check_time(value: Any, name: str) -> None:
    if not isinstance(value, str):
        raise CoherenceError(f"{name} must be an RFC 3339 time")
    try:
        parse_time(value)
    except ValueError as exc:
        raise CoherenceError(f"{name} must be an RFC 3339 time with a zone, e.g. {utc_now()}") from exc


def _check_context_id(context_id: str) -> None:
    if not (1 <= len(context_id) <= 64 and set(context_id) <= _CONTEXT_ID_CHARS) or context_id == "default":
        raise CoherenceError("a context id is 1-64 of A-Z a-z 0-9 . _ - (and not 'default')")
