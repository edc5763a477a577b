"""Content-addressed snapshots: exact paths, idempotent, damage reads as missing."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from vmark.coherence.layout import init_layout
from vmark.coherence.snapshots import SnapshotStore


@pytest.fixture
def store(tmp_path: Path) -> SnapshotStore:
    return SnapshotStore(init_layout(tmp_path))


def test_put_stores_utf8_bytes_by_sha256(store: SnapshotStore, tmp_path: Path) -> None:
    text = "# Café\n\nnaïve → ok\n"
    digest = store.put(text)
    assert digest == hashlib.sha256(text.encode("utf-8")).hexdigest()
    path = tmp_path / ".vmark/snapshots/sha256" / digest[:2] / digest[2:]
    assert path.read_bytes() == text.encode("utf-8")
    assert len(path.name) == 62
    assert store.get(digest) == text
    assert store.has(digest)


def test_put_is_idempotent_and_does_not_rewrite(store: SnapshotStore, tmp_path: Path) -> None:
    digest = store.put("same\n")
    path = store.dir / digest[:2] / digest[2:]
    before = os.stat(path)
    assert store.put("same\n") == digest
    after = os.stat(path)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert sorted(p.name for p in store.dir.rglob("*") if p.is_file()) == [digest[2:]]


def test_empty_text(store: SnapshotStore) -> None:
    digest = store.put("")
    assert digest == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert store.get(digest) == ""


def test_missing_and_corrupted_read_as_none(store: SnapshotStore) -> None:
    absent = hashlib.sha256(b"never stored").hexdigest()
    assert store.get(absent) is None
    assert not store.has(absent)
    digest = store.put("original\n")
    path = store.dir / digest[:2] / digest[2:]
    path.write_bytes(b"tampered\n")
    assert store.get(digest) is None
    assert not store.has(digest)
    assert store.put("original\n") == digest  # the next put heals it
    assert path.read_bytes() == b"original\n"


def test_a_matching_file_that_is_not_utf8_is_none(store: SnapshotStore) -> None:
    data = b"\xff\xfe binary"
    digest = hashlib.sha256(data).hexdigest()
    (store.dir / digest[:2]).mkdir()
    (store.dir / digest[:2] / digest[2:]).write_bytes(data)
    assert store.has(digest)
    assert store.get(digest) is None


@pytest.mark.parametrize("bad", ["", "abc", "A" * 64, "g" * 64, "0" * 63, "0" * 65, "../" + "0" * 61, "0" * 63 + "\n"])
def test_bad_digests_are_refused(store: SnapshotStore, bad: str) -> None:
    for call in (store.get, store.has):
        with pytest.raises(ValueError, match="not a sha256 digest"):
            call(bad)


def test_put_needs_an_initialized_folder(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / ".vmark")
    with pytest.raises(FileNotFoundError):
        store.put("x")
    assert list(tmp_path.iterdir()) == []
