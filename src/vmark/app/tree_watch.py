"""The file tree follows the disk: files and folders created, renamed or deleted by other programs inside a
workspace root show up in the windows showing that workspace, without a reload.

Polling with a bounded cost rather than a recursive OS watch (which would follow ``node_modules`` and ``.git``
too): each round stats the folders the tree shows (a folder's mtime moves when an entry in it is created,
renamed or deleted; a file's content changing does not move it), at most :data:`MAX_TREE_FILES` of them per
root. Only when one moved (or changed too recently for its mtime to show a second change) is the root listed
again (as ``ui.files`` lists it), and only when that listing
differs are the pages told (``files_changed``: they list the tree again). A burst of changes is told at most
once a round, which is the debounce. Only roots some attached page shows are watched; a root newly shown is
told once (what changed between the page's listing and the first round is not known).
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, field

from ..protocol.limits import MAX_TREE_FILES
from ..storage.tree import list_files, list_folders
from .page_push import PageEvents
from .state import Session

#: longer than any file system's mtime granularity (ext4 and tmpfs: a clock tick; FAT: two seconds)
_TICK_NS = 2_000_000_000

#: what the tree of a root shows: its files (with kinds) and its folders
Listing = tuple[tuple[tuple[str, str], ...], tuple[str, ...]]


@dataclass
class _Root:
    #: folder (absolute) -> its mtime (ns) when last looked at; the root itself included
    stamps: dict[str, int] = field(default_factory=dict)
    listing: Listing | None = None
    #: a folder was changed within the file system's timestamp granularity of the stamps being taken: a second
    #: change in that same tick would leave its mtime as it was, so the next round lists the root again anyway
    recent: bool = False


class TreeWatcher:
    def __init__(self, session: Session, pages: PageEvents) -> None:
        self.session = session
        self.pages = pages
        self._roots: dict[str, _Root] = {}

    def shown_roots(self) -> dict[str, list[str]]:
        """Workspace root -> the windows with an attached page that show it."""
        shown: dict[str, list[str]] = {}
        for label in self.session.pages:
            window = self.session.windows.get(label)
            for wsi in window.workspaces if window is not None else ():
                shown.setdefault(wsi.root, []).append(label)
        return shown

    async def check(self) -> None:
        """One round: every shown root looked at; the windows of a root whose tree changed are told."""
        shown = self.shown_roots()
        for gone in set(self._roots) - set(shown):
            del self._roots[gone]
        for root, windows in shown.items():
            watched = self._roots.get(root)
            if watched is None:
                # Newly shown: what changed between the pages' listing and now is not known, so they list it
                # once more; from now on only a change tells them.
                watched = self._roots[root] = _Root()
                await asyncio.to_thread(_rescan, root, watched)
            elif not watched.recent and not await asyncio.to_thread(_moved, watched.stamps):
                continue
            else:
                before = watched.listing
                await asyncio.to_thread(_rescan, root, watched)
                if watched.listing == before:
                    continue
            for label in windows:
                await self.pages.notify("files_changed", {"root": root}, window=label)


def _moved(stamps: dict[str, int]) -> bool:
    """Whether any folder's entries changed (or the folder went) since ``stamps`` were taken."""
    for folder, mtime in stamps.items():
        try:
            if os.stat(folder).st_mtime_ns != mtime:
                return True
        except OSError:
            return True
    return False


def _rescan(root: str, watched: _Root) -> None:
    """The root's folders stamped (before listing: a change during the listing is seen next round) and listed."""
    folders = [root, *(os.path.join(root, f) for f in list_folders(root, MAX_TREE_FILES))]
    stamps: dict[str, int] = {}
    for folder in folders:
        try:
            stamps[folder] = os.stat(folder).st_mtime_ns
        except OSError:
            continue
    watched.stamps = stamps
    watched.recent = bool(stamps) and time.time_ns() - max(stamps.values()) < _TICK_NS
    files, _truncated = list_files(root)
    watched.listing = (tuple((f["path"], f["kind"]) for f in files), tuple(folders))
