"""The MCP server's side of the bridge: connect, authenticate, request, reconnect.

Finds the app through ``bridge.json``; when none runs, starts ``vmark app
--headless`` detached and waits for it. A lost connection is re-established on the
next request (a new connection: approvals granted to the old one do not carry over).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import json
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from ..core.agentname import CLIENT_FRAME, clean_client_name
from ..core.jsonfast import encode_frame
from ..protocol.agent_events import HEAR_FRAME, HEARS_KEY
from ..protocol.bridgefile import BridgeInfo
from ..protocol.jsontypes import JSONObject
from ..protocol.limits import APP_START_TIMEOUT_SECONDS, BRIDGE_OPEN_SECONDS
from .discovery import read_bridge, read_bridge_file

#: ``(progress, total, message)`` of a request, as the app reports it
OnProgress = Callable[[float, float | None, str | None], Awaitable[None]]


class BridgeUnavailable(Exception):
    pass


class _Reports:
    """A request's progress reports as the reader hands them over, and the wake-up of whoever waits for the
    next one or the answer (one future, no task per call: every tool call asks for progress)."""

    def __init__(self) -> None:
        self.items: collections.deque[JSONObject] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None

    def put(self, report: JSONObject) -> None:
        self.items.append(report)
        self._wake()

    def _wake(self, _answer: object = None) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def next_or(self, answer: asyncio.Future[JSONObject]) -> None:
        """Until a report comes or ``answer`` is set."""
        self._waiter = waiter = asyncio.get_running_loop().create_future()
        answer.add_done_callback(self._wake)
        try:
            await waiter
        finally:
            answer.remove_done_callback(self._wake)
            self._waiter = None


async def _answer_with_progress(
    answer: asyncio.Future[JSONObject], reports: _Reports, progress: OnProgress
) -> JSONObject:
    """The answer; meanwhile each report, in order, to ``progress`` (one awaited at a time).

    The reader queues a report before it sets the answer (frames are read in order), so every report
    that came before the answer is passed on before the answer is returned."""
    while True:
        while reports.items:
            await _forward(reports.items.popleft(), progress)
        if answer.done():
            return answer.result()
        await reports.next_or(answer)


async def _forward(report: JSONObject, progress: OnProgress) -> None:
    done, total, message = report.get("progress"), report.get("total"), report.get("message")
    if isinstance(done, int | float):
        total = total if isinstance(total, int | float) else None
        await progress(done, total, message if isinstance(message, str) else None)


def start_app_detached(data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    # Private: the app prints its UI address (with the UI token) there.
    fd = os.open(data_dir / "app.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
    log = os.fdopen(fd, "ab")
    env = {**os.environ, "VMARK_HOME": str(data_dir)}
    subprocess.Popen(
        # Never the person's last workspace: an agent starting the app opens nothing without the person.
        [sys.executable, "-m", "vmark", "app", "--headless", "--no-reopen"],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        env=env,
        start_new_session=True,
        close_fds=True,
    )
    log.close()


def _frame(message: JSONObject) -> bytes:
    """A UTF-8 text frame (:func:`vmark.core.jsonfast.encode_frame`)."""
    return encode_frame(message)


class BridgeClient:
    def __init__(
        self, data_dir: Path, client_token: str | None = None, *, role: str = "agent", autostart: bool = True
    ) -> None:
        self.data_dir = data_dir
        self.client_token = client_token
        self.role = role
        self.autostart = autostart
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._pending: dict[str, asyncio.Future[JSONObject]] = {}
        self._progress: dict[str, _Reports] = {}
        self._ids = itertools.count(1)
        self._lock = asyncio.Lock()
        self.events: asyncio.Queue[JSONObject] = asyncio.Queue()
        self.connection_id: str | None = None
        #: the name the MCP client gave itself (``clientInfo.name``), cleaned: the app shows the agent by it
        self.client_name: str | None = None
        #: the name the app has for this connection (sent in ``auth`` or a ``client`` frame since)
        self._announced: str | None = None
        self._started: tuple[str | None] | None = None  # (stale token,) of an app start_early() began
        #: whether the app is to send this client the agents' change notifications (:meth:`want_events`), and
        #: the connection it was told on (a new connection is told again, in its ``auth``)
        self.hears = False
        self._told_hears: ClientConnection | None = None

    def _start_app(self) -> str | None:
        """Start the app detached; return the token of a dead app's bridge.json, never to be taken for it."""
        stale = read_bridge_file(self.data_dir)
        start_app_detached(self.data_dir)
        return stale.get("token") if isinstance(stale, dict) else None

    def start_early(self) -> None:
        """Start the app now if none runs, so it boots while the MCP SDK (slow to import) loads."""
        if self.autostart and self._started is None and read_bridge(self.data_dir) is None:
            self._started = (self._start_app(),)

    async def _find_or_start(self) -> BridgeInfo:
        started, self._started = self._started, None  # only the first connection waits for an early start
        info = read_bridge(self.data_dir)
        if info is not None or not self.autostart:
            if info is None:
                raise BridgeUnavailable(f"no VMark app is running for {self.data_dir}")
            return info
        stale_token = started[0] if started is not None else self._start_app()
        deadline = time.monotonic() + APP_START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            await asyncio.sleep(0.05)
            info = read_bridge(self.data_dir)
            if info is not None and info.token != stale_token:
                return info
        raise BridgeUnavailable(f"the VMark app did not start within {APP_START_TIMEOUT_SECONDS:.0f} s; see app.log")

    async def connect(self) -> None:
        async with self._lock:
            if self._ws is not None:
                return
            info = await self._find_or_start()
            try:
                ws = await connect(info.url, max_size=None, compression=None, open_timeout=BRIDGE_OPEN_SECONDS)
            except OSError as exc:
                raise BridgeUnavailable(f"cannot reach the VMark app: {exc}") from exc
            auth: JSONObject = {"token": info.token, "role": self.role}
            if self.client_token:
                auth["clientToken"] = self.client_token
            name = self.client_name
            if name:
                auth["clientName"] = name
            if self.hears:
                auth[HEARS_KEY] = True
            await ws.send(json.dumps({"id": "auth", "type": "auth", "payload": auth}))
            try:
                reply = json.loads(await asyncio.wait_for(ws.recv(), BRIDGE_OPEN_SECONDS))
            except (ConnectionClosed, TimeoutError) as exc:
                raise BridgeUnavailable("the VMark app refused the connection") from exc
            if not reply.get("payload", {}).get("ok"):
                await ws.close()
                raise BridgeUnavailable("the VMark app refused our credentials (check VMARK_MCP_TOKEN)")
            self.connection_id = reply["payload"].get("connectionId")
            self._announced = name
            self._told_hears = ws if self.hears else None
            self._ws = ws
            self._reader = asyncio.create_task(self._read(ws))

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for raw in ws:
                frame = json.loads(raw)
                if frame.get("type") == "event":
                    self.events.put_nowait(frame)
                    continue
                if frame.get("type") == "progress":
                    reports = self._progress.get(str(frame.get("id")))
                    if reports is not None and isinstance(frame.get("payload"), dict):
                        reports.put(frame["payload"])
                    continue
                future = self._pending.pop(str(frame.get("id")), None)
                if future is not None and not future.done():
                    future.set_result(frame)
        except ConnectionClosed:
            pass
        finally:
            if self._ws is ws:
                self._ws = None
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ConnectionError("the connection to the VMark app was lost"))
            self._pending.clear()

    def remember_client(self, raw: object) -> str | None:
        """The MCP client's name, cleaned, kept for the next connection's ``auth`` (:meth:`name_client` also tells
        an open connection)."""
        self.client_name = clean_client_name(raw)
        return self.client_name

    async def name_client(self, raw: object) -> None:
        """The MCP client's name (from its ``initialize``): sent with the next connection's ``auth``, or now in a
        ``client`` frame when a connection is open and knows the agent by another name. Frames are taken in
        order, so the requests sent after this one carry the name. Display only: the app never trusts it."""
        name = self.remember_client(raw)
        ws = self._ws
        if ws is None or name == self._announced:
            return
        self._announced = name
        frame = {"id": f"client-{next(self._ids)}", "type": CLIENT_FRAME, "payload": {"name": name}}
        with contextlib.suppress(ConnectionClosed):
            await ws.send(_frame(frame), text=True)

    def want_events(self) -> None:
        """From now on the app is to send the agents' change notifications (``events``): told with the next
        request, or with the next connection's ``auth`` (:mod:`vmark.protocol.agent_events`)."""
        self.hears = True

    async def hear(self) -> None:
        """:meth:`want_events`, told now when a connection is open (frames are taken in order: the app sends
        the notifications of whatever changes after it reads this one)."""
        self.hears = True
        ws = self._ws
        if ws is not None:
            await self._tell_hears(ws)

    async def _tell_hears(self, ws: ClientConnection) -> None:
        if not self.hears or self._told_hears is ws:
            return
        self._told_hears = ws
        frame = {"id": f"hear-{next(self._ids)}", "type": HEAR_FRAME, "payload": {}}
        with contextlib.suppress(ConnectionClosed):  # the request after it finds the connection closed
            await ws.send(_frame(frame), text=True)

    async def request(self, kind: str, payload: JSONObject, progress: OnProgress | None = None) -> JSONObject:
        """``{success, data}`` or ``{success: False, error}``; reconnects once if the app went away.

        With ``progress``, the app reports the request's progress, and ``progress`` gets each report in
        order while the request is being answered (never after)."""
        for attempt in (1, 2):
            if self._ws is None:
                await self.connect()
            ws = self._ws
            assert ws is not None
            await self._tell_hears(ws)
            request_id = str(next(self._ids))
            future: asyncio.Future[JSONObject] = asyncio.get_running_loop().create_future()
            self._pending[request_id] = future
            frame: JSONObject = {"id": request_id, "type": kind, "payload": payload}
            if progress is not None:
                frame["progress"] = True
                self._progress[request_id] = _Reports()
            try:
                await ws.send(_frame(frame), text=True)
            except ConnectionClosed:
                self._pending.pop(request_id, None)
                if future.done() and not future.cancelled():
                    future.exception()  # the reader already failed it: we retry instead of raising it
                self._ws = None
                self._progress.pop(request_id, None)
                if attempt == 2:
                    raise BridgeUnavailable("the VMark app closed the connection") from None
                continue
            if progress is None:
                return await future
            try:
                return await _answer_with_progress(future, self._progress[request_id], progress)
            finally:
                self._progress.pop(request_id, None)
        raise BridgeUnavailable("unreachable")

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        self._ws = None
