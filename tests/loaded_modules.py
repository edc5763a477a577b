"""What a fresh interpreter imports: the import guards of a ``vmark`` process's start (the command line's parser,
the app's server)."""

from __future__ import annotations

import subprocess
import sys


def loaded(code: str) -> list[str]:
    """The modules a fresh interpreter holds after ``code`` (as a ``vmark`` process starts)."""
    code = f"import sys; {code}; print(*sorted(sys.modules))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()


def under(modules: list[str], packages: tuple[str, ...]) -> list[str]:
    """Those of ``modules`` that are one of ``packages`` or inside one."""
    return [m for m in modules if m in packages or m.startswith(tuple(f"{p}." for p in packages))]
