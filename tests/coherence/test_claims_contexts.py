"""Canon claims (versions, validity, supersession, digest) and contexts (files, inheritance, errors)."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from vmark.coherence.claims import Claim, claim_rows, claims_digest, current_claims, default_visible
from vmark.coherence.contexts import load_contexts, validate_context
from vmark.coherence.records import Record
from vmark.protocol.limits import MAX_CONTEXT_FILE_BYTES

BASE = datetime(2026, 1, 1, tzinfo=UTC)
NOW = (BASE + timedelta(days=10)).timestamp()
EMPTY_DIGEST = hashlib.sha256(b"").hexdigest()


def stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Canon:
    def __init__(self) -> None:
        self.records: list[Record] = []

    def claim(self, claim: str, statement: str = "", maturity: str = "established", **extra: Any) -> str:
        n = len(self.records) + 1
        body = {"claim": claim, "statement": statement or f"statement of {claim}", "maturity": maturity, **extra}
        record = Record("claim", body, "w", id=f"e{n:04d}", time=stamp(BASE + timedelta(seconds=n)))
        self.records.append(record)
        return record.id

    def current(self, now: float = NOW) -> list[Claim]:
        return current_claims(self.records, now)

    def digest(self, now: float = NOW) -> str:
        return claims_digest(self.current(now))


def digest_of(*pairs: tuple[str, str]) -> str:
    return hashlib.sha256("".join(f"{c}\n{e}\n" for c, e in sorted(pairs)).encode()).hexdigest()


# --- claims ---------------------------------------------------------------------------------


def test_the_newest_version_of_a_claim_is_current() -> None:
    canon = Canon()
    canon.claim("c2", "Elena is 30", maturity="draft")
    first = canon.claim("c1", "Elena is 31")
    canon.records.append(Record("unknown-kind", {"claim": "c1"}, "w"))
    second = canon.claim("c1", "Elena is 32", invalid_at=stamp(BASE + timedelta(days=20)))
    claims = canon.current()
    assert [(c.claim, c.entry_id, c.statement) for c in claims] == [
        ("c1", second, "Elena is 32"),
        ("c2", "e0001", "Elena is 30"),
    ]
    assert first != second
    assert claim_rows(claims) == [
        {
            "claim": "c1",
            "entryId": second,
            "statement": "Elena is 32",
            "maturity": "established",
            "invalidAt": "2026-01-21T00:00:00.000Z",
            "visible": True,
        },
        {
            "claim": "c2",
            "entryId": "e0001",
            "statement": "Elena is 30",
            "maturity": "draft",
            "invalidAt": None,
            "visible": True,
        },
    ]


def test_newest_is_decided_by_time_then_id_not_by_order_in_the_list() -> None:
    canon = Canon()
    canon.claim("c1", "old")
    canon.claim("c1", "new")
    canon.records.reverse()
    assert [c.statement for c in canon.current()] == ["new"]
    same_time = [
        Record("claim", {"claim": "c9", "statement": s, "maturity": "draft"}, "w", id=i, time=stamp(BASE))
        for i, s in (("b", "by id b"), ("a", "by id a"))
    ]
    assert [c.statement for c in current_claims(same_time, NOW)] == ["by id b"]


def test_validity_by_invalid_at() -> None:
    canon = Canon()
    canon.claim("past", invalid_at=stamp(BASE + timedelta(days=1)))
    canon.claim("future", invalid_at=stamp(BASE + timedelta(days=11)))
    canon.claim("exactly-now", invalid_at=stamp(BASE + timedelta(days=10)))
    canon.claim("garbage", invalid_at="soon")
    canon.claim("null", invalid_at=None)
    assert [(c.claim, c.valid) for c in canon.current()] == [
        ("exactly-now", False),
        ("future", True),
        ("garbage", False),
        ("null", True),
        ("past", False),
    ]
    assert default_visible(canon.current()) == {"future", "null"}


def test_supersession_by_current_versions_only() -> None:
    canon = Canon()
    canon.claim("c1")
    canon.claim("c2", supersedes="c1")
    canon.claim("c3", supersedes="c3")  # naming itself supersedes nothing
    canon.claim("c4", supersedes="c9")  # an unknown id: harmless
    claims = {c.claim: c for c in canon.current()}
    assert (claims["c1"].superseded, claims["c2"].supersedes, claims["c3"].superseded) == (True, "c1", False)
    assert default_visible(claims.values()) == {"c2", "c3", "c4"}
    # a newer version of c2 that no longer supersedes c1 brings it back
    canon.claim("c2")
    assert default_visible(canon.current()) == {"c1", "c2", "c3", "c4"}


def test_digest_of_no_constraining_claims_is_the_digest_of_nothing() -> None:
    canon = Canon()
    assert canon.digest() == EMPTY_DIGEST
    canon.claim("d1", maturity="draft")
    assert canon.digest() == EMPTY_DIGEST


def test_digest_changes_only_with_established_visible_claims() -> None:
    canon = Canon()
    e1 = canon.claim("c1")
    assert canon.digest() == digest_of(("c1", e1))
    canon.claim("d1", maturity="draft")
    canon.claim("d2", maturity="draft", supersedes="d1")
    canon.claim("x1", invalid_at=stamp(BASE))  # established, but no longer valid
    assert canon.digest() == digest_of(("c1", e1))
    e2 = canon.claim("c2")
    assert canon.digest() == digest_of(("c1", e1), ("c2", e2))
    e1b = canon.claim("c1", "revised statement")
    assert canon.digest() == digest_of(("c1", e1b), ("c2", e2))
    canon.claim("c3", maturity="draft", supersedes="c2")  # a draft supersedes too
    assert canon.digest() == digest_of(("c1", e1b))
    canon.claim("c1", invalid_at=stamp(BASE + timedelta(days=11)))
    assert canon.digest() != canon.digest(now=(BASE + timedelta(days=12)).timestamp())
    assert canon.digest(now=(BASE + timedelta(days=12)).timestamp()) == EMPTY_DIGEST


# --- contexts -------------------------------------------------------------------------------


def canon_for_contexts() -> list[Claim]:
    """c1, c2, c3 visible; c4 no longer valid; c5 superseded by c3."""
    canon = Canon()
    for claim in ("c1", "c2", "c5"):
        canon.claim(claim)
    canon.claim("c3", supersedes="c5")
    canon.claim("c4", invalid_at=stamp(BASE))
    return canon.current()


def write(folder: Path, name: str, data: Any) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(data if isinstance(data, str) else json.dumps(data), "utf-8")


def ctx(name: str, parent: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"name": name, "parent": parent, "enforcement": "greenhouse", **extra}


def row(
    cid: str,
    name: str,
    parent: str | None,
    visible: int,
    errors: list[str] | None = None,
    enforcement: str = "greenhouse",
) -> dict[str, Any]:
    return {
        "id": cid,
        "name": name,
        "parent": parent,
        "enforcement": enforcement,
        "visibleClaims": visible,
        "errors": errors or [],
    }


def test_only_the_default_context_without_a_folder(tmp_path: Path) -> None:
    claims = canon_for_contexts()
    assert load_contexts(tmp_path / "missing", claims) == [row("default", "default", None, 3)]
    assert load_contexts(tmp_path / "missing", []) == [row("default", "default", None, 0)]
    (tmp_path / "a-file").write_text("x")
    assert load_contexts(tmp_path / "a-file", claims) == [row("default", "default", None, 3)]


def test_inheritance_include_and_exclude(tmp_path: Path) -> None:
    folder = tmp_path / "contexts"
    write(folder, "book.json", {**ctx("The book"), "enforcement": "enforcing", "exclude": ["c1", "c2"]})
    write(folder, "ch1.json", ctx("Chapter 1", "book", include=["c1"]))
    write(folder, "ch1-draft.json", ctx("Draft", "ch1", include=["c4", "c5"], exclude=["c3"]))
    write(folder, "open.json", {"name": "Open", "enforcement": "greenhouse", "include": [], "exclude": []})
    (folder / "notes.txt").write_text("not a context")
    (folder / "bad name!.json").write_text("{}")
    assert load_contexts(folder, canon_for_contexts()) == [
        row("default", "default", None, 3),
        row("book", "The book", "default", 1, enforcement="enforcing"),
        row("ch1", "Chapter 1", "book", 2),
        # c4 (no longer valid) and c5 (superseded) cannot be included; c3 excluded
        row("ch1-draft", "Draft", "ch1", 1),
        row("open", "Open", "default", 3),
    ]


def test_every_error_kind_is_listed_never_raised(tmp_path: Path) -> None:
    folder = tmp_path / "contexts"
    write(folder, "broken.json", "{not json")
    write(folder, "list.json", [1, 2])
    write(folder, "fields.json", {"name": "", "parent": "no/such", "enforcement": "strict", "include": "c1", "x": 1})
    write(folder, "orphan.json", ctx("Orphan", "nowhere"))
    write(folder, "loop-a.json", ctx("A", "loop-b"))
    write(folder, "loop-b.json", ctx("B", "loop-a"))
    write(folder, "into-loop.json", ctx("Into", "loop-a", exclude=["c1"]))
    write(folder, "self.json", ctx("Self", "self"))
    write(folder, "claims.json", ctx("Claims", include=["c1", "nope"], exclude=["gone"]))
    (folder / "latin1.json").write_bytes(b'{"name": "caf\xe9"}')
    (folder / "huge.json").write_text(" " * (MAX_CONTEXT_FILE_BYTES + 1))
    (folder / "dir.json").mkdir()
    rows = {r["id"]: r for r in load_contexts(folder, canon_for_contexts())}
    assert rows["default"] == row("default", "default", None, 3)
    json_error = "not valid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
    assert rows["broken"] == row("broken", "broken", "default", 3, [json_error])
    assert rows["list"] == row("list", "list", "default", 3, ["a context must be a JSON object"])
    assert rows["fields"] == row(
        "fields",
        "fields",
        "default",
        3,
        [
            "unknown field 'x'",
            "field 'name' must be a non-empty string",
            "field 'parent' must be a context id or null",
            "field 'enforcement' must be one of greenhouse, enforcing",
            "field 'include' must be a list of claim ids",
        ],
    )
    assert rows["orphan"] == row("orphan", "Orphan", "nowhere", 3, ["unknown parent 'nowhere'"])
    assert rows["loop-a"] == row("loop-a", "A", "loop-b", 3, ["parent cycle: loop-a -> loop-b -> loop-a"])
    assert rows["loop-b"] == row("loop-b", "B", "loop-a", 3, ["parent cycle: loop-b -> loop-a -> loop-b"])
    assert rows["into-loop"] == row("into-loop", "Into", "loop-a", 2)
    assert rows["self"] == row("self", "Self", "self", 3, ["parent cycle: self -> self"])
    assert rows["claims"] == row(
        "claims", "Claims", "default", 3, ["unknown claim 'nope' in include", "unknown claim 'gone' in exclude"]
    )
    assert rows["latin1"] == row("latin1", "latin1", "default", 3, ["cannot read file: UnicodeDecodeError"])
    assert rows["huge"] == row("huge", "huge", "default", 3, [f"file is larger than {MAX_CONTEXT_FILE_BYTES} bytes"])
    assert rows["dir"] == row("dir", "dir", "default", 3, ["cannot read file: IsADirectoryError"])
    assert list(rows) == [
        "default",
        "broken",
        "claims",
        "dir",
        "fields",
        "huge",
        "into-loop",
        "latin1",
        "list",
        "loop-a",
        "loop-b",
        "orphan",
        "self",
    ]


def test_a_default_file_cannot_replace_the_implicit_default(tmp_path: Path) -> None:
    folder = tmp_path / "contexts"
    write(folder, "default.json", ctx("Mine", exclude=["c1"]))
    write(folder, "child.json", ctx("Child", "default"))
    assert load_contexts(folder, canon_for_contexts()) == [
        row("default", "default", None, 3, ["default.json is ignored: the default context is implicit"]),
        row("child", "Child", "default", 3),
    ]


def test_a_long_parent_chain_is_resolved_without_recursion(tmp_path: Path) -> None:
    folder = tmp_path / "contexts"
    write(folder, "n0.json", ctx("n0", exclude=["c1"]))
    for i in range(1, 1100):  # deeper than Python's recursion limit
        write(folder, f"n{i}.json", ctx(f"n{i}", f"n{i - 1}"))
    rows = load_contexts(folder, canon_for_contexts())
    assert len(rows) == 1101
    assert {r["visibleClaims"] for r in rows[1:]} == {2}
    assert all(r["errors"] == [] for r in rows)


def test_validate_context() -> None:
    assert validate_context(ctx("Fine")) == []
    assert validate_context({"name": "Fine", "enforcement": "enforcing"}) == []
    assert validate_context({**ctx("Fine", "parent-1"), "include": ["c1"], "exclude": []}) == []
    assert validate_context("text") == ["a context must be a JSON object"]
    assert validate_context({}) == [
        "field 'name' must be a non-empty string",
        "field 'enforcement' must be one of greenhouse, enforcing",
    ]
    assert validate_context({**ctx("  "), "parent": 3, "exclude": ["c1", 2]}) == [
        "field 'name' must be a non-empty string",
        "field 'parent' must be a context id or null",
        "field 'exclude' must be a list of claim ids",
    ]
    assert validate_context({**ctx("Fine"), "parent": "x" * 65}) == ["field 'parent' must be a context id or null"]
