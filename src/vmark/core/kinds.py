"""Which files VMark opens, and as what kind of document."""

from __future__ import annotations

import functools
from pathlib import PurePath

from ..protocol.wire_types import Kind

KINDS: tuple[Kind, ...] = ("markdown", "yaml-workflow")

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd", ".mdx", ".txt"})
WORKFLOW_SUFFIXES = frozenset({".yml", ".yaml"})


def kind_for_path(path: str) -> Kind | None:
    """The kind a file opens as, or ``None`` when VMark refuses to open it."""
    pure = PurePath(path)
    suffix = pure.suffix.lower()
    parts = pure.parts
    if suffix in WORKFLOW_SUFFIXES and len(parts) >= 3 and parts[-3:-1] == (".github", "workflows"):
        return "yaml-workflow"
    if suffix in MARKDOWN_SUFFIXES:
        return "markdown"
    return None


def title_for_path(path: str | None, untitled_number: int = 1) -> str:
    """A tab title: the file name without its suffix, or ``Untitled-N``."""
    if path is None:
        return f"Untitled-{untitled_number}"
    return _stem(path)


@functools.lru_cache(maxsize=1024)
def _stem(path: str) -> str:
    """Kept per path: every tab's title is looked at on every change of the session (each write's among them)."""
    return PurePath(path).stem
