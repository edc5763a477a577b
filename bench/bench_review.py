"""The review of agent changes, the app's side: a one-word ``document.edit`` into a 1 MB document with review
on and off, same run, same file, the rounds interleaved.

A real ``vmark app`` (test hooks on), the official MCP client over stdio -> ``vmark mcp``, and a person's page
(the Python page client over the bridge, attached to ``main``, showing the document). Per call: the agent's
answer (from sending the call), the page's ``doc`` event of the new revision and, with review on, its
``review`` event (each from sending the call, stamped as the page client reads it). Review is switched off
for the peer rounds with the test hook ``test.fault {review: false}``: the agent's edit then makes no pending
changes and no history entry (the ``doc`` event is the same). After each round on, the person accepts the
change (not timed), so every round starts with nothing pending. The page's own work (decorating the
editor) is bench_ui.py's.

``--rewrite N``: instead of the one-word edit, a ``document.write`` of the whole text that changes a word on
N list lines spread over the document (an agent's large rewrite): N pending changes each round.

    .venv/bin/python bench/bench_review.py [--rounds 30] [--size 1000000] [--rewrite 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from typing import Any

from benchlib import (
    FLIP_ANCHOR,
    FLIP_WORDS,
    BenchError,
    bench_dir,
    human_size,
    logs_on_error,
    machine_line,
    markdown_of_size,
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

from vmark.testing.uiclient import UIClient

WARMUP = 3
ANCHOR, WORDS = FLIP_ANCHOR, FLIP_WORDS
EVENT_SECONDS = 30.0


class _StampedEvents(list[dict[str, Any]]):
    """The page client's event list, each event stamped (``perf_counter``) as the client reads it."""

    def append(self, event: dict[str, Any]) -> None:
        event["_at"] = time.perf_counter()
        super().append(event)


async def _event_at(page: UIClient, name: str, revision: str, since: int) -> float:
    deadline = time.perf_counter() + EVENT_SECONDS
    while time.perf_counter() < deadline:
        for event in page.events[since:]:
            if event.get("event") == name and (event.get("payload") or {}).get("revision") == revision:
                return float(event["_at"])
        await asyncio.sleep(0.0005)
    raise BenchError(f"no {name!r} event for {revision} within {EVENT_SECONDS:.0f} s")


def _rewritten(text: str, lines: int, word: str) -> str:
    """``text`` with ``word`` for the first of WORDS on ``lines`` list lines spread evenly over it."""
    all_lines = text.split("\n")
    items = [i for i, line in enumerate(all_lines) if line.startswith("- item ")]
    step = max(1, len(items) // lines)
    for i in items[::step][:lines]:
        all_lines[i] = all_lines[i].replace(WORDS[0], word, 1)
    return "\n".join(all_lines)


class _Round:
    def __init__(self, client: Client, page: UIClient, tab: str, text: str, rewrite: int) -> None:
        self.client, self.page, self.tab, self.flips = client, page, tab, 0
        #: the two texts a rewrite round flips between (``rewrite`` 0: the one-word edit)
        self.rewrite = rewrite
        self.texts = (text, _rewritten(text, rewrite, WORDS[1])) if rewrite else (text, text)

    async def _call(self, revision: str) -> tuple[str, Any]:
        if self.rewrite:
            content = self.texts[(self.flips + 1) % 2]
            args = {"action": "write", "tabId": self.tab, "content": content, "expected_revision": revision}
            return "document.write", await self.client.call_tool("document", args)
        old, new = (ANCHOR.format(word=w) for w in (WORDS[self.flips % 2], WORDS[(self.flips + 1) % 2]))
        edit = {"action": "edit", "tabId": self.tab, "edits": [{"old": old, "new": new}]}
        return "document.edit", await self.client.call_tool("document", edit)

    async def edit(self, review: bool) -> dict[str, float]:
        await self.page.call("test.fault", review=review)
        read = await self.client.call_tool("document", {"action": "read", "tabId": self.tab}) if self.rewrite else None
        revision = tool_data(read, "document.read")["revision"] if read is not None else ""  # not timed
        since = len(self.page.events)
        start = time.perf_counter()
        tool, result = await self._call(revision)
        answered = time.perf_counter()
        self.flips += 1
        revision = tool_data(result, tool)["revision"]
        sample = {"answer": answered - start, "doc": await _event_at(self.page, "doc", revision, since) - start}
        if review:
            shown = await _event_at(self.page, "review", revision, since)
            sample.update(review=shown - start, after_answer=max(0.0, shown - answered))
            listed = await self.page.call("review.list", tabId=self.tab)
            expected = self.rewrite or 1
            olds = {c["old"] for c in listed["changes"]}
            if len(listed["changes"]) != expected or olds != {WORDS[(self.flips + 1) % 2]}:
                raise BenchError(f"expected {expected} pending one-word changes, got {listed['changes'][:3]}...")
            await self.page.call("review.accept", tabId=self.tab, all=True)
        return sample


def _ms(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"{statistics.median(ordered) * 1000:.1f} / {p95 * 1000:.1f}"


def _stats(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"median_ms": statistics.median(ordered) * 1000, "p95_ms": p95 * 1000, "n": len(ordered)}


async def run(rounds: int, size: int, rewrite: int) -> dict[str, Any]:
    os.environ["VMARK_TEST_HOOKS"] = "1"  # the app started below takes ``test.fault`` (review on / off)
    with bench_dir("review") as root:
        home, folder = prepare_home(root / "home"), root / "ws"
        folder.mkdir()
        path = folder / "long.md"
        path.write_text(markdown_of_size(size), "utf-8")
        errlog = (root / "mcp.log").open("w")
        with logs_on_error(home / "app.log", root / "mcp.log"):
            async with (
                running_app(home, folder),
                stdio_client_for(vmark_mcp_params(home), errlog) as client,
                UIClient(home) as page,
            ):
                page.events = _StampedEvents()
                await page.attach("main")
                tab = (await page.call("ui.open", path=str(path)))["tabId"]
                bench = _Round(client, page, tab, path.read_text("utf-8"), rewrite)
                for i in range(WARMUP):
                    await bench.edit(review=i % 2 == 0)
                samples: dict[bool, list[dict[str, float]]] = {True: [], False: []}
                for r in range(rounds):
                    for review in (True, False) if r % 2 == 0 else (False, True):
                        samples[review].append(await bench.edit(review))
        errlog.close()
    on, off = samples[True], samples[False]
    call = f"document.write changing {rewrite} lines" if rewrite else "1-word document.edit"
    return {
        "size": size,
        "rounds": rounds,
        "rewrite": rewrite,
        "review_on": {key: _stats([s[key] for s in on]) for key in ("answer", "doc", "review", "after_answer")},
        "review_off": {key: _stats([s[key] for s in off]) for key in ("answer", "doc")},
        "text": table(
            [f"{call}, ms (median / p95)", "review on", "review off"],
            [
                ["agent's answer", _ms([s["answer"] for s in on]), _ms([s["answer"] for s in off])],
                ["page gets the doc event", _ms([s["doc"] for s in on]), _ms([s["doc"] for s in off])],
                ["page gets the review event", _ms([s["review"] for s in on]), "-"],
                ["  of it after the answer", _ms([s["after_answer"] for s in on]), "-"],
            ],
        ),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--rewrite", type=int, default=0, help="a document.write changing this many lines")
    args = parser.parse_args()
    try:
        results = run_async(run, args.rounds, args.size, args.rewrite)
    except BenchError as exc:
        print(f"bench_review: {exc}", file=sys.stderr)
        return 1
    what = f", rewrites of {args.rewrite} lines" if args.rewrite else ""
    print(f"review of agent changes, {human_size(args.size)} document{what}, {args.rounds} rounds; {machine_line()}")
    print(results.pop("text"))
    print(f"results: {save_results('review', results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
