"""``vmark app`` as a real process: port, bridge.json, single instance, signals, stop, stale state."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import StartApp
from tests.e2e.helpers import (
    AppProcess,
    Home,
    app_stopped,
    bridge_client,
    cli,
    free_port,
    health,
    request,
)
from vmark import __version__
from vmark.mcp.discovery import lock_is_held, read_bridge


class Poller:
    """Calls ``probe`` as fast as it can in a thread while an app starts, keeping every answer."""

    def __init__(self, probe: Callable[[], Any]) -> None:
        self.probe = probe
        self.seen: list[Any] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.seen.append(self.probe())
            time.sleep(0.001)

    def __enter__(self) -> Poller:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)
        # One last look: on a busy machine the thread may not have run since the file appeared.
        self.seen.append(self.probe())


def raw_bridge(data: Path) -> str | None:
    try:
        return (data / "bridge.json").read_text()
    except FileNotFoundError:
        return None


def bridge_file(data: Path) -> dict[str, Any]:
    return json.loads((data / "bridge.json").read_text())  # type: ignore[no-any-return]


def assert_clean_exit(app: AppProcess, data: Path) -> None:
    assert app.wait() == 0, app.output()
    assert app_stopped(data)
    assert read_bridge(data) is None


async def test_serves_health_on_the_requested_port_and_opens_the_folder(world: Home, start_app: StartApp) -> None:
    port = free_port()
    with Poller(lambda: raw_bridge(world.data)) as poller:
        app = start_app(world.workspace, port=port)
        info = await app.aready()
    assert info.port == port and info.pid == app.pid
    assert health(port) == {"ok": True, "version": __version__, "windows": 1}
    # Every read during start-up saw the whole file: it appears atomically, never half-written.
    reads = [text for text in poller.seen if text is not None]
    assert reads, "bridge.json was never observed"
    for text in reads:
        assert json.loads(text) == {"pid": app.pid, "port": port, "token": info.token, "uiToken": info.ui_token}
    async with bridge_client(world.data) as agent:
        state = await request(agent, "session", "get_state")
    (window,) = state["data"]["windows"]
    assert window["label"] == "main" and window["tabs"] == []
    assert window["activeWorkspaceInstanceId"].startswith("wsi-")


async def test_bridge_json_mode_and_fields(world: Home, start_app: StartApp) -> None:
    app = start_app()
    info = await app.aready()
    path = world.data / "bridge.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data = bridge_file(world.data)
    assert set(data) == {"port", "token", "pid", "uiToken"}
    assert data == {"port": info.port, "token": info.token, "pid": app.pid, "uiToken": info.ui_token}
    assert re.fullmatch(r"[0-9a-f]{64}", data["token"])
    assert re.fullmatch(r"[0-9a-f]{64}", data["uiToken"]) and data["uiToken"] != data["token"]
    assert lock_is_held(world.data)
    assert not [p.name for p in world.data.iterdir() if p.name.endswith(".tmp")]


async def test_a_second_app_on_the_same_data_dir_refuses(world: Home, start_app: StartApp) -> None:
    first = start_app()
    info = await first.aready()
    second = start_app(world.workspace)
    assert second.wait() == 1
    out, err = second.output()
    assert err == f"vmark: an app is already running for {world.data}\n"
    assert out == ""
    # The first one is untouched and still serving.
    assert read_bridge(world.data) == info
    assert health(info.port)["ok"] is True


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
async def test_signals_shut_down_cleanly(world: Home, start_app: StartApp, sig: signal.Signals) -> None:
    app = start_app(world.workspace)
    # Signal the moment bridge.json is there: whoever finds the file may stop the app at once.
    info = app.ready(interval=0.0005)
    app.signal(sig)
    assert_clean_exit(app, world.data)
    out, err = app.output()
    assert out == (
        f"vmark app serving on http://127.0.0.1:{info.port} (data: {world.data})\n"
        f"vmark UI: http://127.0.0.1:{info.port}/?token={info.ui_token}\n"
    )
    assert "Traceback" not in err
    # The data directory is free again: a new app starts on it.
    again = start_app()
    assert (await again.aready()).pid == again.pid


async def test_vmark_stop_stops_the_app(world: Home, start_app: StartApp) -> None:
    app = start_app()
    await app.aready()
    result = await cli(world.env(), "stop")
    assert (result.code, result.out, result.err) == (0, "", "")
    assert_clean_exit(app, world.data)
    again = await cli(world.env(), "stop")
    assert (again.code, again.err) == (1, "vmark: no app is running\n")


async def test_stale_bridge_json_is_detected_and_replaced(world: Home, start_app: StartApp) -> None:
    dead = start_app()
    old = await dead.aready()
    dead.signal(signal.SIGKILL)
    assert dead.wait() == -signal.SIGKILL
    # The dead app's file is still there, but its lock died with it.
    assert bridge_file(world.data)["pid"] == dead.pid
    assert not lock_is_held(world.data)
    assert read_bridge(world.data) is None
    stop = await cli(world.env(), "stop")
    assert (stop.code, stop.err) == (1, "vmark: no app is running\n")
    # While the new app starts (and already holds the lock), the dead app's bridge is never reported.
    with Poller(lambda: read_bridge(world.data)) as poller:
        fresh = start_app()
        new = await fresh.aready()
    assert new.pid == fresh.pid and new.token != old.token
    assert {info for info in poller.seen if info is not None} == {new}
    assert bridge_file(world.data) == {"port": new.port, "token": new.token, "pid": fresh.pid, "uiToken": new.ui_token}
    assert health(new.port)["ok"] is True


@pytest.mark.parametrize("xdg", [True, False], ids=["XDG_DATA_HOME", "HOME-fallback"])
async def test_default_data_dir(world: Home, start_app: StartApp, xdg: bool) -> None:
    env = world.env()
    del env["VMARK_HOME"]
    if xdg:
        env["XDG_DATA_HOME"] = str(world.root / "xdg")
        expected = world.root / "xdg" / "vmark"
    else:
        expected = world.home / ".local" / "share" / "vmark"
    app = start_app(env=env, data=expected)
    info = await app.aready()
    assert stat.S_IMODE((expected / "bridge.json").stat().st_mode) == 0o600
    assert not (world.data / "bridge.json").exists()
    assert health(info.port)["ok"] is True
    app.signal(signal.SIGTERM)
    assert_clean_exit(app, expected)


async def test_folder_that_is_not_a_folder_is_refused(world: Home, start_app: StartApp) -> None:
    missing = world.root / "nope"
    app = start_app(missing)
    assert app.wait() == 2
    assert app.output() == ("", f"vmark: {str(missing)!r} is not a folder\n")
    assert not os.path.exists(world.data / "bridge.json")


async def test_a_busy_port_is_refused_with_a_message(world: Home, start_app: StartApp) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        app = start_app(port=port)
        assert app.wait() == 1
    assert app.output() == ("", f"vmark: cannot listen on 127.0.0.1:{port}: Address already in use\n")
    assert app_stopped(world.data)
