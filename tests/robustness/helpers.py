"""Shared pieces of the robustness tests: agent connections, answers, journal checks."""

from __future__ import annotations

import os
import random
import sqlite3
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vmark.mcp.bridge_client import BridgeClient
from vmark.protocol.errors import ERROR_CODES, ErrorShape, parse_wire_error
from vmark.storage.settings import Settings

#: review_backlog_limit for tests that make far more than 50 AI revisions of one document
NO_BACKLOG_LIMIT = 1_000_000


@dataclass(frozen=True)
class Answer:
    """One bridge answer: ``data`` on success, else the error ``code`` and its parsed form."""

    ok: bool
    data: dict[str, Any] = field(default_factory=dict)
    code: str | None = None
    error: dict[str, Any] | str | None = None


def error_code(error: dict[str, Any] | str) -> str:
    """The code of an envelope, or of a string-shaped code (``WRITE_BUSY: ...``)."""
    if isinstance(error, dict):
        return str(error["error"])
    head = error.split(":", 1)[0]
    if head in ERROR_CODES and ERROR_CODES[head][0] is ErrorShape.STRING:
        return head
    return "ARGUMENT"


async def agent_call(client: BridgeClient, tool: str, action: str, **args: Any) -> Answer:
    """Send ``vmark.<tool>.<action>`` over the bridge, as an agent does."""
    response = await client.request(f"vmark.{tool}.{action}", args)
    if response.get("success"):
        return Answer(True, dict(response["data"]))
    error = parse_wire_error(str(response.get("error")))
    return Answer(False, code=error_code(error), error=error)


async def agent_ok(client: BridgeClient, tool: str, action: str, **args: Any) -> dict[str, Any]:
    answer = await agent_call(client, tool, action, **args)
    assert answer.ok, answer.error
    return answer.data


async def read_whole(client: BridgeClient, tab: str) -> dict[str, Any]:
    """``document.read`` of every page, all of one revision: the first page's answer with the whole content."""
    first = await agent_ok(client, "document", "read", tabId=tab)
    pages, page = [first["content"]], first
    while "nextOffset" in page:
        page = await agent_ok(
            client, "document", "read", tabId=tab, offset=page["nextOffset"], expected_revision=first["revision"]
        )
        pages.append(page["content"])
    return {**first, "content": "".join(pages)}


@asynccontextmanager
async def agents(data_dir: Path, count: int) -> AsyncIterator[list[BridgeClient]]:
    """``count`` agent connections, each its own authenticated WebSocket."""
    async with AsyncExitStack() as stack:
        clients = []
        for _ in range(count):
            client = BridgeClient(data_dir, autostart=False)
            await client.connect()
            stack.push_async_callback(client.close)
            clients.append(client)
        yield clients


def seeded_rng(name: str) -> random.Random:
    """A seeded RNG; the seed is printed, and ``VMARK_TEST_SEED`` replays it."""
    seed = int(os.environ.get("VMARK_TEST_SEED") or random.randrange(2**32))
    print(f"{name}: seed {seed} (replay with VMARK_TEST_SEED={seed})")
    return random.Random(seed)


def prepare_data_dir(directory: Path, readable_root: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    settings = Settings(directory / "settings.json")
    settings.set("readable_roots", [str(readable_root)])
    settings.set("review_backlog_limit", NO_BACKLOG_LIMIT)


def read_journal(db: Path) -> list[dict[str, Any]]:
    """Every journal entry, read with a read-only SQLite connection (the app may be dead)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute("SELECT * FROM entries ORDER BY id")]
    finally:
        conn.close()


def integrity_check(db: Path) -> list[str]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [str(row[0]) for row in conn.execute("PRAGMA integrity_check")]
    finally:
        conn.close()
