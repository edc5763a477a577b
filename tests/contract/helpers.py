"""Helpers shared by the contract tests of ``session``, ``workspace`` and ``document``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import Client

from tests.conftest import ok
from vmark.app.server import RunningApp
from vmark.core.model import Document
from vmark.storage.journal import JournalEntry
from vmark.testing.uiclient import UIClient

REVISION = r"rev-[0-9A-Za-z]{8}"
TAB_FIELDS = {"id", "filePath", "title", "dirty", "revision", "kind", "active", "visible"}


# --- calls ------------------------------------------------------------------------------
async def open_tab(client: Client, path: Path | str, **args: Any) -> str:
    return str((await ok(client, "workspace", "open", filePath=str(path), **args))["tabId"])


async def get_state(client: Client) -> dict[str, Any]:
    return await ok(client, "session", "get_state")


async def raw_error(client: Client, tool: str, arguments: dict[str, Any]) -> str:
    """Call with raw arguments and expect the plain-string error form."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.content
    assert result.structured_content is None, result.structured_content
    text: str = result.content[0].text  # type: ignore[union-attr]
    assert text and not text.startswith("{"), text
    return text


def window_of(state: dict[str, Any], label: str) -> dict[str, Any]:
    return next(w for w in state["windows"] if w["label"] == label)


def tab_of(state: dict[str, Any], tab_id: str) -> dict[str, Any]:
    return next(t for w in state["windows"] for t in w["tabs"] if t["id"] == tab_id)


def active_tab_id(state: dict[str, Any], label: str = "main") -> str | None:
    return next((t["id"] for t in window_of(state, label)["tabs"] if t["active"]), None)


# --- waiting ----------------------------------------------------------------------------
async def disk_checked(vmark: RunningApp, rounds: int = 2) -> None:
    """The app looked at the disk ``rounds`` more times (the first may have begun before now): whatever it
    would find there, it has found (``TestHooks.disk_checks``: never a fixed wait to prove nothing happened)."""
    hooks = vmark.app.hooks
    assert hooks is not None, "the app was not built with test hooks"
    target = hooks.disk_checks + rounds
    await wait_until(lambda: hooks.disk_checks >= target, f"{rounds} more looks at the disk")


async def wait_until(predicate: Callable[[], bool | Awaitable[bool]], what: str, timeout: float = 30.0) -> None:
    """Poll until ``predicate`` holds (a deadline, not a timing assertion: generous, since a passing test never
    waits for it and a loaded machine with parallel workers may be slow)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = predicate()
        if not isinstance(value, bool):
            value = await value
        if value:
            return
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def wait_event(
    person: UIClient, name: str, match: Callable[[dict[str, Any]], bool] = lambda _: True
) -> dict[str, Any]:
    """The payload of the first ``name`` event the page received that ``match``es."""

    def found() -> list[dict[str, Any]]:
        return [e["payload"] for e in person.events_named(name) if match(e.get("payload") or {})]

    await wait_until(lambda: bool(found()), f"a {name!r} event")
    return found()[0]


# --- the person's side --------------------------------------------------------------------
@asynccontextmanager
async def another_page(vmark: RunningApp) -> AsyncIterator[UIClient]:
    """A second UI page; with ``main`` taken it attaches to a new window (``doc-1``, ...)."""
    async with UIClient(vmark.data_dir) as page:
        await page.attach()
        yield page


async def person_open(person: UIClient, path: Path) -> str:
    return str((await person.call("ui.open", path=str(path)))["tabId"])


async def history(person: UIClient, tab_id: str) -> list[dict[str, Any]]:
    return list((await person.call("history.list", tabId=tab_id))["snapshots"])


# --- looking inside the app (side-effect free) ------------------------------------------
def doc_of(vmark: RunningApp, tab_id: str) -> Document:
    return vmark.app.session.find_tab(tab_id)[1].doc


async def journal(vmark: RunningApp) -> list[dict[str, Any]]:
    return await vmark.app.journal.entries()


@dataclass(frozen=True)
class Snapshot:
    """Everything a refused write must leave alone."""

    text: str
    revision: str
    disk: bytes | None
    journal: tuple[tuple[int, str], ...]


async def snapshot(vmark: RunningApp, doc: Document, path: Path | None) -> Snapshot:
    state = doc.state
    disk = path.read_bytes() if path is not None and path.exists() else None
    entries = tuple((int(e["id"]), str(e["state"])) for e in await journal(vmark))
    return Snapshot(state.text, state.revision, disk, entries)


# --- holding a write while it is being recorded ---------------------------------------------
@dataclass
class JournalGate:
    entered: asyncio.Event
    release: asyncio.Event

    async def wait_entered(self) -> None:
        await asyncio.wait_for(self.entered.wait(), 10)


@asynccontextmanager
async def journal_gate(vmark: RunningApp) -> AsyncIterator[JournalGate]:
    """Hold every journal record until ``release`` is set: the write stays 'being recorded'.

    Deterministic where a slow-journal fault would depend on the clock. Release well within
    the journal's 2 s answer timeout.
    """
    journal_ = vmark.app.journal
    original = journal_._record
    gate = JournalGate(asyncio.Event(), asyncio.Event())

    async def held(entry: JournalEntry) -> int:
        gate.entered.set()
        await gate.release.wait()
        return await original(entry)

    journal_._record = held  # type: ignore[method-assign]
    try:
        yield gate
    finally:
        gate.release.set()
        del journal_._record


def background(coro: Awaitable[Any]) -> asyncio.Task[Any]:
    return asyncio.ensure_future(coro)
