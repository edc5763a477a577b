"""``vmark coherence edges`` on a big tree draws a progress bar on a terminal's stderr, and only there."""

from __future__ import annotations

import asyncio
import os
import pty
import re
from pathlib import Path

from tests.e2e.helpers import Home, cli, vmark_argv

MANY = 300
BAR = re.compile(r"\r\x1b\[2Kreading changed files \[([#-]{30})\] (\d+)/300")


def _grow(root: Path) -> None:
    for n in range(MANY):
        folder = root / "bulk" / f"{n // 50:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"doc{n:04d}.md").write_text(f"# doc {n}\n\nbody {n}\n", "utf-8")


async def _on_a_terminal(env: dict[str, str], *args: str) -> tuple[int, bytes, bytes]:
    """Run with stderr on a pseudo-terminal (stdout a pipe); ``(code, stdout, what the terminal got)``."""
    leader, follower = pty.openpty()
    try:
        proc = await asyncio.create_subprocess_exec(
            *vmark_argv(*args), env=env, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=follower,
        )  # fmt: skip
        os.close(follower)
        follower = -1
        out, _ = await asyncio.wait_for(proc.communicate(), 60)
        terminal = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal's other end closed: everything was read
                break
            if not chunk:
                break
            terminal += chunk
        return proc.returncode or 0, out, terminal
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)


async def test_edges_shows_a_bar_on_a_terminal_only(world: Home) -> None:
    env, ws = world.env(), str(world.workspace)
    assert (await cli(env, "coherence", "init", ws)).code == 0
    _grow(world.workspace)
    code, out, terminal = await _on_a_terminal(env, "coherence", "edges", ws)
    assert (code, out) == (0, b"")  # no open edges: stdout is exactly what it is without a terminal
    draws = BAR.findall(terminal.decode())
    assert draws and draws[-1] == ("#" * 30, str(MANY)), terminal
    counts = [int(n) for _, n in draws]
    assert counts == sorted(set(counts))
    assert terminal.endswith(b"\r\x1b[2K")  # erased when done
    # Not a terminal: nothing but the output (new files again, so there is work to report).
    for n in range(MANY):
        (world.workspace / "bulk" / f"{n // 50:02d}" / f"doc{n:04d}.md").write_text(f"# changed {n}\n", "utf-8")
    piped = await cli(env, "coherence", "edges", ws)
    assert (piped.code, piped.out, piped.err) == (0, "", "")
