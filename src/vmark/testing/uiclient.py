"""A small Python client for the UI protocol: the person's side without a browser.

It attaches to a window like a UI page does, sends edits, composition and selection
events, answers prompts, and replies to the app's ``flush`` / ``activate`` / ``focus`` /
``editor`` requests. Keystrokes can be held back (``hold_edit``) to act as the editor's
unflushed buffer: they are sent when the app asks the page to flush. For the ``selection``
tool it acts as a page showing its window's active tab in source mode (``select``), or in
WYSIWYG mode when a tab has ``wysiwyg_changes``: a ``prepare`` then answers those spans.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from ..mcp.bridge_client import BridgeClient
from ..protocol.errors import parse_wire_error
from ..protocol.jsontypes import JSONObject


class UIError(Exception):
    def __init__(self, error: Any) -> None:
        super().__init__(str(error))
        self.error = error


class UIClient:
    def __init__(self, data_dir: Path) -> None:
        self.bridge = BridgeClient(data_dir, role="person", autostart=False)
        self.window: str | None = None
        self.held: dict[str, str] = {}
        self.refuse_activation = False
        #: while set, a workspace switch waits for it to be set (the page is still loading the new workspace:
        #: a switch is in progress meanwhile); ``switching`` is set once the page got one
        self.switch_gate: asyncio.Event | None = None
        self.switching = asyncio.Event()
        self.events: list[JSONObject] = []
        #: the source-mode selection per tab (code points of the text with ``\n`` line breaks)
        self.selections: dict[str, tuple[int, int]] = {}
        #: answer ``editor`` requests with "no editor" (False) or not at all (None)
        self.shows_editor: bool | None = True
        self.composing = False
        #: per tab: act as a WYSIWYG editor whose ``prepare`` makes these spans (code points of the text)
        self.wysiwyg_changes: JSONObject = {}
        self._pump: asyncio.Task[None] | None = None

    async def __aenter__(self) -> UIClient:
        await self.bridge.connect()
        self._pump = asyncio.create_task(self._pump_events())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._pump is not None:
            self._pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pump
        await self.bridge.close()

    async def call(self, kind: str, /, **payload: Any) -> Any:
        response = await self.bridge.request(kind, payload)
        if not response.get("success"):
            raise UIError(parse_wire_error(str(response.get("error"))))
        return response["data"]

    async def _pump_events(self) -> None:
        while True:
            event = await self.bridge.events.get()
            self.events.append(event)
            request_id = event.get("requestId")
            if request_id is None:
                continue
            name = event.get("event")
            reply: JSONObject = {"requestId": request_id, "ok": True}
            if name == "flush":
                await self._flush()
            elif name == "editor":
                if self.shows_editor is None:
                    continue
                reply.update(await self._selection(event["payload"]))
            elif name == "activate" and self.refuse_activation:
                reply["ok"] = False  # the page keeps showing what it showed
            elif name == "workspace_switch":
                self.switching.set()
                if self.switch_gate is not None:
                    await self.switch_gate.wait()
            elif name == "focus":
                await self.call("ui.focus", focused=True)
            await self.call("ui.reply", **reply)

    async def _flush(self) -> None:
        for tab_id, text in list(self.held.items()):
            await self.call("ui.edit", tabId=tab_id, text=text)
        self.held.clear()

    async def _selection(self, request: JSONObject) -> JSONObject:
        tab_id = request["tabId"]
        if not self.shows_editor:
            return {"ok": False, "reason": "no editor in this test page"}
        if not self.composing:
            await self._flush()
        read = await self.call("ui.read", tabId=tab_id)
        shown = read["text"].replace("\r\n", "\n")
        start, end = self.selections.get(tab_id, (0, 0))
        mode = "wysiwyg" if tab_id in self.wysiwyg_changes else "source"
        answer = {"ok": True, "tabId": tab_id, "mode": mode, "revision": read["revision"], "from": start, "to": end}
        answer["composing"] = self.composing
        if request["op"] == "get":
            return {**answer, "text": shown[start:end]}
        if mode == "wysiwyg":
            answer["changes"] = self.wysiwyg_changes[tab_id]
        return {**answer, "replaced": end - start}

    # --- conveniences -------------------------------------------------------------------
    async def attach(self, window: str | None = None) -> str:
        data = await self.call("ui.attach", window=window)
        self.window = data["window"]
        return str(self.window)

    async def focus(self, focused: bool = True, visible: bool = True) -> None:
        await self.call("ui.focus", focused=focused, visible=visible)

    async def edit(self, tab_id: str, text: str) -> str:
        return str((await self.call("ui.edit", tabId=tab_id, text=text))["revision"])

    async def select(self, tab_id: str, start: int, end: int, report: bool = True) -> None:
        """Move the selection (and tell the app, as a page does after its debounce)."""
        self.selections[tab_id] = (start, end)
        if report:
            await self.call("ui.selection", tabId=tab_id, **{"from": start, "to": end})

    def hold_edit(self, tab_id: str, text: str) -> None:
        """Type without passing it on yet: the app sees it only when it asks us to flush."""
        self.held[tab_id] = text

    async def approvals(self) -> list[JSONObject]:
        return list((await self.call("approvals.list"))["approvals"])

    async def answer(self, approval_id: str, allow: bool) -> JSONObject:
        return dict((await self.call("approvals.answer", id=approval_id, allow=allow))["approval"])

    def events_named(self, name: str) -> list[JSONObject]:
        return [e for e in self.events if e.get("event") == name]
