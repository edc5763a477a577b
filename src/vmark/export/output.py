"""Where an export goes: a file inside the path scope, never the document itself, never over an existing
file unless the person asked (``--force``, or Replace in the page's dialog), written atomically.

The target is checked before any rendering (a refusal costs nothing) and written through
:mod:`vmark.storage.files`: a temp file beside it (``O_EXCL``, fsync'd), renamed into place without replacing
(:func:`~vmark.storage.files.save_new`) or over the old file (:func:`~vmark.storage.files.save_replace`), the
directory fsync'd, every step through a directory descriptor checked against the scope. A failure leaves no
temp file and no partial target.
"""

from __future__ import annotations

import os

from ..protocol.errors import DomainError
from ..storage.files import SaveError, save_new, save_replace
from ..storage.pathscope import PathScope, ScopeError, canonical


def check_target(target: str, scope: PathScope, *, replace: bool, source: str | None) -> str:
    """The canonical ``target`` when an export may be written there; ``INVALID_PATH`` or
    ``APPROVAL_REQUIRED`` (it exists and ``replace`` is off) otherwise."""
    try:
        real = scope.resolve(target)
    except ScopeError as exc:
        raise exc.refusal(target) from exc
    if source is not None and real == canonical(source):
        raise DomainError(
            "INVALID_PATH", f"{real} is the document itself; an export never writes over it", filePath=real
        )
    if os.path.isdir(real):
        raise DomainError("INVALID_PATH", f"{real} is a folder: name the file to write", filePath=real)
    if os.path.lexists(real) and not replace:
        raise exists(real)
    return real


def exists(real: str) -> DomainError:
    return DomainError(
        "APPROVAL_REQUIRED",
        f"{real} already exists; an export replaces a file only when asked (--force, or Replace)",
        filePath=real,
    )


def write_target(real: str, data: bytes, scope: PathScope, *, replace: bool) -> None:
    try:
        if replace:
            save_replace(real, data, scope)
        else:
            save_new(real, data, scope)
    except FileExistsError as exc:  # it appeared while the export was made
        raise exists(real) from exc
    except ScopeError as exc:
        raise exc.refusal(real) from exc
    except SaveError as exc:
        raise DomainError("INVALID_PATH", str(exc), filePath=real) from exc
