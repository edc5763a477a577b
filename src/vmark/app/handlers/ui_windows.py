"""The person's windows and tabs: attach a page, focus, open, new, close, switch, pin, the editor mode."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.kinds import KINDS
from ...storage.pathscope import PathScope
from ..state import canonical_or_invalid
from .args import tab_of
from .registry import BOOL, STR, TAB, PersonAction, one_of
from .workspace import load_tab, new_untitled

if TYPE_CHECKING:
    from ..context import RequestContext


async def attach(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    window = ctx.windows.attach(ctx.connection, args.get("window"))
    ctx.review.attached(window)
    return {"window": window.label, "windows": ctx.session.describe()}


async def focus(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    window = ctx.windows.page_window(ctx.connection)
    ctx.windows.focus(window, bool(args.get("focused")) and bool(args.get("visible", True)))
    return {"window": window.label, "focused": window.focused}


async def open_file(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    """The person may open any file of a supported kind: the scope binds agents. The window shows it: a file of
    another workspace instance of the window switches to that instance (else its tab would open hidden)."""
    window = ctx.windows.page_window(ctx.connection)
    real = canonical_or_invalid(args["path"])
    tab, _ = await load_tab(ctx, window, PathScope.of([real.rsplit("/", 1)[0] or "/"]), real, activate=True)
    ctx.windows.activate(window, tab)
    ctx.recents.opened("file", real)
    return {"tabId": tab.id}


async def open_folder(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    window = ctx.windows.page_window(ctx.connection)
    folder = canonical_or_invalid(args["path"])
    wsi = ctx.session.open_workspace(window, folder)
    return {"workspaceInstanceId": wsi.id}


async def new(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    kind = args.get("kind", "markdown")
    tab = new_untitled(ctx, ctx.windows.page_window(ctx.connection), kind)
    return {"tabId": tab.id}


async def close(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    window, tab = tab_of(ctx, args)
    if tab.pinned:
        return {"closed": False, "reason": "PINNED"}
    if tab.doc.dirty and not args.get("force"):
        return {"closed": False, "reason": "DIVERGENT" if tab.doc.divergent else "DIRTY"}
    if tab.doc.missing and not args.get("force"):
        return {"closed": False, "reason": "MISSING"}
    ctx.windows.close_tab(window, tab)
    return {"closed": True}


async def switch_tab(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    window, tab = tab_of(ctx, args)
    ctx.turns.abort_window_switch(window.label)
    ctx.windows.activate(window, tab)
    return {"activeTabId": window.active_tab}


async def pin(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    _, tab = tab_of(ctx, args)
    ctx.windows.pin(tab, bool(args.get("pinned", True)))
    return {"pinned": tab.pinned}


async def set_mode(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    _, tab = tab_of(ctx, args)
    mode = args["mode"]
    ctx.windows.set_mode(tab, mode)
    await ctx.modes.toggled(tab.doc, mode)
    return {"mode": mode}


async def state(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    return ctx.page_push.page_state()


ACTIONS = {
    "ui.attach": PersonAction(attach, optional={"window": STR}),
    "ui.focus": PersonAction(focus, optional={"focused": BOOL, "visible": BOOL}),
    "ui.open": PersonAction(open_file, required={"path": STR}),
    "ui.open_folder": PersonAction(open_folder, required={"path": STR}),
    "ui.new": PersonAction(new, optional={"kind": one_of(*KINDS)}),
    "ui.close": PersonAction(close, required=TAB, optional={"force": BOOL}),
    "ui.switch_tab": PersonAction(switch_tab, required=TAB),
    "ui.pin": PersonAction(pin, required=TAB, optional={"pinned": BOOL}),
    "ui.set_mode": PersonAction(set_mode, required={**TAB, "mode": one_of("wysiwyg", "source")}),
    "ui.state": PersonAction(state),
}
