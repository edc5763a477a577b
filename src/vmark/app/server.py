"""Running the app: single-instance lock, bridge.json, HTTP + WebSocket server, shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from websockets.exceptions import InvalidState

from .. import __version__
from ..browser.launch import extra_args_from_env
from ..core.ids import new_token
from ..protocol.limits import MAX_FRAME_BYTES
from ..storage.datadir import BridgeInfo, InstanceLock, bridge_path, remove_bridge, write_bridge
from .bridge import Bridge
from .browser import LOOPBACK_ONLY_ENV
from .faults import TestHooks
from .service import App
from .ui_server import Guard, UIServer

log = logging.getLogger(__name__)


class AlreadyRunning(Exception):
    pass


class PortUnavailable(Exception):
    pass


class _QuietServer(uvicorn.Server):
    """Signals are ours: we shut down cleanly and remove bridge.json ourselves."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.stopping = asyncio.Event()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    async def main_loop(self) -> None:
        # Wait for stop() instead of polling every 100 ms: tests start and stop hundreds of apps.
        await self.stopping.wait()


def build_asgi(app: App, bridge: Bridge, ui: UIServer, port: int) -> Guard:
    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"ok": True, "version": __version__, "windows": len(app.session.windows)})

    routes = [Route("/health", health), WebSocketRoute("/bridge", bridge.endpoint), *ui.routes()]
    return Guard(Starlette(routes=routes), port)


class RunningApp:
    """An app bound to a port, serving until :meth:`stop`. Usable in-process by tests."""

    def __init__(
        self,
        data_dir: Path,
        folder: str | None = None,
        port: int = 0,
        *,
        test_hooks: bool = False,
        chromium_args: Sequence[str] | None = None,
        browser_loopback_only: bool | None = None,
        reopen_last: bool = False,
    ) -> None:
        """``test_hooks``: the app is built with :class:`TestHooks` (tests only: ``test.fault`` is routed);
        ``chromium_args``: extra Chromium launch flags, by default the machine's ``VMARK_CHROMIUM_ARGS``;
        ``browser_loopback_only``: the embedded browser reaches only this machine (tests, benchmarks), by
        default when ``VMARK_BROWSER_LOOPBACK_ONLY=1``; ``reopen_last``: without ``folder``, the main window
        reopens the folders it last held (``vmark app`` without a folder). The environment is read here, at
        the composition root, and nowhere below it."""
        self.data_dir = data_dir
        self.folder = folder
        self.reopen_last = reopen_last
        #: the folders the main window opened as the app started
        self.opened: list[str] = []
        self.port = port
        extra = extra_args_from_env() if chromium_args is None else chromium_args
        if browser_loopback_only is None:
            browser_loopback_only = os.environ.get(LOOPBACK_ONLY_ENV) == "1"
        self.app = App(
            data_dir,
            hooks=TestHooks() if test_hooks else None,
            chromium_args=extra,
            browser_loopback_only=browser_loopback_only,
        )
        self.token = new_token()
        self.ui_token = new_token()
        app = self.app
        self.bridge = Bridge(app.session, app.principals, app.approvals, app.coherence, app.dispatch, self.token)
        self._lock = InstanceLock(data_dir)
        self._server: _QuietServer | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def info(self) -> BridgeInfo:
        return BridgeInfo(port=self.port, token=self.token, pid=os.getpid(), ui_token=self.ui_token)

    @property
    def ui_url(self) -> str:
        return self.info.ui_url

    async def start(self) -> None:
        if not self._lock.acquire():
            raise AlreadyRunning(f"an app is already running for {self.data_dir}")
        # A bridge.json still here is a dead app's (we hold the lock now): while we start, nobody may
        # mistake it for ours just because the lock is held again.
        bridge_path(self.data_dir).unlink(missing_ok=True)
        # IPPROTO_TCP spelled out: asyncio sets TCP_NODELAY only on sockets that say so, and without it
        # every push to a page (an event after an unacknowledged frame) waits ~40 ms for a delayed ACK.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", self.port))
        except OSError as exc:
            sock.close()
            self._lock.release()
            raise PortUnavailable(f"cannot listen on 127.0.0.1:{self.port}: {exc.strerror}") from exc
        self.port = sock.getsockname()[1]
        self.opened = await self.app.start(self.folder, reopen_last=self.reopen_last)
        config = uvicorn.Config(
            build_asgi(self.app, self.bridge, self._ui_server(), self.port),
            log_level="warning",
            lifespan="off",
            ws="websockets-sansio",
            ws_max_size=MAX_FRAME_BYTES,
            ws_per_message_deflate=False,
        )
        self._server = _QuietServer(config)
        self._task = asyncio.create_task(self._server.serve(sockets=[sock]))
        while not self._server.started:
            if self._task.done():
                await self._task
                raise RuntimeError("server failed to start")
            await asyncio.sleep(0.01)
        write_bridge(self.data_dir, self.info)

    def _ui_server(self) -> UIServer:
        return UIServer(self.bridge, self.app.settings, self.ui_token, self.port)

    async def stop(self) -> None:
        remove_bridge(self.data_dir, self.token)
        if self._server is not None:
            self._server.should_exit = True
            self._server.stopping.set()
        if self._task is not None:
            # uvicorn's websockets (sans-I/O) shutdown sends a close frame on a page connection that is already
            # closing and raises InvalidState: the server is stopping either way, nothing is left unsent.
            with contextlib.suppress(InvalidState):
                await self._task
        await self.app.stop()
        self._lock.release()

    async def wait(self) -> None:
        if self._task is not None:
            await self._task


def _has_browser() -> bool:
    """A graphical session (or a chosen ``$BROWSER``): never start a text browser in the app's terminal."""
    if os.environ.get("BROWSER") or sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


#: worker threads of the app process's file work (saves, reads of files, the coherence kernel's calls): they
#: mostly wait for the disk (a save's two fsyncs), so concurrent agents' saves need more of them than the
#: default's CPU count + 4; the file system joins concurrent fsyncs into one journal commit
IO_THREADS = 32


async def serve_forever(
    data_dir: Path, folder: str | None, port: int, *, open_browser: bool = False, reopen_last: bool = False
) -> None:
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(IO_THREADS, thread_name_prefix="vmark-io"))
    # tests of an app process: its faults are set with test.fault; a person's app has none
    hooks = os.environ.get("VMARK_TEST_HOOKS") == "1"
    running = RunningApp(data_dir, folder, port, test_hooks=hooks, reopen_last=reopen_last)
    # Our handlers go in before bridge.json is written: whoever sees the file may signal us at once.
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await running.start()
    print(f"vmark app serving on http://127.0.0.1:{running.port} (data: {data_dir})", flush=True)
    print(f"vmark UI: {running.ui_url}", flush=True)
    if folder is None and running.opened:
        print(f"vmark reopened the last workspace: {', '.join(running.opened)}", flush=True)
    if open_browser and _has_browser():
        import webbrowser  # only an app that opens the person's browser

        # webbrowser may wait for the browser it starts: never on the loop.
        loop.run_in_executor(None, webbrowser.open, running.ui_url)
    await stop.wait()
    await running.stop()
