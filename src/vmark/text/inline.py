"""The inline structure of one text block: which characters are text, which are syntax or protected.

This follows markdown-it-py's inline parser rule for rule (the same rule order, the same link label,
destination and title parsing, the same emphasis delimiter algorithm, the dialect of
:func:`vmark.text.blocks.block_parser`), but only records what the CJK rules need, which makes it several
times faster than building markdown-it tokens. ``tests/text`` checks it against markdown-it-py itself. Where
it differs, it protects more, never less: the closing ``$`` of math, HTML tags and entities are only looked
for inside the enclosing link text. It keeps dollarmath's quirks: before the first character of the string it
parses, dollarmath reads the last one, so ``$x$`` at the start of a block is text when the block ends with a
digit or a backslash.

The result is a list of :data:`Piece` ``(kind, source_text)`` in source order, whose texts concatenate to the
block content:

- ``T`` text the rules may change;
- ``O`` / ``X`` syntax the rules look through, opening / closing: emphasis and strikethrough markers that
  pair, the ``[`` / ``![`` / ``^[`` of links, images and inline footnotes, and their ``](destination "title")``;
- ``C`` protected and read as a Latin word: inline code, math, autolinks;
- ``S`` protected and opaque: raw HTML, entities, backslash escapes and hard-break backslashes, footnote
  references, wikilinks (``[[name|alias]]``: :mod:`vmark.text.wikilink`), and reference links and images
  whose text is their reference label (``[中文]`` with a ``[中文]: /url`` definition: changing the text would
  break the link).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import cast

from markdown_it.common.entities import entities
from markdown_it.common.html_re import HTML_TAG_RE
from markdown_it.common.normalize_url import validateLink
from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace, normalizeReference, unescapeAll
from markdown_it.helpers import parseLinkDestination, parseLinkTitle
from markdown_it.rules_inline.autolink import AUTOLINK_RE, EMAIL_RE
from markdown_it.rules_inline.entity import DIGITAL_RE, NAMED_RE

from vmark.protocol.limits import MAX_INLINE_NESTING

from .blocks import block_parser
from .wikilink import wikilink_end

Piece = tuple[str, str]

# where a construct can start: ``!`` and ``^`` only before ``[``
_SPECIAL = re.compile(r"[\\`<&$*_~\[]|[!^]\[")
_AUTOLINK_SPAN = re.compile(r"<([^<>]*)>")
# a link destination without ``<``, parentheses, escapes, spaces or control characters: parseLinkDestination
# takes all of it and stops right after it (unless a parenthesis or a backslash follows)
_PLAIN_DESTINATION = re.compile(r"[^\x00-\x20\x7f()\\<][^\x00-\x20\x7f()\\]*")


@functools.cache
def _terminators() -> re.Pattern[str]:
    return block_parser().inline.terminator_re


@functools.cache
def _backtick_run(length: int) -> re.Pattern[str]:
    return re.compile(f"(?<!`)`{{{length}}}(?!`)")


@dataclass(slots=True)
class _Delimiter:
    """One emphasis marker character, or one ``~~`` pair (markdown-it's ``Delimiter``)."""

    text: str
    marker: str
    length: int
    open: bool
    close: bool
    token: int = 0
    end: int = -1
    kind: str = "T"


_Item = Piece | _Delimiter
_Found = tuple[int, list[_Item]]


def has_syntax(src: str) -> bool:
    """Whether ``src`` contains any character that can start inline syntax (else it is all text)."""
    return _SPECIAL.search(src) is not None


def scan(src: str, references: frozenset[str], footnotes: frozenset[str]) -> list[Piece]:
    """The pieces of the inline content ``src``; ``references`` and ``footnotes`` are the labels defined in
    the document (normalized reference labels; footnote labels)."""
    if _SPECIAL.search(src) is None:
        return [("T", src)]
    return _merge(_Scanner(src, references, footnotes).frame(0, len(src), fresh=True))


def _merge(pieces: list[Piece]) -> list[Piece]:
    merged: list[Piece] = []
    for kind, text in pieces:
        if merged and merged[-1][0] == kind:
            merged[-1] = (kind, merged[-1][1] + text)
        else:
            merged.append((kind, text))
    return merged


class _Scanner:
    def __init__(self, src: str, references: frozenset[str], footnotes: frozenset[str]) -> None:
        self.src = src
        self.references = references
        self.footnotes = footnotes
        self._skips: dict[tuple[int, int], int] = {}
        self._unclosed: dict[int, int] = {}
        self._depth = 0

    # -- frames -------------------------------------------------------------------------------------------------

    def frame(self, start: int, end: int, fresh: bool) -> list[Piece]:
        """The pieces of ``src[start:end]``; ``fresh`` when markdown-it parses it as a separate string
        (image descriptions, inline footnotes), where the character before ``start`` counts as a space."""
        src = self.src
        items: list[_Item] = []
        delimiters: list[_Delimiter] = []
        text_from = pos = start
        token = 0
        while (match := _SPECIAL.search(src, pos, end)) is not None:
            at = match.start()
            found = self.construct(at, start, end, fresh, silent=False)
            if found is None:
                pos = at + 1
                continue
            if at > text_from:
                items.append(("T", src[text_from:at]))
                token += 1
            for item in found[1]:
                if isinstance(item, _Delimiter):
                    item.token = token
                    delimiters.append(item)
                token += 1
                items.append(item)
            text_from = pos = found[0]
        if text_from < end:
            items.append(("T", src[text_from:end]))
        if not delimiters:  # then every item is a piece
            return cast(list[Piece], items)
        _balance(delimiters)
        return [(item.kind, item.text) if isinstance(item, _Delimiter) else item for item in items]

    def construct(self, at: int, start: int, end: int, fresh: bool, silent: bool) -> _Found | None:
        """The construct starting at ``at`` (its end and pieces), or None when the character is text."""
        char = self.src[at]
        if char == "$":
            return self._math(at, start, end, fresh)
        if char == "\\":
            return self._escape(at, end)
        if char == "`":
            return self._code(at, end)
        if char in "*_~":
            return None if silent else self._emphasis(at, start, end, fresh)
        if char == "[":
            return self._wikilink(at, end) or self._link(at, end, silent) or self._footnote_ref(at, end)
        if char == "!":
            return self._image(at, end, silent)
        if char == "^":
            return self._inline_footnote(at, end, silent)
        if char == "<":
            return self._autolink(at, end) or self._html(at, end)
        return self._entity(at, end)

    # -- code, math, escapes, entities, HTML, autolinks ----------------------------------------------------------

    def _code(self, at: int, end: int) -> _Found:
        src = self.src
        run_end = at
        while run_end < end and src[run_end] == "`":
            run_end += 1
        length = run_end - at
        if self._unclosed.get(length, len(src)) > at:
            closer = _backtick_run(length).search(src, run_end)
            if closer is None:
                self._unclosed[length] = at
            elif closer.end() <= end:
                return closer.end(), [("C", src[at : closer.end()])]
        return run_end, [("T", src[at:run_end])]

    def _math(self, at: int, start: int, end: int, fresh: bool) -> _Found | None:
        """``$...$`` and ``$$...$$`` with dollarmath's rules: no whitespace inside the dollars, no digit
        right before the opening or right after the closing one, escaped dollars skipped."""
        src = self.src
        if at + 1 >= end or isWhiteSpace(ord(src[at + 1])):
            return None
        # the string markdown-it parses: a fresh frame is one of its own, any other frame is part of the block's
        first, last = (start, end - 1) if fresh else (0, len(src) - 1)
        before = src[at - 1] if at > first else src[last]
        if before.isdigit() or _escaped(src, at, first, last):
            return None
        double = src[at + 1] == "$"
        pos = at + 2 if double else at + 1
        while True:
            close = src.find("$", pos, end)
            if close < 0:
                return None
            if _escaped(src, close):
                pos = close + 1
                continue
            if double:
                if close + 1 >= end:
                    return None
                if src[close + 1] != "$":
                    pos = close + 1
                    continue
                close += 1
            break
        if isWhiteSpace(ord(src[close - 1])) or (close + 1 < end and src[close + 1].isdigit()):
            return None
        body = src[at + 2 : close - 1] if double else src[at + 1 : close]
        return (close + 1, [("C", src[at : close + 1])]) if body else None

    def _escape(self, at: int, end: int) -> _Found | None:
        """A backslash and the character after it (markdown-it keeps ``\\a`` as it is, but as one token), or
        the backslash of a hard break."""
        if at + 1 >= end:
            return None
        if self.src[at + 1] == "\n":
            return at + 1, [("S", "\\")]
        return at + 2, [("S", self.src[at : at + 2])]

    def _entity(self, at: int, end: int) -> _Found | None:
        if at + 1 >= end:
            return None
        if self.src[at + 1] == "#":
            match = DIGITAL_RE.match(self.src, at, end)
        else:
            match = NAMED_RE.match(self.src, at, end)
            if match is not None and match.group(1) not in entities:
                match = None
        return (match.end(), [("S", match.group())]) if match else None

    def _html(self, at: int, end: int) -> _Found | None:
        src = self.src
        if at + 2 >= end:
            return None
        second = src[at + 1]
        if second not in "!?/" and not ("a" <= second.lower() <= "z"):
            return None
        match = HTML_TAG_RE.match(src, at, end)
        return (match.end(), [("S", match.group())]) if match else None

    def _autolink(self, at: int, end: int) -> _Found | None:
        match = _AUTOLINK_SPAN.match(self.src, at, end)
        if match is None:
            return None
        url = match.group(1)
        if AUTOLINK_RE.search(url) is not None:
            if not validateLink(url):
                return None
        elif EMAIL_RE.search(url) is None:
            return None
        return match.end(), [("C", match.group())]

    # -- emphasis ------------------------------------------------------------------------------------------------

    def _emphasis(self, at: int, start: int, end: int, fresh: bool) -> _Found | None:
        """A run of ``*`` or ``_`` (one delimiter per character), or of ``~`` (one per pair, GFM
        strikethrough: a single ``~`` is text, an odd run starts with a text ``~``)."""
        src = self.src
        marker = src[at]
        run_end = at
        while run_end < end and src[run_end] == marker:
            run_end += 1
        count = run_end - at
        last = src[at - 1] if at > (start if fresh else 0) else " "
        following = src[run_end] if run_end < end else " "
        can_open, can_close = _flanking(last, following, can_split_word=marker != "_")
        if marker != "~":
            return run_end, [_Delimiter(marker, marker, count, can_open, can_close) for _ in range(count)]
        if count < 2:
            return None
        items: list[_Item] = [("T", "~")] if count % 2 else []
        items.extend(_Delimiter("~~", "~", 0, can_open, can_close) for _ in range(count // 2))
        return run_end, items

    # -- links, images, footnotes --------------------------------------------------------------------------------

    def label_end(self, at: int, end: int, disable_nested: bool) -> int:
        """markdown-it's ``parseLinkLabel``: the ``]`` closing the ``[`` at ``at``, or -1."""
        src = self.src
        level = 1
        pos = at + 1
        while pos < end:
            char = src[pos]
            if char == "]":
                level -= 1
                if level == 0:
                    return pos
            before = pos
            pos = self._skip(pos, end)
            if char == "[":
                if before == pos - 1:
                    level += 1
                elif disable_nested:
                    return -1
        return -1

    def _skip(self, pos: int, end: int) -> int:
        """markdown-it's ``skipToken``: the end of the token at ``pos`` (rules run silently)."""
        key = (pos, end)
        cached = self._skips.get(key)
        if cached is not None:
            return cached
        src = self.src
        char = src[pos]
        if char == "\n":
            after = pos + 1
            while after < end and src[after] in " \t":
                after += 1
        elif not _terminators().match(char):
            following = _terminators().search(src, pos, end)
            after = following.start() if following else end
        elif self._depth >= MAX_INLINE_NESTING:
            after = end
        else:
            self._depth += 1
            found = self.construct(pos, 0, end, fresh=False, silent=True) if _SPECIAL.match(src, pos, end) else None
            self._depth -= 1
            after = found[0] if found else pos + 1
        self._skips[key] = after
        return after

    def _link(self, at: int, end: int, silent: bool) -> _Found | None:
        label_end = self.label_end(at, end, disable_nested=True)
        if label_end < 0:
            return None
        pos = label_end + 1
        if pos < end and self.src[pos] == "(":
            close = self._destination(pos, end, title_needs_destination=True)
            if close is None:
                return None
            if close < end and self.src[close] == ")":
                return self._linked(at, at + 1, label_end, close + 1, silent, fresh=False)
            pos = close + 1
        return self._reference(at, at + 1, label_end, pos, end, silent, fresh=False)

    def _image(self, at: int, end: int, silent: bool) -> _Found | None:
        if at + 1 >= end or self.src[at + 1] != "[":
            return None
        label_end = self.label_end(at + 1, end, disable_nested=False)
        if label_end < 0:
            return None
        pos = label_end + 1
        if pos < end and self.src[pos] == "(":
            close = self._destination(pos, end, title_needs_destination=False)
            if close is None or close >= end or self.src[close] != ")":
                return None
            return self._linked(at, at + 2, label_end, close + 1, silent, fresh=True)
        return self._reference(at, at + 2, label_end, pos, end, silent, fresh=True)

    def _destination(self, paren: int, end: int, title_needs_destination: bool) -> int | None:
        """After ``(``: skip the destination and title; the position where ``)`` should be, or None when
        markdown-it gives up on the link altogether."""
        src = self.src
        pos = _skip_space(src, paren + 1, end)
        if pos >= end:
            return None
        ok, after, url = _link_destination(src, pos, end)
        if ok and validateLink(url):
            pos = after
        if not ok and title_needs_destination:
            return pos
        before_title = pos
        pos = _skip_space(src, pos, end)
        if pos < end and before_title != pos and src[pos] in "\"'(":
            title = parseLinkTitle(src, pos, end)
            if title.ok:
                pos = _skip_space(src, title.pos, end)
        return pos

    def _reference(
        self, at: int, label_start: int, label_end: int, pos: int, end: int, silent: bool, fresh: bool
    ) -> _Found | None:
        """A full (``[text][label]``), collapsed (``[text][]``) or shortcut (``[text]``) reference."""
        if not self.references:
            return None
        src = self.src
        label = ""
        if pos < end and src[pos] == "[":
            label_close = self.label_end(pos, end, disable_nested=False)
            if label_close >= 0:
                label = src[pos + 1 : label_close]
                pos = label_close + 1
            else:
                pos = label_end + 1
        else:
            pos = label_end + 1
        if normalizeReference(label or src[label_start:label_end]) not in self.references:
            return None
        if not label:
            return pos, [("S", src[at:pos])]
        return self._linked(at, label_start, label_end, pos, silent, fresh)

    def _linked(self, at: int, label_start: int, label_end: int, end: int, silent: bool, fresh: bool) -> _Found:
        src = self.src
        if silent:
            return end, []
        if self._depth >= MAX_INLINE_NESTING:
            return end, [("S", src[at:end])]
        self._depth += 1
        inner: list[_Item] = list(self.frame(label_start, label_end, fresh))
        self._depth -= 1
        return end, [("O", src[at:label_start]), *inner, ("X", src[label_end:end])]

    def _wikilink(self, at: int, end: int) -> _Found | None:
        after = wikilink_end(self.src, at, end)
        return (after, [("S", self.src[at:after])]) if after >= 0 else None

    def _inline_footnote(self, at: int, end: int, silent: bool) -> _Found | None:
        if at + 2 >= end or self.src[at + 1] != "[":
            return None
        label_end = self.label_end(at + 1, end, disable_nested=False)
        if label_end < 0:
            return None
        return self._linked(at, at + 2, label_end, label_end + 1, silent, fresh=True)

    def _footnote_ref(self, at: int, end: int) -> _Found | None:
        src = self.src
        if at + 3 > end or not self.footnotes or src[at + 1] != "^":
            return None
        pos = at + 2
        while pos < end and src[pos] != "]":
            if src[pos] in " \n":
                return None
            pos += 1
        if pos == at + 2 or pos >= end or src[at + 2 : pos] not in self.footnotes:
            return None
        return pos + 1, [("S", src[at : pos + 1])]


def _link_destination(src: str, pos: int, end: int) -> tuple[bool, int, str]:
    """markdown-it's ``parseLinkDestination``: (ok, end, unescaped destination); the common plain destination
    without a Python loop over its characters."""
    plain = _PLAIN_DESTINATION.match(src, pos, end)
    if plain is not None and (plain.end() == end or src[plain.end()] not in "(\\"):
        return True, plain.end(), unescapeAll(plain.group())
    result = parseLinkDestination(src, pos, end)
    return result.ok, result.pos, result.str


def _skip_space(src: str, pos: int, end: int) -> int:
    while pos < end and src[pos] in " \t\n":
        pos += 1
    return pos


def _escaped(src: str, pos: int, first: int = 0, last: int = -1) -> bool:
    """Whether an odd number of backslashes stands right before ``pos`` in the string ``src[first:last + 1]``.

    Before the string's first character dollarmath reads its last one (Python's index ``-1``), once: a block
    that ends with a backslash escapes a ``$`` at its start (``last`` -1 leaves that out)."""
    backslashes = 0
    back = pos - 1
    while back >= first and src[back] == "\\":
        backslashes += 1
        back -= 1
    if back < first and last >= first and src[last] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def _is_punct(char: str) -> bool:
    return isMdAsciiPunct(ord(char)) or isPunctChar(char)


@functools.lru_cache(maxsize=4096)
def _flanking(last: str, following: str, can_split_word: bool) -> tuple[bool, bool]:
    """markdown-it's ``scanDelims``: whether a delimiter run between ``last`` and ``following`` can open
    and can close emphasis."""
    last_punct, next_punct = _is_punct(last), _is_punct(following)
    last_space, next_space = isWhiteSpace(ord(last)), isWhiteSpace(ord(following))
    left = not (next_space or (next_punct and not (last_space or last_punct)))
    right = not (last_space or (last_punct and not (next_space or next_punct)))
    can_open = left and (can_split_word or not right or last_punct)
    can_close = right and (can_split_word or not left or next_punct)
    return can_open, can_close


def _balance(delimiters: list[_Delimiter]) -> None:
    """markdown-it's ``processDelimiters`` (CommonMark's emphasis algorithm with the rule of 3), then the
    paired delimiters become ``O`` / ``X`` and the others stay text."""
    openers_bottom: dict[str, list[int]] = {}
    jumps: list[int] = []
    header = 0
    last_token = -2
    for closer_index, closer in enumerate(delimiters):
        jumps.append(0)
        if delimiters[header].marker != closer.marker or last_token != closer.token - 1:
            header = closer_index
        last_token = closer.token
        if not closer.close:
            continue
        bottoms = openers_bottom.setdefault(closer.marker, [-1] * 6)
        slot = (3 if closer.open else 0) + closer.length % 3
        opener_index = header - jumps[header] - 1
        new_bottom = opener_index
        while opener_index > bottoms[slot]:
            opener = delimiters[opener_index]
            if opener.marker == closer.marker and opener.open and opener.end < 0:
                odd = (
                    (opener.close or closer.open)
                    and (opener.length + closer.length) % 3 == 0
                    and (opener.length % 3 != 0 or closer.length % 3 != 0)
                )
                if not odd:
                    previous_opens = opener_index > 0 and delimiters[opener_index - 1].open
                    last_jump = jumps[opener_index - 1] + 1 if opener_index > 0 and not previous_opens else 0
                    jumps[closer_index] = closer_index - opener_index + last_jump
                    jumps[opener_index] = last_jump
                    closer.open = False
                    opener.end = closer_index
                    opener.close = False
                    new_bottom = -1
                    last_token = -2
                    break
            opener_index -= jumps[opener_index] + 1
        if new_bottom != -1:
            bottoms[slot] = new_bottom
    for delimiter in delimiters:
        if delimiter.end >= 0:
            delimiter.kind = "O"
            delimiters[delimiter.end].kind = "X"
