"""``document``: read and write whole documents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..service import RequestContext


async def read(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    _window, tab = ctx.app.session.resolve_tab(args.get("tabId"))
    doc = tab.doc
    tab.basis_seq = doc.write_seq
    return {
        "content": doc.state.text,
        "revision": doc.state.revision,
        "filePath": doc.path,
        "kind": doc.kind,
        "dirty": doc.dirty,
    }


async def write(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    tab_id = args.get("tabId")
    window, tab = ctx.app.session.resolve_tab(tab_id)
    return await ctx.app.writer.write(
        ctx,
        window,
        tab,
        args["content"],
        tool="document.write",
        expected_revision=args.get("expected_revision"),
        addresses=args.get("addresses"),
        save=args.get("save", True),
        implicit_tab=tab_id is None,
    )


ACTIONS = {"read": read, "write": write}
