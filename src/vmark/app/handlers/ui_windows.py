"""The person's windows and tabs: attach a page, focus, open, new, close, switch, pin, the editor mode."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...protocol import wire_types as wire
from ...protocol.jsontypes import JSONObject
from ...storage.pathscope import PathScope
from ..state import canonical_or_invalid
from .args import tab_of
from .registry import PersonAction
from .workspace import load_tab, new_untitled

if TYPE_CHECKING:
    from ..context import RequestContext


async def attach(ctx: RequestContext, args: JSONObject) -> wire.AttachResult:
    window = ctx.windows.attach(ctx.connection, args.get("window"))
    ctx.review.attached(window)
    return {"window": window.label, "windows": ctx.session.describe()}


async def focus(ctx: RequestContext, args: JSONObject) -> wire.FocusResult:
    window = ctx.windows.page_window(ctx.connection)
    ctx.windows.focus(window, bool(args.get("focused")) and bool(args.get("visible", True)))
    return {"window": window.label, "focused": window.focused}


async def open_file(ctx: RequestContext, args: JSONObject) -> wire.TabResult:
    """The person may open any file of a supported kind: the scope binds agents. The window shows it: a file of
    another workspace instance of the window switches to that instance (else its tab would open hidden)."""
    window = ctx.windows.page_window(ctx.connection)
    real = canonical_or_invalid(args["path"])
    tab, _ = await load_tab(ctx, window, PathScope.of([real.rsplit("/", 1)[0] or "/"]), real, activate=True)
    ctx.windows.activate(window, tab)
    ctx.recents.opened("file", real)
    return {"tabId": tab.id}


async def open_folder(ctx: RequestContext, args: JSONObject) -> wire.WorkspaceResult:
    window = ctx.windows.page_window(ctx.connection)
    folder = canonical_or_invalid(args["path"])
    wsi = ctx.session.open_workspace(window, folder)
    return {"workspaceInstanceId": wsi.id}


async def new(ctx: RequestContext, args: JSONObject) -> wire.TabResult:
    kind = args.get("kind", "markdown")
    tab = new_untitled(ctx, ctx.windows.page_window(ctx.connection), kind)
    return {"tabId": tab.id}


async def close(ctx: RequestContext, args: JSONObject) -> wire.CloseResult:
    window, tab = tab_of(ctx, args)
    if tab.pinned:
        return {"closed": False, "reason": "PINNED"}
    if tab.doc.dirty and not args.get("force"):
        return {"closed": False, "reason": "DIVERGENT" if tab.doc.divergent else "DIRTY"}
    if tab.doc.missing and not args.get("force"):
        return {"closed": False, "reason": "MISSING"}
    ctx.windows.close_tab(window, tab)
    return {"closed": True}


async def switch_tab(ctx: RequestContext, args: JSONObject) -> wire.SwitchResult:
    window, tab = tab_of(ctx, args)
    ctx.turns.abort_window_switch(window.label)
    ctx.windows.activate(window, tab)
    return {"activeTabId": window.active_tab}


async def pin(ctx: RequestContext, args: JSONObject) -> wire.PinResult:
    _, tab = tab_of(ctx, args)
    ctx.windows.pin(tab, bool(args.get("pinned", True)))
    return {"pinned": tab.pinned}


async def set_mode(ctx: RequestContext, args: JSONObject) -> wire.ModeResult:
    _, tab = tab_of(ctx, args)
    mode = args["mode"]
    ctx.windows.set_mode(tab, mode)
    await ctx.modes.toggled(tab.doc, mode)
    return {"mode": mode}


async def state(ctx: RequestContext, args: JSONObject) -> wire.PageState:
    return ctx.page_push.page_state()


ACTIONS = {
    "ui.attach": PersonAction(attach, checks=("window",)),
    "ui.focus": PersonAction(focus, checks=("focused", "visible")),
    "ui.open": PersonAction(open_file, checks=("path",)),
    "ui.open_folder": PersonAction(open_folder, checks=("path",)),
    "ui.new": PersonAction(new, checks=("kind",)),
    "ui.close": PersonAction(close, checks=("tabId", "force")),
    "ui.switch_tab": PersonAction(switch_tab, checks=("tabId",)),
    "ui.pin": PersonAction(pin, checks=("tabId", "pinned")),
    "ui.set_mode": PersonAction(set_mode, checks=("tabId", "mode")),
    "ui.state": PersonAction(state),
}
