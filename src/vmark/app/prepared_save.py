"""The first half of an agent write's save, done while its journal entry commits.

The temp file a save renames into place makes nothing visible, so it is written and fsync'd at the same time
as the journal's fsync; only the rename (the save becoming visible) waits for the journal entry to be
durable and for the save's turn in the file's queue. The serial chain of a write is then
max(journal fsync, temp fsync) + the folder's fsync, instead of the three in a row.

The temp is used only if, when the save's turn comes, it holds exactly the bytes that save would write at
that path (the person may have typed meanwhile, the file may be tracked and take an identity, the path may
have moved): else it is removed and the save writes its own. Whoever starts one closes it
(:meth:`PreparedSave.close`), so a refused or aborted write leaves no temp file behind.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from ..storage.files import SaveError, Temp, discard, prepare_replace
from ..storage.pathscope import PathScope, ScopeError

log = logging.getLogger(__name__)


class PreparedSave:
    def __init__(
        self, path: str, scope: Callable[[], PathScope], text: str, to_save: Callable[[str, str], Awaitable[str]]
    ) -> None:
        self._text = text
        self._claimed = False
        self._task = asyncio.ensure_future(self._prepare(path, scope, to_save))

    async def _prepare(
        self, path: str, scope: Callable[[], PathScope], to_save: Callable[[str, str], Awaitable[str]]
    ) -> tuple[str, Temp] | None:
        """``(the text as saved, its temp)``; None if anything stood in the way (the save proper finds it
        again and reports it)."""
        try:
            allowed = scope()
            real = allowed.resolve(path)
            text = await to_save(real, self._text)
            return text, await asyncio.to_thread(prepare_replace, real, text.encode("utf-8"), allowed)
        except (ScopeError, SaveError, UnicodeEncodeError, OSError) as exc:
            log.debug("no temp file ahead of the save of %s: %s", path, exc)
            return None

    async def claim(self, real_path: str, text: str) -> Temp | None:
        """The temp file, if it holds ``text`` as saved at ``real_path``; it is the caller's then. Otherwise
        None, and it is removed."""
        prepared = await asyncio.shield(self._task)
        self._claimed = True
        if prepared is None:
            return None
        saved_text, temp = prepared
        if temp.real_path == real_path and saved_text == text:
            return temp
        await asyncio.to_thread(discard, temp)
        return None

    async def close(self) -> None:
        """Remove the temp file unless a save claimed it (the write was refused, aborted or not saved)."""
        if self._claimed:
            return
        self._claimed = True
        try:
            prepared = await asyncio.shield(self._task)
        except asyncio.CancelledError:
            self._task.add_done_callback(_discard_when_done)  # the write was cancelled: still leave nothing
            raise
        if prepared is not None:
            await asyncio.to_thread(discard, prepared[1])


def _discard_when_done(task: asyncio.Task[tuple[str, Temp] | None]) -> None:
    if not task.cancelled() and (prepared := task.result()) is not None:
        discard(prepared[1])
