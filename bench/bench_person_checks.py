"""What the strict checks of the person's protocol cost, against a small request's whole round trip.

The app runs in this process (``RunningApp``, as the tests start it); one person page (the tests' UI client,
the person's side of the protocol over the bridge's WebSocket) opens a small document and sends three small
requests in turn: ``ui.selection``, a one-character ``ui.edit`` as spans, and ``ui.state``. The bench times
each request's round trip, then, in this process, the two strict checks on the same payload and answer:
the payload against its ``wire_types`` ``TypedDict`` (:func:`vmark.protocol.requests.payload_problem`, which
the app runs on every person request) and the answer against its declared result
(:func:`vmark.protocol.wirecheck.result_problems`, which the app runs only under test hooks). It prints each
check's cost as a share of the round trip.

    .venv/bin/python bench/bench_person_checks.py [--calls 300]

Nothing here asserts: the numbers are for deciding where a check runs (under ~5% of a small request: always).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from vmark.app.handlers import person
from vmark.app.server import RunningApp
from vmark.protocol.requests import payload_problem
from vmark.protocol.wirecheck import result_problems
from vmark.storage.settings import Settings
from vmark.testing.uiclient import UIClient

#: in-process repetitions of a check per measured request (a check takes microseconds)
CHECK_REPEAT = 2000


def _per_call(fn: Any, repeat: int = CHECK_REPEAT) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


async def run(calls: int) -> dict[str, tuple[float, float, float]]:
    """request kind -> (round trip, payload check, answer check), seconds per request."""
    timings: dict[str, list[float]] = {}
    samples: dict[str, tuple[dict[str, Any], Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        root.mkdir()
        (root / "a.md").write_text("# a\n\ntext\n", "utf-8")
        data = Path(tmp) / "data"
        data.mkdir()
        settings = Settings(data / "settings.json")
        settings.set("readable_roots", [tmp])
        settings.set("editor.default_mode", "source")
        app = RunningApp(data)
        await app.start()
        try:
            async with UIClient(data) as page:
                await page.attach("main")
                await page.call("ui.open_folder", path=str(root))
                opened = await page.call("ui.open", path=str(root / "a.md"))
                tab = opened["tabId"]
                revision = (await page.call("ui.read", tabId=tab))["revision"]
                for n in range(calls):
                    requests: list[tuple[str, dict[str, Any]]] = [
                        ("ui.selection", {"tabId": tab, "from": 0, "to": 1 + n % 2}),
                        ("ui.edit", {"tabId": tab, "baseRevision": revision, "changes": [[0, 0, "x"]]}),
                        ("ui.state", {}),
                    ]
                    for kind, payload in requests:
                        start = time.perf_counter()
                        answer = await page.call(kind, **payload)
                        timings.setdefault(kind, []).append(time.perf_counter() - start)
                        samples[kind] = (payload, answer)
                        if kind == "ui.edit":
                            revision = answer["revision"]
        finally:
            await app.stop()
    out: dict[str, tuple[float, float, float]] = {}
    for kind, (payload, answer) in samples.items():
        own = person.ACTIONS[kind].own
        if payload_problem(kind, payload, own) is not None or result_problems(kind, answer):
            raise SystemExit(f"{kind}: the sample does not conform")
        trip = sorted(timings[kind])[len(timings[kind]) // 2]
        out[kind] = (
            trip,
            _per_call(lambda k=kind, p=payload, o=own: payload_problem(k, p, o)),
            _per_call(lambda k=kind, a=answer: result_problems(k, a)),
        )
    return out


def _report(results: dict[str, tuple[float, float, float]], calls: int) -> None:
    print(f"person requests over the bridge, median of {calls} round trips; checks timed in process")
    print(f"  {'request':14} {'round trip':>11} {'payload check':>14} {'share':>7} {'answer check':>13} {'share':>7}")
    for kind, (trip, request, answer) in results.items():
        print(
            f"  {kind:14} {trip * 1e6:9.0f}us {request * 1e6:12.1f}us {request / trip:7.2%}"
            f" {answer * 1e6:11.1f}us {answer / trip:7.2%}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=300)
    calls = parser.parse_args().calls
    _report(asyncio.run(run(calls)), calls)
    return 0


if __name__ == "__main__":
    sys.exit(main())
