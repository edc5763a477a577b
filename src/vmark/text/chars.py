"""Character classes of the CJK rules, as regular-expression fragments, and the placeholder characters.

Every class is a fragment meant to sit inside ``[...]``. The engine replaces Markdown syntax and protected
constructs with *placeholders* before the rules run, so the rules see one plain string per text block:

- :data:`OPEN` and :data:`CLOSE` stand for syntax the rules look *through* (emphasis markers, the ``[`` of a
  link, the ``](url)`` after its text). A space inserted at a marker goes outside it: before an opener, after
  a closer.
- :data:`CODE` and :data:`TECH` stand for protected runs that read like a Latin word (inline code, math,
  autolinks; URLs, e-mail addresses, versions, numbers found in the text). CJK next to them gets a space.
- :data:`STOP` stands for protected runs no rule looks across (raw HTML, entities, escapes, footnote
  references, reference links whose text is their key).
- :data:`SEP` separates the blocks when all blocks of a document go through the rules in one string.

Placeholders are Unicode noncharacters (U+FDD0...), which text never legitimately contains; a block that does
contain one is left alone.
"""

from __future__ import annotations

import re

OPEN = "\ufdd0"
CLOSE = "\ufdd1"
CODE = "\ufdd2"
STOP = "\ufdd3"
TECH = "\ufdd4"
SEP = "\ufdd5"
#: the separator between blocks: on a line of its own, so that no rule reaches across it
SEP_LINE = f"\n{SEP}\n"
MARKS = OPEN + CLOSE
LATIN_ATOMS = CODE + TECH
#: every noncharacter; text containing one of these is not transformed
RESERVED = "\ufdd0-\ufdef"

HAN = (
    "\u2e80-\u2eff\u2f00-\u2fdf\u3005\u3007\u3021-\u3029\u3038-\u303b\u3400-\u4dbf\u4e00-\u9fff"
    "\uf900-\ufaff\U00020000-\U0002fa1f\U00030000-\U000323af"
)
KANA = "\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9d"
BOPOMOFO = "\u3100-\u312f\u31a0-\u31bf"
HANGUL = "\u1100-\u11ff\u3131-\u318e\ua960-\ua97f\uac00-\ud7a3\ud7b0-\ud7ff\uffa0-\uffdc"
HANGUL_SYLLABLE = "\uac00-\ud7a3"

#: CJK letters for spacing: Han, kana, bopomofo and Hangul
CJK = HAN + KANA + BOPOMOFO + HANGUL
#: CJK letters that take full-width punctuation and brackets; Korean is written with ASCII punctuation
CJK_FULLWIDTH = HAN + KANA + BOPOMOFO
#: letters and digits of alphabetic scripts: ASCII, Latin-1 and Latin Extended letters, Greek, Cyrillic
LATIN = "A-Za-z0-9\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u0386\u0388-\u03ff\u0400-\u04ff"
#: what makes a block a CJK block: CJK letters, CJK symbols and punctuation, full-width forms
CJK_BLOCK = CJK + "\u3000-\u303f\uff00-\uffef"

FW_OPENING = "（「『【《〈〔"
FW_CLOSING = "）」』】》〉〕"
FW_STOPS = "，。！？；：、"
CURLY_OPENING = "“‘«‹"
CURLY_CLOSING = "”’»›"

#: half-width punctuation -> full-width, for the punctuation rule
PUNCTUATION_TO_FULLWIDTH = str.maketrans(",.!?:;", "，。！？：；")
#: full-width letters and digits -> ASCII
FULLWIDTH_ALNUM_TO_ASCII = {
    **{0xFF10 + i: 0x30 + i for i in range(10)},
    **{0xFF21 + i: 0x41 + i for i in range(26)},
    **{0xFF41 + i: 0x61 + i for i in range(26)},
}

CJK_RE = re.compile(f"[{CJK}]")
HAN_RE = re.compile(f"[{HAN}]")
CJK_BLOCK_RE = re.compile(f"[{CJK_BLOCK}]")
RESERVED_RE = re.compile(f"[{RESERVED}]")
FULLWIDTH_ALNUM_RE = re.compile("[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]")


def replace_characters(text: str, changes: dict[int, str]) -> str:
    """``text`` with the character at each position of ``changes`` replaced by its value (``""`` deletes it)."""
    parts: list[str] = []
    done = 0
    for index in sorted(changes):
        parts.append(text[done:index])
        parts.append(changes[index])
        done = index + 1
    parts.append(text[done:])
    return "".join(parts)
