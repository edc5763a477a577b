"""A document's front matter: left out of every export; its ``title`` (and ``lang``) name the export.

The rule is the editor's (``frontend/src/editors/mdsource/markdown.ts``): ``---`` alone on the first line (a BOM
before it allowed), up to the next line that is ``---`` or ``...``; no closing line, no front matter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

_OPEN = re.compile(r"---[ \t]*")
_CLOSE = re.compile(r"(---|\.\.\.)[ \t]*")


@dataclass(frozen=True)
class Split:
    #: the Markdown after the front matter (all of it when there is none)
    body: str
    #: ``title`` of the front matter, when it is a plain string
    title: str | None
    #: ``lang`` of the front matter (``en``, ``de-CH``), when it is a plain string
    lang: str | None


def split_front_matter(text: str) -> Split:
    lines = text.split("\n")
    if not lines or not _OPEN.fullmatch(lines[0].removeprefix("\ufeff").rstrip("\r")):
        return Split(text, None, None)
    for k in range(1, len(lines)):
        if _CLOSE.fullmatch(lines[k].rstrip("\r")):
            meta = _mapping("\n".join(lines[1:k]))
            return Split("\n".join(lines[k + 1 :]), _text(meta.get("title")), _text(meta.get("lang")))
    return Split(text, None, None)


def _mapping(yaml_text: str) -> dict[str, Any]:
    try:
        value = YAML(typ="safe", pure=True).load(yaml_text)
    except YAMLError:
        return {}  # front matter that is no YAML still is front matter: left out, naming nothing
    return value if isinstance(value, dict) else {}


def _text(value: object) -> str | None:
    return (value.strip() or None) if isinstance(value, str) else None
