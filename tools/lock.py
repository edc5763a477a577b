"""Write the two locks from ``pyproject.toml``'s pins: ``requirements.lock`` (what running needs: the
dependencies) and ``requirements-dev.lock`` (that and the ``dev`` extra: testing, linting, building).

Each is the exact set pip installs for those pins into a fresh virtualenv, as ``pip freeze`` prints it
(sorted by name, case-insensitively); pip, setuptools and wheel only when pinned. Versions the locks already
hold are kept (they constrain the resolution), so adding a pin changes only what it brings; ``--upgrade``
resolves everything anew.

    python3 tools/lock.py [--upgrade]       # or: make lock

``--check`` only says whether both locks are what the pins resolve to (it exits 1 when not).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNTIME = ROOT / "requirements.lock"
DEV = ROOT / "requirements-dev.lock"
#: what a fresh virtualenv brings by itself: locked only when a pin names it
BOOTSTRAP = {"pip", "setuptools", "wheel"}


def _name(requirement: str) -> str:
    """The normalized project name of ``name==1.0`` (or ``name[extra]>=1``)."""
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert match is not None, requirement
    return re.sub(r"[-_.]+", "-", match.group()).lower()


def pins() -> tuple[list[str], list[str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    return list(project["dependencies"]), list(project["optional-dependencies"]["dev"])


def resolve(requirements: list[str], constraints: Path | None) -> list[str]:
    """``pip freeze`` of a fresh virtualenv holding ``requirements``."""
    with tempfile.TemporaryDirectory(prefix="vmark-lock-") as scratch:
        venv = Path(scratch) / "venv"
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip"]
        subprocess.run([*pip, "install", "-q", "--upgrade", "pip"], check=True)
        args = ["-c", str(constraints)] if constraints is not None and constraints.exists() else []
        subprocess.run([*pip, "install", "-q", *args, *requirements], check=True)
        frozen = subprocess.run([*pip, "freeze", "--all"], check=True, capture_output=True, text=True).stdout
    wanted = {_name(r) for r in requirements}
    lines = [line for line in frozen.splitlines() if line and not line.startswith("#")]
    return sorted(
        (line for line in lines if _name(line) not in BOOTSTRAP or _name(line) in wanted),
        key=lambda line: line.split("==")[0].lower(),
    )


def _lines(path: Path) -> list[str]:
    return path.read_text("utf-8").splitlines()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--upgrade", action="store_true", help="resolve anew, not constrained by the locks")
    parser.add_argument("--check", action="store_true", help="only check that the locks are up to date")
    options = parser.parse_args()
    runtime, dev = pins()
    keep = None if options.upgrade else DEV if DEV.exists() else RUNTIME  # (one lock held both before)
    locks = {RUNTIME: resolve(runtime, keep), DEV: resolve(runtime + dev, keep)}
    stale = [path for path, lines in locks.items() if not path.exists() or _lines(path) != lines]
    if options.check:
        for path in stale:
            print(f"{path.name} is not what pyproject.toml's pins resolve to: run `make lock`", file=sys.stderr)
        return 1 if stale else 0
    for path, lines in locks.items():
        path.write_text("\n".join(lines) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
