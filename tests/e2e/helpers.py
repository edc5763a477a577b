"""Real processes for the end-to-end tests: the CLI, ``vmark app`` and ``vmark mcp``.

Every wait is bounded. Every app a test starts, directly or through ``vmark mcp``'s
autostart, is found again by its data directory and stopped by pid (:func:`kill_apps_of`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from vmark.mcp.bridge_client import BridgeClient
from vmark.mcp.discovery import lock_is_held, read_bridge
from vmark.storage.datadir import BridgeInfo

PYTHON = sys.executable
CLI_TIMEOUT = 30.0
START_TIMEOUT = 20.0
STOP_TIMEOUT = 15.0
#: Inherited variables that would change what the processes under test do.
_SCRUBBED = ("VMARK_HOME", "VMARK_MCP_TOKEN", "VMARK_TEST_HOOKS", "VMARK_JOURNAL_FAULT", "XDG_DATA_HOME")


@dataclass(frozen=True)
class Home:
    """An isolated world: ``$HOME``, the data directory and a workspace, all under one tmp dir."""

    root: Path
    home: Path
    data: Path
    workspace: Path

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
        env.update(HOME=str(self.home), VMARK_HOME=str(self.data), XDG_CONFIG_HOME=str(self.home / ".config"))
        env.update(extra)
        return env


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def vmark_argv(*args: str) -> list[str]:
    return [PYTHON, "-m", "vmark", *args]


async def cli(env: dict[str, str], *args: str, cwd: Path | None = None, timeout: float = CLI_TIMEOUT) -> Result:
    """Run ``vmark ARGS`` to completion (without blocking the event loop)."""
    proc = await asyncio.create_subprocess_exec(
        *vmark_argv(*args),
        env=env,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise AssertionError(f"vmark {' '.join(args)} did not finish within {timeout} s") from None
    assert proc.returncode is not None
    return Result(proc.returncode, out.decode(), err.decode())


def wait_until(predicate: Callable[[], Any], timeout: float, what: str, interval: float = 0.02) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


async def await_until(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.02)


class AppProcess:
    """``vmark app --headless [FOLDER] [--port N]`` as a child process (``command``: the ``vmark`` to run,
    by default this interpreter's)."""

    def __init__(
        self,
        env: dict[str, str],
        data: Path,
        folder: Path | None = None,
        port: int | None = None,
        command: list[str] | None = None,
    ) -> None:
        self.data = data
        args = ["app", "--headless"]
        if folder is not None:
            args.append(str(folder))
        if port is not None:
            args += ["--port", str(port)]
        self.proc = subprocess.Popen(
            [*command, *args] if command is not None else vmark_argv(*args),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def ready(self, timeout: float = START_TIMEOUT, interval: float = 0.02) -> BridgeInfo:
        """Wait for this process's ``bridge.json``."""

        def mine() -> BridgeInfo | None:
            if self.proc.poll() is not None:
                raise AssertionError(f"vmark app exited with {self.proc.returncode}: {self.output()[1]}")
            info = read_bridge(self.data)
            return info if info is not None and info.pid == self.pid else None

        return wait_until(mine, timeout, "vmark app to write bridge.json", interval)  # type: ignore[no-any-return]

    async def aready(self, timeout: float = START_TIMEOUT) -> BridgeInfo:
        return await asyncio.to_thread(self.ready, timeout)

    def signal(self, sig: int) -> None:
        if self.proc.poll() is None:
            os.kill(self.pid, sig)

    def wait(self, timeout: float = STOP_TIMEOUT) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"vmark app (pid {self.pid}) did not exit within {timeout} s") from None

    def output(self) -> tuple[str, str]:
        """stdout and stderr; only once the process has exited."""
        out, err = self.proc.communicate(timeout=STOP_TIMEOUT)
        return out.decode(), err.decode()

    def kill(self) -> None:
        """Tear down: never leaves the process behind, whatever state it is in."""
        if self.proc.poll() is None:
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired, ValueError):
            self.proc.communicate(timeout=STOP_TIMEOUT)


def _proc_args(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def _proc_env(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def _is_app(args: list[str]) -> bool:
    return "app" in args and any(a == "vmark" or a.endswith("/vmark") for a in args)


def app_pids(data: Path) -> list[int]:
    """Live ``vmark app`` processes of ``data`` (matched by their own VMARK_HOME; zombies left out)."""
    marker = f"VMARK_HOME={data}"
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        args = _proc_args(int(entry.name))
        if _is_app(args) and marker in _proc_env(int(entry.name)) and _alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    state = Path(f"/proc/{pid}/stat")
    try:
        return state.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def kill_apps_of(data: Path) -> list[int]:
    """Stop every app of ``data`` (SIGTERM, then SIGKILL) and return the pids that were running."""
    pids = app_pids(data)
    bridge = _raw_bridge_pid(data)
    if bridge is not None and _alive(bridge) and bridge not in pids and _is_app(_proc_args(bridge)):
        pids.append(bridge)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + 5
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.02)
        if not any(_alive(p) for p in pids):
            break
    return pids


def _raw_bridge_pid(data: Path) -> int | None:
    try:
        return int(json.loads((data / "bridge.json").read_text())["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def app_stopped(data: Path) -> bool:
    return not lock_is_held(data) and not (data / "bridge.json").exists()


def vmark_script() -> tuple[str, list[str]]:
    """The installed console script next to this interpreter, else ``python -m vmark``."""
    script = Path(PYTHON).parent / "vmark"
    if script.exists():
        return str(script), []
    return PYTHON, ["-m", "vmark"]


def stdio_client(world: Home, mode: str = "auto", token: str | None = None, launch: list[str] | None = None) -> Client:
    """The official MCP client launching the real ``vmark mcp`` (or the ``launch`` command line) over stdio."""
    if launch is None:
        command, prefix = vmark_script()
        launch = [command, *prefix, "mcp"]
    env = {"VMARK_HOME": str(world.data), "HOME": str(world.home)}
    if token is not None:
        env["VMARK_MCP_TOKEN"] = token
    params = StdioServerParameters(command=launch[0], args=launch[1:], env=env, cwd=str(world.root))
    return Client(params, mode=mode, read_timeout_seconds=30)  # type: ignore[arg-type]


@contextlib.asynccontextmanager
async def bridge_client(
    data: Path, client_token: str | None = None, role: str = "agent"
) -> AsyncIterator[BridgeClient]:
    """A connected bridge client (an agent, or the person with ``role="person"``)."""
    client = BridgeClient(data, client_token, role=role, autostart=False)
    await asyncio.wait_for(client.connect(), START_TIMEOUT)
    try:
        yield client
    finally:
        await client.close()


async def request(client: BridgeClient, tool: str, action: str, **args: Any) -> dict[str, Any]:
    """One tool request over the bridge: ``{success, data}`` or ``{success: false, error}``."""
    response = await asyncio.wait_for(client.request(f"vmark.{tool}.{action}", args), CLI_TIMEOUT)
    return {k: v for k, v in response.items() if k in ("success", "data", "error")}


def health(port: int) -> dict[str, Any]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(f"http://127.0.0.1:{port}/health", timeout=10) as reply:
        assert reply.status == 200
        return json.loads(reply.read())  # type: ignore[no-any-return]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
