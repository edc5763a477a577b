"""Quote pairing: straight (and curly) quotes around or next to CJK text become typographic quotes.

Each quote character is classified from its neighbours, then openers and closers are paired with one stack
per quote type (double, single); a closer of one type drops the unclosed openers of the other type inside
it. What is not a quote stays as it is: apostrophes (``don't``, ``it's``, ``students'`` without an opener),
primes (``5'10"``), decades (``'90s``), and orphans without a partner.

Only pairs that involve CJK (CJK inside, or a CJK letter right outside) change; pure Latin quotes are the
writer's business. The style decides the glyphs: curly “” ‘’, corner brackets 「」 『』 (only when the
quoted text has Han characters, curly otherwise), guillemets « » ‹ ›.
"""

from __future__ import annotations

import re

from .chars import CJK, CLOSE, FW_CLOSING, FW_OPENING, FW_STOPS, HAN_RE, MARKS, OPEN, SEP, replace_characters

_QUOTE = re.compile("[\"'“”‘’]")
_CJK = re.compile(f"[{CJK}]")
_LETTER = re.compile("[A-Za-z\u00c0-\u024f]")
_OPENS_AFTER = set(" \t\n([{<" + FW_OPENING + FW_STOPS + "“‘«‹—" + OPEN + SEP)
_CLOSES_BEFORE = set(" \t\n)]}>" + FW_CLOSING + FW_STOPS + ".,!?;:”’»›" + CLOSE + SEP)

_GLYPHS: dict[str, tuple[str, str, str, str]] = {
    "curly": ("“", "”", "‘", "’"),
    "corner": ("「", "」", "『", "』"),
    "guillemets": ("«", "»", "‹", "›"),
}


def convert_quotes(text: str, style: str) -> str:
    """``text`` with the CJK quote pairs in ``style``; blocks are separated by :data:`SEP` lines."""
    if not _QUOTE.search(text):
        return text
    replacements: dict[int, str] = {}
    for opener, closer in _pairs(text):
        if _involves_cjk(text, opener, closer):
            replacements.update(_glyphs(text, opener, closer, style))
    return replace_characters(text, replacements)


def _pairs(text: str) -> list[tuple[int, int]]:
    """The (opener, closer) positions of the quote pairs, per block."""
    pairs: list[tuple[int, int]] = []
    stacks: dict[bool, list[int]] = {True: [], False: []}
    block_end = -1  # where the block of the last quote ends (a SEP, or the end of the text)
    for match in _QUOTE.finditer(text):
        at = match.start()
        char = match.group()
        if at > block_end:
            stacks[True].clear()
            stacks[False].clear()
            found = text.find(SEP, at)
            block_end = len(text) if found < 0 else found
        double = char in '"“”'
        role = _role(text, at, char, bool(stacks[double]))
        if role == "open":
            stacks[double].append(at)
        elif role == "close" and stacks[double]:
            opener = stacks[double].pop()
            inner = stacks[not double]
            while inner and inner[-1] > opener:
                inner.pop()
            pairs.append((opener, at))
    return pairs


def _role(text: str, at: int, char: str, pending: bool) -> str:
    """``open``, ``close`` or ``other`` (apostrophe, prime, decade) for the quote at ``at``."""
    before = text[at - 1] if at > 0 else "\n"
    after = text[at + 1] if at + 1 < len(text) else "\n"
    if char in "'’" and _LETTER.match(before) and (_LETTER.match(after) or not pending):
        return "other"
    if char == "'" and not before.isalnum() and text[at + 1 : at + 3].isdigit() and len(text[at + 1 : at + 3]) == 2:
        return "other"
    if char in "'\"" and before.isdigit() and not pending:
        return "other"
    if char in "“‘":
        return "open"
    if char in "”’":
        return "close"
    if before in _OPENS_AFTER:
        return "open"
    if after in _CLOSES_BEFORE or pending:
        return "close"
    return "open"


def _outside(text: str, at: int, step: int) -> str:
    """The character next to ``at`` in direction ``step``, looking through syntax markers."""
    at += step
    while 0 <= at < len(text) and text[at] in MARKS:
        at += step
    return text[at] if 0 <= at < len(text) else ""


def _involves_cjk(text: str, opener: int, closer: int) -> bool:
    if _CJK.search(text, opener + 1, closer):
        return True
    return bool(_CJK.match(_outside(text, opener, -1)) or _CJK.match(_outside(text, closer, 1)))


def _glyphs(text: str, opener: int, closer: int, style: str) -> dict[int, str]:
    if style == "corner" and not HAN_RE.search(text, opener + 1, closer):
        style = "curly"
    double_open, double_close, single_open, single_close = _GLYPHS[style]
    if text[opener] in '"“”':
        return {opener: double_open, closer: double_close}
    return {opener: single_open, closer: single_close}
