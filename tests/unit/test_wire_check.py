"""The wire checker (``vmark.protocol.wirecheck``) and the TypeScript generator (``vmark.tools.gen_wire``)."""

# no `from __future__ import annotations`: Python 3.11 cannot see NotRequired in a string annotation
from pathlib import Path
from typing import Literal, NotRequired, TypedDict

import pytest

from vmark.protocol import wire_types
from vmark.protocol.limits import PAGE_SCRIPT_LIMITS
from vmark.protocol.wirecheck import UnsupportedType, event_problems, problems, request_problems
from vmark.tools import gen_wire


class _Inner(TypedDict):
    n: int


class _Shape(TypedDict):
    name: str
    flag: bool
    ratio: float
    mode: Literal["a", "b"]
    pair: tuple[int, str]
    items: list[_Inner]
    table: dict[str, int | None]
    maybe: NotRequired[str | None]
    anything: NotRequired[object]


GOOD = {"name": "x", "flag": True, "ratio": 1, "mode": "a", "pair": [1, "s"], "items": [{"n": 2}], "table": {}}


def test_a_conforming_value_has_no_problems() -> None:
    assert problems(GOOD, _Shape) == []
    assert problems({**GOOD, "maybe": None, "anything": [1, {"x": None}], "table": {"k": None, "j": 3}}, _Shape) == []


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"extra": 1}, ["$: unknown key 'extra' (_Shape)"]),
        ({"name": None}, ["$.name: None is not a string"]),
        ({"flag": 1}, ["$.flag: 1 is not a boolean"]),
        ({"ratio": True}, ["$.ratio: True is not a number"]),
        ({"mode": "c"}, ["$.mode: 'c' is not one of ['a', 'b']"]),
        ({"pair": [1, "s", 2]}, ["$.pair: [1, 's', 2] is not an array of 2"]),
        ({"pair": ["1", "s"]}, ["$.pair[0]: '1' is not an int"]),
        ({"items": [{"n": 1}, {"n": False}]}, ["$.items[1].n: False is not an int"]),
        ({"items": [{}]}, ["$.items[0]: missing key 'n' (_Inner)"]),
        ({"table": {"k": "v"}}, ["$.table['k']: 'v' matches none of int | None: 'v' is not an int; 'v' is not null"]),
        ({"maybe": 3}, ["$.maybe: 3 matches none of str | None: 3 is not a string; 3 is not null"]),
    ],
)
def test_every_difference_is_named(change: dict[str, object], expected: list[str]) -> None:
    assert problems({**GOOD, **change}, _Shape) == expected


def test_missing_keys_and_non_objects() -> None:
    assert problems({}, _Inner) == ["$: missing key 'n' (_Inner)"]
    assert problems([], _Inner) == ["$: [] is not an object (_Inner)"]


def test_an_unknown_type_is_refused_not_skipped() -> None:
    with pytest.raises(UnsupportedType):
        problems({1, 2}, set[int])


def test_requests_and_events_are_checked_by_name() -> None:
    assert request_problems("ui.read", {"tabId": "t"}) == []
    assert request_problems("ui.read", {}) == ["ui.read payload: missing key 'tabId' (TabPayload)"]
    assert request_problems("coherence.overview", {}) == []
    assert request_problems("coherence.overview", {"any": [1]}) == [
        "coherence.overview payload: unknown key 'any' (CoherencePayload)"
    ]
    # a union of shapes: the one its kind names fits, a wrong field is named for every member
    assert request_problems("browser.input", {"tabId": "t", "kind": "text", "text": "hi", "paste": True}) == []
    assert request_problems("browser.input", {"tabId": "t", "kind": "key"})[0].startswith(
        "browser.input payload: {'tabId': 't', 'kind': 'key'} matches none of "
    )
    assert request_problems("ui.nope", {}) == ["ui.nope: not a request of wire_types"]
    flush = {"type": "event", "event": "flush", "payload": {}, "requestId": "q1"}
    assert event_problems(flush) == []
    assert event_problems({**flush, "requestId": 1}) == ["event 'flush': requestId 1 is not a string"]
    assert event_problems({"type": "event", "event": "flush", "payload": {}}) == [
        "'flush' is not an event of wire_types"
    ]
    assert event_problems({"type": "event", "event": "doc", "payload": {}, "extra": 1}) == [
        "event 'doc': unknown frame keys ['extra']"
    ]
    assert event_problems({"type": "response"}) == ["{'type': 'response'} is not an event frame"]


def test_the_generated_files_are_up_to_date() -> None:
    assert (gen_wire.ROOT / gen_wire.WIRE).read_text("utf-8") == gen_wire.render()
    assert (gen_wire.ROOT / gen_wire.LIMITS).read_text("utf-8") == gen_wire.render_limits()
    assert gen_wire.main(["--check"]) == 0


def test_a_stale_file_fails_the_check_with_a_clear_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "frontend" / "src").mkdir(parents=True)
    (tmp_path / "tools" / "pagejs").mkdir(parents=True)
    assert gen_wire.main(["--root", str(tmp_path)]) == 0
    assert gen_wire.main(["--check", "--root", str(tmp_path)]) == 0
    wire = tmp_path / gen_wire.WIRE
    wire.write_text(gen_wire.render().replace("tabIds: string[];", "tabIds: number[];"), "utf-8")
    (tmp_path / gen_wire.LIMITS).unlink()
    assert gen_wire.main(["--check", "--root", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "-  tabIds: number[];\n+  tabIds: string[];\n" in err
    assert f"{wire} is stale" in err and f"{tmp_path / gen_wire.LIMITS} is stale" in err
    assert err.endswith("Run `.venv/bin/python -m vmark.tools.gen_wire` and commit the result.\n")
    assert gen_wire.main(["--root", str(tmp_path)]) == 0
    assert wire.read_text("utf-8") == gen_wire.render()


def test_the_page_scripts_limits_are_declared_from_python() -> None:
    text = gen_wire.render_limits()
    assert text.count("readonly ") == len(PAGE_SCRIPT_LIMITS)
    assert all(f"  readonly {name}: number;\n" in text for name in PAGE_SCRIPT_LIMITS)


def test_the_typescript_spells_each_python_type() -> None:
    text = gen_wire.render()
    assert 'export type LineEnding = "\\n" | "\\r\\n" | "\\r";' in text
    assert "export type WireSpan = [number, number, string];" in text
    assert "export interface SelectionPayload {\n  tabId: string;\n  from: number;\n  to: number;\n}" in text
    assert "  text?: string;\n  changes?: DocChanges;\n  reviewFollows?: boolean;\n}" in text  # NotRequired: optional
    assert '  "ui.edit": { payload: EditPayload; result: EditResult };' in text
    assert all(f'  "{name}": {{ payload: ' in text for name in wire_types.REQUESTS)
    assert "LooseRequest" not in text
    assert "export type BrowserInput = MouseInput | WheelInput | KeyInput | TextInput;" in text
    assert "export interface EdgeTexts {\n  txf: string;\n" in text  # a TypedDict's base keys are its own
    assert "  pinned_text: string | null;\n  current_text: string | null;\n}" in text
