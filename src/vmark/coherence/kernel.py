"""The workspace kernel: one workspace's objects, revisions, transformations and edge states.

The kernel is the one entry point; each concern lives in its own module:

- :mod:`.index` the derived state (objects, current revisions, the stat cache, ``index.db``) and minting,
- :mod:`.scan` scan-reconcile of the files (and the inotify watch of a long-lived kernel),
- :mod:`.recording` saves, agent writes, and the identities the person adds,
- :mod:`.breakdown` the projection of edge states and the semantic checks,
- :mod:`.canon` the person's claims and contexts.

Everything durable is in the ledger (append-only) and the snapshots. Thread-safe: one lock guards the
derived state, and every public method holds it only for a short transaction. A semantic check never
runs under it (a check may take minutes; a save must not wait for one): ``edges`` collects the due
checks under the lock, runs them without it, and appends their verdicts under it again.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ..core.actor import PERSON, UNKNOWN, Actor
from ..core.model import DiskStamp
from ..protocol import wire_types as wire
from ..protocol.jsontypes import JSONObject
from ..protocol.limits import CHECK_BUDGET_SECONDS, MAX_CHECKS_PER_CALL
from .actors import ReadPin
from .breakdown import Breakdown, run_checks
from .canon import Canon, check_time
from .checker import Checker
from .errors import CoherenceError, EdgeNotLive
from .index import WorkspaceIndex
from .layout import init_layout, is_initialized
from .projection import EdgeView
from .recording import MissingIdentity, Recorder
from .records import Record
from .scan import Scanner

__all__ = [
    "CHECK_BUDGET_SECONDS",
    "MAX_CHECKS_PER_CALL",
    "PERSON",
    "UNKNOWN",
    "Actor",
    "CoherenceError",
    "EdgeNotLive",
    "Kernel",
    "MissingIdentity",
    "ReadPin",
]


class Kernel:
    """One workspace's coherence kernel."""

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
        self.writer = writer
        self.checker = checker
        self._clock = clock
        #: guards the derived state; held for short transactions only, never while a check runs
        self._lock = threading.RLock()
        #: one run of checks at a time per workspace (a second ``edges`` meanwhile answers without checks)
        self._checking = threading.Lock()
        self.index = WorkspaceIndex(self.root, writer)
        self.scanner = Scanner(self.index, watch=watch)
        self.recorder = Recorder(self.index, self.scanner)
        self.breakdown = Breakdown(self.index, clock)
        self.canon = Canon(self.index, clock)

    @property
    def vmark(self) -> Path:
        return self.index.vmark

    @property
    def initialized(self) -> bool:
        return is_initialized(self.root)

    def close(self) -> None:
        with self._lock:
            self.scanner.close()

    # --- reading ----------------------------------------------------------------------------
    def status(self) -> wire.CoherenceStatus:
        """Counters; reads and derives, never appends (no scan) and never writes a document."""
        with self._lock:
            if not self.initialized:
                return {
                    "initialized": False,
                    "objects": self.scanner.count_identities(),
                    "open_items": 0,
                    "quarantined": 0,
                    "writer": self.writer,
                }
            self.index.load()
            edges = self.breakdown.project()
            st = self.index.state
            return {
                "initialized": True,
                "objects": len(st.paths),
                "open_items": sum(1 for e in edges if e.open),
                "quarantined": st.quarantined,
                "writer": self.writer,
                "duplicates": [{"object": o, "paths": sorted(p)} for o, p in sorted(st.duplicates.items())],
            }

    def edges(self, *, include_fresh: bool = False) -> list[wire.Edge]:
        """The breakdown: scan-reconcile (may append provenance, never writes a document), run due
        checks (outside the lock), project. An untracked workspace has none (and gets no ``.vmark/``)."""
        with self._lock:
            if not self.initialized:
                return []
            self.index.load()
            self.scanner.reconcile()
            views = self.breakdown.project()
            checker = self.checker
            due = self.breakdown.due_checks(views) if checker is not None else []
            if not due:
                return self._rows(views, include_fresh)
        assert checker is not None
        if not self._checking.acquire(blocking=False):
            with self._lock:  # another call is checking these edges: answer with what is known now
                return self._rows(self.breakdown.project(), include_fresh)
        try:
            verdicts = run_checks(checker, due)  # no lock held: saves and writes go on meanwhile
            with self._lock:
                self.index.load()
                self.index.append(self.breakdown.check_records(verdicts, checker.name))
                return self._rows(self.breakdown.project(), include_fresh)
        finally:
            self._checking.release()

    def _rows(self, views: list[EdgeView], include_fresh: bool) -> list[wire.Edge]:
        if include_fresh:
            return [e.as_row() for e in views]
        return self.breakdown.open_rows()

    def claims(self) -> list[wire.Claim]:
        with self._lock:
            self.index.load()
            return self.canon.claims()

    def contexts(self) -> list[wire.Context]:
        with self._lock:
            self.index.load()
            return self.canon.contexts()

    def edge_texts(self, txf: str, input_index: int) -> wire.EdgeTexts:
        """What moved upstream since the pin (for "revise"): the pinned and the current upstream text."""
        with self._lock:
            self._require_initialized()
            self.index.load()
            view = self.breakdown.live_edge(txf, input_index)
            if view is None:
                raise EdgeNotLive("the edge is no longer live", None)
            current = self.index.state.current.get(view.upstream)
            return {
                **view.as_row(),
                "pinned_text": self.index.text_of(view.pinned),
                "current_text": self.index.text_of(current),
            }

    # --- the person's switch and canon -----------------------------------------------------
    def init(self) -> wire.CoherenceStatus:
        """Switch tracking on: create ``.vmark/`` and capture every tracked file (none is written)."""
        with self._lock:
            init_layout(self.root)
            self.index.reload()
            self.index.load()
            self.scanner.reconcile()
            return self.status()

    def add_claim(self, statement: str, maturity: str, supersedes: str | None = None) -> wire.ClaimPut:
        with self._lock:
            self._require_initialized()
            self.index.load()
            return self.canon.add_claim(statement, maturity, supersedes)

    def update_claim(self, claim: str, changes: JSONObject) -> wire.ClaimPut:
        """A new version of a claim; ``changes`` may hold statement, maturity and invalidAt (or None)."""
        with self._lock:
            self._require_initialized()
            self.index.load()
            return self.canon.update_claim(claim, changes)

    def save_context(self, context_id: str, data: JSONObject) -> list[wire.Context]:
        with self._lock:
            self._require_initialized()
            self.canon.save_context(context_id, data)
        return self.contexts()

    def delete_context(self, context_id: str) -> list[wire.Context]:
        with self._lock:
            self._require_initialized()
            self.canon.delete_context(context_id)
        return self.contexts()

    # --- resolving ---------------------------------------------------------------------------
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
    ) -> wire.Resolved:
        """Accept the newer upstream or waive the edge; appended with who did it (and under which grant)."""
        if resolution not in ("accept-newer", "waive"):
            raise CoherenceError("resolution must be 'accept-newer' or 'waive'")
        if resolution == "waive" and not (reason and reason.strip()):
            raise CoherenceError("a waiver needs a reason")
        if expires is not None:
            check_time(expires, "expires")
        with self._lock:
            self._require_initialized()
            self.index.load()
            self.scanner.reconcile()
            edge = self.breakdown.open_edge(txf, input_index)
            upstream_rev = self.index.state.current.get(edge.upstream)
            if upstream_rev is None:
                raise EdgeNotLive("the upstream file is missing: revise the downstream instead", "unpinnable")
            body: JSONObject = {
                "txf": txf,
                "input": input_index,
                "upstream_rev": upstream_rev,
                "by": by.body(),
                "grant": grant,
            }
            if resolution == "waive":
                body.update(reason=reason, expires=expires)
            kind = "ratify" if resolution == "accept-newer" else "waive"
            record = self.index.append([Record(kind, body, self.writer)])[0]
            after = self.breakdown.live_edge(txf, input_index)
            return {
                "txf": txf,
                "input": input_index,
                "resolution": "accept-newer" if resolution == "accept-newer" else "waive",
                "state": after.state if after else None,
                "entry": record.id,
            }

    def open_edge(self, txf: str, input_index: int) -> wire.Edge:
        """The row of an edge that is live and open now (after a scan); refuses like :meth:`resolve`."""
        with self._lock:
            self._require_initialized()
            self.index.load()
            self.scanner.reconcile()
            return self.breakdown.open_edge(txf, input_index).as_row()

    # --- recording (the app) -----------------------------------------------------------------
    def text_to_save(self, path: str, text: str) -> str:
        """``text`` with the identity of the object at ``path`` (a new object gets one now)."""
        with self._lock:
            self.index.load()
            return self.recorder.text_to_save(path, text)

    def record_save(self, path: str, text: str, by: Actor) -> str | None:
        """A save put ``text`` (with its identity) at ``path``: a new revision if the content moved."""
        with self._lock:
            self.index.load()
            return self.recorder.record_save(path, text, by)

    def record_write(self, path: str, text: str, by: Actor, tool: str, reads: Sequence[ReadPin]) -> str | None:
        """An agent's write made ``text`` the document at ``path`` (saved or not); the documents it
        read since its previous write become the transformation's ``inferred`` inputs."""
        with self._lock:
            self.index.load()
            return self.recorder.record_write(path, text, by, tool, reads)

    # --- identities, when the person asks for them -------------------------------------------
    def missing_identities(self) -> list[MissingIdentity]:
        """The tracked Markdown files that do not carry their identity yet (after a scan)."""
        with self._lock:
            self._require_initialized()
            self.index.load()
            return self.recorder.missing_identities()

    def add_identity(self, missing: MissingIdentity) -> DiskStamp | None:
        """Save one file with its identity (through ``storage.files``); None if it moved on meanwhile."""
        with self._lock:
            self._require_initialized()
            self.index.load()
            return self.recorder.add_identity(missing)

    def add_identities(self) -> list[str]:
        """Give every tracked Markdown file its identity; the relative paths that got one."""
        return [m.rel for m in self.missing_identities() if self.add_identity(m) is not None]

    def _require_initialized(self) -> None:
        if not self.initialized:
            raise CoherenceError(
                f"{self.root} has no coherence ledger yet: the person switches tracking on"
                f" (the Coherence panel, or `vmark coherence init {self.root}`)"
            )
