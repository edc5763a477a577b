"""Edits travel as change sets in a real page: what a keystroke costs on the wire, astral characters, CRLF
files, and one edit on a stale base rebased and sent again, frame by frame.

The rebase itself (random typing, agent changes, answers and doc events interleaved; a missed event; a whole
text) is property-tested in Node against a fake app: ``frontend/test/tabsync.test.ts``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client
from playwright.async_api import Page, WebSocket, WebSocketRoute

from tests.conftest import call, make_client, ok
from tests.contract.helpers import wait_until
from tests.ui.conftest import Pages
from tests.ui.helpers import doc_of, open_folder, open_path, wait_doc_text, wait_editor_text
from vmark.app.server import RunningApp


class Sent:
    """Every frame a page sends the app over its WebSocket, decoded."""

    def __init__(self) -> None:
        self.frames: list[tuple[int, dict[str, Any]]] = []

    async def watch(self, page: Page) -> None:
        page.on("websocket", self._watch)

    def _watch(self, ws: WebSocket) -> None:
        ws.on("framesent", self._sent)

    def _sent(self, payload: str | bytes) -> None:
        text = payload if isinstance(payload, str) else payload.decode()
        self.frames.append((len(text.encode()), json.loads(text)))

    def since(self, mark: int) -> list[tuple[int, dict[str, Any]]]:
        return self.frames[mark:]

    async def edits_since(self, mark: int, count: int) -> list[tuple[int, dict[str, Any]]]:
        """The ``ui.edit`` frames after ``mark``, once ``count`` of them are in (Playwright reports them a
        little after the app has taken them)."""
        await wait_until(lambda: len(self._edits(mark)) >= count, f"{count} ui.edit frames")
        return self._edits(mark)

    def _edits(self, mark: int) -> list[tuple[int, dict[str, Any]]]:
        return [(size, frame) for size, frame in self.frames[mark:] if frame["type"] == "ui.edit"]


async def _caret_at_end(page: Page) -> None:
    await page.click(".cm-content")
    await page.keyboard.press("Control+End")


async def _keystrokes_one_by_one(page: Page, vmark: RunningApp, tab: str, keys: str) -> None:
    """Type ``keys`` waiting for each to reach the app: one ``ui.edit`` per keystroke."""
    doc = doc_of(vmark, tab)
    for key in keys:
        before = doc.state.revision
        await page.keyboard.type(key)
        await wait_until(lambda before=before: doc.state.revision != before, f"the app to take {key!r}")


async def _typing_frames(pages: Pages, vmark: RunningApp, path: Path) -> tuple[list[int], list[dict[str, Any]]]:
    """The sizes of everything the page sends while ten keys are typed one by one, and the ``ui.edit`` frames."""
    sent = Sent()
    page = await pages.open(before=sent.watch)
    tab = await open_path(page, path)
    await _caret_at_end(page)
    mark = len(sent.frames)
    await _keystrokes_one_by_one(page, vmark, tab, "abcdefghij")
    await wait_doc_text(vmark, tab, path.read_text("utf-8") + "abcdefghij")
    edits = await sent.edits_since(mark, 10)
    return [size for size, _ in sent.since(mark)], [frame for _, frame in edits]


async def test_a_keystroke_costs_the_same_on_a_5_kb_and_a_5_mb_document(
    pages: Pages, vmark: RunningApp, tmp_path: Path
) -> None:
    line = "A line of a long document, with some words in it to make it look like prose.\n"
    small, large = tmp_path / "small.md", tmp_path / "large.md"
    small.write_text(line * (5_000 // len(line)), "utf-8")
    large.write_text(line * (5_000_000 // len(line)), "utf-8")
    costs: dict[str, list[int]] = {}
    for path in (small, large):
        sizes, edits = await _typing_frames(pages, vmark, path)
        length = len(path.read_text("utf-8"))
        assert [frame["payload"]["changes"] for frame in edits] == [
            [[length + n, length + n, key]] for n, key in enumerate("abcdefghij")
        ]
        assert all(set(frame["payload"]) == {"tabId", "baseRevision", "changes"} for frame in edits)
        # Nothing the page sends while typing carries the text (edits, selection moves, panel refreshes).
        assert max(sizes) < 200, sizes
        costs[path.name] = [len(json.dumps(frame, separators=(",", ":"))) for frame in edits]
    # The same frames but for the two offsets' digits (4 each for the small document, 7 for the large one).
    assert [b - a for a, b in zip(costs["small.md"], costs["large.md"], strict=True)] == [6] * 10


async def _agent_inserts(agent: Client, tab: str, at: int, insert: str) -> dict[str, Any]:
    """A careful agent: read, write the text with ``insert`` at ``at`` against that revision; again when the
    document moved on (STALE) or the person typed while the write was recorded (ABORTED)."""
    while True:
        read = await ok(agent, "document", "read", tabId=tab)
        content = read["content"][:at] + insert + read["content"][at:]
        answer = await call(agent, "document", "write", tabId=tab, content=content, expected_revision=read["revision"])
        data = answer.structured_content or {}
        if not answer.is_error:
            return dict(data)
        assert data.get("error") in ("STALE", "STALE_PARENT", "ABORTED"), data


async def test_astral_characters_count_as_one_on_the_wire_in_both_directions(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    (workspace / "e.md").write_text("😀 a\n𝄞 b\n", "utf-8")
    sent = Sent()
    first = await pages.open(before=sent.watch)
    await open_folder(first, workspace)
    tab = await open_path(first, workspace / "e.md")
    second = await pages.open()
    await open_path(second, workspace / "e.md")
    await first.click(".cm-content")
    await first.keyboard.press("Control+End")
    await first.keyboard.press("ArrowUp")
    await first.keyboard.press("End")  # after "𝄞 b"
    mark = len(sent.frames)
    await first.keyboard.type("🎉x")
    await wait_doc_text(vmark, tab, "😀 a\n𝄞 b🎉x\n")
    edits = [frame["payload"]["changes"] for _, frame in await sent.edits_since(mark, 1)]
    # One frame, or one per key when the debounce fell between them: code points of the text either way.
    # Code points: 😀=0 " "=1 a=2 "\n"=3 𝄞=4 " "=5 b=6, so the end of the line is 7 (9 UTF-16 units).
    assert edits in ([[[7, 7, "🎉x"]]], [[[7, 7, "🎉"]], [[8, 8, "x"]]]), edits
    await wait_editor_text(second, "😀 a\n𝄞 b🎉x\n")
    # An agent's change after astral characters lands where it belongs in both pages.
    async with make_client(vmark.data_dir) as agent:
        await _agent_inserts(agent, tab, 8, "!")
    await wait_editor_text(first, "😀 a\n𝄞 b🎉!x\n")
    await wait_editor_text(second, "😀 a\n𝄞 b🎉!x\n")
    await first.keyboard.type("y")  # the caret was mapped through the agent's change
    await wait_doc_text(vmark, tab, "😀 a\n𝄞 b🎉!xy\n")


async def test_typing_into_a_crlf_file_keeps_its_line_endings(pages: Pages, vmark: RunningApp, tmp_path: Path) -> None:
    path = tmp_path / "w.md"
    path.write_bytes(b"# W\r\n\r\nalpha\r\nbeta\r\n")
    page = await pages.open()
    await open_folder(page, tmp_path)
    tab = await open_path(page, path)
    await wait_editor_text(page, "# W\n\nalpha\nbeta\n")
    await page.click(".cm-content")
    await page.keyboard.press("Control+Home")
    for _ in range(2):
        await page.keyboard.press("ArrowDown")
    await page.keyboard.press("End")
    await page.keyboard.type(" one")
    await page.keyboard.press("Enter")
    await page.keyboard.type("two")
    await wait_doc_text(vmark, tab, "# W\r\n\r\nalpha one\r\ntwo\r\nbeta\r\n")
    await page.keyboard.press("Control+s")
    await wait_until_saved(path, b"# W\r\n\r\nalpha one\r\ntwo\r\nbeta\r\n")


async def wait_until_saved(path: Path, expected: bytes) -> None:
    await wait_until(lambda: path.read_bytes() == expected, f"{path.name} to hold {expected!r}")


Predicate = Callable[[dict[str, Any]], bool]


class Wire:
    """The page's WebSocket through Playwright's route: frames either way are recorded, and a frame matching
    ``hold_sent`` (page to app) is held until ``release``."""

    def __init__(self, hold_sent: Predicate) -> None:
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []
        self.held = asyncio.Event()
        self.release = asyncio.Event()
        self._hold = hold_sent
        self._tasks: list[asyncio.Task[None]] = []

    async def route(self, page: Page) -> None:
        await page.route_web_socket("**/ui", self._connect)

    def _connect(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            frame = json.loads(message)
            self.sent.append(frame)
            if not self.held.is_set() and self._hold(frame):
                self.held.set()
                self._tasks.append(asyncio.ensure_future(self._forward_later(server, message)))
            else:
                server.send(message)

        def from_app(message: str | bytes) -> None:
            self.received.append(json.loads(message))
            ws.send(message)

        ws.on_message(from_page)
        server.on_message(from_app)

    async def _forward_later(self, server: WebSocketRoute, message: str | bytes) -> None:
        await self.release.wait()
        server.send(message)

    def edit_answers(self) -> list[dict[str, Any]]:
        ids = {f["id"] for f in self.sent if f.get("type") == "ui.edit"}
        return [f["data"] for f in self.received if f.get("type") == "response" and f.get("id") in ids]

    def sent_of(self, kind: str) -> list[dict[str, Any]]:
        return [f["payload"] for f in self.sent if f.get("type") == kind]


def _is_edit(frame: dict[str, Any]) -> bool:
    return frame.get("type") == "ui.edit"


async def test_an_edit_on_a_stale_base_is_rebased_on_the_apps_changes_and_sent_again(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    wire = Wire(hold_sent=_is_edit)
    page = await pages.open(before=wire.route)
    await open_folder(page, workspace)
    tab = await open_path(page, workspace / "a.md")
    base = doc_of(vmark, tab).state.revision
    await _caret_at_end(page)
    await page.keyboard.type("x")
    await asyncio.wait_for(wire.held.wait(), 10)  # the page's edit, on `base`, is on its way
    async with make_client(vmark.data_dir) as agent:
        wrote = await _agent_inserts(agent, tab, 5, "AGENT ")
    await page.keyboard.type("y")  # typed while the first edit is answered
    wire.release.set()
    await wait_doc_text(vmark, tab, "# A\n\nAGENT alpha\nxy")
    await wait_editor_text(page, "# A\n\nAGENT alpha\nxy")
    # the app applied the second edit (the text says so); its answer may still be on the wire to the page
    await wait_until(lambda: len(wire.edit_answers()) >= 2, "the answer to the edit sent again")
    edits = wire.sent_of("ui.edit")
    assert edits[0] == {"tabId": tab, "baseRevision": base, "changes": [[11, 11, "x"]]}
    # Refused with the app's change; ours (x, and y typed meanwhile) mapped over it and sent on its revision.
    assert wire.edit_answers()[0] == {"applied": False, "revision": wrote["revision"], "changes": [[5, 5, "AGENT "]]}
    assert edits[1] == {"tabId": tab, "baseRevision": wrote["revision"], "changes": [[17, 17, "xy"]]}
    assert wire.edit_answers()[1]["applied"] is True and len(edits) == 2
    assert wire.sent_of("ui.read") == [{"tabId": tab}]  # the open only: no whole text fetched to merge
