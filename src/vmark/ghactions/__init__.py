"""GitHub Actions workflow YAML: byte-preserving patches (:mod:`.patch`) and the actionlint runner (:mod:`.actionlint`).

A domain package: it imports nothing from the app or the MCP server.
"""

from __future__ import annotations

from vmark.ghactions.patch import PatchError, apply_patches

__all__ = ["PatchError", "apply_patches"]
