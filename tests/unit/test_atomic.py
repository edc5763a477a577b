"""The one atomic write (``vmark.storage.atomic``): whole files or nothing, exact modes, no temp left."""

from __future__ import annotations

import errno
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from vmark.storage import atomic
from vmark.storage.atomic import write_atomic, write_temp, write_text_atomic


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_replaces_with_the_exact_mode_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "f.json"
    target.write_text("old")
    target.chmod(0o666)
    old_umask = os.umask(0o077)
    try:
        write_text_atomic(target, "new", 0o640)
    finally:
        os.umask(old_umask)
    assert target.read_text() == "new"
    assert target.stat().st_mode & 0o7777 == 0o640  # neither the umask nor the old file decides
    assert _names(tmp_path) == ["f.json"]


def test_a_failed_rename_keeps_the_old_bytes_and_removes_the_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "f"
    target.write_bytes(b"old")

    def broken(src: object, dst: object) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(atomic.os, "replace", broken)
    with pytest.raises(OSError, match="disk gone"):
        write_atomic(target, b"new")
    assert target.read_bytes() == b"old"
    assert _names(tmp_path) == ["f"]


def test_the_temp_file_is_created_exclusively(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(atomic.secrets, "token_hex", lambda n: "0" * (2 * n))
    (tmp_path / "elsewhere").write_text("not ours")
    squatter = tmp_path / ".f.000000000000.vmark-tmp"
    squatter.symlink_to(tmp_path / "elsewhere")  # a planted name: never opened, never followed
    with pytest.raises(FileExistsError):
        write_atomic(tmp_path / "f", b"new")
    assert (tmp_path / "elsewhere").read_text() == "not ours"
    assert not (tmp_path / "f").exists()


def test_write_temp_beside_a_directory_descriptor(tmp_path: Path) -> None:
    dfd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        name = write_temp("doc.md", b"text", 0o600, dir_fd=dfd)
    finally:
        os.close(dfd)
    assert name.startswith(".doc.md.") and name.endswith(".vmark-tmp") and "/" not in name
    assert (tmp_path / name).read_bytes() == b"text"
    assert (tmp_path / name).stat().st_mode & 0o777 == 0o600


def _wait_for(predicate: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 30
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.001)


def _waiting(folder_fd: int) -> int:
    """How many callers wait on the folder's fsync turn (its condition's waiters)."""
    st = os.fstat(folder_fd)
    return len(atomic._folders[(st.st_dev, st.st_ino)].cond._waiters)  # type: ignore[attr-defined]


@pytest.mark.parametrize("second", ["ok", "fails"])
def test_one_folder_fsync_answers_every_rename_done_before_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, second: str
) -> None:
    """A caller never counts an fsync that was already running when it came (its rename may be later than
    that fsync's start); every caller that came meanwhile shares the next one, and its error if it fails."""
    started: list[int] = []
    release = [threading.Event(), threading.Event()]

    def fsync(fd: int) -> None:
        started.append(fd)
        release[len(started) - 1].wait(30)
        if len(started) == 2 and second == "fails":
            raise OSError(errno.EIO, "I/O error")

    monkeypatch.setattr(atomic.os, "fsync", fsync)
    fds = [os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY) for _ in range(4)]
    outcomes: dict[int, str] = {}

    def caller(k: int) -> None:
        try:
            atomic.sync_dir_fd(fds[k])
            outcomes[k] = "ok"
        except OSError as exc:
            outcomes[k] = exc.strerror or ""

    try:
        first = threading.Thread(target=caller, args=(0,))
        first.start()
        _wait_for(lambda: len(started) == 1, "the first fsync")
        later = [threading.Thread(target=caller, args=(k,)) for k in (1, 2, 3)]
        for thread in later:
            thread.start()
        _wait_for(lambda: _waiting(fds[0]) == 3, "three callers behind the running fsync")
        assert outcomes == {}  # the running fsync started before they came: it answers none of them
        release[0].set()
        _wait_for(lambda: len(started) == 2, "the second fsync")
        first.join(30)
        assert outcomes == {0: "ok"}
        release[1].set()
        for thread in later:
            thread.join(30)
        assert len(started) == 2  # one fsync for the three of them
        expected = "ok" if second == "ok" else "I/O error"
        assert outcomes == {0: "ok", 1: expected, 2: expected, 3: expected}
    finally:
        for event in release:
            event.set()
        for fd in fds:
            os.close(fd)


def test_after_a_failed_folder_fsync_the_next_caller_syncs_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []

    def failing(fd: int) -> None:
        calls.append(fd)
        raise OSError(errno.EIO, "I/O error")

    monkeypatch.setattr(atomic.os, "fsync", failing)
    with pytest.raises(OSError, match="I/O error"):
        atomic.fsync_dir(tmp_path)
    monkeypatch.setattr(atomic.os, "fsync", calls.append)
    atomic.fsync_dir(tmp_path)  # its own fsync, not the failed one's error
    assert len(calls) == 2
