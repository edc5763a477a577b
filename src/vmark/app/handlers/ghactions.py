"""``workflow``: byte-preserving patches and actionlint for GitHub Actions workflow tabs.

The workflow engine (:mod:`vmark.ghactions`: the YAML tree, the patcher, actionlint's runner) is imported by the
first workflow request, not as the app starts.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ...core.model import Tab
from ...protocol import results
from ...protocol.errors import DomainError
from ...protocol.jsontypes import JSONObject
from ...protocol.tools import holds_lone_surrogate
from ..writes import WriteRequest

if TYPE_CHECKING:
    from ..context import RequestContext


def _workflow_tab(ctx: RequestContext, args: JSONObject) -> tuple[Any, Tab]:
    window, tab = ctx.session.resolve_tab(args.get("tabId"))
    if tab.doc.kind != "yaml-workflow":
        raise DomainError("NOT_WORKFLOW", f"Tab {tab.id} is a {tab.doc.kind} document, not a YAML workflow")
    return window, tab


def _patched(patches: list[Any]) -> Any:
    from ...ghactions.patch import PatchError, apply_patches

    def edit(text: str) -> str:
        try:
            return apply_patches(text, patches)
        except PatchError as exc:
            raise DomainError("INVALID_PATCH", str(exc), index=exc.index) from exc

    return edit


def _check_patch_text(patches: list[Any]) -> None:
    """``INVALID_TEXT`` before anything else when a patch holds a lone surrogate anywhere (nothing changes)."""
    for index, patch in enumerate(patches):
        if holds_lone_surrogate(patch):
            raise DomainError("INVALID_TEXT", f"patch[{index}] contains a lone UTF-16 surrogate", index=index)


async def apply_patch(ctx: RequestContext, args: JSONObject) -> results.Written:
    window, tab = _workflow_tab(ctx, args)
    _check_patch_text(args["patches"])
    request = WriteRequest(
        tool="workflow.apply_patch",
        edit=_patched(args["patches"]),
        expected_revision=args.get("expected_revision"),
        addresses=tuple(args.get("addresses", ())),
        implicit_tab=args.get("tabId") is None,
        skip_unchanged=True,
    )
    return await ctx.writer.write(ctx.connection, window, tab, request)


async def validate(ctx: RequestContext, args: JSONObject) -> results.Validated:
    from ...ghactions.actionlint import validate as actionlint

    window, tab = _workflow_tab(ctx, args)
    path = tab.doc.path
    if path is None:
        result = await actionlint(tab.doc.state.text)
    else:
        # Named inside its repository, actionlint also checks local actions and reusable workflows.
        instance = ctx.session.workspace_for(window, path)
        root = instance.root if instance is not None else os.path.dirname(path)
        result = await actionlint(tab.doc.state.text, filename=os.path.relpath(path, root), cwd=root)
    return result.to_dict()


ACTIONS = {"apply_patch": apply_patch, "validate": validate}
