"""The official MCP conformance suite's server scenarios against a real app and ``vmark mcp --http``.

The suite is pinned twice in package.json (with the Node.js 22 it needs; ``make setup`` runs ``npm ci`` here):
the 0.1 line for the 2025-11-25 protocol, and the 0.2 line (``conformance-next``) run with ``--requirements
2026-07-28``, exactly the scenarios that revision requires. Each drives the server at a URL, given with the
token in it (``?token=``): the form for clients that only take a URL. ``expected-failures.yml`` and
``expected-failures-2026-07-28.yml`` list, each with its reason, the scenarios that call a fixture of the
suite's reference server that vmark does not have; the suite itself exits non-zero when one of them passes or
another scenario fails, and so does this test.
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
#: the 0.2 line of the suite, and what it requires of the 2026-07-28 revision
SUITE_NEXT = HERE / "node_modules" / "conformance-next" / "dist" / "index.js"
EXPECTED_FAILURES_NEXT = HERE / "expected-failures-2026-07-28.yml"
RUN_TIMEOUT = 300.0
#: the suite's result directory of a scenario: ``server-NAME-2026-12-01T18-51-41-536Z``
_SCENARIO_DIR = re.compile(r"server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z")
#: the active server scenarios of the pinned suite that vmark passes (every one not expected to fail)
PASSING = {
    "server-initialize", "ping", "tools-list", "tools-call-simple-text", "tools-call-error",
    "server-sse-multiple-streams", "dns-rebinding-protection", "resources-list", "prompts-list",
}  # fmt: skip
#: ... and of the 2026-07-28 requirements
PASSING_NEXT = {
    "tools-list", "tools-call-simple-text", "tools-call-error", "server-sse-multiple-streams", "resources-list",
    "sep-2164-resource-not-found", "prompts-list", "dns-rebinding-protection", "caching",
    "input-required-result-unsupported-methods", "input-required-result-ignore-extra-params",
    "tasks-status-notifications",
}  # fmt: skip


def _expected_failures(path: Path) -> list[str]:
    return [line.strip()[2:] for line in path.read_text("utf-8").splitlines() if line.startswith("  - ")]


async def _run(suite: Path, url: str, expected: Path, out: Path, *args: str) -> tuple[set[str], set[str], str]:
    """Run ``suite``'s server scenarios; the scenarios that failed and passed (as the suite's own baseline
    counts them: failed are those with a check that failed or only warned), and its report."""
    assert NODE.exists() and suite.exists(), "run `make setup` (npm ci in tests/conformance)"
    proc = await asyncio.create_subprocess_exec(
        str(NODE), str(suite), "server", "--url", url, *args, "--expected-failures", str(expected), "-o", str(out),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    stdout, _ = await asyncio.wait_for(proc.communicate(), RUN_TIMEOUT)
    report = stdout.decode("utf-8", "replace")
    assert proc.returncode == 0, report
    failed, passed = set(), set()
    for checks in out.glob("server-*/checks.json"):
        scenario = _SCENARIO_DIR.fullmatch(checks.parent.name).group(1)  # type: ignore[union-attr]
        statuses = {c["status"] for c in json.loads(checks.read_text("utf-8"))}
        (failed if statuses & {"FAILURE", "WARNING"} else passed).add(scenario)
    return failed, passed, report


async def test_server_scenarios(http_url: str, alice: str, vmark: RunningApp, tmp_path: Path) -> None:
    url = with_token(http_url, alice)
    failed, passed, report = await _run(SUITE, url, EXPECTED_FAILURES, tmp_path / "results")
    assert sorted(failed) == sorted(_expected_failures(EXPECTED_FAILURES)), report
    assert passed == PASSING, report


async def test_server_scenarios_of_2026_07_28(http_url: str, alice: str, vmark: RunningApp, tmp_path: Path) -> None:
    url = with_token(http_url, alice)
    args = ("--requirements", "2026-07-28")
    failed, passed, report = await _run(SUITE_NEXT, url, EXPECTED_FAILURES_NEXT, tmp_path / "results", *args)
    assert sorted(failed) == sorted(_expected_failures(EXPECTED_FAILURES_NEXT)), report
    assert passed == PASSING_NEXT, report
