"""The fast JSON writer gives the standard library's compact JSON for what frames and results hold, and falls
back to it, with the same text, for what orjson refuses."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from vmark.core.jsonfast import compact_json, compact_size, encode_frame


def _stdlib(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(_VALUES)
def test_the_text_is_the_standard_librarys(value: Any) -> None:
    text = _stdlib(value)
    assert compact_json(value) == text
    assert compact_size(value) == len(text.encode("utf-8"))
    assert encode_frame(value) == text.encode("utf-8")


def test_control_characters_quotes_and_non_ascii() -> None:
    value = {"content": 'a "b"\\\n\t\r\x00\x1f\u2028 é ✓ 😀', "n": [1, 2.5, True, None]}
    assert compact_json(value) == _stdlib(value)
    assert json.loads(encode_frame(value)) == value


def test_what_orjson_refuses_is_written_as_before() -> None:
    lone = {"content": "a\ud800b"}
    assert encode_frame(lone) == b'{"content":"a\\ud800b"}'  # UTF-8 cannot carry it: its escape
    assert compact_json(lone) == '{"content":"a\ud800b"}'
    huge = {"n": 2**80}
    assert encode_frame(huge) == b'{"n":1208925819614629174706176}'
    assert compact_json({1: "a"}) == '{"1":"a"}'
