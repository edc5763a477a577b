"""Which mode a tab opens in: the one its file was last shown in, else the ``editor.default_mode`` setting.

A workflow (YAML) tab is always source; a Markdown tab takes its file's remembered mode (the person's last
toggle of that file, kept in ``modes.json``: :class:`~vmark.storage.modes.ModeMemory`), else the setting
(WYSIWYG unless the person chose source). Only a toggle is remembered: a file never toggled follows the
setting when it changes.
"""

from __future__ import annotations

import asyncio
from typing import cast

from ..core.model import Document, Mode
from ..storage.modes import ModeMemory
from ..storage.settings import Settings


class EditorModes:
    def __init__(self, settings: Settings, memory: ModeMemory) -> None:
        self.settings = settings
        self.memory = memory

    def initial(self, doc: Document) -> Mode:
        """The mode a new tab of ``doc`` shows first."""
        if doc.kind != "markdown":
            return "source"
        remembered = self.memory.get(doc.path) if doc.path is not None else None
        return remembered or cast(Mode, self.settings.get("editor.default_mode"))

    async def toggled(self, doc: Document, mode: Mode) -> None:
        """The person switched a tab of ``doc`` to ``mode``: its file opens so next time."""
        if doc.kind == "markdown" and doc.path is not None:
            await asyncio.to_thread(self.memory.remember, doc.path, mode)

    def moved(self, old: str, new: str) -> None:
        """A document moved (rename, save as): a remembered mode moves with it."""
        if self.memory.get(old) is not None:
            self.memory.move(old, new)
