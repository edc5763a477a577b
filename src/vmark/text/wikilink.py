"""Wikilinks (Obsidian's ``[[name]]``, ``[[name|alias]]``, ``[[name#heading]]``): the editor's construct, known
here so that a transform never changes one (``[[中文abc]]`` names a file: a space inside would break it).

The same rule as the editor's (``frontend/src/editors/mdsource/wikilink.ts``, described in ``docs/links.md``): ``[[``
up to the first ``]]`` on the same line, at most :data:`MAX_INNER` characters inside, none of them ``[``,
``]``, a backtick or a line break, a backslash only as ``\\|``, and a name or a heading that is not blank. It
is an inline rule of the dialect (:func:`vmark.text.blocks.block_parser`), before ``link``, so code spans and
escapes win as they do in the editor; the inline scanner protects what it matches.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

#: the longest inside of a wikilink looked at
MAX_INNER = 1000
_STOP = frozenset("[`\n\r")


def wikilink_end(src: str, pos: int, end: int) -> int:
    """Where the wikilink starting at ``pos`` ends (after ``]]``, at most ``end``), or -1."""
    if not src.startswith("[[", pos):
        return -1
    start = pos + 2
    limit = min(end, start + MAX_INNER + 2)
    at = start
    while at < limit - 1:
        char = src[at]
        if char == "]":
            if src[at + 1] != "]":
                return -1
            return at + 2 if _named(src[start:at]) else -1
        if char in _STOP or (char == "\\" and src[at + 1] != "|"):
            return -1
        at += 1
    return -1


def _named(inner: str) -> bool:
    target = inner.split("|", 1)[0].removesuffix("\\")
    name, _, heading = target.partition("#")
    return name.strip() != "" or heading.strip() != ""


def _rule(state: StateInline, silent: bool) -> bool:
    found = wikilink_end(state.src, state.pos, state.posMax)
    if found < 0:
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.markup = state.src[state.pos : found]
    state.pos = found
    return True


def wikilink_plugin(md: MarkdownIt) -> None:
    """The wikilink inline rule, before ``link`` (as in the editor)."""
    md.inline.ruler.before("link", "wikilink", _rule)
