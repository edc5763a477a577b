"""Pure domain rules: error shapes, tool argument checks, kinds, revisions, text checks."""

import json
import re

import pytest

from vmark.core.changes import replaced_state
from vmark.core.document import (
    DocState,
    content_hash,
    detect_line_ending,
    normalize_line_endings,
)
from vmark.core.ids import new_id, new_revision, new_token
from vmark.core.kinds import kind_for_path, title_for_path
from vmark.protocol.errors import ERROR_CODES, ArgumentError, DomainError, ErrorShape, parse_wire_error
from vmark.protocol.strings import has_lone_surrogate
from vmark.protocol.tools import TOOLS, check_request


def test_domain_error_envelope_round_trips() -> None:
    err = DomainError("STALE", current_revision="rev-abcdefgh")
    assert json.loads(err.wire()) == {
        "error": "STALE",
        "message": "Document has changed since the last read",
        "current_revision": "rev-abcdefgh",
    }
    assert parse_wire_error(err.wire()) == err.envelope()


def test_string_shaped_codes_travel_as_plain_strings() -> None:
    assert ERROR_CODES["WRITE_BUSY"][0] is ErrorShape.STRING
    wire = DomainError("WRITE_BUSY").wire()
    assert wire.startswith("WRITE_BUSY: ")
    assert parse_wire_error(wire) == wire


def test_unknown_code_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown error code"):
        DomainError("NOPE")


def test_argument_error_is_plain() -> None:
    assert ArgumentError("x must be a string").wire() == "x must be a string"
    assert parse_wire_error("{not json") == "{not json"


def test_revisions_are_fresh_base62() -> None:
    revs = {new_revision() for _ in range(1000)}
    assert len(revs) == 1000
    assert all(re.fullmatch(r"rev-[0-9A-Za-z]{8}", r) for r in revs)
    assert re.fullmatch(r"tab-[0-9A-Za-z]{10}", new_id("tab"))
    assert re.fullmatch(r"[0-9a-f]{64}", new_token())


def test_a_b_a_gives_three_revisions() -> None:
    a = DocState("A")
    b = replaced_state(a, "B")
    a2 = replaced_state(b, "A")
    assert len({a.revision, b.revision, a2.revision}) == 3
    assert a.content_hash == a2.content_hash == content_hash("A")


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/w/a.md", "markdown"),
        ("/w/a.MARKDOWN", "markdown"),
        ("/w/a.mdown", "markdown"),
        ("/w/a.mkd", "markdown"),
        ("/w/a.mdx", "markdown"),
        ("/w/a.txt", "markdown"),
        ("/w/.github/workflows/ci.yml", "yaml-workflow"),
        ("/w/.github/workflows/ci.yaml", "yaml-workflow"),
        ("/w/ci.yml", None),
        ("/w/.github/ci.yml", None),
        ("/w/image.png", None),
        ("/w/noext", None),
    ],
)
def test_kinds(path: str, kind: str | None) -> None:
    assert kind_for_path(path) == kind


def test_titles() -> None:
    assert title_for_path("/w/notes.md") == "notes"
    assert title_for_path(None, 3) == "Untitled-3"


def test_lone_surrogates_and_line_endings() -> None:
    assert has_lone_surrogate("a\ud800b")
    assert has_lone_surrogate("\udfff")
    assert not has_lone_surrogate("emoji 😀 ok")
    assert detect_line_ending("a\r\nb\n") == "\r\n"
    assert detect_line_ending("no breaks") == "\n"
    assert normalize_line_endings("a\nb\r\nc\rd", "\r\n") == "a\r\nb\r\nc\r\nd"


def test_tool_check_accepts_and_refuses() -> None:
    assert check_request("document", {"action": "write", "content": "x", "save": False}) == (
        "write",
        {"content": "x", "save": False},
    )
    cases = [
        ("nope", {"action": "x"}, "unknown tool 'nope'"),
        ("document", {}, "document: missing required argument 'action'"),
        ("document", {"action": "frobnicate"}, "document: unknown action 'frobnicate'"),
        ("document", {"action": "write"}, "document.write: missing required argument 'content'"),
        ("document", {"action": "write", "content": 5}, "document.write: argument 'content' must be a string"),
        ("document", {"action": "write", "content": "x", "save": "yes"}, "argument 'save' must be a boolean"),
        ("workspace", {"action": "open_workspace", "folderPath": "/x", "windowLabel": "main"}, "not accepted"),
        ("workspace", {"action": "new", "kind": "pdf"}, "argument 'kind' must be one of"),
        ("document", {"action": "write", "content": "x", "addresses": ["a", 1]}, "must be an array of strings"),
    ]
    for tool, args, message in cases:
        with pytest.raises(ArgumentError) as info:
            check_request(tool, args)
        assert message in info.value.message


def test_optional_null_is_omitted() -> None:
    assert check_request("document", {"action": "read", "tabId": None}) == ("read", {})


def test_schemas_are_flat_action_enums() -> None:
    schema = TOOLS["workspace"].input_schema()
    assert schema["required"] == ["action"]
    assert schema["properties"]["action"]["enum"] == [
        "new",
        "open",
        "open_workspace",
        "save",
        "save_as",
        "close",
        "switch_tab",
        "focus_window",
    ]
    assert schema["properties"]["force"]["type"] == "boolean"
