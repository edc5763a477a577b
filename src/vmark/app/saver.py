"""Saving documents to disk for agents and for the person: atomic, queued, journaled."""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any

from ..coherence.kernel import Actor
from ..core.errors import DomainError
from ..core.kinds import kind_for_path
from ..core.model import Tab, Window
from ..storage.files import SaveError, save_new, save_replace
from ..storage.history import SnapshotKind
from ..storage.journal import JournalEntry
from ..storage.pathscope import ScopeError

if TYPE_CHECKING:
    from .service import App, RequestContext
    from .writes import Recorded


class Saver:
    def __init__(self, app: App) -> None:
        self.app = app

    async def _land(
        self, ctx: RequestContext, window: Window, tab: Tab, real_path: str, ticket: int, new_file: bool
    ) -> str:
        """Put the tab's current text at ``real_path`` through the file's save queue."""
        doc = tab.doc

        async def put() -> str:
            if tab not in window.tabs:
                raise SaveError("the tab was closed before it was saved; nothing was written")
            try:
                scope = self.app.session.scope(window)
                real = scope.resolve(real_path)
            except ScopeError as exc:
                raise DomainError(
                    "INVALID_PATH", f"{real_path!r} left the permitted scope: {exc}", filePath=real_path
                ) from exc
            state = doc.state
            text = await self.app.coherence.text_to_save(real, state.text)
            try:
                data = text.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise SaveError("the text holds characters that cannot be saved as UTF-8") from exc
            writer = save_new if new_file else save_replace
            try:
                stamp = await asyncio.to_thread(writer, real, data, scope)
            except FileExistsError as exc:
                raise DomainError(
                    "APPROVAL_REQUIRED",
                    f"{real_path!r} already exists; save_as never replaces another file",
                    filePath=real_path,
                ) from exc
            except ScopeError as exc:
                raise DomainError("INVALID_PATH", str(exc), filePath=real_path) from exc
            doc.disk = stamp
            if doc.path == real or new_file:
                doc.saved_revision = state.revision
            self.app.session.changed()
            await self.app.coherence.saved(real, text, Actor("agent", ctx.connection.principal))
            return state.revision

        return await self.app.saves.run(real_path, ticket, put)

    async def _snapshot(
        self, ctx: RequestContext, tab: Tab, kind: SnapshotKind, addresses: tuple[str, ...], tool: str | None = None
    ) -> None:
        doc = tab.doc
        self.app.background(
            self.app.history.snapshot(
                doc.key, doc.path, kind, doc.state.revision, doc.state.text, ctx.connection.principal, addresses, tool
            )
        )

    async def save_after_write(
        self, ctx: RequestContext, window: Window, tab: Tab, recorded: Recorded, addresses: tuple[str, ...]
    ) -> dict[str, Any]:
        assert tab.doc.path is not None
        try:
            await self._land(ctx, window, tab, tab.doc.path, self.app.saves.ticket(), new_file=False)
        except SaveError as exc:
            return {"saved": False, "save_error": str(exc)}
        except DomainError as exc:
            return {"saved": False, "save_error": exc.message}
        await self._snapshot(ctx, tab, "mcp", addresses)
        return {"saved": True, "journaled": recorded.journaled}

    async def _journal_save(self, ctx: RequestContext, tab: Tab, tool: str) -> str:
        doc = tab.doc
        state = doc.state
        recorded = await self.app.writer.record_quietly(
            JournalEntry(
                tool=tool,
                doc=doc.key,
                principal=ctx.connection.principal,
                tab=tab.id,
                file=doc.path,
                rev_before=state.revision,
                rev_after=state.revision,
                hash_before=state.content_hash,
                hash_after=state.content_hash,
            )
        )
        return recorded

    async def save(self, ctx: RequestContext, window: Window, tab: Tab) -> dict[str, Any]:
        doc = tab.doc
        if doc.path is None:
            raise DomainError("INVALID_PATH", "The tab is untitled and has no path yet; use save_as", tabId=tab.id)
        if doc.read_only:
            raise DomainError("READ_ONLY", f"{doc.path} is read-only")
        ticket = self.app.saves.ticket()
        try:
            revision = await self._land(ctx, window, tab, doc.path, ticket, new_file=False)
        except SaveError as exc:
            raise DomainError("INTERNAL", f"Saving failed: {exc}", filePath=doc.path) from exc
        journaled = await self._journal_save(ctx, tab, "workspace.save")
        await self._snapshot(ctx, tab, "mcp", (), "workspace.save")
        return {"filePath": doc.path, "revision": revision, "journaled": journaled}

    async def save_as(self, ctx: RequestContext, window: Window, tab: Tab, file_path: str) -> dict[str, Any]:
        doc = tab.doc
        try:
            real = self.app.session.scope(window).resolve(file_path)
        except ScopeError as exc:
            raise DomainError("INVALID_PATH", str(exc), filePath=file_path) from exc
        if real == doc.path:
            result = await self.save(ctx, window, tab)
            return {"revision": result["revision"], "journaled": result["journaled"]}
        kind = kind_for_path(real)
        if kind is None:
            raise DomainError("INVALID_PATH", f"{file_path!r} is not a Markdown or workflow file", filePath=file_path)
        if not self.app.settings.get("auto_approve_save_as"):
            await self.app.session.notify(
                "notification",
                {"level": "warning", "message": f"Blocked an AI save to a new location: {real}"},
                window.label,
            )
            raise DomainError(
                "APPROVAL_REQUIRED",
                "Saving to a new location needs 'Auto-approve saves to a new location' in settings",
                filePath=real,
            )
        if os.path.lexists(real):
            raise DomainError(
                "APPROVAL_REQUIRED",
                f"{real!r} already exists; save_as never replaces another file",
                filePath=real,
            )
        ticket = self.app.saves.ticket()
        try:
            revision = await self._land(ctx, window, tab, real, ticket, new_file=True)
        except SaveError as exc:
            raise DomainError("INTERNAL", f"Saving failed: {exc}", filePath=real) from exc
        self.app.session.rekey(doc, real, kind)
        journaled = await self._journal_save(ctx, tab, "workspace.save_as")
        await self._snapshot(ctx, tab, "mcp", (), "workspace.save_as")
        return {"revision": revision, "journaled": journaled}
