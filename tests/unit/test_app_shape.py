"""The app's shape: services built alone from their collaborators, the person's registry, the test table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from vmark.app.connection import Connection
from vmark.app.faults import TestHooks
from vmark.app.save_queue import SaveQueue
from vmark.app.service import App
from vmark.app.state import Session
from vmark.app.turns import WriteTurns
from vmark.app.windows import Windows
from vmark.core.errors import ArgumentError
from vmark.core.model import Document


async def _nothing(_: dict[str, Any]) -> None:
    return None


def _person() -> Connection:
    return Connection("person", None, _nothing)


async def _dispatch(app: App, conn: Connection, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    await app.start()
    try:
        return await app.dispatch(conn, kind, payload)
    finally:
        await app.stop()


async def test_test_fault_is_routed_only_in_an_app_built_with_hooks(tmp_path: Path) -> None:
    plain = App(tmp_path / "plain")
    answer = await _dispatch(plain, _person(), "test.fault", {"journal": "unavailable"})
    assert answer == {"success": False, "error": "unknown request type 'test.fault'"}
    hooks = TestHooks()
    hooked = App(tmp_path / "hooked", hooks=hooks)
    agent = Connection("agent", None, _nothing)  # agents' tests inject faults too
    assert await _dispatch(hooked, agent, "test.fault", {"journal": "unavailable", "save_delay": 0.5}) == {
        "success": True,
        "data": {"ok": True},
    }
    assert (hooks.journal.kind, hooks.save_delay.seconds) == ("unavailable", 0.5)


@pytest.mark.parametrize(
    ("kind", "payload", "error"),
    [
        ("ui.save_as", {"tabId": "t1"}, "argument 'path' must be a string"),
        ("ui.set_mode", {"tabId": "t1", "mode": "rich"}, "argument 'mode' must be one of: wysiwyg, source"),
        ("history.get", {"tabId": "t1", "id": "3"}, "argument 'id' must be an integer"),
        ("settings.set", {"key": "review_backlog_limit"}, "argument 'value' is required"),
        ("ui.pin", {"tabId": 7}, "argument 'tabId' must be a string"),
        ("ui.nope", {}, "unknown request type 'ui.nope'"),
    ],
)
async def test_the_registry_refuses_before_the_handler_runs(
    tmp_path: Path, kind: str, payload: dict[str, Any], error: str
) -> None:
    app = App(tmp_path)
    assert await _dispatch(app, _person(), kind, payload) == {"success": False, "error": error}
    assert app.session.docs == {}  # nothing ran: no tab, no document


async def test_an_agent_cannot_send_a_person_action(tmp_path: Path) -> None:
    answer = await _dispatch(App(tmp_path), Connection("agent", None, _nothing), "ui.state", {})
    assert answer == {"success": False, "error": "'ui.state' is a person's action; agents cannot send it"}


def test_windows_is_built_from_its_collaborators_alone() -> None:
    session = Session()
    windows = Windows(session, WriteTurns())
    window = session.windows["main"]
    tab = session.add_tab(window, Document.load("untitled:d1", "markdown", None, "", None), activate=False)
    windows.pin(tab, True)
    windows.set_mode(tab, "wysiwyg")
    assert (tab.pinned, tab.mode) == (True, "wysiwyg")
    with pytest.raises(ArgumentError, match=r"attach to a window first \(ui\.attach\)"):
        windows.page_window(_person())


async def test_a_save_queue_delay_is_injected_and_taken_once() -> None:
    hooks = TestHooks()
    queue = SaveQueue(hooks.save_delay)
    hooks.save_delay.seconds = 0.01

    async def save() -> str:
        return "saved"

    assert await queue.run("/w/a.md", queue.ticket(), save) == "saved"
    assert hooks.save_delay.seconds == 0.0  # once: the next save does not wait
