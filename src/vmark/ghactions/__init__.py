"""GitHub Actions workflow YAML: byte-preserving patches and the actionlint runner.

Public API (a domain package: nothing here imports the app or the MCP server):

- :func:`vmark.ghactions.patch.apply_patches` ``(text, patches) -> str`` applies IRPatch objects
  (``workflow.set``, ``job.set``, ``step.set``, ``with.set``, ``with.remove``, ``needs.add``,
  ``needs.remove``, ``trigger.setFilters``) all or nothing, rewriting only the text of the nodes that
  change; :class:`vmark.ghactions.patch.PatchError` ``(index, reason)`` says which patch could not
  apply and why (``str()`` is ``"patch[2]: unknown job 'build'"``; ``index`` is None for the
  document itself, e.g. text that is not YAML).
- :func:`vmark.ghactions.actionlint.validate` ``(text, *, binary=AUTO, filename=..., cwd=None,
  timeout=20.0)`` runs actionlint on the text and answers a
  :class:`~vmark.ghactions.actionlint.ValidationResult` (``to_dict()`` gives
  ``{ok, diagnostics: [{line, col, message, severity}], binaryAvailable}``);
  :func:`~vmark.ghactions.actionlint.find_actionlint` finds the binary (PATH, then beside
  ``sys.executable``); :class:`~vmark.ghactions.actionlint.ActionlintError` is raised when the
  binary fails or times out.

Inside: :mod:`.yamltree` (positioned trees from ruamel.yaml's parser events), :mod:`.skeleton` and
:mod:`.document` (parse only the entries a patch touches), :mod:`.render` (new values in the
document's style), :mod:`.edit` (the splices).
"""

from __future__ import annotations

from vmark.ghactions.actionlint import (
    ActionlintError,
    Diagnostic,
    ValidationResult,
    find_actionlint,
    validate,
)
from vmark.ghactions.patch import PatchError, apply_patches

__all__ = [
    "ActionlintError",
    "Diagnostic",
    "PatchError",
    "ValidationResult",
    "apply_patches",
    "find_actionlint",
    "validate",
]
