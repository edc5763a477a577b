"""The bridge: an authenticated WebSocket on 127.0.0.1 (DESIGN.md section 4).

Refused and closed: any ``Origin`` header (no web page may talk to the app), more
than 32 sockets, a first frame that is not ``auth``, a wrong token or unknown client
token, a frame over 64 KiB before auth, no auth within 10 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
from collections.abc import Awaitable, Callable

from starlette.websockets import WebSocket, WebSocketDisconnect

from .. import __version__
from ..core.agentname import CLIENT_FRAME, clean_client_name
from ..core.jsonfast import encode_frame
from ..protocol.agent_events import HEAR_FRAME, HEARS_KEY
from ..protocol.jsontypes import JSONObject
from ..protocol.limits import AUTH_DEADLINE_SECONDS, MAX_SOCKETS, PRE_AUTH_FRAME_BYTES
from ..storage.principals import Principals
from .approvals import Approvals
from .coherence import CoherenceService
from .connection import Connection, SendFn
from .progress_frames import progress_of
from .state import Session

#: how a request is answered (App.dispatch): ``(connection, kind, payload) -> {success, data | error}``
Dispatch = Callable[[Connection, str, JSONObject], Awaitable[JSONObject]]

log = logging.getLogger(__name__)

CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
CLOSE_TRY_AGAIN = 1013


class Bridge:
    def __init__(
        self,
        session: Session,
        principals: Principals,
        approvals: Approvals,
        coherence: CoherenceService,
        dispatch: Dispatch,
        token: str,
    ) -> None:
        self.session = session
        self.principals = principals
        self.approvals = approvals
        self.coherence = coherence
        self.dispatch = dispatch
        self.token = token
        self.sockets = 0

    async def endpoint(self, ws: WebSocket) -> None:
        if "origin" in ws.headers:
            await ws.close(code=CLOSE_POLICY, reason="Origin header refused")
            return
        await self.accept(ws, self._authenticate)

    async def accept(self, ws: WebSocket, authenticate: Callable[[WebSocket], Awaitable[Connection | None]]) -> None:
        """Serve one socket (the UI pages' ``/ui`` shares the socket bound) once ``authenticate`` admits it."""
        if self.sockets >= MAX_SOCKETS:
            await ws.close(code=CLOSE_TRY_AGAIN, reason="too many sockets")
            return
        self.sockets += 1
        try:
            await ws.accept()
            conn = await authenticate(ws)
            if conn is not None:
                await self._serve(ws, conn)
        except WebSocketDisconnect:
            pass
        finally:
            self.sockets -= 1

    async def _authenticate(self, ws: WebSocket) -> Connection | None:
        try:
            message = await asyncio.wait_for(ws.receive(), AUTH_DEADLINE_SECONDS)
        except TimeoutError:
            await ws.close(code=CLOSE_POLICY, reason="no auth within 10 s")
            return None
        if message["type"] == "websocket.disconnect":
            return None
        raw = message.get("text") or message.get("bytes") or b""
        size = len(raw.encode("utf-8")) if isinstance(raw, str) else len(raw)
        if size > PRE_AUTH_FRAME_BYTES:
            await ws.close(code=CLOSE_TOO_BIG, reason="frame too large before auth")
            return None
        frame = _parse(raw)
        if frame is None or frame.get("type") != "auth" or not isinstance(frame.get("payload"), dict):
            await ws.close(code=CLOSE_POLICY, reason="auth must come first")
            return None
        payload = frame["payload"]
        token, client_token = payload.get("token"), payload.get("clientToken")
        role = payload.get("role", "agent")
        principal = None
        ok = isinstance(token, str) and hmac.compare_digest(token, self.token) and role in ("agent", "person")
        if ok and client_token is not None:
            principal = self.principals.authenticate(client_token) if isinstance(client_token, str) else None
            ok = principal is not None
        if not ok:
            await ws.send_json({"id": frame.get("id"), "type": "auth_result", "payload": {"ok": False}})
            await ws.close(code=CLOSE_POLICY, reason="authentication failed")
            return None

        conn = Connection(role=role, principal=principal, send=sender(ws))
        if role == "agent":
            conn.client_name = clean_client_name(payload.get("clientName"))
            conn.hears = payload.get(HEARS_KEY) is True
        await conn.send(
            {
                "id": frame.get("id"),
                "type": "auth_result",
                "payload": {
                    "ok": True,
                    "connectionId": conn.id,
                    "principal": principal,
                    "version": __version__,
                },
            }
        )
        if role == "agent":
            self.session.agent_joined(conn)
        return conn

    async def _serve(self, ws: WebSocket, conn: Connection) -> None:
        tasks: set[asyncio.Task[None]] = set()
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                frame = _parse(message.get("text") or message.get("bytes") or b"")
                if frame is None:
                    await conn.send({"type": "response", "id": None, "success": False, "error": "malformed frame"})
                    continue
                if frame.get("type") == CLIENT_FRAME:
                    # Taken before the next frame is read: the requests sent after it carry the new name.
                    await self._rename(conn, frame)
                    continue
                if frame.get("type") == HEAR_FRAME:
                    await self._hear(conn, frame)
                    continue
                task = asyncio.create_task(self._answer(conn, frame))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
        finally:
            self._forget(conn)
            for task in tasks:
                task.cancel()

    async def _answer(self, conn: Connection, frame: JSONObject) -> None:
        kind = frame.get("type")
        payload = frame.get("payload", {})
        if not isinstance(kind, str):
            response: JSONObject = {"success": False, "error": "frame type must be a string"}
        else:
            async with progress_of(conn, frame):
                response = await self.dispatch(conn, kind, payload)
        with contextlib.suppress(ConnectionError):
            await conn.send({"type": "response", "id": frame.get("id"), **response})

    async def _rename(self, conn: Connection, frame: JSONObject) -> None:
        """An agent's MCP client named itself after the connection was made (or a new client shares it)."""
        payload = frame.get("payload")
        if conn.role != "agent" or not isinstance(payload, dict):
            response: JSONObject = {"success": False, "error": "a client frame is an agent's {name}"}
        else:
            name = clean_client_name(payload.get("name"))
            if name != conn.client_name:
                conn.client_name = name
                self.session.changed()  # the pages' connected-agents indicator
            response = {"success": True, "data": {"name": name}}
        with contextlib.suppress(ConnectionError):
            await conn.send({"type": "response", "id": frame.get("id"), **response})

    async def _hear(self, conn: Connection, frame: JSONObject) -> None:
        """An agent's MCP server has clients that may hear of changes: it is sent them from the next one on."""
        if conn.role != "agent":
            response: JSONObject = {"success": False, "error": "a hear frame is an agent's"}
        else:
            self.session.agent_hears(conn)
            response = {"success": True, "data": {HEARS_KEY: True}}
        with contextlib.suppress(ConnectionError):
            await conn.send({"type": "response", "id": frame.get("id"), **response})

    def _forget(self, conn: Connection) -> None:
        self.approvals.withdraw_connection(conn.id)
        self.coherence.forget(conn)
        self.session.agent_left(conn)
        if conn.window is not None:
            pages = self.session.pages.get(conn.window, [])
            if conn in pages:
                pages.remove(conn)
            if not pages:
                self.session.pages.pop(conn.window, None)
                window = self.session.windows.get(conn.window)
                if window is not None:
                    window.focused = False


def sender(ws: WebSocket) -> SendFn:
    async def send(message: JSONObject) -> None:
        try:
            await ws.send_text(encode_frame(message).decode("utf-8"))
        except (RuntimeError, WebSocketDisconnect) as exc:
            raise ConnectionError(str(exc)) from exc

    return send


def _parse(raw: str | bytes) -> JSONObject | None:
    try:
        frame = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None
    return frame if isinstance(frame, dict) else None
