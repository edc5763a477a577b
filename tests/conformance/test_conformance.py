"""The official MCP conformance suite's server scenarios against a real app and ``vmark mcp --http``.

The suite (pinned in package.json, with the Node.js 22 it needs; ``make setup`` runs ``npm ci`` here)
drives the server at a URL, given with the token in it (``?token=``): the form for clients that only
take a URL. ``expected-failures.yml`` lists, each with its reason, the scenarios of features vmark does
not offer; the suite itself exits non-zero when one of them passes or another scenario fails.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from tests.http.helpers import with_token
from vmark.app.server import RunningApp

HERE = Path(__file__).parent
NODE = HERE / "node_modules" / ".bin" / "node"
SUITE = HERE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
EXPECTED_FAILURES = HERE / "expected-failures.yml"
RUN_TIMEOUT = 300.0
#: the suite's result directory of a scenario: ``server-NAME-2026-12-01T18-51-41-536Z``
_SCENARIO_DIR = re.compile(r"server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z")
#: the active server scenarios of the pinned suite that vmark passes (every one not expected to fail)
PASSING = {
    "server-initialize", "ping", "tools-list", "tools-call-simple-text", "tools-call-error",
    "server-sse-multiple-streams", "dns-rebinding-protection",
}  # fmt: skip


def _expected_failures() -> list[str]:
    return [line.strip()[2:] for line in EXPECTED_FAILURES.read_text("utf-8").splitlines() if line.startswith("  - ")]


async def test_server_scenarios(http_url: str, alice: str, vmark: RunningApp, tmp_path: Path) -> None:
    assert NODE.exists() and SUITE.exists(), "run `make setup` (npm ci in tests/conformance)"
    out = tmp_path / "results"
    proc = await asyncio.create_subprocess_exec(
        str(NODE), str(SUITE), "server", "--url", with_token(http_url, alice),
        "--expected-failures", str(EXPECTED_FAILURES), "-o", str(out),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    stdout, _ = await asyncio.wait_for(proc.communicate(), RUN_TIMEOUT)
    report = stdout.decode("utf-8", "replace")
    assert proc.returncode == 0, report
    failed, passed = set(), set()
    for checks in out.glob("server-*/checks.json"):
        scenario = _SCENARIO_DIR.fullmatch(checks.parent.name).group(1)  # type: ignore[union-attr]
        statuses = {c["status"] for c in json.loads(checks.read_text("utf-8"))}
        (failed if "FAILURE" in statuses else passed).add(scenario)
    assert sorted(failed) == sorted(_expected_failures()), report
    assert passed == PASSING, report
