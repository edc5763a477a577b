"""document.edit against document.write of the same one-word change on a 1 MB document, same run, same file.

The agent is the official MCP client over stdio -> ``vmark mcp`` -> the bridge -> a real ``vmark app``
(journaled, applied, saved, snapshotted, as an agent's call is). Each round makes one change twice over:
``edit`` sends ``{old, new}`` (a word and enough text around it to be unique), ``write`` sends the whole
text with that word changed; the word flips back and forth so every call changes the document. The
order alternates every round. "sent" is the JSON-RPC line the client writes (UTF-8 bytes), "answer"
the tool result's text.

    .venv/bin/python bench/bench_edit.py [--rounds 30] [--size 1000000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import mcp_types as types
from benchlib import (
    FLIP_ANCHOR,
    FLIP_WORDS,
    BenchError,
    bench_dir,
    human_size,
    logs_on_error,
    machine_line,
    markdown_of_size,
    paired_ratio,
    prepare_home,
    run_async,
    running_app,
    save_results,
    stdio_client_for,
    table,
    tool_data,
    vmark_mcp_params,
)
from mcp import Client

WARMUP = 3
ANCHOR, WORDS = FLIP_ANCHOR, FLIP_WORDS


def _sent_bytes(arguments: dict[str, Any]) -> int:
    """The line the client writes for this call (as the SDK serializes a request)."""
    request = types.JSONRPCRequest(
        jsonrpc="2.0", id=1, method="tools/call", params={"name": "document", "arguments": arguments}
    )
    return len(request.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8")) + 1


class _Doc:
    """The agent's copy of the text and revision (what it read, then what it wrote)."""

    def __init__(self, text: str, revision: str) -> None:
        self.text, self.revision, self.flips = text, revision, 0

    def next_change(self) -> tuple[str, str]:
        old, new = (ANCHOR.format(word=w) for w in (WORDS[self.flips % 2], WORDS[(self.flips + 1) % 2]))
        self.flips += 1
        if self.text.count(old) != 1:
            raise BenchError(f"the anchor {old!r} is not unique in the document")
        return old, new


async def _timed(client: Client, arguments: dict[str, Any]) -> tuple[float, dict[str, Any], int]:
    start = time.perf_counter()
    result = await client.call_tool("document", arguments)
    elapsed = time.perf_counter() - start
    data = tool_data(result, f"document.{arguments['action']}")
    if not (data.get("applied") and data.get("saved") and data.get("journaled") == "yes"):
        raise BenchError(f"document.{arguments['action']} was not applied, saved and journaled: {data}")
    return elapsed, data, len(result.content[0].text.encode("utf-8"))  # type: ignore[union-attr]


def _ops(client: Client, tab: str, doc: _Doc) -> dict[str, Callable[[], Awaitable[tuple[float, int, int]]]]:
    async def edit() -> tuple[float, int, int]:
        old, new = doc.next_change()
        arguments = {
            "action": "edit",
            "tabId": tab,
            "edits": [{"old": old, "new": new}],
            "expected_revision": doc.revision,
        }
        elapsed, data, answer = await _timed(client, arguments)
        doc.text, doc.revision = doc.text.replace(old, new), data["revision"]
        return elapsed, _sent_bytes(arguments), answer

    async def write() -> tuple[float, int, int]:
        old, new = doc.next_change()
        content = doc.text.replace(old, new)
        arguments = {"action": "write", "tabId": tab, "content": content, "expected_revision": doc.revision}
        elapsed, data, answer = await _timed(client, arguments)
        doc.text, doc.revision = content, data["revision"]
        return elapsed, _sent_bytes(arguments), answer

    return {"edit": edit, "write": write}


async def run(rounds: int, size: int) -> dict[str, Any]:
    with bench_dir("edit") as root:
        home, folder = prepare_home(root / "home"), root / "ws"
        folder.mkdir()
        path = folder / "long.md"
        path.write_text(markdown_of_size(size), "utf-8")
        errlog = (root / "mcp.log").open("w")
        with logs_on_error(home / "app.log", root / "mcp.log"):
            async with running_app(home, folder), stdio_client_for(vmark_mcp_params(home), errlog) as client:
                opened = tool_data(
                    await client.call_tool("workspace", {"action": "open", "filePath": str(path)}), "open"
                )
                tab = opened["tabId"]
                doc = _Doc(path.read_text("utf-8"), await _revision(client, tab))
                ops = _ops(client, tab, doc)
                for _ in range(WARMUP):
                    for op in ops.values():
                        await op()
                samples: dict[str, list[tuple[float, int, int]]] = {name: [] for name in ops}
                for r in range(rounds):
                    for name in list(ops) if r % 2 == 0 else list(ops)[::-1]:
                        samples[name].append(await ops[name]())
                if path.read_text("utf-8") != doc.text:
                    raise BenchError("the file on disk is not the text the agent wrote")
        errlog.close()
    return _report(samples, rounds, size)


async def _revision(client: Client, tab: str) -> str:
    return str(tool_data(await client.call_tool("document", {"action": "read", "tabId": tab}), "read")["revision"])


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]


def _report(samples: dict[str, list[tuple[float, int, int]]], rounds: int, size: int) -> dict[str, Any]:
    figures: dict[str, dict[str, float]] = {}
    for name, rows in samples.items():
        times = [t for t, _, _ in rows]
        figures[name] = {
            "sent_bytes": statistics.median(b for _, b, _ in rows),
            "answer_bytes": statistics.median(a for _, _, a in rows),
            "median_ms": statistics.median(times) * 1000,
            "p95_ms": _p95(times) * 1000,
        }
    edit, write = figures["edit"], figures["write"]
    ratios = {
        "sent_write_over_edit": write["sent_bytes"] / edit["sent_bytes"],
        "latency_write_over_edit": paired_ratio(*([t for t, _, _ in samples[n]] for n in ("write", "edit"))),
        "p95_write_over_edit": write["p95_ms"] / edit["p95_ms"],
    }
    rows = [
        [
            f"document.{name}",
            f"{f['sent_bytes']:,.0f}",
            f"{f['answer_bytes']:,.0f}",
            f"{f['median_ms']:.1f}",
            f"{f['p95_ms']:.1f}",
        ]
        for name, f in figures.items()
    ]
    rows.append(
        [
            "write / edit",
            f"{ratios['sent_write_over_edit']:,.0f}x",
            "",
            f"{ratios['latency_write_over_edit']:.1f}x",
            f"{ratios['p95_write_over_edit']:.1f}x",
        ]
    )
    print(machine_line())
    print(f"one-word change to a {human_size(size)} document, {rounds} rounds each (after {WARMUP} warm-up rounds)")
    print(table(["call", "sent B", "answer B", "median ms", "p95 ms"], rows))
    return {"machine": machine_line(), "size": size, "rounds": rounds, **figures, "ratios": ratios}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--size", type=int, default=1_000_000)
    args = parser.parse_args()
    results = run_async(run, args.rounds, args.size)
    path = save_results("edit", results)
    print(f"figures: {path.relative_to(Path(__file__).resolve().parents[1])}")
    print(json.dumps(results["ratios"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
