"""The UI protocol: everything the person can do, as messages.

A UI page (or the Python test client, or the CLI) authenticates with role
``person`` and sends these. Agents can never send them: approving your own request
is not a tool action.
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import TYPE_CHECKING, Any

from ...coherence.kernel import PERSON
from ...core.changes import SpanError, Spans, check_fits, parse_spans, replaced_state, splice_state, wire
from ...core.document import DocState, has_lone_surrogate, normalize_line_endings
from ...core.errors import ArgumentError, DomainError
from ...core.kinds import KINDS, MARKDOWN_SUFFIXES, WORKFLOW_SUFFIXES, Kind, kind_for_path
from ...core.model import Document
from ...core.transaction import Actor, Transaction
from ...storage.files import SaveError, save_new, save_replace
from ...storage.pathscope import PathScope, ScopeError
from ...storage.settings import SETTINGS, SettingsError
from ..history_view import snapshot_actor
from ..state import canonical_or_invalid
from . import ui_browser, ui_coherence, ui_comments, ui_files, ui_read, ui_review, ui_search, ui_tools, ui_workspace
from .args import require_str
from .workspace import load_tab, new_untitled

if TYPE_CHECKING:
    from ..connection import Connection
    from ..service import App, RequestContext


def _tab(ctx: RequestContext, args: dict[str, Any]) -> Any:
    return ctx.app.session.find_tab(require_str(args, "tabId"))


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
    ctx.app.review.attached(window)
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
    real = canonical_or_invalid(require_str(args, "path"))
    tab, _ = await load_tab(ctx.app, window, PathScope.of([real.rsplit("/", 1)[0] or "/"]), real, activate=True)
    window.active_tab = tab.id
    ctx.app.session.changed()
    return {"tabId": tab.id}


async def open_folder(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    window = ctx.app.page_window(ctx.connection)
    folder = canonical_or_invalid(require_str(args, "path"))
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
    """The person's edit: ``changes`` (spans ``[[from, to, insert], ...]``, code points of the shown text at
    ``baseRevision``, sorted and non-overlapping) or the full ``text``. With ``baseRevision`` it applies only on
    top of that revision: otherwise nothing changes and the page gets what happened since, to rebase on
    (``changes`` when the document still knows them, else its ``text``)."""
    _window, tab = _tab(ctx, args)
    doc = tab.doc
    base = args.get("baseRevision")
    if base is not None and not isinstance(base, str):
        raise ArgumentError("baseRevision must be a string")
    if ("text" in args) == ("changes" in args):
        raise ArgumentError("ui.edit takes either text or changes")
    as_changes = "changes" in args
    if as_changes:
        spans = _spans_arg(args["changes"])
        if base is None:
            raise ArgumentError("changes need the baseRevision they were made on")

        def change() -> DocState:
            return splice_state(doc.state, _fitting(spans, len(doc.state.shown)), doc.line_ending)
    else:
        text = require_str(args, "text")
        if has_lone_surrogate(text):
            raise ArgumentError("text holds a lone UTF-16 surrogate")

        def change() -> DocState:
            return replaced_state(doc.state, normalize_line_endings(text, doc.line_ending))

    if base is not None and base != doc.state.revision:
        return _stale(doc, base, as_changes)
    state = change()
    if state.text != doc.state.text:
        # The page that typed it does not get its own change back; every other page does, and an agent write
        # being recorded right now is aborted (the writer observes the transaction).
        await ctx.app.session.apply(Transaction(doc, state, "person", _actor(ctx.connection)))
    return {"revision": doc.state.revision, "applied": True}


def _spans_arg(raw: object) -> Spans:
    try:
        return parse_spans(raw)
    except SpanError as exc:
        raise ArgumentError(str(exc)) from exc


def _fitting(spans: Spans, length: int) -> Spans:
    try:
        return check_fits(spans, length)
    except SpanError as exc:
        raise ArgumentError(str(exc)) from exc


def _stale(doc: Document, base: str, as_changes: bool) -> dict[str, Any]:
    """A page's base is not the current revision: what it needs to rebase its edit on."""
    answer: dict[str, Any] = {"applied": False, "revision": doc.state.revision}
    spans = doc.recent.since(base, doc.state) if as_changes else None
    if spans is None:
        answer["text"] = doc.state.text
    else:
        answer["changes"] = wire(spans)
    return answer


def _actor(conn: Connection) -> Actor:
    return Actor(conn.id, conn.principal)


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
    _, tab = _tab(ctx, args)
    if tab.doc.path is None:
        raise DomainError("INVALID_PATH", "untitled: choose a path first")
    return await _person_save(ctx.app, tab.doc, tab.doc.path)


async def save_as(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    """The person may save anywhere, as a file of a supported kind, but never over an existing file."""
    _, tab = _tab(ctx, args)
    doc = tab.doc
    real = canonical_or_invalid(require_str(args, "path"))
    if real == doc.path:  # "Save as" onto the document's own file is a save
        return await _person_save(ctx.app, doc, real)
    kind = kind_for_path(real)
    if kind is None:
        raise DomainError("INVALID_PATH", _UNSUPPORTED.format(path=real), filePath=real)
    folder = os.path.dirname(real)
    if not os.path.isdir(folder):
        raise DomainError("INVALID_PATH", f"There is no folder {folder}", filePath=real)
    if os.path.lexists(real):
        raise DomainError("INVALID_PATH", _EXISTS.format(path=real), filePath=real)
    if ctx.app.session.doc_by_path(real) is not None:  # open, though its file is gone from the disk
        raise DomainError("INVALID_PATH", f"{real} is open in another tab; close it first", filePath=real)
    return await _person_save(ctx.app, doc, real, new_kind=kind)


_UNSUPPORTED = (
    "{path} is not a Markdown or workflow file: end its name with "
    + ", ".join(sorted(MARKDOWN_SUFFIXES))
    + ", or save "
    + "/".join(sorted(WORKFLOW_SUFFIXES, reverse=True))
    + " files inside .github/workflows"
)
_EXISTS = "{path} already exists; Save as never replaces a file. Choose another name"


async def _person_save(app: App, doc: Document, real: str, new_kind: Kind | None = None) -> dict[str, Any]:
    """Put the document's text at ``real`` through the file's save queue, then snapshot it (``manual``).

    The person may save anywhere, so the scope is the target's own folder. With ``new_kind`` the target is a
    new file (created without replacing anything that appears there meanwhile) and the document moves to it.
    """
    scope = PathScope.of([os.path.dirname(real)])
    write = save_replace if new_kind is None else save_new

    async def put() -> DocState:
        state = doc.state
        text = await app.coherence.text_to_save(real, state.text)
        try:
            stamp = await asyncio.to_thread(write, real, text.encode("utf-8"), scope)
        except FileExistsError as exc:
            raise DomainError("INVALID_PATH", _EXISTS.format(path=real), filePath=real) from exc
        except (SaveError, ScopeError, UnicodeEncodeError) as exc:
            raise DomainError("INTERNAL", f"Saving failed: {exc}", filePath=real) from exc
        if new_kind is not None:
            app.session.rekey(doc, real, new_kind)
            doc.read_only = False
        doc.disk, doc.saved_revision, doc.divergent = stamp, state.revision, False
        await app.coherence.saved(real, text, PERSON)
        return state

    state = await app.saves.run(real, app.saves.ticket(), put)
    await app.history.snapshot(doc.key, doc.path, "manual", state.revision, state.text)
    app.session.changed()
    return {"filePath": real, "revision": state.revision}


async def resolve_divergence(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    _, tab = _tab(ctx, args)
    keep = args.get("keep")
    if keep not in ("mine", "disk"):
        raise ArgumentError("keep must be 'mine' or 'disk'")
    await ctx.app.resolve_divergence(tab.doc, keep)
    return {"divergent": tab.doc.divergent, "revision": tab.doc.state.revision}


async def reply(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    return {"accepted": ctx.connection.reply(require_str(args, "requestId"), args)}


async def approvals_list(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    return {"approvals": ctx.app.approvals.listing()}


async def approvals_answer(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    approval_id = require_str(args, "id")
    allow = args.get("allow")
    if not isinstance(allow, bool):
        raise ArgumentError("allow must be a boolean")
    decision = args.get("decision")
    if decision not in (None, "once", "site"):
        raise ArgumentError("decision must be 'once' or 'site' (a browser prompt's Allow once / Allow on this site)")
    approval = ctx.app.approvals.answer(approval_id, allow, decision)
    if approval is None:
        raise ArgumentError(f"no pending approval {approval_id!r} (it may have expired)")
    if approval.kind == "folder_access" and allow:
        ctx.app.folder_grants.add(approval.subject)
    return {"approval": approval.describe()}


_LABELS = {"mcp": "(mcp)"}


def _labelled(snap: dict[str, Any]) -> dict[str, Any]:
    return {**snap, "label": _LABELS.get(snap["kind"], ""), "actor": snapshot_actor(snap)}


async def history_list(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    """The document's snapshots, oldest first (``content: false`` leaves their texts out: see ``history.get``)."""
    _, tab = _tab(ctx, args)
    content = args.get("content", True)
    if not isinstance(content, bool):
        raise ArgumentError("content must be a boolean")
    snaps = await ctx.app.history.snapshots(tab.doc.key, content)
    await ctx.app.comments.annotate_history(tab.doc.key, snaps)
    return {
        "snapshots": [_labelled(s) for s in snaps],
        "unreviewed": await ctx.app.review.unreviewed(tab.doc),
    }


async def _snapshot_arg(ctx: RequestContext, doc: Document, args: dict[str, Any]) -> dict[str, Any]:
    snapshot_id = args.get("id")
    if not isinstance(snapshot_id, int) or isinstance(snapshot_id, bool):
        raise ArgumentError("argument 'id' must be an integer (a snapshot id from history.list)")
    snap = await ctx.app.history.snapshot_of(doc.key, snapshot_id)
    if snap is None:
        raise ArgumentError(f"no snapshot {snapshot_id} in this document's history")
    return snap


async def history_get(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    """One snapshot of the tab's document, with its text."""
    _, tab = _tab(ctx, args)
    snap = await _snapshot_arg(ctx, tab.doc, args)
    await ctx.app.comments.annotate_history(tab.doc.key, [snap])
    return _labelled(snap)


async def history_revert(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    """The document's text becomes the snapshot's, as the person's edit (not saved). The AI revisions made
    after that snapshot are undone by it, so they count as reviewed; a ``revert`` snapshot records it."""
    _, tab = _tab(ctx, args)
    doc = tab.doc
    snap = await _snapshot_arg(ctx, doc, args)
    reverted = doc.state
    if reverted.text != snap["content"]:
        # A page shows every line break as "\n": the file keeps the line endings it has. The page that asked
        # gets the text too (it did not type it); the history takes the ``revert`` snapshot (it follows the change).
        text = normalize_line_endings(snap["content"], doc.line_ending)
        reverted = replaced_state(doc.state, text)
        await ctx.app.session.apply(Transaction(doc, reverted, "revert", _actor(ctx.connection)))
    for revision in await ctx.app.history.unreviewed_after(doc.key, snap["id"]):
        await ctx.app.review.mark_reviewed(doc, revision)
    return {"revision": reverted.revision}


async def history_mark_reviewed(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    _, tab = _tab(ctx, args)
    revision = args.get("revision")
    if revision is not None and not isinstance(revision, str):
        raise ArgumentError("revision must be a string")
    return {"reviewed": await ctx.app.review.mark_reviewed(tab.doc, revision)}


async def settings_list(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    """Every setting of the one table (the app's own and registered ones such as ``cjk.*``)."""
    settings = ctx.app.settings
    return {
        "settings": [
            {"key": key, "type": typ.__name__, "value": settings.get(key), "default": default}
            for key, (typ, default) in SETTINGS.items()
        ]
    }


async def settings_set(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    """Store one setting; a refused value changes nothing (a plain argument error)."""
    key = require_str(args, "key")
    if "value" not in args:
        raise ArgumentError("argument 'value' is required")
    try:
        await asyncio.to_thread(ctx.app.settings.set, key, args["value"])
    except SettingsError as exc:
        raise ArgumentError(str(exc)) from exc
    return {"key": key, "value": ctx.app.settings.get(key)}


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
    if "coherence_delay" in args:
        app.coherence.delay = float(args["coherence_delay"])
    if "review" in args:
        app.review.enabled = bool(args["review"])
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
    "ui.save_as": save_as,
    "ui.resolve_divergence": resolve_divergence,
    "ui.reply": reply,
    "ui.state": state,
    "approvals.list": approvals_list,
    "approvals.answer": approvals_answer,
    "history.list": history_list,
    "history.get": history_get,
    "history.revert": history_revert,
    "history.mark_reviewed": history_mark_reviewed,
    "settings.list": settings_list,
    "settings.set": settings_set,
    "test.fault": test_fault,
    **ui_read.ACTIONS,
    **ui_workspace.ACTIONS,
    **ui_tools.ACTIONS,
    **ui_comments.ACTIONS,
    **ui_coherence.ACTIONS,
    **ui_browser.ACTIONS,
    **ui_search.ACTIONS,
    **ui_files.ACTIONS,
    **ui_review.ACTIONS,
}
