"""``browser_read.read``: the ARIA-oriented snapshot of a page, and resolving its refs.

The walk runs in the isolated world (``js/snapshot.js``): a flat list of ``{role, name, ref}``
nodes in document order (``level`` for headings, ``checked``, ``disabled``, ``upload: true``),
open shadow roots entered through their slots; at most 2,000 nodes and 200 characters per name
(``truncated: true`` when either cut something).

Frames are stitched in after their ``iframe`` node, their refs prefixed ``f<k>`` (``k`` numbers
the frame element for the life of the document): same-origin frames by the walk itself,
cross-origin frames by a walk in the frame's own isolated world (``IsolatedWorld.enter_frames``).

``unreachable`` counts what could not be read: frames CDP would not enter (or nested deeper
than :data:`MAX_FRAME_DEPTH` cross-origin levels) and closed shadow roots. JavaScript cannot see
a closed root, so the walk collects the custom elements that have no open root and CDP
(``DOM.describeNode``, which does see closed roots) tells which of them carry one. Closed roots
on built-in elements (a ``div`` can host one too) and more than :data:`SNAPSHOT_CLOSED_ROOT_CHECKS`
candidates per world are not examined: in those cases the count is a lower bound.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vmark.browser.failures import PlaywrightError
from vmark.browser.isolated import EvalError, IsolatedWorld, world_for
from vmark.protocol.browser_results import SnapshotRead
from vmark.protocol.jsontypes import JSONObject
from vmark.protocol.limits import MAX_FRAME_DEPTH, SNAPSHOT_CLOSED_ROOT_CHECKS, SNAPSHOT_MAX_NODES

if TYPE_CHECKING:
    from playwright.async_api import Page

#: the CDP object group of resolved refs (release with ``world.release_objects(REF_GROUP)``)
REF_GROUP = "vmark-refs"


class RefError(Exception):
    """A ref that does not name an element of the current view."""

    def __init__(self, ref: str, code: str, message: str) -> None:
        super().__init__(message)
        self.ref = ref
        self.code = code


class StaleRef(RefError):
    """The ref came from an earlier document of the tab (or its element is gone): read again."""


class UnknownRef(RefError):
    """The ref was never issued in this tab, or is malformed."""


_REF_MESSAGES = {
    "stale": (StaleRef, "ref {ref} belongs to an earlier view of this page; read the page again"),
    "gone": (StaleRef, "the element of ref {ref} is no longer on the page; read the page again"),
    "unknown": (UnknownRef, "ref {ref} was never issued for this page; use a ref from a read"),
    "malformed": (UnknownRef, "{ref!r} is not a ref (refs look like e12 or f1e12)"),
}


def ref_error(ref: str, code: str) -> RefError:
    """The typed error for a ref the runtime refused (code: stale, gone, unknown, malformed)."""
    kind, template = _REF_MESSAGES.get(code, _REF_MESSAGES["unknown"])
    return kind(ref, code, template.format(ref=ref))


async def read_snapshot(page: Page) -> SnapshotRead:
    """``{snapshot: [...], truncated?: True, unreachable?: n}`` for the page's current document."""
    nodes, truncated, unreachable = await _read_world(world_for(page), "", 0)
    if len(nodes) > SNAPSHOT_MAX_NODES:
        nodes = nodes[:SNAPSHOT_MAX_NODES]
        truncated = True
    result: SnapshotRead = {"snapshot": nodes}
    if truncated:
        result["truncated"] = True
    if unreachable:
        result["unreachable"] = unreachable
    return result


async def _read_world(world: IsolatedWorld, prefix: str, depth: int) -> tuple[list[JSONObject], bool, int]:
    """One world's nodes (refs prefixed) with its cross-origin frames' nodes stitched in where
    their frame element stands: (nodes, truncated, unreachable)."""
    walked = await world.call("snapshot")
    nodes: list[JSONObject] = walked["snapshot"]
    if prefix:
        for node in nodes:
            node["ref"] = prefix + node["ref"]
    truncated = bool(walked.get("truncated"))
    unreachable = await _closed_roots(world, int(walked["hosts"])) if walked["hosts"] else 0
    slots: list[dict[str, int]] = walked["frames"]
    if slots and depth >= MAX_FRAME_DEPTH:
        return nodes, truncated, unreachable + len(slots)
    entered = await world.enter_frames([slot["frame"] for slot in slots])
    for slot in reversed(slots):
        child = entered.get(slot["frame"])
        if child is None:
            unreachable += 1
            continue
        try:
            inner, cut, lost = await _read_world(child, f"{prefix}f{slot['frame']}", depth + 1)
        except EvalError:
            world.forget_frame(slot["frame"])
            unreachable += 1
            continue
        nodes[slot["at"] : slot["at"]] = inner
        truncated = truncated or cut
        unreachable += lost
    return nodes, truncated, unreachable


async def _closed_roots(world: IsolatedWorld, candidates: int) -> int:
    ids = await world.call_objects("snapshotHosts", min(candidates, SNAPSHOT_CLOSED_ROOT_CHECKS))
    session = await world.session()

    async def closed(object_id: str) -> bool:
        try:
            node = await session.send("DOM.describeNode", {"objectId": object_id, "depth": 0, "pierce": True})
        except PlaywrightError:
            return False
        roots = node["node"].get("shadowRoots", [])
        return any(root.get("shadowRootType") == "closed" for root in roots)

    try:
        found = await asyncio.gather(*(closed(object_id) for object_id in ids))
    finally:
        await world.release_objects()
    return sum(found)


@dataclass(frozen=True)
class RefHandle:
    """An element of the current view, named by its ref; ``object_id`` is its CDP remote object
    in the isolated world (valid until the document goes away)."""

    ref: str
    object_id: str
    world: IsolatedWorld


async def resolve_ref(page: Page, ref: str) -> RefHandle:
    """The element of ``ref`` if it belongs to the current view, else StaleRef / UnknownRef.

    ``object_id`` lives in the world of the ref's frame (``handle.world``).
    """
    route = await world_for(page).route(ref)
    try:
        checked = await route.world.call("checkRef", route.ref)
        ids = [] if checked is not None else await route.world.call_objects("refElements", route.ref, group=REF_GROUP)
    except EvalError:
        raise ref_error(ref, "gone") from None
    if checked is not None:
        raise ref_error(ref, str(checked))
    if not ids:
        raise ref_error(ref, "gone")
    return RefHandle(ref, ids[0], route.world)
