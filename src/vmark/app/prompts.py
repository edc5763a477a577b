"""The person's prompt templates as the app serves them: listed, filled in from the app's state, and watched.

The files live in ``<data dir>/prompts/`` (:mod:`vmark.storage.prompts` reads and checks them); the person edits
them like any document (Settings -> Prompts opens one in a tab). The folder is looked at with the disk poll: when
its files changed, the list is read again, agents are told (``prompts/list_changed``), and a file that became
malformed is reported to the person once (a notification naming the file and what is wrong).

``get`` fills a prompt in: its arguments as given, and the app's values (:data:`STATE_NAMES`) from the tab the
``tab`` argument names, else the focused window's active tab; ``{{selection}}`` asks the page showing that tab
(the selection exists only there, as for ``selection.get``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from pathlib import Path

from ..core.model import Tab
from ..core.prompt_text import TAB_ARGUMENT, fill
from ..protocol import surface
from ..protocol.errors import ArgumentError
from ..protocol.wire_types import PromptFile, PromptFiles
from ..storage.prompts import (
    Malformed,
    Prompt,
    install_shipped,
    new_prompt_file,
    prompts_folder,
    read_prompts,
    stamp,
)
from .page_push import PageEvents
from .state import Session

#: the selected text of a tab (the page shows it), as ``selection.get`` reads it
SelectionOf = Callable[[Tab], Awaitable[str]]


class PromptService:
    def __init__(self, session: Session, pages: PageEvents, data_dir: Path) -> None:
        self.session = session
        self.pages = pages
        self.folder = prompts_folder(data_dir)
        self._stamp: tuple[tuple[str, int, int], ...] | None = None
        self._prompts: list[Prompt] = []
        self._malformed: list[Malformed] = []
        #: told when the list of prompts changed
        self.listeners: list[Callable[[], None]] = []

    async def start(self) -> None:
        await asyncio.to_thread(install_shipped, self.folder)
        await self.check(announce=False)

    async def check(self, announce: bool = True) -> None:
        """Read the prompts again when their files changed; tell agents, and the person of new errors."""
        now = await asyncio.to_thread(stamp, self.folder)
        if now == self._stamp:
            return
        self._stamp = now
        before = {m.path: m.error for m in self._malformed}
        listed_before = [_listed(p) for p in self._prompts]
        self._prompts, self._malformed = await asyncio.to_thread(read_prompts, self.folder)
        if announce:
            for bad in self._malformed:
                if before.get(bad.path) != bad.error:
                    message = f"The prompt file {os.path.basename(bad.path)} is not offered to agents: {bad.error}"
                    await self.pages.notify("notification", {"level": "warning", "message": message})
        if [_listed(p) for p in self._prompts] != listed_before or not announce:
            for listener in self.listeners:
                listener()

    # --- the person's view ---------------------------------------------------------------------------------------
    def overview(self) -> PromptFiles:
        """Every prompt file for Settings -> Prompts: the prompts agents are offered, and the malformed ones."""
        files: list[PromptFile] = [
            {"file": p.path, "name": p.name, "title": p.title, "description": p.description, "error": None}
            for p in self._prompts
        ]
        files += [{"file": m.path, "name": None, "title": None, "description": None, "error": m.error}
                  for m in self._malformed]  # fmt: skip
        files.sort(key=lambda f: f["file"])
        return {"folder": str(self.folder), "prompts": files}

    async def create(self) -> str:
        """A new prompt file, ``prompt-N.md``, with a skeleton to fill in; its path."""
        return await asyncio.to_thread(new_prompt_file, self.folder)

    # --- agents ---------------------------------------------------------------------------------------------------
    def listing(self) -> list[surface.Prompt]:
        return [_listed(p) for p in self._prompts]

    def find(self, name: str) -> Prompt:
        prompt = next((p for p in self._prompts if p.name == name), None)
        if prompt is None:
            known = ", ".join(p.name for p in self._prompts) or "none"
            raise ArgumentError(f"no prompt named {name!r} (the prompts: {known})")
        return prompt

    async def get(self, name: str, arguments: dict[str, str], selection_of: SelectionOf) -> surface.PromptGot:
        prompt = self.find(name)
        declared = {a.name for a in prompt.arguments}
        unknown = sorted(set(arguments) - declared)
        if unknown:
            takes = ", ".join(sorted(declared)) or "no arguments"
            raise ArgumentError(f"prompt {name!r} has no argument {unknown[0]!r} (it takes: {takes})")
        for argument in prompt.arguments:
            if argument.required and not arguments.get(argument.name):
                raise ArgumentError(f"prompt {name!r} needs the argument {argument.name!r}")
        values = {a.name: arguments.get(a.name, "") for a in prompt.arguments}
        if prompt.uses:
            values.update(await self._state(prompt, arguments.get(TAB_ARGUMENT) or None, selection_of))
        text = fill(prompt.body, values)
        return {
            "description": prompt.description,
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        }

    async def _state(self, prompt: Prompt, tab_id: str | None, selection_of: SelectionOf) -> dict[str, str]:
        _window, tab = self.session.resolve_tab(tab_id)
        doc = tab.doc
        values = {
            "document": doc.state.text,
            "title": tab.title,
            "filePath": doc.path or "(untitled)",
            "revision": doc.state.revision,
            "tabId": tab.id,
        }
        if "selection" in prompt.uses:
            values["selection"] = await selection_of(tab)
        return values


def _listed(prompt: Prompt) -> surface.Prompt:
    listed: surface.Prompt = {
        "name": prompt.name,
        "description": prompt.description,
        "arguments": [
            {"name": a.name, "description": a.description, "required": a.required} for a in prompt.arguments
        ],
    }
    if prompt.title:
        listed["title"] = prompt.title
    return listed
