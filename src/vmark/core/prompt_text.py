"""A prompt template's text: its ``{{name}}`` placeholders, checked and filled in.

A placeholder names one of the prompt's arguments or one of the app's values (:data:`STATE_NAMES`: the tab's
document, its selection, its title, ...). ``{{{{`` writes ``{{`` literally. Filling is one pass: a value that
itself holds ``{{x}}`` stays as it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: what the app fills in from its state (the tab is the ``tab`` argument, else the focused tab)
STATE_NAMES = ("document", "selection", "title", "filePath", "revision", "tabId")
#: the argument that names the tab the state values come from
TAB_ARGUMENT = "tab"
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
_PLACEHOLDER = re.compile(r"\{\{\{\{|\{\{\s*([^{}]*?)\s*\}\}")


def placeholders(text: str) -> list[str]:
    """The names the text's placeholders use, in order of first use; :class:`ValueError` for a malformed one."""
    names: list[str] = []
    for match in _PLACEHOLDER.finditer(text):
        name = match.group(1)
        if name is None:
            continue
        if not NAME.fullmatch(name):
            raise ValueError(f"{{{{{name}}}}} is not a placeholder: a name is letters, digits, _ and -")
        if name not in names:
            names.append(name)
    return names


def fill(text: str, values: Mapping[str, str]) -> str:
    """``text`` with every placeholder replaced by its value (each must have one)."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        return "{{" if name is None else values[name]

    return _PLACEHOLDER.sub(value, text)
