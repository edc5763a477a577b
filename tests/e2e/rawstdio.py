"""A plain newline-JSON MCP client of the real ``vmark mcp``: bytes in, lines out, as a foreign client sends them.

The official SDK client cannot send what a JavaScript client sends (it refuses a lone surrogate before
it writes); this one writes any bytes and reads every line back, each wait bounded.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import queue
import re
import subprocess
import threading
from pathlib import Path
from typing import IO, Any

from tests.e2e.helpers import Home, vmark_script

PROTOCOL = "2025-06-18"
ANSWER_SECONDS = 30.0
_LONE = re.compile("[\ud800-\udfff]")


def js_json(value: Any) -> bytes:
    """``value`` as JavaScript's ``JSON.stringify`` writes it: compact UTF-8, a lone surrogate as ``\\udXXX``."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return _LONE.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode("utf-8")


class RawStdio:
    """``vmark mcp`` as a child process with its stdin and stdout as pipes."""

    def __init__(self, world: Home, stderr: IO[bytes] | None = None) -> None:
        command, prefix = vmark_script()
        env = {**world.env()}
        self.proc = subprocess.Popen(
            [command, *prefix, "mcp"],
            env=env,
            cwd=str(world.root),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr if stderr is not None else subprocess.DEVNULL,
        )
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._ids = itertools.count(1)
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line.rstrip(b"\n"))
        self._lines.put(None)

    # --- bytes ---------------------------------------------------------------------------
    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = ANSWER_SECONDS) -> bytes:
        """The next line the server writes."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"vmark mcp wrote no line within {timeout} s") from None
        if line is None:
            raise AssertionError(f"vmark mcp closed its stdout (exit code {self.proc.poll()})")
        return line

    def exchange(self, line: bytes, timeout: float = ANSWER_SECONDS) -> bytes:
        """Send one line and return the one line that answers it."""
        self.send(line)
        return self.receive(timeout)

    # --- messages ------------------------------------------------------------------------
    def request(self, method: str, params: Any = None, timeout: float = ANSWER_SECONDS) -> dict[str, Any]:
        """A request with a fresh id; the answer to that id (lines for other ids are not expected)."""
        request_id = next(self._ids)
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        answer = json.loads(self.exchange(js_json(message), timeout))
        assert answer.get("id") == request_id, answer
        return dict(answer)

    def call(self, tool: str, arguments: Any, timeout: float = ANSWER_SECONDS) -> dict[str, Any]:
        """``tools/call``: the ``result`` (a tool result), or the JSON-RPC error as ``{"rpcError": ...}``."""
        answer = self.request("tools/call", {"name": tool, "arguments": arguments}, timeout)
        if "error" in answer:
            return {"rpcError": answer["error"]}
        return dict(answer["result"])

    def handshake(self) -> dict[str, Any]:
        init = self.request(
            "initialize",
            {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
        )
        self.send(js_json({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        return dict(init["result"])

    def close(self) -> int:
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        try:
            return self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(10)


def result_text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


def snapshot_tree(root: Path) -> dict[str, bytes | None]:
    """Every file and directory under ``root`` with its bytes (None for a directory)."""
    out: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        out[str(path.relative_to(root))] = None if path.is_dir() else path.read_bytes()
    return out
