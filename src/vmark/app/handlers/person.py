"""The UI protocol: everything the person can do, as messages.

A UI page (or the Python test client, or the CLI) authenticates with role
``person`` and sends these. Agents can never send them: approving your own request
is not a tool action.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ...core.document import DocState
from ...core.errors import ArgumentError, DomainError
from ...core.kinds import KINDS
from ...storage.pathscope import PathScope
from ..state import canonical_or_invalid
from . import ui_read
from .workspace import load_tab, new_untitled

if TYPE_CHECKING:
    from ..service import RequestContext


def _str(args: dict[str, Any], name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str):
        raise ArgumentError(f"argument {name!r} must be a string")
    return value


def _tab(ctx: RequestContext, args: dict[str, Any]) -> Any:
    return ctx.app.session.find_tab(_str(args, "tabId"))


async def attach(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    session = ctx.app.session
    label = args.get("window")
    if label is None:
        window = session.windows["main"] if not session.pages.get("main") else session.new_window()
    else:
        window = session.windows.get(label) or session.window(label)
    ctx.connection.window = window.label
    session.pages.setdefault(window.label, []).append(ctx.connection)
    session.touch(window)
    session.changed()
    return {"window": window.label, "windows": session.describe()}


async def focus(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    window = ctx.app.page_window(ctx.connection)
    focused = bool(args.get("focused")) and bool(args.get("visible", True))
    if focused:
        for other in ctx.app.session.windows.values():
            other.focused = False
        ctx.app.session.touch(window)
    window.focused = focused
    ctx.app.session.changed()
    return {"window": window.label, "focused": window.focused}


async def open_file(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    """The person may open any file of a supported kind: the scope binds agents."""
    window = ctx.app.page_window(ctx.connection)
    real = canonical_or_invalid(_str(args, "path"))
    tab, _ = await load_tab(ctx.app, window, PathScope.of([real.rsplit("/", 1)[0] or "/"]), real, activate=True)
    window.active_tab = tab.id
    ctx.app.session.changed()
    return {"tabId": tab.id}


async def open_folder(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    window = ctx.app.page_window(ctx.connection)
    folder = canonical_or_invalid(_str(args, "path"))
    wsi = ctx.app.session.open_workspace(window, folder)
    return {"workspaceInstanceId": wsi.id}


async def new(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    kind = args.get("kind", "markdown")
    if kind not in KINDS:
        raise ArgumentError(f"kind must be one of {list(KINDS)}")
    tab = new_untitled(ctx.app, ctx.app.page_window(ctx.connection), kind)
    return {"tabId": tab.id}


async def close(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    window, tab = _tab(ctx, args)
    if tab.pinned:
        return {"closed": False, "reason": "PINNED"}
    if tab.doc.dirty and not args.get("force"):
        return {"closed": False, "reason": "DIVERGENT" if tab.doc.divergent else "DIRTY"}
    ctx.app.close_tab(window, tab)
    return {"closed": True}


async def switch_tab(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    window, tab = _tab(ctx, args)
    ctx.app.writer.abort_window_switch(window.label)
    ctx.app.activate(window, tab)
    return {"activeTabId": window.active_tab}


async def pin(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    _, tab = _tab(ctx, args)
    tab.pinned = bool(args.get("pinned", True))
    ctx.app.session.changed()
    return {"pinned": tab.pinned}


async def set_mode(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    _, tab = _tab(ctx, args)
    mode = args.get("mode")
    if mode not in ("wysiwyg", "source"):
        raise ArgumentError("mode must be 'wysiwyg' or 'source'")
    tab.mode = mode
    ctx.app.session.changed()
    return {"mode": mode}


async def edit(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    """The person's full text. With ``baseRevision`` (a page) it applies only on top of that revision:
    otherwise the page gets the current text back to merge its keystrokes into, and nothing changes."""
    _window, tab = _tab(ctx, args)
    text = _str(args, "text")
    doc = tab.doc
    base = args.get("baseRevision")
    if base is not None and base != doc.state.revision:
        return {"applied": False, "revision": doc.state.revision, "text": doc.state.text}
    ctx.app.writer.person_event(doc, "edited")
    doc.state = DocState(text)
    ctx.app.session.note_origin(doc, "person", ctx.connection)
    ctx.app.document_changed(doc, origin="person")
    return {"revision": doc.state.revision, "applied": True}


async def composition(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    _, tab = _tab(ctx, args)
    doc = tab.doc
    state = args.get("state")
    if state == "start":
        doc.composing = True
        doc.composing_mode = args.get("mode", tab.mode)
        ctx.app.writer.person_event(doc, "composing")
    elif state == "end":
        doc.composing = False
        doc.composition_ended_at = time.monotonic()
    else:
        raise ArgumentError("state must be 'start' or 'end'")
    return {"composing": doc.composing}


async def selection(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    _, tab = _tab(ctx, args)
    start, end = args.get("from"), args.get("to")
    if not isinstance(start, int) or not isinstance(end, int) or not 0 <= start <= end:
        raise ArgumentError("from and to must be integers with 0 <= from <= to")
    tab.selection = (start, end)
    ctx.app.writer.person_event(tab.doc, "selection")
    return {"selection": [start, end]}


async def save(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    window, tab = _tab(ctx, args)
    return await ctx.app.person_save(window, tab)


async def resolve_divergence(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    _, tab = _tab(ctx, args)
    keep = args.get("keep")
    if keep not in ("mine", "disk"):
        raise ArgumentError("keep must be 'mine' or 'disk'")
    await ctx.app.resolve_divergence(tab.doc, keep)
    return {"divergent": tab.doc.divergent, "revision": tab.doc.state.revision}


async def reply(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    return {"accepted": ctx.connection.reply(_str(args, "requestId"), args)}


async def approvals_list(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    return {"approvals": ctx.app.approvals.listing()}


async def approvals_answer(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    approval_id = _str(args, "id")
    allow = args.get("allow")
    if not isinstance(allow, bool):
        raise ArgumentError("allow must be a boolean")
    approval = ctx.app.approvals.answer(approval_id, allow)
    if approval is None:
        raise ArgumentError(f"no pending approval {approval_id!r} (it may have expired)")
    if approval.kind == "folder_access" and allow:
        ctx.app.folder_grants.add(approval.subject)
    return {"approval": approval.describe()}


async def history_list(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    _, tab = _tab(ctx, args)
    snaps = await ctx.app.history.snapshots(tab.doc.key)
    label = {"mcp": "(mcp)"}
    return {
        "snapshots": [{**s, "label": label.get(s["kind"], "")} for s in snaps],
        "unreviewed": await ctx.app.writer.unreviewed(tab.doc),
    }


async def history_mark_reviewed(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    _, tab = _tab(ctx, args)
    revision = args.get("revision")
    if revision is not None and not isinstance(revision, str):
        raise ArgumentError("revision must be a string")
    return {"reviewed": await ctx.app.writer.mark_reviewed(tab.doc, revision)}


async def state(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    return ctx.app.session.page_state()


async def test_fault(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    app = ctx.app
    if not app.test_hooks:
        raise DomainError("INTERNAL", "test hooks are disabled")
    if "journal" in args:
        app.journal.set_fault(args["journal"])
    if "editor" in args:
        app.editor_faults.fail = args["editor"]
    if "save_delay" in args:
        app.saves.delay_before_queue = float(args["save_delay"])
    return {"ok": True}


ACTIONS = {
    "ui.attach": attach,
    "ui.focus": focus,
    "ui.open": open_file,
    "ui.open_folder": open_folder,
    "ui.new": new,
    "ui.close": close,
    "ui.switch_tab": switch_tab,
    "ui.pin": pin,
    "ui.set_mode": set_mode,
    "ui.edit": edit,
    "ui.composition": composition,
    "ui.selection": selection,
    "ui.save": save,
    "ui.resolve_divergence": resolve_divergence,
    "ui.reply": reply,
    "ui.state": state,
    "approvals.list": approvals_list,
    "approvals.answer": approvals_answer,
    "history.list": history_list,
    "history.mark_reviewed": history_mark_reviewed,
    "test.fault": test_fault,
    **ui_read.ACTIONS,
}
