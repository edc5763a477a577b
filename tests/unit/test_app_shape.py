"""The app's shape: services built alone from their collaborators, the person's registry, the test table,
and Playwright only inside ``browser/``."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

import vmark
from vmark.app.connection import Connection
from vmark.app.faults import TestHooks
from vmark.app.save_queue import SaveQueue
from vmark.app.service import App
from vmark.app.state import Session
from vmark.app.turns import WriteTurns
from vmark.app.windows import Windows
from vmark.core.model import Document
from vmark.protocol.errors import ArgumentError


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


#: calls that import a module named at run time, which import-linter (it reads import statements) cannot see
_DYNAMIC_IMPORTS = frozenset({"__import__", "import_module", "spec_from_file_location", "module_from_spec"})


def _playwright_reached(node: ast.AST) -> str | None:
    """How ``node`` reaches Playwright or imports something at run time, if it does."""
    if isinstance(node, ast.Import) and any(alias.name.split(".")[0] == "playwright" for alias in node.names):
        return "import playwright"
    if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "playwright":
        return f"from {node.module} import"
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        return f"{name}()" if name in _DYNAMIC_IMPORTS else None
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("playwright"):
        return f"the name {node.value!r}"  # e.g. sys.modules["playwright..."]
    return None


def test_nothing_outside_browser_reaches_playwright() -> None:
    """The import-linter contract (pyproject.toml) forbids importing playwright outside browser/; this also
    finds the ways around an import statement: __import__, importlib, a module named by a string."""
    root = Path(vmark.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        where = path.relative_to(root)
        if where.parts[0] == "browser":
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            how = _playwright_reached(node)
            if how is not None:
                found.append(f"{where}:{getattr(node, 'lineno', '?')}: {how}")
    assert found == []
    assert any(root.glob("app/*.py")) and any(root.glob("browser/*.py"))  # the walk saw the tree
