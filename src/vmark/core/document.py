"""Immutable document state.

A :class:`DocState` is a value: text plus the revision token naming it, and how it came from
its parent (:class:`Splice`). A document takes a new state only through a transaction
(:mod:`vmark.core.transaction`); views (tabs, the UI, the journal) observe states, they never
edit one in place.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import cached_property

from ..protocol.wire_types import LineEnding
from .ids import new_revision
from .spans import Spans

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Splice:
    """How a state came from its parent as a change set: ``spans`` (code points of the parent's text) and
    the same change of the text as pages show it (every line break ``\n``; the same tuple when equal).

    ``spans`` is None when only the shown change is known (the parent's line breaks were mixed and the
    edit gave them all the file's line ending): then observers of the stored text compare texts.
    """

    parent: str
    spans: Spans | None
    shown: Spans


@dataclass(frozen=True)
class DocState:
    text: str
    revision: str = field(default_factory=new_revision)
    #: set when the state is its parent with spans replaced: views then need only the spans
    change: Splice | None = field(default=None, compare=False)

    @cached_property
    def shown(self) -> str:
        """The text as pages show it (every line break ``\n``): the same object when it has no ``\r``."""
        return normalize_line_endings(self.text, "\n")

    @cached_property
    def content_hash(self) -> str:
        """Computed once per state (a state never changes)."""
        return content_hash(self.text)


def content_hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def detect_line_ending(text: str) -> LineEnding:
    match = _LINE_BREAK.search(text)
    return "\n" if match is None else _ENDINGS[match.group(0)]


_ENDINGS: dict[str, LineEnding] = {"\n": "\n", "\r\n": "\r\n", "\r": "\r"}


def normalize_line_endings(text: str, ending: str) -> str:
    """Every ``\r\n``, ``\r`` and ``\n`` becomes ``ending`` (plain replaces: a regex sub is ~100x slower)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text if ending == "\n" else text.replace("\n", ending)
