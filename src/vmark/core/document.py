"""Immutable document state, changed only through transactions.

A :class:`DocState` is a value: text plus the revision token naming it. A
:class:`Transaction` says what changes and who changed it; applying one yields a new
state with a fresh revision. Views (tabs, the UI, the journal) observe states; they
never edit one in place.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from .ids import new_revision

Origin = Literal["agent", "person", "disk", "revert"]

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Splice:
    """How a state came from its parent when that is one replaced span (code points of the text)."""

    parent: str
    start: int
    end: int
    insert: str

    def describe(self) -> dict[str, str | int]:
        return {"base": self.parent, "from": self.start, "to": self.end, "insert": self.insert}


@dataclass(frozen=True)
class DocState:
    text: str
    revision: str = field(default_factory=new_revision)
    #: set when the state is its parent with one span replaced: views then need only the span
    change: Splice | None = field(default=None, compare=False)

    @cached_property
    def content_hash(self) -> str:
        """Computed once per state (a state never changes)."""
        return content_hash(self.text)


@dataclass(frozen=True)
class Transaction:
    """Replace the whole text (the surface's only granularity for agents today)."""

    text: str
    origin: Origin

    def apply(self, state: DocState) -> DocState:
        return DocState(text=self.text)


def content_hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def has_lone_surrogate(text: str) -> bool:
    """Python strings decoded from JSON can carry unpaired UTF-16 surrogates.

    A str never holds a valid pair (JSON's pairs decode to one code point), so any
    surrogate is a lone one, and strict UTF-8 refuses exactly those; encoding is several
    times faster than a regex scan over a large document.
    """
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def detect_line_ending(text: str) -> str:
    match = _LINE_BREAK.search(text)
    return match.group(0) if match else "\n"


def normalize_line_endings(text: str, ending: str) -> str:
    """Every ``\r\n``, ``\r`` and ``\n`` becomes ``ending`` (plain replaces: a regex sub is ~100x slower)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text if ending == "\n" else text.replace("\n", ending)
