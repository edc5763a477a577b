"""The app holds every person request to its ``wire_types`` payload: a key the payload does not have is a plain
argument error and nothing changes (the document, its revision, the file, its history). Under the tests' hooks it
also holds what a handler accepted and answered to their declarations (``INTERNAL`` otherwise)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from vmark.app.handlers import person as person_handlers
from vmark.core.changes import SpanError, parse_spans
from vmark.testing.uiclient import UIClient, UIError

pytestmark = pytest.mark.anyio


async def _refused(client: UIClient, kind: str, **payload: Any) -> Any:
    with pytest.raises(UIError) as refused:
        await client.call(kind, **payload)
    return refused.value.error


async def _what_is(client: UIClient, tab: str, path: Path) -> tuple[Any, ...]:
    read = await client.call("ui.read", tabId=tab)
    history = await client.call("history.list", tabId=tab)
    return read["text"], read["revision"], read["dirty"], path.read_bytes(), len(history["snapshots"])


async def test_an_unknown_key_is_refused_and_nothing_changes(person: UIClient, opened: Path) -> None:
    path = opened / "a.md"
    tab = (await person.call("ui.open", path=str(path)))["tabId"]
    revision = (await person.call("ui.read", tabId=tab))["revision"]
    before = await _what_is(person, tab, path)
    assert await _refused(person, "ui.edit", tabId=tab, baseRevision=revision, text="# A\n\nomega\n", mode="x") == (
        "ui.edit: argument 'mode' is not accepted (ui.edit takes: tabId, baseRevision, text, changes)"
    )
    assert await _what_is(person, tab, path) == before

    # an unsaved edit, then a save with a key it does not take: the file keeps its bytes, the tab stays dirty
    await person.call("ui.edit", tabId=tab, baseRevision=revision, changes=[[5, 10, "omega"]])
    edited = await _what_is(person, tab, path)
    assert edited[0] == "# A\n\nomega\n" and edited[2] is True and edited[3] == b"# A\n\nalpha\n"
    assert await _refused(person, "ui.save", tabId=tab, force=True) == (
        "ui.save: argument 'force' is not accepted (ui.save takes: tabId)"
    )
    assert await _what_is(person, tab, path) == edited


async def test_existing_refusals_keep_their_words(person: UIClient, opened: Path) -> None:
    path = opened / "a.md"
    tab = (await person.call("ui.open", path=str(path)))["tabId"]
    revision = (await person.call("ui.read", tabId=tab))["revision"]
    before = await _what_is(person, tab, path)
    # the action's checks refuse before the strict one; the handler's own checks keep their words
    assert await _refused(person, "ui.edit", tabId=5, bogus=1) == "argument 'tabId' must be a string"
    assert await _refused(person, "ui.edit", tabId=tab, baseRevision=revision, changes=[[0, 99, "x"]], bogus=1) == (
        "ui.edit: argument 'bogus' is not accepted (ui.edit takes: tabId, baseRevision, text, changes)"
    )
    assert await _refused(person, "ui.edit", tabId=tab, baseRevision=revision, changes=[[0, 99, "x"]]) == (
        "changes[0] ends at 99, past the end of the text (11)"
    )
    assert await _refused(person, "ui.edit", tabId=tab, baseRevision=revision, changes=[["0", 1, "x"]]) == (
        await _span_shape_refusal()
    )
    assert await _refused(person, "review.accept", tabId=tab, ids=[1]) == (
        "ids must be a non-empty list of change ids (strings)"
    )
    assert await _what_is(person, tab, path) == before


async def _span_shape_refusal() -> str:
    """What the span check itself says of a span's bad offset: its words, not the strict check's."""
    with pytest.raises(SpanError) as refused:
        parse_spans([["0", 1, "x"]])
    return str(refused.value)


async def test_under_the_hooks_a_stray_acceptance_or_answer_is_internal(
    person: UIClient, opened: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tab = (await person.call("ui.open", path=str(opened / "a.md")))["tabId"]
    actions = person_handlers.ACTIONS
    bound = actions["ui.selection"]

    async def lenient(ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
        return {"selection": [0, 0]}

    async def off_type(ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
        return {"selection": [0, "0"]}

    monkeypatch.setitem(actions, "ui.selection", dataclasses.replace(bound, handler=lenient))
    refused = await _refused(person, "ui.selection", tabId=tab, **{"from": "x", "to": 0})
    assert refused["error"] == "INTERNAL"
    assert refused["message"] == (
        "ui.selection does not fit its declared types: ui.selection payload.from: 'x' is not an int"
    )
    monkeypatch.setitem(actions, "ui.selection", dataclasses.replace(bound, handler=off_type))
    refused = await _refused(person, "ui.selection", tabId=tab, **{"from": 0, "to": 0})
    assert refused["message"] == (
        "ui.selection does not fit its declared types: ui.selection result.selection[1]: '0' is not an int"
    )
