"""The ledger: append-only JSONL files, one per writer, that nothing rewrites except to quarantine.

``ledger/<writer>.jsonl`` is the active file of one writer (an installation); when an append
would take it past ``rotate_bytes`` it is renamed ``<writer>.<seq>.jsonl`` and a new one started.
Readers read every ``*.jsonl`` in ``ledger/``, whoever wrote it and whichever branch it came
from (git merges these files by union, so a record can arrive twice: it counts once).

Every change to a file happens under an exclusive ``flock`` of that file: an append (one
``os.write`` of all its lines, then fsync), a rotation, a repair. A repair moves the lines that
are not records (a torn tail of a killed writer, garbage, conflict markers) to
``ledger/quarantine/<file name>`` and rewrites the file without them, atomically, so a good line
is never lost and a bad one never makes a reader fail. A rotation or a repair gives the path a
new inode, so whoever takes a lock first checks that its descriptor is still the file there.

Reading is incremental: each file's parse is kept with its inode and size, and only the bytes
appended since are parsed again.
"""

from __future__ import annotations

import fcntl
import gc
import os
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import BinaryIO, TypeVar

from vmark.coherence.records import MalformedRecord, Record, parse_line

from ..protocol.limits import LEDGER_ROTATE_BYTES, LEDGER_SYNC_ROUNDS
from ..storage.atomic import fsync_dir, write_all, write_atomic

_T = TypeVar("_T")
_WRITER = re.compile(r"[A-Za-z0-9_-]{1,64}")
_SEQ_DIGITS = 6
_RECORD_START = b'{"body":'  # Record.to_line sorts its keys: "body" comes first
_EDGE = 64  # bytes before a parsed file's end that must be unchanged for an incremental parse

Fingerprint = tuple[tuple[str, int, int, int], ...]


@dataclass(frozen=True)
class LedgerRead:
    records: list[Record]  # sorted by Record.sort_key, each record id once
    quarantined: int  # lines this read moved to quarantine


@dataclass
class _Parsed:
    """What one ledger file held when last parsed; bytes appended later are parsed from ``end``."""

    ino: int
    size: int
    mtime_ns: int
    end: int = 0  # offset just past the last complete line parsed
    edge: bytes = b""  # the bytes just before ``end``: unchanged if the file only grew
    records: list[Record] = field(default_factory=list)
    dirty: bool = False  # holds a line that is not a record: repair it
    torn: bool = False  # ends without a newline: a writer is mid-append, or was killed there


class Ledger:
    """One writer's handle on the ledger of a ``.vmark`` folder (reads see every writer)."""

    def __init__(self, vmark_dir: Path, writer: str, rotate_bytes: int = LEDGER_ROTATE_BYTES) -> None:
        if not _WRITER.fullmatch(writer):
            raise ValueError(f"writer {writer!r} must be 1-64 of A-Z a-z 0-9 _ -")
        self.dir = vmark_dir / "ledger"
        self.writer = writer
        self.rotate_bytes = rotate_bytes
        self.active = self.dir / f"{writer}.jsonl"
        self._rotated = re.compile(rf"{re.escape(writer)}\.(\d{{{_SEQ_DIGITS},}})\.jsonl")
        self._files = _files_of(self.dir)

    def fingerprint(self) -> Fingerprint:
        """(name, inode, size, mtime_ns) of every ledger file: equal means nothing changed since."""
        return self._files.fingerprint()

    def read(self) -> LedgerRead:
        """Every record of every writer, oldest first; malformed lines are quarantined on the way."""
        return self._files.read()

    def idem_known(self, idem: str) -> bool:
        return self._files.idem_known(idem)

    # ------------------------------------------------------------------ appending

    def append(self, records: Sequence[Record]) -> list[Record]:
        """Append the records whose idempotency key is new; return the ledger's record for each."""
        for record in records:
            if record.writer != self.writer:
                raise ValueError(f"record {record.id} is by writer {record.writer!r}, not {self.writer!r}")
        if not records:
            return []
        with self._files.mutex:
            self._files.sync()  # every writer's keys, and bad files repaired before our lock is taken
            known, fresh = self._classify(records)
            if not fresh:
                return known  # all of them are there already: not even the file is touched
            result = _with_lock(self.active, create=True, action=lambda fd: self._append_locked(fd, records))
            assert result is not None  # create=True: the file is there
            return result

    def _append_locked(self, fd: int, records: Sequence[Record]) -> list[Record] | None:
        """The append itself; None when it had to replace the file first (then it runs again)."""
        for name in self._own_files():  # another process of this writer may have appended since
            self._files.refresh(name)
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            self._files.repair_locked(self.active)  # a killed writer's torn tail must not glue onto our line
            return None
        result, fresh = self._classify(records)
        if not fresh:
            return result
        data = "".join(record.to_line() + "\n" for record in fresh).encode("utf-8")
        if size and size + len(data) > self.rotate_bytes:
            self._rotate()
            return None
        write_all(fd, data)
        os.fsync(fd)
        if not size:
            fsync_dir(self.dir)  # a new file: its directory entry must be durable too
        self._files.note_idem(fresh)
        return result

    def _classify(self, records: Sequence[Record]) -> tuple[list[Record], list[Record]]:
        """(the ledger's record for each one, the ones to append): a known idem gives the old record."""
        result: list[Record] = []
        fresh: list[Record] = []
        batch: dict[str, Record] = {}
        for record in records:
            known = None if record.idem is None else (self._files.idem.get(record.idem) or batch.get(record.idem))
            if known is None:
                fresh.append(record)
                if record.idem is not None:
                    batch[record.idem] = record
            result.append(known or record)
        return result, fresh

    def _rotate(self) -> None:
        seqs = [int(m.group(1)) for name in os.listdir(self.dir) if (m := self._rotated.fullmatch(name))]
        os.rename(self.active, self.dir / f"{self.writer}.{max(seqs, default=0) + 1:0{_SEQ_DIGITS}d}.jsonl")
        fsync_dir(self.dir)

    def _own_files(self) -> list[str]:
        return sorted(n for n in os.listdir(self.dir) if n == self.active.name or self._rotated.fullmatch(n))


class _Files:
    """The parsed ledger files of one folder, shared by every Ledger of this process on it."""

    def __init__(self, ledger_dir: Path) -> None:
        self.dir = ledger_dir
        self.quarantine_dir = ledger_dir / "quarantine"
        self.files: dict[str, _Parsed] = {}
        self.idem: dict[str, Record] = {}
        # The merged view, kept up to date by appending what incremental parses add (``pending``);
        # rebuilt from all files when a parse was dropped (a file replaced or gone).
        self.merged: list[Record] | None = None
        self.merged_ids: set[str] = set()
        self.pending: list[Record] = []
        self.idem_stale = False
        self.mutex = threading.RLock()

    def fingerprint(self) -> Fingerprint:
        """(name, inode, size, mtime_ns) of every ledger file: equal means nothing changed since."""
        try:
            entries = list(os.scandir(self.dir))
        except FileNotFoundError:
            return ()
        stamps = []
        for entry in entries:
            if entry.name.endswith(".jsonl") and entry.is_file(follow_symlinks=False):
                try:
                    st = entry.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue  # rotated or repaired between listing and stat
                stamps.append((entry.name, st.st_ino, st.st_size, st.st_mtime_ns))
        return tuple(sorted(stamps))

    def read(self) -> LedgerRead:
        """Every record of every writer, oldest first; malformed lines are quarantined on the way."""
        with self.mutex, _collector_paused():
            quarantined = self.sync()
            if self.merged is None:
                by_id: dict[str, Record] = {}
                for name in sorted(self.files):
                    for record in self.files[name].records:
                        by_id.setdefault(record.id, record)  # the same record in two files: once
                self.merged = sorted(by_id.values(), key=_sort_key)
                self.merged_ids = set(by_id)
            elif self.pending:
                self._merge_pending(self.merged)
            self.pending = []
            return LedgerRead(list(self.merged), quarantined)

    def _merge_pending(self, merged: list[Record]) -> None:
        fresh = [r for r in self.pending if r.id not in self.merged_ids]
        self.merged_ids.update(r.id for r in fresh)
        if len(fresh) != len({r.id for r in fresh}):
            fresh = list({r.id: r for r in reversed(fresh)}.values())  # first of each id
        fresh.sort(key=_sort_key)
        in_order = not merged or not fresh or merged[-1].sort_key <= fresh[0].sort_key
        merged.extend(fresh)
        if not in_order:
            merged.sort(key=_sort_key)  # a record older than the newest (another writer's clock)

    def idem_known(self, idem: str) -> bool:
        with self.mutex:
            self.sync()
            return idem in self.idem

    def sync(self) -> int:
        """Bring the per-file parses up to date, repairing bad files; return lines quarantined."""
        with _collector_paused():
            return self._sync()

    def _sync(self) -> int:
        quarantined = 0
        for _ in range(LEDGER_SYNC_ROUNDS):
            stamp = self.fingerprint()
            names = {name for name, *_ in stamp}
            for gone in set(self.files) - names:
                self._drop(gone)
            for name in sorted(names):
                parsed = self.refresh(name)
                if parsed is not None and (parsed.dirty or parsed.torn):
                    quarantined += self.repair(self.dir / name)
            if self.idem_stale:
                self.idem = {}
                for parsed_file in self.files.values():
                    self.note_idem(parsed_file.records)
                self.idem_stale = False
            if self.fingerprint() == stamp:
                break
            # a file changed meanwhile (our repair, someone's append): parse that too
        return quarantined

    def _drop(self, name: str) -> None:
        if self.files.pop(name).records:
            self._invalidate()

    def _invalidate(self) -> None:
        """Parsed records were dropped (their file replaced or gone): rebuild the views of all files."""
        self.merged, self.pending, self.idem_stale = None, [], True

    def refresh(self, name: str) -> _Parsed | None:
        """Parse what ``name`` gained since the last call (all of it if it is not the file it was)."""
        old = self.files.get(name)
        try:
            with open(self.dir / name, "rb") as handle:
                st = os.fstat(handle.fileno())
                if old is None:
                    old = self._renamed(name, st.st_ino)
                if old is not None and (old.ino, old.size, old.mtime_ns) == (st.st_ino, st.st_size, st.st_mtime_ns):
                    self.files[name] = old
                    return old
                start = self._resume_at(handle, old, st)
                handle.seek(start)
                data = handle.read()
        except FileNotFoundError:
            if name in self.files:
                self._drop(name)
            return None
        whole = start == 0
        if whole and old is not None and old.records:
            self._invalidate()
        parsed = _Parsed(st.st_ino, start + len(data), st.st_mtime_ns)
        if not whole and old is not None:
            parsed.records, parsed.dirty = old.records, old.dirty
        cut = data.rfind(b"\n") + 1
        parsed.end = start + cut
        before = old.edge if old is not None and not whole else b""
        parsed.edge = (before + data[max(0, cut - _EDGE) : cut])[-_EDGE:]
        parsed.torn = cut < len(data)
        fresh, bad = _parse_lines(data[:cut])
        parsed.dirty = parsed.dirty or bad
        parsed.records.extend(fresh)
        self.files[name] = parsed
        self.note_idem(fresh)
        if self.merged is not None:
            self.pending.extend(fresh)
        return parsed

    def _renamed(self, name: str, ino: int) -> _Parsed | None:
        """The parse of this file made under the name it had before a rotation, if any."""
        for other, parsed in list(self.files.items()):
            if other != name and parsed.ino == ino and _inode(self.dir / other) != ino:
                del self.files[other]  # that name is gone, or is a new file now
                return parsed
        return None

    @staticmethod
    def _resume_at(handle: BinaryIO, old: _Parsed | None, st: os.stat_result) -> int:
        """Where new bytes start: ``old.end`` if the file only grew since, else 0 (parse it all)."""
        if old is None or old.ino != st.st_ino or st.st_size < old.end:
            return 0
        handle.seek(old.end - len(old.edge))
        return old.end if handle.read(len(old.edge)) == old.edge else 0

    def note_idem(self, records: list[Record]) -> None:
        for record in records:
            if record.idem is not None:
                known = self.idem.get(record.idem)
                if known is None or record.sort_key < known.sort_key:
                    self.idem[record.idem] = record

    # ------------------------------------------------------------------ quarantine

    def repair(self, path: Path) -> int:
        try:
            return _with_lock(path, create=False, action=lambda _fd: self.repair_locked(path)) or 0
        except OSError:
            return 0  # a read-only ledger, a full disk: the bad lines are skipped now, moved by a later read

    def repair_locked(self, path: Path) -> int:
        """Move the lines of ``path`` that are not records to quarantine; return how many."""
        data = path.read_bytes()
        cut = data.rfind(b"\n") + 1
        lines = data[:cut].split(b"\n")[:-1]
        if cut < len(data):
            lines.append(data[cut:])  # under the lock nobody is mid-append: this line was torn
        good: list[bytes] = []
        bad: list[bytes] = []
        for line in lines:
            if _parse(line) is not None:
                good.append(line)
            elif glued := _unglue(line):
                bad.append(glued[0])
                good.append(glued[1])
            else:
                bad.append(line)
        if bad:
            self._quarantine(path.name, bad)
        if bad or cut < len(data):
            # A complete record that lost only its newline stays, with the newline it was meant to have.
            write_atomic(path, b"".join(line + b"\n" for line in good))
        return len(bad)

    def _quarantine(self, name: str, lines: list[bytes]) -> None:
        self.quarantine_dir.mkdir(exist_ok=True)  # git keeps no empty folder: a clone may lack it
        target = self.quarantine_dir / name
        created = not target.exists()
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            write_all(fd, b"".join(line + b"\n" for line in lines))
            os.fsync(fd)
        finally:
            os.close(fd)
        if created:
            fsync_dir(self.quarantine_dir)


_SHARED: dict[Path, _Files] = {}
_SHARED_LOCK = threading.Lock()


def _files_of(ledger_dir: Path) -> _Files:
    """The process-wide parse of ``ledger_dir``: a new Ledger per call still reads incrementally."""
    key = ledger_dir.resolve()
    with _SHARED_LOCK:
        return _SHARED.setdefault(key, _Files(key))


def _parse_lines(chunk: bytes) -> tuple[list[Record], bool]:
    """The records of complete lines, and whether some line was not one."""
    try:
        lines: list[str] | list[bytes] = chunk.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        lines = chunk.split(b"\n")  # some line is not UTF-8: decode line by line to find it
    lines.pop()  # the empty piece after the last newline
    records = []
    for line in lines:
        record = _parse(line)
        if record is not None:
            records.append(record)
    return records, len(records) < len(lines)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection meanwhile.

    Reading makes hundreds of thousands of objects that all stay alive: the collector, run again
    and again over the growing heap, would take a third of the time and find nothing.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _unglue(line: bytes) -> tuple[bytes, bytes] | None:
    """(torn fragment, record line) if a whole record was glued onto a fragment, else None.

    That happens when git merges a file whose torn last line lacked its newline: the other
    side's next line lands right after the fragment. Lines written here all start the same way.
    """
    start = line.find(_RECORD_START, 1)
    while start > 0:
        if _parse(line[start:]) is not None:
            return line[:start], line[start:]
        start = line.find(_RECORD_START, start + 1)
    return None


def _parse(line: str | bytes) -> Record | None:
    try:
        return parse_line(line if isinstance(line, str) else line.decode("utf-8"))
    except (MalformedRecord, UnicodeDecodeError):
        return None


def _with_lock(path: Path, create: bool, action: Callable[[int], _T | None]) -> _T | None:
    """Run ``action`` holding the lock of the file now at ``path``, again while it answers None.

    ``action`` answers None when it replaced the file (a rotation, a repair) and must run on the
    new one. Without ``create``, a file that is gone gives None.
    """
    while True:
        with _locked(path, create) as fd:
            if fd is None:
                return None
            result = action(fd)
        if result is not None:
            return result


@contextmanager
def _locked(path: Path, create: bool) -> Iterator[int | None]:
    """An O_APPEND descriptor of the file at ``path``, flock'ed, and still that file (None: gone)."""
    flags = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC | (os.O_CREAT if create else 0)
    while True:
        try:
            fd = os.open(path, flags, 0o644)
        except FileNotFoundError:
            if create:
                raise
            yield None
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if _same_file(fd, path):
                yield fd
                return
        finally:
            os.close(fd)  # closing releases the lock


def _same_file(fd: int, path: Path) -> bool:
    return _inode(path) == os.fstat(fd).st_ino  # one folder: one device


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return None


# Record.sort_key, (time, id), read without a Python call per record: sorting 100k records is 4x faster.
_sort_key = attrgetter("time", "id")
