"""Shared pieces of the benchmarks: processes, MCP clients, sample documents, statistics, tables.

Every process a benchmark starts (the app, the stdio servers) is stopped on the way out,
also when the benchmark fails: use :func:`running_app`, :func:`stdio_client_for` and
:func:`stop_app_of` rather than starting processes by hand.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO, TypeVar

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from vmark.mcp.bridge_client import BridgeClient
from vmark.mcp.discovery import lock_is_held, read_bridge
from vmark.storage.settings import Settings

T = TypeVar("T")

ROOT = Path(__file__).resolve().parents[1]
PEER_ENTRY = ROOT / "bench/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
#: the official client's default handshake; the peer (a TypeScript SDK 1.x server) falls back to initialize
CLIENT_MODE = "auto"
#: writes per document before REVIEW_BACKLOG_FULL; a benchmark writes far more than a person reviews
BENCH_BACKLOG_LIMIT = 1_000_000
APP_START_SECONDS = 20.0
STOP_SECONDS = 10.0


class BenchError(Exception):
    """A benchmark could not run (a missing peer, an error result): the figures would be wrong."""


def vmark_exe() -> str:
    beside = Path(sys.executable).parent / "vmark"
    return str(beside if beside.exists() else ROOT / ".venv/bin/vmark")


def vmark_env(home: Path) -> dict[str, str]:
    return {"VMARK_HOME": str(home)}


def peer_available() -> bool:
    return PEER_ENTRY.is_file()


def install_peer() -> bool:
    """``npm ci`` the pinned peer into bench/node_modules (from bench/package-lock.json)."""
    if not peer_available():
        print("installing the peer: npm ci --prefix bench", file=sys.stderr, flush=True)
        done = subprocess.run(["npm", "ci", "--prefix", str(ROOT / "bench"), "--no-audit", "--no-fund"], check=False)
        if done.returncode != 0:
            return False
    return peer_available()


def require_peer() -> None:
    if not peer_available():
        raise BenchError(f"the peer is not installed ({PEER_ENTRY}); run `npm ci --prefix bench`")


# --- data directories and documents ---------------------------------------------------------
@contextlib.contextmanager
def bench_dir(prefix: str) -> Iterator[Path]:
    """A temp folder for one benchmark run (on the same filesystem as the system temp dir)."""
    with tempfile.TemporaryDirectory(prefix=f"vmark-bench-{prefix}-") as tmp:
        yield Path(tmp)


def prepare_home(home: Path) -> Path:
    """A fresh VMARK_HOME whose review backlog never fills during a benchmark."""
    home.mkdir(parents=True, exist_ok=True)
    Settings(home / "settings.json").set("review_backlog_limit", BENCH_BACKLOG_LIMIT)
    return home


_LINE = "- item {n:06d}: the quick brown fox jumps over the lazy dog; *emphasis*, `code`, [a link](#x) é ✓\n"


#: a one-word edit's line: unique in markdown_of_size's text (each list line is numbered); its word flips
#: between the two of FLIP_WORDS
FLIP_ANCHOR = "- item 004242: the {word} brown fox"
FLIP_WORDS = ("quick", "swift")


def markdown_of_size(size: int, variant: int = 0) -> str:
    """Markdown of exactly ``size`` UTF-8 bytes (headings and list lines, some non-ASCII)."""
    parts = [f"# Benchmark document {variant}\n\n"]
    total, n = len(parts[0].encode()), 0
    while total < size:
        line = (f"\n## Section {n // 50}\n\n" if n % 50 == 0 else "") + _LINE.format(n=n + variant)
        parts.append(line)
        total += len(line.encode())
        n += 1
    text = "".join(parts).encode()[: size - 1].decode("utf-8", "ignore")
    return text + "x" * (size - 1 - len(text.encode())) + "\n"


def human_size(size: int) -> str:
    """Decimal units: ``1 KB`` is 1,000 bytes, ``10 MB`` 10,000,000."""
    for unit, factor in (("MB", 1_000_000), ("KB", 1_000)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size} B"


@contextlib.contextmanager
def logs_on_error(*paths: Path, lines: int = 15) -> Iterator[None]:
    """On the way out of a failure, show the end of the servers' logs (they live in a temp dir)."""
    try:
        yield
    except BaseException:
        for path in paths:
            with contextlib.suppress(OSError):
                tail = path.read_text("utf-8", "replace").splitlines()[-lines:]
                print(f"--- last lines of {path.name} ---", *tail, sep="\n", file=sys.stderr)
        raise


# --- processes ------------------------------------------------------------------------------
def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _terminate_pid(pid: int) -> None:
    """SIGTERM, wait, SIGKILL: for a detached app that is not our child."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    while _pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def stop_app_of(home: Path, *, use_cli: bool = True) -> None:
    """Stop the app of ``home`` (``vmark stop``, then by pid from bridge.json if it is still there).

    An app that holds its lock but has not written bridge.json yet (still starting) is waited for.
    """
    deadline = time.monotonic() + APP_START_SECONDS
    while lock_is_held(home) and not (home / "bridge.json").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    if use_cli and read_bridge(home) is not None:
        subprocess.run(
            [vmark_exe(), "stop"],
            env={**os.environ, **vmark_env(home)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=STOP_SECONDS + 5,
            check=False,
        )
    try:
        data = json.loads((home / "bridge.json").read_text("utf-8"))
        pid = int(data["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return
    if _pid_alive(pid):
        _terminate_pid(pid)


@contextlib.asynccontextmanager
async def running_app(home: Path, folder: Path | None = None) -> AsyncIterator[subprocess.Popen[bytes]]:
    """A real ``vmark app --headless [folder]`` for ``home``, stopped on exit whatever happens."""
    args = [vmark_exe(), "app", "--headless"] + ([str(folder)] if folder is not None else [])
    with open(home / "app.log", "ab") as log:
        proc = subprocess.Popen(
            args, env={**os.environ, **vmark_env(home)}, stdin=subprocess.DEVNULL, stdout=log, stderr=log
        )
    try:
        await app_started(home, proc)
        yield proc
    finally:
        _stop_child(proc)
        stop_app_of(home, use_cli=False)  # anything a `vmark mcp` may have autostarted meanwhile


async def app_started(home: Path, proc: subprocess.Popen[bytes]) -> None:
    """Wait until the app ``proc`` started for ``home`` wrote its bridge file; BenchError if it exits first or
    takes longer than :data:`APP_START_SECONDS` (its log is ``home / "app.log"``)."""
    deadline = time.monotonic() + APP_START_SECONDS
    while read_bridge(home) is None:
        if proc.poll() is not None:
            raise BenchError(f"the app exited with {proc.returncode}; see {home / 'app.log'}")
        if time.monotonic() > deadline:
            raise BenchError(f"the app did not start within {APP_START_SECONDS:.0f} s; see {home / 'app.log'}")
        await anyio.sleep(0.02)


def _stop_child(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def vmark_mcp_params(home: Path) -> StdioServerParameters:
    return StdioServerParameters(command=vmark_exe(), args=["mcp"], env=vmark_env(home))


def peer_params(allowed: Path) -> StdioServerParameters:
    return StdioServerParameters(command="node", args=[str(PEER_ENTRY), str(allowed)])


@contextlib.asynccontextmanager
async def stdio_client_for(params: StdioServerParameters, errlog: TextIO) -> AsyncIterator[Client]:
    """The official MCP client over stdio; the server process ends when the block does."""
    async with Client(stdio_client(params, errlog=errlog), mode=CLIENT_MODE) as client:  # type: ignore[arg-type]
        yield client


@contextlib.asynccontextmanager
async def running_http_mcp(home: Path, errlog: TextIO) -> AsyncIterator[str]:
    """``vmark mcp --http`` for ``home`` (a free port); yields the URL it prints first, stops it on exit."""
    proc = subprocess.Popen(
        [vmark_exe(), "mcp", "--http"], env={**os.environ, **vmark_env(home)}, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=errlog,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        with anyio.fail_after(APP_START_SECONDS):
            line = await anyio.to_thread.run_sync(proc.stdout.readline)
        if not line.startswith(b"http://127.0.0.1:"):
            raise BenchError(f"vmark mcp --http printed {line!r}, not its URL")
        yield line.decode().strip()
    finally:
        _stop_child(proc)


@contextlib.asynccontextmanager
async def bridge_agent(home: Path) -> AsyncIterator[BridgeClient]:
    """An agent connection straight to the app's bridge (no MCP layer, no output bound)."""
    client = BridgeClient(home, autostart=False)
    await client.connect()
    try:
        yield client
    finally:
        await client.close()


def run_async(fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``anyio.run``, with SIGTERM treated like Ctrl-C so every started process is stopped on the way out."""
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    return anyio.run(fn, *args)


# --- results --------------------------------------------------------------------------------
def tool_data(result: types.CallToolResult, what: str) -> dict[str, Any]:
    """The structured result of a successful call, or :class:`BenchError`."""
    if result.is_error:
        text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
        raise BenchError(f"{what} failed: {text[:300]}")
    if result.structured_content is not None:
        return dict(result.structured_content)
    return {"text": result.content[0].text if result.content else ""}  # type: ignore[union-attr]


def bridge_data(response: dict[str, Any], what: str) -> dict[str, Any]:
    if not response.get("success"):
        raise BenchError(f"{what} failed: {str(response.get('error'))[:300]}")
    return dict(response["data"])


@dataclass(frozen=True)
class Stats:
    median: float
    low: float
    high: float
    n: int

    @classmethod
    def of(cls, samples: Sequence[float]) -> Stats:
        if not samples:
            raise BenchError("no samples")
        return cls(statistics.median(samples), min(samples), max(samples), len(samples))

    def ms(self) -> str:
        return f"{self.median * 1000:.1f} ({self.low * 1000:.1f}–{self.high * 1000:.1f})"

    def as_dict(self) -> dict[str, float | int]:
        return {"median_ms": self.median * 1000, "min_ms": self.low * 1000, "max_ms": self.high * 1000, "n": self.n}


def paired_ratio(a: Sequence[float], b: Sequence[float]) -> float:
    """The median of the pair-by-pair ratios a[i]/b[i]: robust to the machine's speed drifting."""
    return statistics.median(x / y for x, y in zip(a, b, strict=True))


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(headers, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def save_results(name: str, results: dict[str, Any]) -> Path:
    """Keep the figures as JSON in bench/results/ (ignored by git)."""
    out = ROOT / "bench/results"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.json"
    path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", "utf-8")
    return path


def run_and_report(
    name: str, render: Callable[[dict[str, Any]], str], fn: Callable[..., Awaitable[dict[str, Any]]], *args: Any
) -> int:
    """A benchmark's command: run it, then print the machine, its table and where its figures were saved
    (bench/results/NAME.json); a :class:`BenchError` is one line on stderr and exit status 1."""
    try:
        results = run_async(fn, *args)
    except BenchError as exc:
        print(f"bench_{name}: {exc}", file=sys.stderr)
        return 1
    print(results.get("machine") or machine_line())
    print(render(results))
    print(f"figures saved to {save_results(name, results)}")
    return 0


def machine_line() -> str:
    return f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}, temp dir {tempfile.gettempdir()}"


def renderer_trace(raw: bytes) -> tuple[list[dict[str, Any]], set[tuple[int, int]]]:
    """A Chromium trace's events and the (pid, tid) of its renderers' main threads (``CrRendererMain``)."""
    events = json.loads(raw)
    events = events["traceEvents"] if isinstance(events, dict) else events
    main = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"
    }
    return events, main
