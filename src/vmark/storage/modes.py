"""The editor mode each file was last shown in (``modes.json`` in the data directory).

A Markdown file the person toggled to WYSIWYG or to source opens in that mode again, also after a
restart; a file never toggled opens in the ``editor.default_mode`` setting. Keys are canonical paths; the
file keeps the :data:`~vmark.protocol.limits.MAX_REMEMBERED_MODES` most recently toggled ones (a JSON object in
the order they were toggled, the latest last).
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

from ..core.model import Mode
from ..protocol.limits import MAX_REMEMBERED_MODES
from .atomic_json import read_json, write_json

_MODES: frozenset[str] = frozenset({"wysiwyg", "source"})


class ModeMemory:
    """Read once, then kept in memory (one app runs per data directory); every change is written at once."""

    def __init__(self, path: Path, limit: int = MAX_REMEMBERED_MODES) -> None:
        self.path = path
        self.limit = limit
        self._modes: dict[str, Mode] | None = None

    def _loaded(self) -> dict[str, Mode]:
        if self._modes is None:
            data = read_json(self.path)
            files = data.get("files") if isinstance(data, dict) else None
            self._modes = {}
            for entry in files if isinstance(files, list) else []:
                if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str) and entry[1] in _MODES:
                    self._modes[entry[0]] = cast(Mode, entry[1])
        return self._modes

    def get(self, path: str) -> Mode | None:
        return self._loaded().get(path)

    def remember(self, path: str, mode: Mode) -> None:
        """``path`` was last shown in ``mode`` (blocking: handlers call it in a thread)."""
        modes = self._loaded()
        modes.pop(path, None)
        modes[path] = mode
        self._save(modes)

    def move(self, old: str, new: str) -> None:
        """A renamed or moved file keeps its mode under its new path."""
        modes = self._loaded()
        mode = modes.pop(old, None)
        if mode is not None:
            modes[new] = mode
            self._save(modes)

    def _save(self, modes: dict[str, Mode]) -> None:
        while len(modes) > self.limit:
            del modes[next(iter(modes))]
        # A list, not an object: the order (the latest last) survives the JSON file's sorted keys.
        write_json(self.path, {"files": [[path, mode] for path, mode in modes.items()]})
