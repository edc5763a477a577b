"""A fast, conservative scan of a workflow's top-level block structure.

Parsing a whole 1,000-line workflow with ruamel.yaml's pure-Python parser takes tens of
milliseconds, but a patch only needs the entry it edits (one job, or ``on:``). This module reads
the text line by line and finds where each entry of a block mapping begins and ends, so that only
that entry's lines are handed to the real parser (:func:`vmark.ghactions.yamltree.parse` with an
offset). It understands just enough YAML to never misplace a boundary: block scalar bodies are
skipped, quoted scalars and flow collections are followed over as many lines as they take, and
anything unusual (directives, several documents, tabs as indentation, explicit keys, indentation
indicators, lone CR line breaks, a value that never closes...) makes it give up (``None``): the
caller then parses everything. Lines deeper than the keys it is asked about are only checked for
what could open such a construct, which keeps the scan at a few microseconds a line.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple


class Kind(Enum):
    BLANK = "blank"  # empty, or a comment, or a blank line inside a block scalar
    BODY = "body"  # a line of a block scalar's text
    KEY = "key"  # starts with a mapping key ("key:" or "- key:")
    DASH = "dash"  # starts with a sequence dash and holds no key
    OTHER = "other"  # any other content (a plain scalar's continuation, a lone "---")


class Key(NamedTuple):
    text: str  # the key's value
    start: int
    end: int
    colon: int  # index just after the ":"
    style: str | None  # None (plain), "'" or '"'
    after_dash: bool  # the line starts with "- "


class Line(NamedTuple):
    start: int
    end: int  # index of the line break (or the end of the text)
    indent: int
    kind: Kind
    content_end: int  # end of the content, before any trailing comment and blanks
    key: Key | None = None


@dataclass(frozen=True)
class Entry:
    """One ``key: value`` of a block mapping: its key line and the lines up to the next key."""

    key: Key
    first: int  # index (into the line list) of the key line
    last: int  # index of the entry's last content line
    stop: int  # index of the first line after the entry (the next key line, or the mapping's end)


class _GiveUp(Exception):
    pass


_UNUSUAL_BREAKS = re.compile("\r(?!\n)|[\x85\u2028\u2029]")
_PLAIN_STOP = re.compile(r":(?=[ \t]|$)|[ \t]#")
_BLOCK_HEADER = re.compile(r"[|>][+-]?[ \t]*(#.*)?$")
#: lines indented deeper than this are not read for keys (entries() is only asked about shallower columns)
_SHALLOW = 4
_OPENER = re.compile(r"[\"'\[{|>]")
_COMMENT = re.compile(r"[ \t]#")
_DOC_MARKER = re.compile(r"(---|\.\.\.)(?=[ \t]|$)")
#: the usual line, read by one match: dashes, a plain key without ':', '#' or quotes, then nothing, a block scalar
#: header or a plain value without ':' or '#', then an optional comment (anything else goes to _LineLexer)
_SIMPLE = re.compile(
    r"(?P<dashes>(?:-[ ]+)*)"
    r"(?:(?P<key>[A-Za-z0-9_$(][^:#'\"]*?)[ \t]*:(?=[ \t]|$))?"
    r"(?:[ \t]*(?:(?P<block>[|>][+-]?)|(?P<value>[^\s'\"\[\]{}&*!|>%@`#,?:-][^#:]*?)))?"
    r"(?:[ \t]+#.*)?[ \t]*$"
)


def scan(text: str) -> list[Line] | None:
    """Classify every line of ``text``, or ``None`` when the text is not a plain block document."""
    if _UNUSUAL_BREAKS.search(text):
        return None
    try:
        scanner = _Scanner(text)
        lines = scanner.run()
    except _GiveUp:
        return None
    return None if scanner.pending is not None else lines  # a value still open at the end: malformed


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.lines: list[Line] = []
        self.seen_content = False
        self.scalar_owner: int | None = None  # column of the key or dash owning an open block scalar
        self.scalar_indent: int | None = None  # its text's indentation, once known
        self.pending: _Open | None = None  # a quoted scalar or flow collection going on over the next lines

    def run(self) -> list[Line]:
        text = self.text
        start = 1 if text.startswith("\ufeff") else 0
        while start <= len(text):
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            content_end = end - 1 if end > start and text[end - 1] == "\r" else end
            self.lines.append(self.line(start, content_end))
            if end >= len(text):
                break
            start = end + 1
        return self.lines

    def line(self, start: int, end: int) -> Line:
        text = self.text
        stripped = text[start:end].lstrip(" ")
        indent = end - start - len(stripped)
        if self.pending is not None:
            return self.continued(start, end, indent, stripped)
        if self.scalar_owner is not None:
            body = self.body_line(start, end, indent, stripped)
            if body is not None:
                return body
        if not stripped.strip(" \t") or stripped.startswith("#"):
            if stripped.startswith("\t") and stripped.strip(" \t"):
                raise _GiveUp
            return Line(start, end, indent, Kind.BLANK, start + indent)
        if stripped[0] == "\t" or stripped[0] in "%@`":
            raise _GiveUp
        if indent == 0 and _DOC_MARKER.match(stripped):
            return self.document_marker(start, end, stripped)
        self.seen_content = True
        if indent > _SHALLOW and _OPENER.search(text, start + indent, end) is None:
            # deep inside an entry, with nothing that could open a block scalar, a quoted scalar or a flow
            # collection: nothing to know but where its content ends
            comment = _COMMENT.search(text, start + indent, end)
            return Line(start, end, indent, Kind.OTHER, _rstrip_end(text, start, comment.start() if comment else end))
        simple = _SIMPLE.match(text, start + indent, end)
        if simple is not None:
            return self.simple_line(simple, start, end, indent)
        return _LineLexer(self, start, end, indent).lex()

    def simple_line(self, match: re.Match[str], start: int, end: int, indent: int) -> Line:
        dashes, key_text, value = match.group("dashes"), match.group("key"), match.group("value")
        key = None
        if key_text is not None:
            key_start = match.start("key")
            colon = self.text.index(":", match.end("key")) + 1
            key = Key(key_text, key_start, key_start + len(key_text), colon, None, bool(dashes))
            kind, owner, content_end = Kind.KEY, key_start - start, colon
        else:
            kind = Kind.DASH if dashes else Kind.OTHER
            owner = indent + dashes.rstrip(" ").rfind("-") if dashes else indent
            content_end = match.end("dashes") if dashes else start + indent
        if value is not None:
            content_end = match.end("value")
        elif match.group("block") is not None:
            content_end = match.end("block")
            self.open_block_scalar(owner)
        return Line(start, end, indent, kind, content_end, key)

    def body_line(self, start: int, end: int, indent: int, stripped: str) -> Line | None:
        """A line of an open block scalar, or None when the scalar ended before it."""
        assert self.scalar_owner is not None
        if not stripped.strip(" \t"):
            return Line(start, end, indent, Kind.BLANK, start + indent)
        if self.scalar_indent is None and indent > self.scalar_owner:
            self.scalar_indent = indent
        if self.scalar_indent is not None and indent >= self.scalar_indent:
            return Line(start, end, indent, Kind.BODY, _rstrip_end(self.text, start, end))
        if indent > self.scalar_owner:
            raise _GiveUp  # less indented than the text but more than its owner: unusual
        self.scalar_owner = self.scalar_indent = None
        return None

    def continued(self, start: int, end: int, indent: int, stripped: str) -> Line:
        """A line inside a quoted scalar or flow collection opened on an earlier line."""
        assert self.pending is not None
        if indent == 0 and _DOC_MARKER.match(stripped):
            raise _GiveUp
        close = _scan_open(self.text, start, end, self.pending)
        if close < 0:
            return Line(start, end, indent, Kind.BODY, _rstrip_end(self.text, start, end))
        self.pending = None
        rest = self.text[close:end].strip(" \t")
        if rest and not rest.startswith("#"):
            raise _GiveUp  # something after the value (a multi-line flow key, say)
        return Line(start, end, indent, Kind.BODY, close)

    def document_marker(self, start: int, end: int, stripped: str) -> Line:
        rest = stripped[3:].strip(" \t")
        if stripped.startswith("...") or self.seen_content or (rest and not rest.startswith("#")):
            raise _GiveUp
        self.seen_content = True
        return Line(start, end, 0, Kind.BLANK, start)  # the document start: outside every mapping

    def open_block_scalar(self, owner: int) -> None:
        self.scalar_owner = owner
        self.scalar_indent = None


def _rstrip_end(text: str, start: int, end: int) -> int:
    """``end`` moved back over trailing blanks (not before ``start``)."""
    while end > start and text[end - 1] in " \t":
        end -= 1
    return end


class _LineLexer:
    """Reads one content line: dashes, a key, and a value that must end on this line."""

    def __init__(self, scanner: _Scanner, start: int, end: int, indent: int) -> None:
        self.scanner = scanner
        self.text = scanner.text
        self.start = start
        self.end = end
        self.indent = indent
        self.pos = start + indent

    def lex(self) -> Line:
        after_dash = False
        owner = self.indent
        while self.at_dash():
            owner = self.pos - self.start
            after_dash = True
            self.pos = self.skip_blanks(self.pos + 1)
        if self.pos >= self.end or self.text[self.pos] == "#":
            return self.finish(Kind.DASH, None, self.pos if after_dash else self.start + self.indent)
        key = self.key(after_dash)
        if key is not None:
            owner = key.start - self.start
            self.pos = self.skip_blanks(key.colon)
            if self.pos >= self.end or self.text[self.pos] == "#":
                return self.finish(Kind.KEY, key, key.colon)
        content_end = self.value(owner)
        kind = Kind.KEY if key is not None else (Kind.DASH if after_dash else Kind.OTHER)
        return self.finish(kind, key, content_end)

    def finish(self, kind: Kind, key: Key | None, content_end: int) -> Line:
        return Line(self.start, self.end, self.indent, kind, content_end, key)

    def at_dash(self) -> bool:
        return self.text.startswith("-", self.pos) and (self.pos + 1 >= self.end or self.text[self.pos + 1] in " \t")

    def skip_blanks(self, index: int) -> int:
        while index < self.end and self.text[index] in " \t":
            index += 1
        return index

    def key(self, after_dash: bool) -> Key | None:
        """The key at ``pos`` (None when the line holds a value only)."""
        text, pos = self.text, self.pos
        first = text[pos]
        if first in "?:" and (pos + 1 >= self.end or text[pos + 1] in " \t"):
            raise _GiveUp  # explicit key or value indicator
        if first in "\"'":
            close = _scan_open(text, pos + 1, self.end, _Open(0, first, False))
            if close < 0:
                return None  # a quoted scalar over several lines: a value
            colon_at = self.skip_blanks(close)
            if not (text.startswith(":", colon_at) and (colon_at + 1 >= self.end or text[colon_at + 1] in " \t")):
                return None
            inner = text[pos + 1 : close - 1]
            if first == '"' and "\\" in inner:
                raise _GiveUp
            value = inner.replace("''", "'") if first == "'" else inner
            return Key(value, pos, close, colon_at + 1, first, after_dash)
        if first in "[{&*!|>":
            return None
        stop = _PLAIN_STOP.search(text, pos, self.end)
        if stop is None or not text.startswith(":", stop.start()):
            return None
        key_end = _rstrip_end(text, pos, stop.start())
        return Key(text[pos:key_end], pos, key_end, stop.start() + 1, None, after_dash)

    def value(self, owner: int) -> int:
        """Skips the value at ``pos``; returns where its content ends."""
        text = self.text
        while self.pos < self.end and text[self.pos] in "&!":
            self.pos = self.skip_blanks(self.token_end(self.pos))
        if self.pos >= self.end or text[self.pos] == "#":
            return self.pos
        first = text[self.pos]
        if first in "\"'[{":
            state = _Open(0, first, False) if first in "\"'" else _Open(0, None, True)
            close = _scan_open(text, self.pos + (first in "\"'"), self.end, state)
            if close < 0:  # the value goes on over the next lines
                self.scanner.pending = state
                return _rstrip_end(text, self.pos, self.end)
            return self.trailing(close)
        if first == "*":
            return self.trailing(self.token_end(self.pos))
        if first in "|>":
            if not _BLOCK_HEADER.match(text, self.pos, self.end):
                raise _GiveUp  # an indentation indicator or something stranger
            self.scanner.open_block_scalar(owner)
            return self.pos + 1
        if first in "%@`":
            raise _GiveUp
        stop = _PLAIN_STOP.search(text, self.pos, self.end)
        if stop is not None and text.startswith(":", stop.start()):
            raise _GiveUp  # "a: b: c" or a key after properties
        return _rstrip_end(text, self.pos, stop.start() if stop else self.end)

    def trailing(self, end: int) -> int:
        """After a complete value only blanks and a comment may follow."""
        rest = self.skip_blanks(end)
        if rest < self.end and self.text[rest] != "#":
            raise _GiveUp
        return end

    def token_end(self, index: int) -> int:
        while index < self.end and self.text[index] not in " \t":
            index += 1
        return index


@dataclass
class _Open:
    """A quoted scalar or flow collection that is still open (at the end of a line)."""

    depth: int  # flow nesting depth (0: a quoted scalar outside any flow collection)
    quote: str | None  # the quote of an open quoted scalar
    entry_start: bool  # in a flow collection, at the start of an entry (where a quote opens a scalar)


def _scan_open(text: str, index: int, end: int, state: _Open) -> int:
    """Scan ``text[index:end]`` on from ``state``: the index after the construct closes, or -1 when it is
    still open at ``end`` (``state`` then says how)."""
    i = index
    while i < end:
        ch = text[i]
        if state.quote is not None:
            if state.quote == '"' and ch == "\\":
                i += 2
                continue
            if ch == state.quote:
                if ch == "'" and text.startswith("'", i + 1):  # '' is a quote inside single quotes
                    i += 2
                    continue
                state.quote, state.entry_start = None, False
                if state.depth == 0:
                    return i + 1
            i += 1
            continue
        if ch in "\"'" and state.entry_start:
            state.quote = ch
        elif ch in "[{":
            state.depth += 1
        elif ch in "]}":
            state.depth -= 1
            if state.depth == 0:
                return i + 1
        elif ch == "#" and (i == 0 or text[i - 1] in " \t\n"):
            return -1  # a comment to the end of the line
        if ch not in " \t":
            state.entry_start = ch in "[{,:"
        i += 1
    return -1


def entries(lines: list[Line], first: int, stop: int) -> tuple[int, list[Entry]] | None:
    """The entries of the block mapping on lines ``[first, stop)``: its key column and its entries.

    ``None`` when those lines do not hold exactly one block mapping of plain entries (or its keys sit
    deeper than the scan reads keys).
    """
    content = [i for i in range(first, stop) if lines[i].kind is not Kind.BLANK]
    if not content:
        return None
    head = lines[content[0]]
    if head.kind is not Kind.KEY or head.key is None or head.key.after_dash:
        return None
    col = head.indent
    starts: list[int] = []
    for i in content:
        line = lines[i]
        if line.kind is Kind.BODY or line.indent > col:
            continue
        if line.indent < col or line.kind is Kind.OTHER:
            return None
        if line.kind is Kind.KEY and line.key is not None and not line.key.after_dash:
            starts.append(i)
        # else a dash at the key column: an indentless list, part of the entry above
    found = []
    for n, i in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else stop
        last = content[bisect.bisect_left(content, end) - 1]
        key = lines[i].key
        assert key is not None
        found.append(Entry(key, i, last, end))
    return col, found
