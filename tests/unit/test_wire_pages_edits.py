"""The pure pieces of issue 15: reading a stdio line, cutting deep nesting, read pages, exact-match edits."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vmark.core.edits import Edit, apply_edits, parse_edits
from vmark.core.text_pages import compact_json, page
from vmark.mcp.wire import INVALID_REQUEST, PARSE_ERROR, LineError, _cut, dump, read_line
from vmark.protocol.errors import ArgumentError, DomainError
from vmark.protocol.limits import MAX_ARGUMENT_DEPTH, MAX_MESSAGE_DEPTH, OUTPUT_BOUND_BYTES
from vmark.protocol.tools import check_request, holds_lone_surrogate


# --- lines --------------------------------------------------------------------------------------------------
def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def test_cut_replaces_what_opens_too_deep_and_keeps_the_rest() -> None:
    text = '{"a":[[["x"]]],"b":"[[[[","c":{"d":{}}}'
    assert json.loads(_cut(text, 2)) == {"a": [[]], "b": "[[[[", "c": {"d": []}}
    assert _cut(text, 10) == text
    assert _cut('{"s":"\\"[[[","t":[[1]]}', 1) == '{"s":"\\"[[[","t":[]}'  # escaped quotes stay in the string


def test_a_line_nested_past_the_parsers_is_cut_and_parsed() -> None:
    for depth in (5_000, 200_000):
        line = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":' + "[" * depth + "]" * depth + "}}"
        message = read_line(line.encode())
        assert message is not None
        params = message.message.params  # type: ignore[union-attr]
        # The line is cut at MAX_MESSAGE_DEPTH + 1 levels: still far deeper than any argument may nest.
        assert _depth(params) == MAX_MESSAGE_DEPTH > MAX_ARGUMENT_DEPTH + 2


@pytest.mark.parametrize(
    ("line", "code", "request_id"),
    [
        (b"nope", PARSE_ERROR, None),
        (b"\xc3(", PARSE_ERROR, None),
        (b'{"a":Infinity}', PARSE_ERROR, None),
        (b"[" * 10 + b"]" * 9, PARSE_ERROR, None),
        (b"[]", INVALID_REQUEST, None),
        (b'{"jsonrpc":"2.0","id":3}', INVALID_REQUEST, 3),
        (b'{"jsonrpc":"2.0","id":"a","method":"x","params":"p"}', INVALID_REQUEST, "a"),
        (b'{"jsonrpc":"2.0","id":[1],"method":"x"}', INVALID_REQUEST, None),
    ],
)
def test_lines_that_are_no_message(line: bytes, code: int, request_id: object) -> None:
    with pytest.raises(LineError) as info:
        read_line(line)
    assert (info.value.code, info.value.request_id) == (code, request_id)
    answer = json.loads(dump(info.value.response()))
    assert answer == {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": info.value.message}}


def test_blank_lines_and_a_lone_surrogate() -> None:
    assert read_line(b"") is None and read_line(b" \t ") is None
    message = read_line(b'{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}')
    assert message is not None and message.message.id == "\ud800"  # type: ignore[union-attr]
    out = dump(LineError(INVALID_REQUEST, "x \udc00", "\ud800").response())
    assert out.endswith(b"\n") and json.loads(out)["id"] == "\ud800"  # escaped, so the line is UTF-8


def test_argument_checks_for_surrogates_and_depth() -> None:
    assert holds_lone_surrogate({"a": [{"\udfff": 1}]}) and not holds_lone_surrogate({"a": ["😀"]})
    assert check_request("document", {"action": "write", "content": "\ud800"})[1] == {"content": "\ud800"}
    with pytest.raises(ArgumentError, match="argument 'cursor' contains a lone UTF-16 surrogate"):
        check_request("comments", {"action": "list", "cursor": "c\ud800"})
    nested: object = 1
    for _ in range(64):
        nested = {"k": nested}
    check_request("browser", {"action": "workflow_run", "source": "x", "inputs": nested})
    with pytest.raises(ArgumentError, match="nested deeper than 64 levels"):
        check_request("browser", {"action": "workflow_run", "source": "x", "inputs": {"k": nested}})


# --- pages ----------------------------------------------------------------------------------------------------
FIELDS = {"revision": "rev-00000000", "filePath": "/x.md", "kind": "markdown", "dirty": False}


@settings(max_examples=60, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(["a", "é", "😀", '"', "\\", "\x01", "\n", "日"]), min_size=0, max_size=400),
    st.integers(min_value=1, max_value=500),
    st.integers(min_value=1, max_value=120),
)
def test_pages_join_to_the_text_and_fit(text: str, limit: int, scale: int) -> None:
    text = text * scale
    pages, offset = [], 0
    while True:
        answer = page(text, offset, limit, FIELDS)
        assert len(compact_json(answer).encode("utf-8")) <= OUTPUT_BOUND_BYTES
        assert answer["totalLength"] == len(text) and len(answer["content"]) <= limit
        pages.append(answer["content"])
        if "nextOffset" not in answer:
            break
        assert answer["nextOffset"] == offset + len(answer["content"]) > offset
        offset = answer["nextOffset"]
    assert "".join(pages) == text


# --- edits ------------------------------------------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet="ab\nc", max_size=40),
    st.lists(st.tuples(st.integers(0, 40), st.integers(1, 4), st.text("xyab", max_size=3)), max_size=4),
)
def test_the_span_is_where_the_texts_differ(text: str, picks: list[tuple[int, int, str]]) -> None:
    edits, current = [], text
    for at, length, new in picks:  # pick unique olds from the text as it stands
        old = current[at : at + length]
        if not old or current.count(old) != 1 or current.find(old, current.find(old) + 1) >= 0:
            continue
        edits.append(Edit(old, new))
        current = current.replace(old, new)
    if not edits:
        return
    edited = apply_edits(text, tuple(edits))
    assert edited.text == current
    assert text[: edited.start] + edited.insert + text[edited.end :] == current


def test_edit_errors_and_arguments() -> None:
    with pytest.raises(DomainError) as info:
        apply_edits("aaa", (Edit("aa", "b"),))
    assert info.value.envelope() == {
        "error": "EDIT_AMBIGUOUS",
        "message": "edits[0].old occurs 2 times in the document; include enough of the text around it"
        " to make it unique",
        "index": 0,
        "count": 2,
    }
    with pytest.raises(DomainError) as info:
        apply_edits("abc", (Edit("b", "x"), Edit("b", "y")))
    assert (info.value.code, info.value.extra) == ("EDIT_NOT_FOUND", {"index": 1, "count": 0})
    assert apply_edits("abc", (Edit("b", "b"),)).insert == "b"
    with pytest.raises(ArgumentError, match="is empty"):
        parse_edits([])
    with pytest.raises(ArgumentError, match=r"edits\[1\]\.old is empty"):
        parse_edits([{"old": "a", "new": ""}, {"old": "", "new": "x"}])
