"""Which lines of a Markdown text link to a given file: the scanner behind ``ui.backlinks`` (docs/backlinks.md).

Two kinds of link count. A Markdown link or image, ``[x](rel.md)``, ``[x](rel.md#h)``, ``[x](<with space.md>)``,
whose destination, percent-decoded and taken from the linking file's folder (``.md`` added to a name with no
suffix, as the page follows it), is the file. And a wikilink, ``[[name]]``, ``[[name|alias]]``,
``[[name#heading]]``, whose name is the file's name (with or without ``.md``, case-insensitively) or a path
suffix of it at a folder boundary. That wikilink rule is the broad one: the page drops the wikilinks that
its own rule (``editors/wikilinks.ts resolveWikilink``, nearest file of that name wins) resolves to another
file, so a line whose only links are wikilinks carries their names. Links inside code spans and fences are
counted too (the scanner reads lines, not a parse).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from urllib.parse import unquote

#: ``[text](destination "title")`` and ``![alt](...)``: the destination in angle brackets or up to a space
_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*(<[^>\n]*>|[^\s)]+)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)")
_WIKILINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
#: the suffixes of the files VMark opens as text (core/kinds.py): a name without one means ``name.md``
_TEXT_SUFFIX = re.compile(r"\.(md|markdown|mdown|mkd|mdx|txt)$", re.IGNORECASE)
_ANY_SUFFIX = re.compile(r"\.[A-Za-z0-9]+$")


@dataclass(frozen=True)
class LineLink:
    """A line that links to the file: its number (1-based), its text, and the names of its wikilinks that may
    name the file when no Markdown link of the line does (empty: a Markdown link resolves to it for certain)."""

    line: int
    text: str
    wikilinks: tuple[str, ...] = field(default=())


def link_target(destination: str, source: str) -> str | None:
    """The absolute path a Markdown link's destination in the file ``source`` names, or None (a web address,
    another scheme, or only a ``#heading`` of its own document)."""
    written = destination.strip()
    if written.startswith("<") and written.endswith(">"):
        written = written[1:-1].strip()
    if _SCHEME.match(written) or written.startswith("//"):
        return None
    path = unquote(written.split("#", 1)[0].split("?", 1)[0])
    if path == "":
        return None
    name = path.rsplit("/", 1)[-1]
    if name != "" and not _ANY_SUFFIX.search(name):
        path += ".md"
    return os.path.normpath(os.path.join(os.path.dirname(source), path))


def wikilink_may_name(name: str, target: str) -> bool:
    """Whether ``[[name]]`` may name the file at ``target`` (its name, or a path suffix of it)."""
    wanted = re.sub(r"^\.?/+", "", name.strip().lower())
    if wanted == "":
        return False
    candidates = [wanted, f"{wanted}.md"] if _TEXT_SUFFIX.search(wanted) else [f"{wanted}.md"]
    path = target.replace(os.sep, "/").lower()
    return any(path == c or path.endswith(f"/{c}") for c in candidates)


def links_to(text: str, source: str, target: str, max_chars: int) -> list[LineLink]:
    """The lines of ``text`` (the file at ``source``) that link to ``target``, each cut to ``max_chars``."""
    found: list[LineLink] = []
    if "[" not in text:
        return found
    for number, line in enumerate(text.splitlines(), start=1):
        if "[" not in line:
            continue
        direct = any(link_target(m.group(1), source) == target for m in _LINK.finditer(line))
        names: list[str] = []
        if not direct:
            for match in _WIKILINK.finditer(line):
                name = match.group(1).split("|", 1)[0].split("#", 1)[0].strip()
                if wikilink_may_name(name, target) and name not in names:
                    names.append(name)
        if direct or names:
            found.append(LineLink(number, line.strip()[:max_chars], tuple(names)))
    return found
