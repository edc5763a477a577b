"""setup.py's build hook: the UI is built when missing or stale, with ``npm ci`` when the install is,
never otherwise, and a clear error when Node.js is missing (issue 19, item 3)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("vmark_setup_hook", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # its setup() runs only as __main__
    return module


hook = _hook()

#: a stand-in npm: records its arguments and working directory; ``run build`` writes a page
FAKE_NPM = """#!/bin/sh
echo "$(pwd) $*" >> "$NPM_LOG"
if [ "$1" = run ]; then mkdir -p ../src/vmark/ui/dist && echo built > ../src/vmark/ui/dist/index.html; fi
exit "${NPM_EXIT:-0}"
"""


def _tree(root: Path, built: bool, installed: bool) -> Path:
    """A checkout: the front end's sources, optionally its install and a build newer than both."""
    front = root / "frontend"
    (front / "src").mkdir(parents=True)
    (front / "src" / "main.ts").write_text("export {};\n")
    for name in hook.SOURCE_FILES:
        (front / name).write_text("{}\n")
    if installed:
        (root / hook.DEPS_STAMP).parent.mkdir(parents=True)
        (root / hook.DEPS_STAMP).touch()
    if built:
        (root / hook.DIST).mkdir(parents=True)
        (root / hook.DIST / "index.html").write_text("old\n")
        (root / hook.BUILD_STAMP).touch()
    _age(root, 100)
    return root


def _age(folder: Path, seconds: float) -> None:
    """Every file under ``folder`` ``seconds`` in the past (so what a test writes next is newer)."""
    then = os.path.getmtime(folder) - seconds
    for path in folder.rglob("*"):
        os.utime(path, (then, then))


@pytest.fixture
def npm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path]:
    exe = tmp_path / "bin" / "npm"
    exe.parent.mkdir()
    exe.write_text(FAKE_NPM)
    exe.chmod(0o755)
    log = tmp_path / "npm.log"
    monkeypatch.setenv("NPM_LOG", str(log))
    return str(exe), log


def _calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def test_a_fresh_build_is_left_alone(tmp_path: Path, npm: tuple[str, Path]) -> None:
    root = _tree(tmp_path / "repo", built=True, installed=True)
    assert hook.ui_is_stale(root) is False
    assert hook.ensure_ui(root, npm[0], log=lambda _: None) is False
    assert _calls(npm[1]) == []
    assert (root / hook.DIST / "index.html").read_text() == "old\n"


def test_a_source_newer_than_the_build_rebuilds_without_reinstalling(tmp_path: Path, npm: tuple[str, Path]) -> None:
    root = _tree(tmp_path / "repo", built=True, installed=True)
    (root / "frontend" / "src" / "main.ts").write_text("export const changed = 1;\n")
    assert hook.ui_is_stale(root) is True
    lines: list[str] = []
    assert hook.ensure_ui(root, npm[0], log=lines.append) is True
    assert _calls(npm[1]) == [f"{root / 'frontend'} run build"]
    assert lines == [f"vmark: npm run build in {root / 'frontend'}"]
    assert (root / hook.DIST / "index.html").read_text() == "built\n"
    assert hook.ui_is_stale(root) is False


def test_a_missing_build_and_install_run_npm_ci_then_the_build(tmp_path: Path, npm: tuple[str, Path]) -> None:
    root = _tree(tmp_path / "repo", built=False, installed=False)
    assert hook.ensure_ui(root, npm[0], log=lambda _: None) is True
    front = root / "frontend"
    assert _calls(npm[1]) == [f"{front} ci --no-audit --no-fund", f"{front} run build"]
    assert (root / hook.DEPS_STAMP).is_file() and (root / hook.BUILD_STAMP).is_file()


def test_a_changed_lockfile_reinstalls(tmp_path: Path, npm: tuple[str, Path]) -> None:
    root = _tree(tmp_path / "repo", built=True, installed=True)
    (root / "frontend" / "package-lock.json").write_text('{"changed": true}\n')
    hook.ensure_ui(root, npm[0], log=lambda _: None)
    front = root / "frontend"
    assert _calls(npm[1]) == [f"{front} ci --no-audit --no-fund", f"{front} run build"]


def test_without_npm_a_stale_build_is_a_clear_error_and_nothing_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _tree(tmp_path / "repo", built=True, installed=True)
    (root / "frontend" / "index.html").write_text("<!doctype html>\n")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(hook.UIBuildError) as caught:
        hook.ensure_ui(root, log=lambda _: None)
    assert str(caught.value) == (
        "building vmark's wheel builds the editor UI in frontend/ (src/vmark/ui/dist is missing or older "
        "than its sources), and that needs Node.js 20.19+ with npm on PATH: install them "
        "(e.g. `sudo apt-get install nodejs npm`) and build again"
    )
    assert (root / hook.DIST / "index.html").read_text() == "old\n"


def test_a_failing_npm_is_an_error_and_leaves_the_build_stale(
    tmp_path: Path, npm: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _tree(tmp_path / "repo", built=True, installed=True)
    (root / "frontend" / "src" / "main.ts").write_text("broken\n")
    monkeypatch.setenv("NPM_EXIT", "3")
    with pytest.raises(hook.UIBuildError) as caught:
        hook.ensure_ui(root, npm[0], log=lambda _: None)
    assert str(caught.value) == f"`npm run build` in {root / 'frontend'} failed (exit 3); see its output above"
    assert hook.ui_is_stale(root) is True


def test_a_built_ui_without_a_front_end_is_used_as_it_is(tmp_path: Path) -> None:
    root = tmp_path / "unpacked"
    (root / hook.DIST).mkdir(parents=True)
    (root / hook.DIST / "index.html").write_text("page\n")
    (root / hook.BUILD_STAMP).touch()
    assert hook.ensure_ui(root, log=lambda _: None) is False


def test_neither_a_build_nor_a_front_end_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(hook.UIBuildError) as caught:
        hook.ensure_ui(tmp_path, log=lambda _: None)
    dist, front = tmp_path / hook.DIST, tmp_path / "frontend"
    assert str(caught.value) == f"{dist} is missing and there is no {front} to build it from"


def test_python_m_build_without_node_stops_with_that_error(tmp_path: Path) -> None:
    """The real build of a checkout whose UI is stale, on a PATH without npm: it fails and says why."""
    repo = tmp_path / "repo"
    shutil.copytree(
        ROOT,
        repo,
        ignore=shutil.ignore_patterns(".venv", "node_modules", ".git", "*.egg-info", "artifacts", "__pycache__"),
        symlinks=True,
    )
    shutil.rmtree(repo / hook.DIST)
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"} | {"PATH": str(Path(sys.executable).parent)}
    assert shutil.which("npm", path=env["PATH"]) is None
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--sdist", "--outdir", str(tmp_path / "out"), str(repo)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1
    assert f"error: {hook.NO_NODE}" in done.stdout + done.stderr
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())
