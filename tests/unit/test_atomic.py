"""The one atomic write (``vmark.storage.atomic``): whole files or nothing, exact modes, no temp left."""

from __future__ import annotations

import os
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
