"""Scan-reconcile: compare the workspace's files with the stat cache and capture what moved, like
``git status``; a long-lived kernel keeps inotify watches so a warm scan looks only at what changed.

A scan only reads the files. A Markdown file without an identity in its front matter is tracked by its
path until VMark saves it (or the person adds identities, in the Coherence panel): a scan never writes
a document.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from ..core.actor import UNKNOWN
from ..core.kinds import MARKDOWN_SUFFIXES, WORKFLOW_SUFFIXES
from ..core.progress import report
from .identity import content_digest, content_of, identity_of
from .index import FileEntry, WorkspaceIndex, is_markdown, is_tracked
from .records import Record, uuid7
from .watch import FolderWatch

_SKIP_DIRS = frozenset({"node_modules", "__pycache__"})
_IDENTITY_PROBE_BYTES = 4096


class Scanner:
    """Looks at one workspace's files for the index (under the kernel's lock)."""

    def __init__(self, index: WorkspaceIndex, *, watch: bool) -> None:
        """``watch``: keep inotify watches on the workspace's folders, so a warm scan looks only at what
        changed (where the system has no inotify it walks every time)."""
        self.index = index
        self._watching = watch
        self._watch: FolderWatch | None = None
        self._watch_armed = False

    def close(self) -> None:
        if self._watch is not None:
            self._watch.close()
            self._watch, self._watch_armed = None, False

    def reconcile(self, only: set[str] | None = None) -> None:
        """Compare the tracked files (all, or ``only`` these) with the stat cache; capture what moved."""
        if only is None and self._watch_armed and self._watch is not None:
            found = self._watch.changes()
            if found is not None:
                paths, folders = found
                if paths or folders:
                    self._reconcile_paths({p for p in paths if is_tracked(p)} | self._scan_new_folders(folders))
                return  # the watch vouches for every other file
        self._reconcile_paths(only)
        if only is None and self._watching:
            self._watch_armed = self._watch is not None

    def identity_at(self, rel: str) -> str | None:
        """The identity the file at ``rel`` carries now (read from its head), if any."""
        try:
            with open(self.index.root / rel, "rb") as handle:
                head = handle.read(_IDENTITY_PROBE_BYTES)
        except OSError:
            return None
        return identity_of(head.decode("utf-8", errors="replace"))

    def count_identities(self) -> int:
        """How many tracked files carry an identity (for an untracked workspace's status)."""
        return sum(1 for rel, _ in self.walk(None) if self.identity_at(rel) is not None)

    def walk(self, only: set[str] | None) -> Iterator[tuple[str, os.stat_result]]:
        root = self.index.root
        if only is not None:
            for rel in only:
                try:
                    stat = os.stat(root / rel)
                except OSError:
                    continue
                yield rel, stat
            return
        # A warm `edges` stats every file of the workspace, like `git status` (threads do not help here:
        # measured slower, the GIL serializes the per-entry work around each stat).
        watch = self._arm_watch()
        folders = [(str(root), "")]
        while folders:
            folder = folders.pop()
            if watch is not None:
                watch.add(*folder)  # before its files are stat-ed: a change after that is an event
            files, subfolders = scan_folder(folder)
            yield from files
            folders.extend(subfolders)

    # --- reconcile ------------------------------------------------------------------------
    def _scan_new_folders(self, folders: set[str]) -> set[str]:
        """The tracked files of folders that appeared (watched from now on, with their subfolders)."""
        found: set[str] = set()
        pending = [(str(self.index.root / rel), rel + "/") for rel in folders]
        while pending:
            path, prefix = pending.pop()
            if self._watch is not None:
                self._watch.add(path, prefix)
            files, subfolders = scan_folder((path, prefix))
            found.update(rel for rel, _ in files)
            pending.extend(subfolders)
        return found

    def _reconcile_paths(self, only: set[str] | None) -> None:
        index = self.index
        st = index.state
        seen: dict[str, os.stat_result] = {}
        changed: list[str] = []
        cached = 0
        files = st.files
        for rel, stat in self.walk(only):
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
            index.drop_file(rel)
        for done, rel in enumerate(sorted(changed), 1):
            records.extend(self._capture(rel, seen[rel]))
            report(done, len(changed), "reading changed files")
        self._refresh_current(gone)
        if records:
            index.append(records)
        st.version += 1
        index.save()

    def _arm_watch(self) -> FolderWatch | None:
        if self._watching and self._watch is None:
            try:
                self._watch = FolderWatch()
            except OSError:
                self._watching = False  # no inotify here: every scan walks the tree
        return self._watch

    # --- capture ----------------------------------------------------------------------------
    def _capture(self, rel: str, stat: os.stat_result) -> list[Record]:
        index = self.index
        st = index.state
        text = _read_text(index.root / rel)
        if text is None:
            return []  # not UTF-8: not a document we track
        if not is_markdown(rel):
            return self._capture_by_path(rel, text, stat)
        oid = identity_of(text)
        content = content_digest(text)
        records: list[Record] = []
        if oid is None:
            # No identity (yet, or another program dropped it): the path names the object until VMark
            # saves the file with its identity. The file itself is left as it is.
            oid = index.object_at(rel)
            if oid is None:
                oid = uuid7()
                records.append(index.object_record(oid, rel))
        elif oid not in st.paths:
            records.append(index.object_record(oid, rel))
        elif st.paths[oid] != rel:
            original = st.paths[oid]
            # The original may not be among the paths looked at (a watch reports only the copy): ask the file.
            if self.identity_at(original) == oid:
                st.duplicates.setdefault(oid, [original])
                if rel not in st.duplicates[oid]:
                    st.duplicates[oid].append(rel)
                index.set_file(rel, FileEntry(stat.st_size, stat.st_mtime_ns, None, content))
                return []  # a copy: surfaced, never fixed behind the person's back
            records.append(Record("move", {"object": oid, "path": rel}, index.writer))
            st.paths[oid] = rel
        index.set_file(rel, FileEntry(stat.st_size, stat.st_mtime_ns, oid, content))
        return records + self._content_moved(oid, rel, text, content)

    def _capture_by_path(self, rel: str, text: str, stat: os.stat_result) -> list[Record]:
        """A workflow file has no front matter: its identity is its path (a rename is a new object)."""
        index = self.index
        records: list[Record] = []
        oid = index.object_at(rel)
        if oid is None:
            oid = uuid7()
            records.append(index.object_record(oid, rel))
        content = content_digest(text)
        index.set_file(rel, FileEntry(stat.st_size, stat.st_mtime_ns, oid, content))
        return records + self._content_moved(oid, rel, text, content)

    def _content_moved(self, oid: str, rel: str, text: str, content: str) -> list[Record]:
        """The file's content against the object's current revision: same, a known one, or new."""
        index = self.index
        st = index.state
        current = st.current.get(oid)
        if current is not None and index.content(current) == content:
            return []
        known = st.by_content.get((oid, content))
        if known is not None:
            index.set_current(oid, known)  # navigation (checkout, reset, undo to a known text): no revision
            return []
        cause = "capture" if current is None and oid not in st.revised else "external"
        return index.revision_records(oid, rel, content_of(text), cause, UNKNOWN, "external-edit", ())

    def _refresh_current(self, gone: list[str]) -> None:
        index = self.index
        st = index.state
        for rel in gone:
            for oid, path in st.paths.items():
                if path == rel and not any(f.object == oid for f in st.files.values()):
                    index.set_current(oid, None)
        for oid, paths in list(st.duplicates.items()):
            alive = [p for p in paths if p in st.files]
            if len(alive) > 1:
                st.duplicates[oid] = alive
            else:
                del st.duplicates[oid]


def scan_folder(folder: tuple[str, str]) -> tuple[list[tuple[str, os.stat_result]], list[tuple[str, str]]]:
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
            if suffix not in MARKDOWN_SUFFIXES and (suffix not in WORKFLOW_SUFFIXES or not is_tracked(rel)):
                continue
            try:
                if entry.is_file(follow_symlinks=False):
                    files.append((rel, entry.stat(follow_symlinks=False)))
            except OSError:
                continue
    return files, subfolders


def _read_text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
