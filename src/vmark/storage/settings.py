"""User settings (``settings.json`` in the data directory), with their types and defaults."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..protocol.limits import DEFAULT_REVIEW_BACKLOG_LIMIT
from .atomic_json import update_json

#: key -> (type, default). The one place a setting is declared.
SETTINGS: dict[str, tuple[type, Any]] = {
    "auto_approve_save_as": (bool, False),
    "readable_roots": (list, []),
    "review_backlog_limit": (int, DEFAULT_REVIEW_BACKLOG_LIMIT),
    "browser.enabled": (bool, True),
    "browser.posture": (str, "sandbox"),
    "browser.allow_private_network": (bool, False),
    "editor.remote_images": (bool, True),
    #: where pasted and dropped images are written: a folder relative to the document's own
    "editor.image_folder": (str, "assets"),
    "editor.save_automatically": (bool, False),
    "editor.theme": (str, "system"),
    #: the mode a Markdown file opens in until the person toggles it (then the file keeps its own)
    "editor.default_mode": (str, "wysiwyg"),
    #: the browser's spell checker in prose (never in code, math or front matter)
    "editor.spellcheck": (bool, True),
    #: the block the caret is in stands out, the rest is dimmed
    "editor.focus_mode": (bool, False),
    #: the caret's line stays in the middle of the editor while typing
    "editor.typewriter_mode": (bool, False),
}


#: key -> extra check of a value (ranges, enums) beyond its type; answers a message or None.
_CHECKS: dict[str, Callable[[str, Any], str | None]] = {}


def _positive(key: str, value: Any) -> str | None:
    # A limit of 0 would refuse every agent write with REVIEW_BACKLOG_FULL.
    return None if value >= 1 else f"setting {key!r} must be at least 1, not {value!r}"


_CHECKS["review_backlog_limit"] = _positive
_CHECKS["editor.theme"] = lambda key, value: (
    None
    if value in ("system", "light", "dark")
    else f"setting {key!r} must be 'system', 'light' or 'dark', not {value!r}"
)
_CHECKS["editor.default_mode"] = lambda key, value: (
    None if value in ("wysiwyg", "source") else f"setting {key!r} must be 'wysiwyg' or 'source', not {value!r}"
)
_CHECKS["editor.image_folder"] = lambda key, value: (
    None
    if "\x00" not in value and "\\" not in value and not value.startswith("/") and value.strip() == value
    else f"setting {key!r} must be a folder relative to the document (such as 'assets'), not {value!r}"
)
_CHECKS["browser.posture"] = lambda key, value: (
    None if value in ("sandbox", "shared") else f"setting {key!r} must be 'sandbox' or 'shared', not {value!r}"
)


def register(keys: dict[str, tuple[type, Any]], check: Callable[[str, Any], str | None] | None = None) -> None:
    """Add another package's settings (e.g. the CJK rules) to the one table."""
    SETTINGS.update(keys)
    if check is not None:
        _CHECKS.update(dict.fromkeys(keys, check))


class SettingsError(ValueError):
    pass


class Settings:
    """Read fresh from disk when the file changes, so the CLI and the app agree."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._cache: dict[str, Any] = {}
        self._mtime: int | None = None

    def _load(self) -> dict[str, Any]:
        try:
            mtime = os.stat(self.path).st_mtime_ns
        except FileNotFoundError:
            self._cache, self._mtime = {}, None
            return self._cache
        if mtime != self._mtime:
            try:
                data = json.loads(self.path.read_text("utf-8"))
            except ValueError:
                data = {}
            self._cache = data if isinstance(data, dict) else {}
            self._mtime = mtime
        return self._cache

    def get(self, key: str) -> Any:
        if key not in SETTINGS:
            raise SettingsError(f"unknown setting {key!r}; known: {', '.join(sorted(SETTINGS))}")
        typ, default = SETTINGS[key]
        value = self._load().get(key, default)
        return value if isinstance(value, typ) else default

    def set(self, key: str, value: Any) -> None:
        if key not in SETTINGS:
            raise SettingsError(f"unknown setting {key!r}; known: {', '.join(sorted(SETTINGS))}")
        typ, _ = SETTINGS[key]
        if not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
            raise SettingsError(f"setting {key!r} takes a {typ.__name__}, not {value!r}")
        if isinstance(value, list) and not all(isinstance(v, str) for v in value):
            raise SettingsError(f"setting {key!r} takes a list of strings")
        problem = _CHECKS[key](key, value) if key in _CHECKS else None
        if problem is not None:
            raise SettingsError(problem)
        update_json(self.path, lambda data: data.__setitem__(key, value))
        self._mtime = None

    @staticmethod
    def parse_value(text: str) -> Any:
        """A CLI value: JSON when it parses (``true``, ``50``, ``["/a"]``), else the string."""
        try:
            return json.loads(text)
        except ValueError:
            return text
