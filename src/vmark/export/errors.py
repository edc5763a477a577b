"""The one shape of an export that could not be made: ``EXPORT_FAILED`` with a ``reason``.

Reasons: ``chromium_missing``, ``chromium_failed``, ``pandoc_missing``, ``pandoc_failed``, ``render_failed``,
``timeout``. A target the scope refuses is ``INVALID_PATH`` and an existing one ``APPROVAL_REQUIRED``, as for
Save as (:mod:`.output`). Whatever failed, nothing was written.
"""

from __future__ import annotations

from ..protocol.errors import DomainError


def failed(reason: str, message: str) -> DomainError:
    return DomainError("EXPORT_FAILED", message, reason=reason)
