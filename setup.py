"""The wheel's build hook: the editor UI (``frontend/``, Vite) is built into ``src/vmark/ui/dist``.

Everything else about the package is in ``pyproject.toml``. ``python -m build`` first makes the
sdist (the front end's sources, its lockfile and, once built, the UI itself), then the wheel from
it; both steps build the UI first when ``src/vmark/ui/dist`` is missing or older than a front-end
source, with ``npm ci`` when ``node_modules`` is missing or older than the lockfile, exactly as
``make setup`` does (the same stamp files). So the wheel always carries a fresh UI and needs
Python alone where it is installed, and an sdist that already carries a fresh UI builds its
wheel without Node.js. An editable install (``make setup``) leaves the UI to the Makefile.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent
FRONTEND = "frontend"
DIST = Path("src", "vmark", "ui", "dist")
#: the Makefile's stamps: the last ``npm ci`` and the last ``npm run build``
DEPS_STAMP = Path(FRONTEND, "node_modules", ".vmark-ci-stamp")
BUILD_STAMP = DIST / ".vmark-build-stamp"
#: what a build depends on (the Makefile's UI_SOURCES, plus the install)
SOURCE_FILES = (
    "index.html",
    "mermaid.html",
    "export.html",
    "vite.config.ts",
    "tsconfig.json",
    "package.json",
    "package-lock.json",
)
LOCK_FILES = ("package.json", "package-lock.json")
NO_NODE = (
    "building vmark's wheel builds the editor UI in frontend/ (src/vmark/ui/dist is missing or older "
    "than its sources), and that needs Node.js 20.19+ with npm on PATH: install them "
    "(e.g. `sudo apt-get install nodejs npm`) and build again"
)


class UIBuildError(RuntimeError):
    """The UI could not be built (no front end to build from, no npm, or npm failed)."""


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return 0.0


def _newest(paths: list[Path]) -> float:
    return max((_mtime(p) for p in paths), default=0.0)


def _sources(root: Path) -> list[Path]:
    frontend = root / FRONTEND
    found = [p for p in (frontend / "src").rglob("*") if p.is_file()]
    return found + [frontend / name for name in SOURCE_FILES]


def ui_is_stale(root: Path) -> bool:
    """Whether the built UI under ``root`` is missing, or older than a front-end source."""
    stamp = root / BUILD_STAMP
    if not stamp.is_file() or not (root / DIST / "index.html").is_file():
        return True
    if not (root / FRONTEND / "package.json").is_file():
        return False  # a tree with the built UI and no front end: nothing it could be older than
    return _newest(_sources(root)) > _mtime(stamp)


def ensure_ui(root: Path, npm: str | None = None, log: Callable[[str], None] = print) -> bool:
    """Build the UI under ``root`` when it is stale; whether a build ran. ``npm``: the executable
    (default: ``npm`` on ``PATH``). Raises :class:`UIBuildError` when it is needed and cannot be done."""
    if not ui_is_stale(root):
        return False
    frontend = root / FRONTEND
    if not (frontend / "package.json").is_file():
        raise UIBuildError(f"{root / DIST} is missing and there is no {frontend} to build it from")
    exe = npm or shutil.which("npm")
    if exe is None:
        raise UIBuildError(NO_NODE)
    deps = root / DEPS_STAMP
    if _newest([frontend / name for name in LOCK_FILES]) > _mtime(deps):
        _npm(exe, ["ci", "--no-audit", "--no-fund"], frontend, log)
        _touch(deps)
    _npm(exe, ["run", "build"], frontend, log)
    _touch(root / BUILD_STAMP)
    return True


def _touch(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()


def _npm(exe: str, args: list[str], cwd: Path, log: Callable[[str], None]) -> None:
    log(f"vmark: npm {' '.join(args)} in {cwd}")
    try:
        done = subprocess.run([exe, *args], cwd=cwd, env=os.environ.copy(), check=False)
    except OSError as exc:
        raise UIBuildError(f"could not run {exe}: {exc}; {NO_NODE}") from exc
    if done.returncode != 0:
        raise UIBuildError(f"`npm {' '.join(args)}` in {cwd} failed (exit {done.returncode}); see its output above")


def _commands() -> dict[str, type]:
    from setuptools.command.build_py import build_py
    from setuptools.command.sdist import sdist

    class BuildPyWithUI(build_py):
        """The package's files, after the UI they carry is built (not for an editable install)."""

        def run(self) -> None:
            if not getattr(self, "editable_mode", False):
                ensure_ui(ROOT)
            super().run()

    class SdistWithUI(sdist):
        """The sdist, after the UI is built, so that it carries it (and its wheel needs no Node.js)."""

        def run(self) -> None:
            ensure_ui(ROOT)
            super().run()

    return {"build_py": BuildPyWithUI, "sdist": SdistWithUI}


if __name__ == "__main__":
    from setuptools import setup

    try:
        setup(cmdclass=_commands())
    except UIBuildError as exc:
        raise SystemExit(f"error: {exc}") from None
