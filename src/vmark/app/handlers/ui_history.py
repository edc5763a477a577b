"""The person's history of a document: its snapshots, one of them, a revert, the review of AI revisions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.changes import replaced_state
from ...core.document import normalize_line_endings
from ...core.model import Document
from ...core.transaction import Transaction
from ...protocol import wire_types as wire
from ...protocol.errors import ArgumentError
from ...protocol.jsontypes import JSONObject
from ...protocol.wire_types import SnapshotRecord
from ..history_view import snapshot_actor
from .args import tab_of
from .registry import PersonAction

if TYPE_CHECKING:
    from ..context import RequestContext


_LABELS = {"mcp": "(mcp)"}


def _labelled(snap: SnapshotRecord, addressed: list[wire.Addressed]) -> wire.Snapshot:
    labelled: wire.Snapshot = {
        "id": snap["id"],
        "path": snap["path"],
        "kind": snap["kind"],
        "revision": snap["revision"],
        "time": snap["time"],
        "principal": snap["principal"],
        "addresses": snap["addresses"],
        "tool": snap["tool"],
        "client": snap["client"],
        "addressed": addressed,
        "label": _LABELS.get(snap["kind"], ""),
        "actor": snapshot_actor(snap),
    }
    if "content" in snap:  # after the row's own keys, as the history keeps them
        labelled = {**labelled, "content": snap["content"]}
    return labelled


async def history_list(ctx: RequestContext, args: JSONObject) -> wire.HistoryList:
    """The document's snapshots, oldest first (``content: false`` leaves their texts out: see ``history.get``)."""
    _, tab = tab_of(ctx, args)
    content = args.get("content", True)
    snaps = await ctx.history.snapshots(tab.doc.key, content)
    addressed = await ctx.comments.addressed_in(tab.doc.key, snaps)
    return {
        "snapshots": [_labelled(s, a) for s, a in zip(snaps, addressed, strict=True)],
        "unreviewed": await ctx.review.unreviewed(tab.doc),
    }


async def _snapshot_arg(ctx: RequestContext, doc: Document, args: JSONObject) -> SnapshotRecord:
    snapshot_id = args["id"]
    snap = await ctx.history.snapshot_of(doc.key, snapshot_id)
    if snap is None:
        raise ArgumentError(f"no snapshot {snapshot_id} in this document's history")
    return snap


async def history_get(ctx: RequestContext, args: JSONObject) -> wire.Snapshot:
    """One snapshot of the tab's document, with its text."""
    _, tab = tab_of(ctx, args)
    snap = await _snapshot_arg(ctx, tab.doc, args)
    [addressed] = await ctx.comments.addressed_in(tab.doc.key, [snap])
    return _labelled(snap, addressed)


async def history_revert(ctx: RequestContext, args: JSONObject) -> wire.RevisionResult:
    """The document's text becomes the snapshot's, as the person's edit (not saved). The AI revisions made
    after that snapshot are undone by it, so they count as reviewed; a ``revert`` snapshot records it."""
    _, tab = tab_of(ctx, args)
    doc = tab.doc
    snap = await _snapshot_arg(ctx, doc, args)
    reverted = doc.state
    if reverted.text != snap["content"]:
        # A page shows every line break as "\n": the file keeps the line endings it has. The page that asked
        # gets the text too (it did not type it); the history takes the ``revert`` snapshot (it follows the change).
        text = normalize_line_endings(snap["content"], doc.line_ending)
        reverted = replaced_state(doc.state, text)
        await ctx.session.apply(Transaction(doc, reverted, "revert", ctx.connection.actor))
    for revision in await ctx.history.unreviewed_after(doc.key, snap["id"]):
        await ctx.review.mark_reviewed(doc, revision)
    return {"revision": reverted.revision}


async def history_mark_reviewed(ctx: RequestContext, args: JSONObject) -> wire.ReviewedResult:
    _, tab = tab_of(ctx, args)
    revision = args.get("revision")
    return {"reviewed": await ctx.review.mark_reviewed(tab.doc, revision)}


#: a snapshot id from history.list

ACTIONS = {
    "history.list": PersonAction(history_list, checks=("tabId", "content")),
    "history.get": PersonAction(history_get, checks=("tabId", "id")),
    "history.revert": PersonAction(history_revert, checks=("tabId", "id")),
    "history.mark_reviewed": PersonAction(history_mark_reviewed, checks=("tabId", "revision")),
}
