"""The workspace kernel on real folders: capture, recording, scan-reconcile, every edge state, git
branches and merges, copies, an unresolvable pin, a rebuilt index."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from vmark.coherence.checker import CheckRequest
from vmark.coherence.identity import content_of, identity_of
from vmark.coherence.kernel import PERSON, Actor, CoherenceError, EdgeNotLive, Kernel, ReadPin
from vmark.coherence.ledger import Ledger
from vmark.coherence.records import Record

WRITER = "0198c0de-0000-7000-8000-000000000001"
AGENT = Actor("agent", "alice")


class FakeChecker:
    """Deterministic: ``contradicted`` when the new upstream says SHORT, ``valid`` when it says OK."""

    name = "fake"

    def __init__(self) -> None:
        self.calls: list[CheckRequest] = []

    def check(self, request: CheckRequest) -> str:
        self.calls.append(request)
        if "SHORT" in request.upstream_after:
            return "contradicted"
        return "valid" if "OK" in request.upstream_after else "unknown"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    (folder / "notes").mkdir(parents=True)
    (folder / "elena.md").write_text("# Elena\n\nShe is tall.\n")
    (folder / "chapter.md").write_text("# Chapter\n")
    (folder / "notes" / "plot.md").write_text("# Plot\n")
    return folder


@pytest.fixture
def kernel(root: Path) -> Kernel:
    made = Kernel(root, WRITER)
    made.init()
    return made


def derive(kernel: Kernel, root: Path, text: str = "# Chapter\n\nElena, tall.\n", save: bool = True) -> str:
    """An agent read elena.md and wrote chapter.md (saved to disk unless ``save`` is off)."""
    read = ReadPin(str(root / "elena.md"), (root / "elena.md").read_text())
    path = str(root / "chapter.md")
    rev = kernel.record_write(path, text, AGENT, "document.write", [read])
    assert rev is not None
    if save:  # as the app does: the write is recorded, then saved
        saved = kernel.text_to_save(path, text)
        (root / "chapter.md").write_text(saved)
        assert kernel.record_save(path, saved, AGENT) == rev
    return rev


def edit(root: Path, name: str, change: str) -> None:
    """Another program appends to a file (keeping its identity)."""
    path = root / name
    path.write_text(path.read_text() + change)


def states(kernel: Kernel, include_fresh: bool = False) -> list[tuple[str, str, str]]:
    return [(r["downstream_path"], r["upstream_path"], r["state"]) for r in kernel.edges(include_fresh=include_fresh)]


def ledger(root: Path) -> list[dict[str, Any]]:
    out = []
    for path in sorted((root / ".vmark" / "ledger").glob("*.jsonl")):
        out += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return out


# --- capture and identity -----------------------------------------------------------------------
def files_of(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every document of the workspace (outside ``.vmark/``) with its bytes and mtime."""
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".vmark" not in p.relative_to(root).parts
    }


def test_init_captures_every_document_and_writes_none(root: Path) -> None:
    before = files_of(root)
    kernel = Kernel(root, WRITER)
    kernel.init()
    kernel.edges()
    kernel.status()
    assert files_of(root) == before  # tracking on rewrites no file: identities wait for a save
    records = ledger(root)
    assert sorted(r["body"]["path"] for r in records if r["kind"] == "object") == [
        "chapter.md",
        "elena.md",
        "notes/plot.md",
    ]
    captures = [r for r in records if r["kind"] == "revision"]
    assert {r["body"]["cause"] for r in captures} == {"capture"} and len(captures) == 3
    assert all(r["body"]["parents"] == [] for r in captures)
    assert kernel.status()["objects"] == 3
    # A second init, or a scan with nothing changed, appends nothing.
    kernel.init()
    assert kernel.edges() == []
    assert ledger(root) == records


def test_added_identities_change_no_content(kernel: Kernel, root: Path) -> None:
    records = ledger(root)
    objects = {r["body"]["path"]: r["body"]["object"] for r in records if r["kind"] == "object"}
    assert sorted(kernel.add_identities()) == ["chapter.md", "elena.md", "notes/plot.md"]
    text = (root / "elena.md").read_text()
    oid = identity_of(text)
    assert oid == objects["elena.md"] and text == f"---\nvmark: {{id: {oid}}}\n---\n# Elena\n\nShe is tall.\n"
    assert content_of(text) == "# Elena\n\nShe is tall.\n"
    assert identity_of((root / "notes" / "plot.md").read_text()) == objects["notes/plot.md"]
    assert ledger(root) == records  # not a content change: no revision, no transformation
    assert kernel.edges() == [] and ledger(root) == records  # and the scan sees no outside edit
    assert kernel.add_identities() == []


def test_a_file_that_moved_on_keeps_its_text(kernel: Kernel, root: Path) -> None:
    (missing,) = [m for m in kernel.missing_identities() if m.rel == "elena.md"]
    (root / "elena.md").write_text("# Elena\n\nchanged meanwhile by another program\n")
    assert kernel.add_identity(missing) is None
    assert (root / "elena.md").read_text() == "# Elena\n\nchanged meanwhile by another program\n"


def test_front_matter_of_the_person_is_kept(tmp_path: Path) -> None:
    folder = tmp_path / "w"
    folder.mkdir()
    (folder / "a.md").write_text("---\ntitle: A\n---\nbody\n")
    kernel = Kernel(folder, WRITER)
    kernel.init()
    assert (folder / "a.md").read_text() == "---\ntitle: A\n---\nbody\n"
    kernel.add_identities()
    text = (folder / "a.md").read_text()
    assert re.fullmatch(r"---\nvmark: \{id: [0-9a-f-]{36}\}\ntitle: A\n---\nbody\n", text)


def test_a_dropped_identity_keeps_the_object_and_comes_back_with_a_save(kernel: Kernel, root: Path) -> None:
    kernel.add_identities()
    oid = identity_of((root / "elena.md").read_text())
    (root / "elena.md").write_text("# Elena\n\nrewritten by another tool\n")
    kernel.edges()
    assert (root / "elena.md").read_text() == "# Elena\n\nrewritten by another tool\n"  # never rewritten
    assert kernel.status()["objects"] == 3
    assert identity_of(kernel.text_to_save(str(root / "elena.md"), "# Elena\n\nrewritten\n")) == oid
    assert kernel.add_identities() == ["elena.md"]
    assert identity_of((root / "elena.md").read_text()) == oid


def test_status_before_init_counts_files_with_an_identity_and_writes_nothing(root: Path) -> None:
    (root / "copied.md").write_text("---\nvmark: {id: 0198c0de-0000-7000-8000-0000000000ff}\n---\nx\n")
    status = Kernel(root, WRITER).status()
    assert status == {"initialized": False, "objects": 1, "open_items": 0, "quarantined": 0, "writer": WRITER}
    assert not (root / ".vmark").exists()


def test_a_copied_file_is_surfaced_never_fixed(kernel: Kernel, root: Path) -> None:
    kernel.add_identities()
    shutil.copy(root / "elena.md", root / "elena-copy.md")
    before = (root / "elena-copy.md").read_bytes()
    kernel.edges()
    oid = identity_of((root / "elena.md").read_text())
    assert kernel.status()["duplicates"] == [{"object": oid, "paths": ["elena-copy.md", "elena.md"]}]
    assert (root / "elena-copy.md").read_bytes() == before
    assert [r for r in ledger(root) if r["kind"] == "move"] == []
    (root / "elena-copy.md").unlink()
    kernel.edges()
    assert kernel.status()["duplicates"] == []


def test_a_rename_is_a_move_of_the_same_object(kernel: Kernel, root: Path) -> None:
    kernel.add_identities()
    derive(kernel, root)
    os.rename(root / "elena.md", root / "notes" / "elena.md")
    edit(root, "notes/elena.md", "\nmoved and changed\n")
    rows = kernel.edges()
    assert [(r["upstream_path"], r["state"]) for r in rows] == [("notes/elena.md", "version-stale")]
    moves = [r["body"]["path"] for r in ledger(root) if r["kind"] == "move"]
    assert moves == ["notes/elena.md"]


# --- recording and the states --------------------------------------------------------------------
def test_fresh_then_version_stale_by_an_external_edit(kernel: Kernel, root: Path) -> None:
    derive(kernel, root)
    assert states(kernel) == []
    assert states(kernel, include_fresh=True) == [("chapter.md", "elena.md", "fresh")]
    edit(root, "elena.md", "\nNow she is short.\n")
    assert states(kernel) == [("chapter.md", "elena.md", "version-stale")]
    external = [r for r in ledger(root) if r["kind"] == "txf" and r["body"]["tool"] == "external-edit"]
    assert len(external) == 1
    assert external[0]["body"]["agent"] == {"kind": "unknown", "principal": None}
    assert external[0]["body"]["inputs"] == []
    assert kernel.status()["open_items"] == 1


def test_a_save_by_the_person_records_a_transformation(kernel: Kernel, root: Path) -> None:
    path = str(root / "notes" / "plot.md")
    text = kernel.text_to_save(path, "# Plot\n\nact two\n")
    (root / "notes" / "plot.md").write_text(text)
    rev = kernel.record_save(path, text, PERSON)
    txf = [r for r in ledger(root) if r["kind"] == "txf"][-1]
    assert txf["body"] == {
        "outputs": [{"object": identity_of(text), "rev": rev}],
        "inputs": [],
        "agent": {"kind": "person", "principal": None},
        "tool": "save",
    }
    # Saving the same content again records nothing.
    count = len(ledger(root))
    assert kernel.record_save(path, text, PERSON) == rev
    assert len(ledger(root)) == count


def test_an_unsaved_write_then_its_save_mint_one_revision(kernel: Kernel, root: Path) -> None:
    rev = derive(kernel, root, save=False)
    path = str(root / "chapter.md")
    text = kernel.text_to_save(path, "# Chapter\n\nElena, tall.\n")
    (root / "chapter.md").write_text(text)
    assert kernel.record_save(path, text, AGENT) == rev
    revisions = [r for r in ledger(root) if r["kind"] == "revision" and r["body"]["path"] == "chapter.md"]
    assert [r["body"]["cause"] for r in revisions] == ["capture", "write"]


def test_a_newer_generation_supersedes_and_a_plain_edit_does_not(kernel: Kernel, root: Path) -> None:
    derive(kernel, root)
    path = str(root / "chapter.md")
    polished = kernel.text_to_save(path, "# Chapter\n\nElena, tall. Polished.\n")
    (root / "chapter.md").write_text(polished)
    kernel.record_save(path, polished, PERSON)
    edit(root, "elena.md", "\nchanged\n")
    assert states(kernel) == [("chapter.md", "elena.md", "version-stale")]
    # A new generation that read plot.md (not elena.md) is the live one now.
    plot = ReadPin(str(root / "notes" / "plot.md"), (root / "notes" / "plot.md").read_text())
    kernel.record_write(path, "# Chapter\n\nfrom the plot\n", AGENT, "document.write", [plot])
    assert states(kernel, include_fresh=True) == [("chapter.md", "notes/plot.md", "fresh")]


def test_navigation_mints_no_revision_and_reads_as_diverged(kernel: Kernel, root: Path) -> None:
    original = (root / "elena.md").read_text()
    edit(root, "elena.md", "\nversion two\n")
    kernel.edges()
    derive(kernel, root)  # pinned to version two
    count = len(ledger(root))
    (root / "elena.md").write_text(original)  # back to a known text: like `git checkout`
    assert states(kernel) == [("chapter.md", "elena.md", "diverged")]
    assert len(ledger(root)) == count


def test_waiver_by_the_person_expires_and_one_at_an_older_revision_no_longer_covers(root: Path) -> None:
    now = [1_900_000_000.0]
    kernel = Kernel(root, WRITER, clock=lambda: now[0])
    kernel.init()
    derive(kernel, root)
    edit(root, "elena.md", "\nchange one\n")
    row = kernel.edges()[0]
    kernel.resolve(row["txf"], 0, "waive", by=PERSON, reason="later", expires="2030-03-17T17:46:50Z")
    assert states(kernel) == [("chapter.md", "elena.md", "waived")]
    now[0] = 1_900_000_011.0  # 2030-03-17T17:46:51Z: the waiver has lapsed
    assert states(kernel) == [("chapter.md", "elena.md", "version-stale")]
    kernel.resolve(row["txf"], 0, "waive", by=PERSON, reason="for good")
    assert states(kernel) == [("chapter.md", "elena.md", "waived")]
    edit(root, "elena.md", "\nchange two\n")
    assert states(kernel) == [("chapter.md", "elena.md", "version-stale")]


def test_accept_newer_ratifies_until_the_upstream_moves_again(kernel: Kernel, root: Path) -> None:
    derive(kernel, root)
    edit(root, "elena.md", "\none\n")
    row = kernel.edges()[0]
    result = kernel.resolve(row["txf"], 0, "accept-newer", by=PERSON)
    assert result["state"] == "ratified"
    assert states(kernel, include_fresh=True) == [("chapter.md", "elena.md", "ratified")]
    with pytest.raises(EdgeNotLive) as refused:
        kernel.resolve(row["txf"], 0, "accept-newer", by=PERSON)
    assert refused.value.state == "ratified"
    edit(root, "elena.md", "\ntwo\n")
    assert states(kernel) == [("chapter.md", "elena.md", "version-stale")]


def test_resolve_refusals_append_nothing(kernel: Kernel, root: Path) -> None:
    derive(kernel, root)
    edit(root, "elena.md", "\none\n")
    row = kernel.edges()[0]
    count = len(ledger(root))
    with pytest.raises(CoherenceError, match=r"^a waiver needs a reason$"):
        kernel.resolve(row["txf"], 0, "waive", by=PERSON, reason=" ")
    with pytest.raises(CoherenceError, match=r"^resolution must be 'accept-newer' or 'waive'$"):
        kernel.resolve(row["txf"], 0, "delete", by=PERSON)
    with pytest.raises(CoherenceError, match=r"^expires must be an RFC 3339 time with a zone"):
        kernel.resolve(row["txf"], 0, "waive", by=PERSON, reason="x", expires="tomorrow")
    with pytest.raises(CoherenceError, match=r"has no input 1$"):
        kernel.resolve(row["txf"], 1, "accept-newer", by=PERSON)
    assert len(ledger(root)) == count


def test_semantic_checks_and_their_expiry(root: Path) -> None:
    checker = FakeChecker()
    kernel = Kernel(root, WRITER, checker=checker)
    kernel.init()
    derive(kernel, root)
    edit(root, "elena.md", "\nOK: still tall.\n")
    assert states(kernel) == [("chapter.md", "elena.md", "stale-valid")]
    assert len(checker.calls) == 1
    request = checker.calls[0]
    assert request.upstream_before == "# Elena\n\nShe is tall.\n"
    assert request.upstream_after == "# Elena\n\nShe is tall.\n\nOK: still tall.\n"
    assert request.downstream == "# Chapter\n\nElena, tall.\n"
    assert states(kernel) == [("chapter.md", "elena.md", "stale-valid")]
    assert len(checker.calls) == 1  # a check holds while nothing moved
    edit(root, "elena.md", "\nSHORT now.\n")
    assert states(kernel) == [("chapter.md", "elena.md", "stale-contradicted")]
    # A new established claim changes the claim set: the check expires and runs again.
    kernel.add_claim("Elena is tall", "established")
    assert states(kernel) == [("chapter.md", "elena.md", "stale-contradicted")]
    assert len(checker.calls) == 3 and checker.calls[-1].claims == ["Elena is tall"]
    # The downstream moving expires it too.
    edit(root, "chapter.md", "\nmore\n")
    kernel.edges()
    assert len(checker.calls) == 4
    plain = Kernel(root, WRITER)  # no checker: the last verdict is for other revisions
    edit(root, "elena.md", "\nneutral\n")
    assert states(plain) == [("chapter.md", "elena.md", "version-stale")]


def test_an_unresolvable_pin_and_a_missing_upstream_are_unpinnable(kernel: Kernel, root: Path) -> None:
    kernel.add_identities()
    derive(kernel, root)
    chapter = identity_of((root / "chapter.md").read_text())
    plot = identity_of((root / "notes" / "plot.md").read_text())
    rows = kernel.edges(include_fresh=True)
    body = {
        "outputs": [{"object": chapter, "rev": rows[0]["downstream_rev"]}],
        "inputs": [{"object": plot, "rev": "rev1:" + "0" * 64, "path": "notes/plot.md", "provenance": "inferred"}],
        "agent": {"kind": "agent", "principal": "bob"},
        "tool": "document.write",
    }
    other = "0198c0de-0000-7000-8000-0000000000b2"
    Ledger(root / ".vmark", other).append([Record("txf", body, other)])
    assert states(kernel) == [("chapter.md", "notes/plot.md", "unpinnable")]
    (root / "notes" / "plot.md").unlink()
    assert states(kernel) == [("chapter.md", "notes/plot.md", "unpinnable")]


def test_the_index_is_rebuilt_from_the_ledger(kernel: Kernel, root: Path) -> None:
    derive(kernel, root)
    edit(root, "elena.md", "\nmoved\n")
    rows = kernel.edges()
    count = len(ledger(root))
    for name in os.listdir(root / ".vmark"):
        if name.startswith("index.db"):
            os.unlink(root / ".vmark" / name)
    again = Kernel(root, WRITER)
    assert again.edges() == rows
    assert len(ledger(root)) == count  # rebuilding appends nothing
    (root / ".vmark" / "index.db").write_bytes(b"not a database")
    assert Kernel(root, WRITER).edges() == rows


def test_garbage_in_the_ledger_is_quarantined_and_counted(kernel: Kernel, root: Path) -> None:
    derive(kernel, root)
    with open(root / ".vmark" / "ledger" / f"{WRITER}.jsonl", "a") as handle:
        handle.write("this is not json\n")
    fresh = Kernel(root, WRITER)
    assert fresh.status()["quarantined"] == 1
    assert states(fresh, include_fresh=True) == [("chapter.md", "elena.md", "fresh")]


# --- git --------------------------------------------------------------------------------------------
def git(root: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    done = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True)
    return done.stdout


@pytest.fixture
def repo(root: Path) -> Path:
    (root / "elena.md").write_text("# Elena\n\nline one\n\nline two\n\nline three\n")
    git(root, "init", "-q", "-b", "main")
    return root


def test_git_checkout_is_navigation_and_a_merge_gives_multiple_heads(repo: Path) -> None:
    kernel = Kernel(repo, WRITER)
    kernel.init()
    derive(kernel, repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    assert "index.db" not in git(repo, "ls-files")

    git(repo, "checkout", "-qb", "left")
    elena = (repo / "elena.md").read_text()
    (repo / "elena.md").write_text(elena.replace("line one", "line ONE"))
    assert states(kernel) == [("chapter.md", "elena.md", "version-stale")]
    git(repo, "commit", "-qam", "left")

    git(repo, "checkout", "-q", "main")
    assert states(kernel) == []  # back at the pinned text: fresh again
    assert git(repo, "status", "--porcelain", ".vmark/ledger") == ""  # nothing appended: no revision minted

    git(repo, "checkout", "-qb", "right")
    (repo / "elena.md").write_text(elena.replace("line three", "line THREE"))
    assert states(kernel) == [("chapter.md", "elena.md", "version-stale")]
    git(repo, "commit", "-qam", "right")

    git(repo, "merge", "-q", "--no-edit", "left")  # the ledger merges by union, elena.md cleanly
    merged = (repo / "elena.md").read_text()
    assert "line ONE" in merged and "line THREE" in merged
    assert "<<<<<<<" not in (repo / ".vmark" / "ledger" / f"{WRITER}.jsonl").read_text()
    assert states(kernel) == [("chapter.md", "elena.md", "diverged-multi-head")]
    assert kernel.status()["quarantined"] == 0


def test_two_writers_ledgers_merge_by_union(repo: Path) -> None:
    first = Kernel(repo, WRITER)
    first.init()
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "other")
    second = Kernel(repo, "0198c0de-0000-7000-8000-0000000000b2")
    second.add_claim("from the other machine", "draft")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "other")
    git(repo, "checkout", "-q", "main")
    first.add_claim("from this machine", "draft")
    git(repo, "commit", "-qam", "main")
    git(repo, "merge", "-q", "--no-edit", "other")
    statements = sorted(c["statement"] for c in Kernel(repo, WRITER).claims())
    assert statements == ["from the other machine", "from this machine"]


# --- a long-lived kernel's watch (inotify) ----------------------------------------------------------
def test_a_watching_kernel_sees_every_kind_of_change(root: Path) -> None:
    kernel = Kernel(root, WRITER, watch=True)
    kernel.init()
    kernel.add_identities()
    derive(kernel, root)
    assert states(kernel) == []
    edit(root, "elena.md", "\nchanged while watched\n")
    assert states(kernel) == [("chapter.md", "elena.md", "version-stale")]
    (root / "new").mkdir()
    (root / "new" / "deep").mkdir()
    (root / "new" / "deep" / "late.md").write_text("# Late\n")
    kernel.edges()
    assert kernel.status()["objects"] == 4
    assert identity_of((root / "new" / "deep" / "late.md").read_text()) is None  # tracked, not rewritten
    os.rename(root / "notes", root / "moved")  # a folder moving away: the kernel walks everything again
    kernel.edges()
    moves = [r["body"]["path"] for r in ledger(root) if r["kind"] == "move"]
    assert moves == ["moved/plot.md"]
    shutil.rmtree(root / "new")
    kernel.edges()
    assert kernel.status()["objects"] == 4  # the object stays known; its file is gone
    (root / "elena.md").unlink()
    assert states(kernel) == [("chapter.md", "elena.md", "unpinnable")]
    kernel.close()


def test_a_quiet_watch_skips_the_walk(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kernel = Kernel(root, WRITER, watch=True)
    kernel.init()
    kernel.edges()
    walked: list[int] = []
    original = kernel.scanner.walk

    def counting(only: set[str] | None) -> Any:
        if only is None:
            walked.append(1)
        return original(only)

    monkeypatch.setattr(kernel.scanner, "walk", counting)
    kernel.edges()
    kernel.edges()
    assert walked == []  # nothing changed: not one stat of the tree
    edit(root, "chapter.md", "\nx\n")
    kernel.edges()
    assert walked == []  # one path changed: only it is looked at
    kernel.close()


def test_a_watching_kernel_sees_a_copy_as_a_copy(root: Path) -> None:
    kernel = Kernel(root, WRITER, watch=True)
    kernel.init()
    kernel.add_identities()
    shutil.copy(root / "elena.md", root / "elena-copy.md")  # the watch reports only the new path
    kernel.edges()
    oid = identity_of((root / "elena.md").read_text())
    assert kernel.status()["duplicates"] == [{"object": oid, "paths": ["elena-copy.md", "elena.md"]}]
    assert [r for r in ledger(root) if r["kind"] == "move"] == []
    kernel.close()


# --- a slow check holds no lock a save needs ---------------------------------------------------------
class SlowChecker:
    """Blocks in ``check`` until released (at most 10 s), like a checker calling a slow model."""

    name = "slow"

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()

    def check(self, request: CheckRequest) -> str:
        self.started.set()
        self.release.wait(10)
        return "valid"


def test_saves_and_writes_go_on_while_a_check_runs(root: Path) -> None:
    checker = SlowChecker()
    kernel = Kernel(root, WRITER, checker=checker)
    kernel.init()
    derive(kernel, root)
    edit(root, "elena.md", "\nOK: still tall.\n")
    answers: list[list[dict[str, Any]]] = []
    checking = threading.Thread(target=lambda: answers.append(kernel.edges()))
    checking.start()
    try:
        assert checker.started.wait(10)
        # While the check runs: the person saves, an agent writes, the panel asks for counters and edges.
        path = str(root / "notes" / "plot.md")
        text = kernel.text_to_save(path, "# Plot\n\nact two\n")
        (root / "notes" / "plot.md").write_text(text)
        assert kernel.record_save(path, text, PERSON) is not None
        read = ReadPin(str(root / "elena.md"), (root / "elena.md").read_text())
        assert kernel.record_write(str(root / "chapter.md"), "# Chapter\n\nv2\n", AGENT, "document.write", [read])
        assert kernel.status()["initialized"] is True
        assert [r["state"] for r in kernel.edges()] == []  # regenerated from the new elena: nothing open
        assert answers == [] and checking.is_alive()  # all of it answered before the check ended
    finally:
        checker.release.set()
        checking.join(10)
    assert len(answers) == 1
    checks = [r for r in ledger(root) if r["kind"] == "check"]
    assert [c["body"]["verdict"] for c in checks] == ["valid"]  # recorded for revisions that moved on: harmless
    assert states(kernel, include_fresh=True) == [("chapter.md", "elena.md", "fresh")]
