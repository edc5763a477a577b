"""``workspace``: file and window lifecycle; nothing inside documents."""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

from ...core.ids import new_id
from ...core.kinds import kind_for_path
from ...core.model import Document, Tab, Window
from ...protocol import results
from ...protocol.errors import DomainError
from ...protocol.jsontypes import JSONObject
from ...protocol.limits import UI_ROUND_TRIP_SECONDS
from ...protocol.wire_types import Kind
from ...storage.files import read_document, remove_stale_temps
from ...storage.pathscope import PathScope, ScopeError, readable_roots
from ..state import canonical_or_invalid

if TYPE_CHECKING:
    from ..context import RequestContext


async def load_tab(
    ctx: RequestContext, window: Window, scope: PathScope, file_path: str, activate: bool
) -> tuple[Tab, bool]:
    """Open ``file_path`` (checked against ``scope``) in ``window``: ``(tab, created)``."""
    try:
        real = scope.resolve(file_path)
    except ScopeError as exc:
        raise exc.refusal(file_path) from exc
    kind = kind_for_path(real)
    if kind is None:
        raise DomainError("INVALID_PATH", f"{file_path!r} is not a Markdown or workflow file", filePath=file_path)
    existing = next((t for t in window.tabs if t.doc.path == real), None)
    if existing is not None:
        return existing, False
    doc = ctx.session.doc_by_path(real)
    if doc is None:
        try:
            text, stamp, read_only = await asyncio.to_thread(read_document, real, scope)
        except ScopeError as exc:
            raise exc.refusal(file_path) from exc
        # Temp files of saves that died with an earlier app must not litter the workspace.
        await asyncio.to_thread(remove_stale_temps, real, scope)
        doc = Document.load(real, kind, real, text, stamp)
        doc.read_only = read_only
    return ctx.session.add_tab(window, doc, activate=activate), True


async def new(ctx: RequestContext, args: JSONObject) -> results.NewTab:
    window = ctx.session.window(args.get("windowLabel"))
    kind: Kind = args.get("kind", "markdown")
    tab = new_untitled(ctx, window, kind)
    return {"tabId": tab.id}


def new_untitled(ctx: RequestContext, window: Window, kind: Kind) -> Tab:
    doc = Document.load(f"untitled:{new_id('doc')}", kind, None, "", None)
    return ctx.session.add_tab(window, doc, activate=True)


async def open_(ctx: RequestContext, args: JSONObject) -> results.Opened:
    session = ctx.session
    window = session.window(args.get("windowLabel"))
    before = window.active_tab
    tab, _ = await load_tab(ctx, window, session.scope(window), args["filePath"], activate=False)
    await ctx.review.agent_opened(tab.doc)
    return {
        "tabId": tab.id,
        "workspaceInstanceId": tab.workspace_instance,
        "activationChanged": window.active_tab != before,
        "workspaceSwitched": False,
    }


async def open_workspace(ctx: RequestContext, args: JSONObject) -> results.WorkspaceOpened:
    conn = ctx.connection
    window = ctx.session.window()
    folder = canonical_or_invalid(args["folderPath"])
    if not os.path.isdir(folder):
        raise DomainError("INVALID_PATH", f"{args['folderPath']!r} is not a folder", folderPath=folder)
    consent = ctx.approvals.find("open_workspace", conn.id, folder)
    if consent is None:
        ctx.approvals.request("open_workspace", conn.id, conn.requester, folder, window.label, agent=conn.label)
        return {"needsApproval": True, "folderPath": folder}
    if consent.state == "pending":
        return {"needsApproval": True, "folderPath": folder}
    if consent.state == "denied":
        raise DomainError(
            "APPROVAL_REQUIRED",
            f"The user denied opening {folder}; ask them to approve it",
            folderPath=folder,
        )
    if window.label in ctx.session.switching:
        raise DomainError("BUSY", "A workspace switch is already in progress in this window; try again")
    if not _may_read(ctx, folder):
        return await _ask_for_folder_access(ctx, window, folder)
    ctx.session.switching.add(window.label)
    try:
        ctx.approvals.consume(consent)
        wsi = ctx.session.open_workspace(window, folder)
        # The window's pages load the new file tree; until they have, the switch is in progress.
        pages = ctx.session.pages.get(window.label, [])
        await asyncio.gather(
            *(
                p.ask("workspace_switch", {"workspaceInstanceId": wsi.id, "folder": folder}, UI_ROUND_TRIP_SECONDS)
                for p in pages
            )
        )
    finally:
        ctx.session.switching.discard(window.label)
    return {"opened": True, "folderPath": folder, "workspaceInstanceId": wsi.id, "windowLabel": window.label}


def _may_read(ctx: RequestContext, folder: str) -> bool:
    return PathScope.of([*readable_roots(ctx.settings.get("readable_roots")), *ctx.folder_grants]).contains(folder)


async def _ask_for_folder_access(ctx: RequestContext, window: Window, folder: str) -> results.WorkspaceOpened:
    conn = ctx.connection
    picker = ctx.approvals.find("folder_access", conn.id, folder)
    if picker is not None and picker.state == "allowed":
        ctx.folder_grants.add(folder)
        ctx.approvals.consume(picker)
        return await open_workspace(ctx, {"folderPath": folder})
    dialogs = ctx.approvals.pending_in(window.label, "folder_access")
    if picker is None and dialogs:
        raise DomainError("BUSY", "Another folder dialog is open; the confirmation is kept, try again later")
    if picker is None or picker.state == "denied":
        # Recording the request shows the folder picker (a `folder_picker` event naming the approval).
        ctx.approvals.request("folder_access", conn.id, conn.requester, folder, window.label, agent=conn.label)
    raise DomainError(
        "APPROVAL_REQUIRED",
        f"{folder} is outside the always-readable locations; the user must select it in VMark's folder dialog",
        folderPath=folder,
    )


async def save(ctx: RequestContext, args: JSONObject) -> results.Saved:
    window, tab = ctx.session.resolve_tab(args.get("tabId"))
    return await ctx.saver.save(ctx.connection, window, tab)


async def save_as(ctx: RequestContext, args: JSONObject) -> results.SavedAs:
    window, tab = ctx.session.resolve_tab(args.get("tabId"))
    saved = await ctx.saver.save_as(ctx.connection, window, tab, args["filePath"])
    answer: results.SavedAs = {"revision": saved.revision}
    if saved.journaled is not None:
        answer["journaled"] = saved.journaled
    return answer


async def close(ctx: RequestContext, args: JSONObject) -> results.Closed:
    window, tab = ctx.session.find_tab(args["tabId"])
    await ctx.windows.flush_pages(window)
    if tab not in window.tabs:
        return {"closed": True}
    if tab.pinned:
        return {"closed": False, "reason": "PINNED"}
    if not args.get("force"):
        if tab.doc.divergent:
            return {"closed": False, "reason": "DIVERGENT"}
        if tab.doc.dirty:
            return {"closed": False, "reason": "DIRTY"}
    ctx.windows.close_tab(window, tab)
    return {"closed": True}


async def switch_tab(ctx: RequestContext, args: JSONObject) -> results.Switched:
    window, tab = ctx.session.find_tab(args["tabId"])
    before_tab, before_workspace = window.active_tab, window.active_workspace
    switched = ctx.windows.activate(window, tab)
    pages = ctx.session.pages.get(window.label, [])
    replies = await asyncio.gather(*(p.ask("activate", {"tabId": tab.id}, UI_ROUND_TRIP_SECONDS) for p in pages))
    for reply in replies:
        if reply is not None and reply.get("ok") is False:
            # The page did not show it (a modal, say): believe the page, not the request.
            ctx.windows.shown_by_page(window, reply.get("activeTabId") or before_tab, before_workspace)
    activated = window.active_tab == tab.id and window.is_visible(tab)
    return {
        "activated": activated,
        "workspaceSwitched": switched and activated,
        "workspaceInstanceId": tab.workspace_instance,
        "activeTabId": window.active_tab,
    }


async def focus_window(ctx: RequestContext, args: JSONObject) -> results.Focused:
    window = ctx.session.window(args["windowLabel"])
    ctx.session.touch(window)
    pages = ctx.session.pages.get(window.label, [])
    await asyncio.gather(*(p.ask("focus", {}, UI_ROUND_TRIP_SECONDS) for p in pages))
    return {"windowLabel": window.label, "focused": window.focused}


ACTIONS = {
    "new": new,
    "open": open_,
    "open_workspace": open_workspace,
    "save": save,
    "save_as": save_as,
    "close": close,
    "switch_tab": switch_tab,
    "focus_window": focus_window,
}
