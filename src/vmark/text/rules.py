"""The CJK rules, one function each, over the text of the blocks with syntax and protected runs replaced by
placeholders (see :mod:`vmark.text.chars`).

:func:`apply` runs the enabled rules in a fixed order chosen so that one pass reaches the fixed point
(running it again changes nothing): width normalisation first, then technical runs are set aside, then
ellipsis, quotes, brackets and dashes (which create the context the punctuation rule reads), punctuation and
its limit, currency and slash cleanup, spacing, and finally the space cleanup.

Each rule is a precompiled regular expression over the whole document's text at once; only the quote rule
walks its matches in Python.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable

from .chars import (
    CJK,
    CJK_FULLWIDTH,
    CLOSE,
    CURLY_CLOSING,
    CURLY_OPENING,
    FULLWIDTH_ALNUM_RE,
    FULLWIDTH_ALNUM_TO_ASCII,
    FW_CLOSING,
    FW_OPENING,
    FW_STOPS,
    HANGUL_SYLLABLE,
    LATIN,
    LATIN_ATOMS,
    MARKS,
    OPEN,
    PUNCTUATION_TO_FULLWIDTH,
    RESERVED,
    TECH,
    replace_characters,
)
from .cjk import CjkRules
from .quotes import convert_quotes

# -- protected technical runs inside text -----------------------------------------------------------------------

_URL_STOP = f"\\s<>\"'`{CJK}{RESERVED}{FW_STOPS}{FW_OPENING}{FW_CLOSING}"
# a URL may contain CJK right after a path or query separator (``/wiki/汉字``), not right after a letter or digit
_URL_CHAR = f"(?:[^{_URL_STOP}]|(?<=[/=?#&_%+~{CJK}-])[{CJK}])"
_URL_LAST = f"(?:[^{_URL_STOP}.,:;!?)\\]}}]|(?<=[/=?#&_%+~{CJK}-])[{CJK}])"
_TECH_RE = re.compile(
    "(?<![A-Za-z0-9_.@/-])(?:"
    f"(?:https?|ftp)://(?:{_URL_CHAR}*{_URL_LAST})?"  # URL, without trailing punctuation
    "|[A-Za-z0-9._%+-]++@(?:[A-Za-z0-9-]++\\.)+[A-Za-z]{2,}+"  # e-mail address
    "|v\\d++(?:\\.\\d++)++|\\d++(?:\\.\\d++){2,}+"  # version
    "|\\d{1,2}:\\d{2}(?::\\d{2})?+"  # time
    "|\\d{1,3}(?:,\\d{3})++(?:\\.\\d++)?+"  # thousands
    "|\\d++\\.\\d++"  # decimal
    "|(?:[A-Za-z0-9][A-Za-z0-9-]*+\\.)+[A-Za-z][A-Za-z0-9]++"  # domain, file name
    ")(?![A-Za-z0-9_@])"
    "|(?<![A-Za-z0-9]):[a-z0-9_+-]++:(?!/)"  # emoji shortcode
)
# every technical run contains one of these: a separator between word characters, or a shortcode colon
_TECH_ANCHOR = re.compile(r"[.:@,](?:(?<=[A-Za-z0-9_%+-][.:@,])(?=[A-Za-z0-9/])|(?<=:)(?=[a-z0-9_+-]+:))")
_WORD_BEFORE = re.compile(f"[^{_URL_STOP}]*")
_WORD_AFTER = re.compile(f"{_URL_CHAR}*")


def _extent(pattern: re.Pattern[str], text: str, at: int) -> int:
    """How many characters from ``at`` on ``pattern`` matches."""
    match = pattern.match(text, at)
    return match.end() - at if match else 0


def protect_technical(text: str) -> tuple[str, list[str]]:
    """``text`` with URLs, e-mail addresses, versions, times, numbers with separators and domains replaced by
    :data:`TECH` placeholders, and the runs they stand for, in order.

    Only the words around an anchor (``.``, ``:``, ``@`` or ``,`` between word characters) are examined."""
    anchor = _TECH_ANCHOR.search(text)
    if anchor is None:
        return text, []
    reverse = text[::-1]
    runs: list[str] = []
    parts: list[str] = []
    done = 0
    while anchor is not None:
        at = anchor.start()
        word_start = max(done, at - _extent(_WORD_BEFORE, reverse, len(text) - at))
        word_end = at + _extent(_WORD_AFTER, text, at)
        for match in _TECH_RE.finditer(text, word_start, word_end):
            parts.append(text[done : match.start()])
            parts.append(TECH)
            runs.append(match.group())
            done = match.end()
        anchor = _TECH_ANCHOR.search(text, max(word_end, at + 1))
    parts.append(text[done:])
    return "".join(parts), runs


# -- width ------------------------------------------------------------------------------------------------------


def fullwidth_alphanumeric(text: str) -> str:
    """Full-width letters and digits become ASCII: ``１２３４`` -> ``1234``."""
    if FULLWIDTH_ALNUM_RE.search(text) is None:
        return text
    return text.translate(FULLWIDTH_ALNUM_TO_ASCII)


# -- context ----------------------------------------------------------------------------------------------------

_FW_LETTER = re.compile(f"[{CJK_FULLWIDTH}]")
_FULLWIDTH_STOPS = frozenset(FW_STOPS + FW_CLOSING)
_LEFT_CONTEXT = re.compile(f"[{CJK_FULLWIDTH}{FW_CLOSING}{FW_STOPS}]")
_RIGHT_CONTEXT = re.compile(f"[{CJK_FULLWIDTH}{FW_OPENING}]")


def _skip_marks(text: str, at: int, step: int) -> int:
    while 0 <= at < len(text) and text[at] in MARKS:
        at += step
    return at


def cjk_before(text: str, at: int) -> bool:
    """Whether the character before ``at`` (syntax markers skipped) is a Chinese or Japanese letter, full-width
    punctuation or closing bracket, or a closing quote right after such a letter."""
    before = _skip_marks(text, at - 1, -1)
    if before < 0:
        return False
    if _LEFT_CONTEXT.match(text, before):
        return True
    return text[before] in CURLY_CLOSING and before > 0 and _FW_LETTER.match(text, before - 1) is not None


def cjk_after(text: str, at: int) -> bool:
    """Whether the character at ``at`` (syntax markers skipped) is a Chinese or Japanese letter or full-width
    opening bracket, or an opening quote right before such a letter."""
    after = _skip_marks(text, at, 1)
    if after >= len(text):
        return False
    if _RIGHT_CONTEXT.match(text, after):
        return True
    if text[after] not in CURLY_OPENING:
        return False
    letter = _skip_marks(text, after + 1, 1)
    return letter < len(text) and _FW_LETTER.match(text, letter) is not None


def _line_start(text: str, at: int) -> bool:
    return at == 0 or text[at - 1] == "\n"


def _line_end(text: str, at: int) -> bool:
    return at == len(text) or text[at] == "\n"


# -- ellipsis, brackets, dashes ---------------------------------------------------------------------------------

_ELLIPSIS_RE = re.compile(r"\.(?:[ \t]+\.){2,}")


def ellipsis(text: str) -> str:
    """Spaced dots become an ellipsis: ``. . .`` -> ``...``."""
    return _ELLIPSIS_RE.sub("...", text)


_PARENTHESIS_RE = re.compile(r"[()\n]")


def _parenthesis_pairs(text: str) -> list[tuple[int, int]]:
    """The matching ``(`` ``)`` pairs within lines, innermost first."""
    pairs: list[tuple[int, int]] = []
    opened: list[int] = []
    for match in _PARENTHESIS_RE.finditer(text):
        char = match.group()
        if char == "(":
            opened.append(match.start())
        elif char == ")" and opened:
            pairs.append((opened.pop(), match.start()))
        elif char == "\n":
            opened.clear()
    return pairs


def _outside_spaces(text: str, opening: int, closing: int) -> list[int]:
    """The positions of the spaces before ``opening`` and after ``closing``, unless they begin or end a line."""
    before = opening
    while before > 0 and text[before - 1] in " \t":
        before -= 1
    after = closing + 1
    while after < len(text) and text[after] in " \t":
        after += 1
    spaces = [] if _line_start(text, before) else list(range(before, opening))
    return spaces if _line_end(text, after) else [*spaces, *range(closing + 1, after)]


def brackets(text: str) -> str:
    """Parentheses around Chinese or Japanese text become full-width, without spaces outside them:
    ``见 (注意) 一节`` -> ``见（注意）一节``; ``(Tom)`` stays; ``(中(文))`` -> ``（中（文））``."""
    if "(" not in text:
        return text
    changes: dict[int, str] = {}
    for opening, closing in _parenthesis_pairs(text):
        if _FW_LETTER.search(text, opening + 1, closing) is None:
            continue
        changes.update((space, "") for space in _outside_spaces(text, opening, closing))
        changes[opening] = "（"
        changes[closing] = "）"
    return replace_characters(text, changes)


_DASH_RE = re.compile(r"(?=[ \t\-—])[ \t]*(?:-{2,}|——)[ \t]*")
_TIGHT_BEFORE_DASH = frozenset(FW_CLOSING + FW_STOPS + CURLY_CLOSING)
_TIGHT_AFTER_DASH = frozenset(FW_OPENING + CURLY_OPENING)


def _cjk_dash(match: re.Match[str]) -> str:
    text, start, end = match.string, match.start(), match.end()
    if not (cjk_before(text, start) and cjk_after(text, end)):
        return match.group()
    before = "" if text[_skip_marks(text, start - 1, -1)] in _TIGHT_BEFORE_DASH else " "
    after = "" if text[_skip_marks(text, end, 1)] in _TIGHT_AFTER_DASH else " "
    return f"{before}——{after}"


def dash(text: str) -> str:
    """``--`` (or a badly spaced ``——``) between CJK becomes a spaced CJK dash: ``原因--结果`` -> ``原因 —— 结果``;
    no space goes between the dash and full-width brackets, quotes or punctuation."""
    if "--" not in text and "——" not in text:
        return text
    return _DASH_RE.sub(_cjk_dash, text)


# -- punctuation ------------------------------------------------------------------------------------------------

# a run of half-width marks, spaces between them included; a period only alone (not in ``...``) and not before
# a letter or digit (``.js``)
_MARK = r"(?:[,!?:;]|(?<!\.)\.(?![.A-Za-z0-9]))"
_PUNCTUATION_RE = re.compile(f"(?=[ \\t,!?:;.])(?P<lead>[ \\t]*)(?P<run>{_MARK}(?:[ \\t]*{_MARK})*)(?P<trail>[ \\t]*)")
_SPACES = re.compile(r"[ \t]+")


def _touches_fullwidth_stop(text: str, at: int) -> bool:
    return at > 0 and text[at - 1] in _FULLWIDTH_STOPS


def _fullwidth(run: str) -> str:
    return (run if len(run) == 1 else _SPACES.sub("", run)).translate(PUNCTUATION_TO_FULLWIDTH)


def _fullwidth_run(match: re.Match[str]) -> str:
    text = match.string
    lead, run, trail = match.group("lead", "run", "trail")
    start = match.start()
    if (not lead or _touches_fullwidth_stop(text, start)) and cjk_before(text, start):
        return _fullwidth(run) + (trail if _line_end(text, match.end()) else "")
    if not trail and cjk_after(text, match.end()):
        return (lead if _line_start(text, start) else "") + _fullwidth(run)
    return match.group()


def punctuation(text: str) -> str:
    """Half-width ``, . ! ? : ;`` touching Chinese or Japanese (on either side) become full-width, and the
    spaces around them go: ``你好, world`` -> ``你好，world``. A mark with a space on both sides is left alone
    (unless the space follows full-width punctuation, which never has space after it), and so are ``...`` and
    a period before a letter or digit."""
    return _PUNCTUATION_RE.sub(_fullwidth_run, text)


@functools.cache
def _repeat_re(limit: int) -> re.Pattern[str]:
    return re.compile(f"([{FW_STOPS}])(?:[ \\t]*\\1){{{limit},}}")


def punctuation_limit(text: str, limit: int) -> str:
    """A run of one full-width mark longer than ``limit`` (spaces between them ignored) is cut to ``limit``:
    ``！！！`` -> ``！`` at 1."""
    return _repeat_re(limit).sub("\\1" * limit, text)


# -- cleanup before spacing -------------------------------------------------------------------------------------

_CURRENCY = "$€£¥₹"
# the spaces after a currency sign, before a digit
_CURRENCY_RE = re.compile(f"[ \\t](?<=[{_CURRENCY}][ \\t])[ \\t]*(?=[0-9])")
# both alternatives start with one character class (spaces before a slash, or a slash with spaces after it)
_SLASH_RE = re.compile(r"[ \t/](?:(?<=[^\s/][ \t])[ \t]*/[ \t]*(?=[^\s/])|(?<=[^\s/]/)[ \t]+(?=[^\s/]))")


def currency(text: str) -> str:
    """A currency sign binds to its amount: ``$ 100`` -> ``$100``."""
    if not any(sign in text for sign in _CURRENCY):
        return text  # (looking for each sign is faster than running the pattern over the text)
    return _CURRENCY_RE.sub("", text)


def slash(text: str) -> str:
    """No spaces around a slash between words: ``A / B`` -> ``A/B`` (``//`` is left alone)."""
    return _SLASH_RE.sub("/", text) if "/" in text else text


# -- spacing ----------------------------------------------------------------------------------------------------

_PARTICLES = (
    "에서는|에서도|에게는|으로는|으로서|으로써|이라고|이라는|입니다|이에요|이라|이나|이랑|이며|이란|이요|이다|"
    "에서|에게|에는|에도|에선|께서|한테|부터|까지|처럼|보다|하고|마다|조차|밖에|로는|로서|로써|라고|라는|예요|"
    "은|는|이|가|을|를|의|에|께|와|과|도|만|로|나|랑|야|요|며|란|뿐|엔|인"
)
_COUNTERS = "개|명|번|년|월|일|시|분|초|살|원|권|장|층|회|차|주|세|달|배|점|위|등|째|간|쯤|여"
# a Korean particle (josa) or counter attached to a Latin word or number: ``VMark에는``, ``Python을``, ``3개``
_KOREAN_ATTACHED = (
    f"(?=[{HANGUL_SYLLABLE}])(?:(?:{_COUNTERS})(?:{_PARTICLES})*|(?:{_PARTICLES})+)(?![{HANGUL_SYLLABLE}])"
)
_START = f"[{LATIN}{LATIN_ATOMS}]"
# Both patterns start with one character class, which lets the regular expression engine skip quickly to the
# places where they can match, then look at the neighbour that rules out most of them (a Latin letter inside a
# word); lookbehinds then tell which character it was.
# CJK, then Latin: matches the first character after the gap (an opening marker, a letter, a currency sign)
_CJK_LATIN_RE = re.compile(
    f"[{OPEN}{LATIN}{LATIN_ATOMS}{_CURRENCY}](?<=[{CJK}{CLOSE}].)"
    f"(?:(?<=[{OPEN}])(?={_START}|[{_CURRENCY}][0-9])|(?<={_START})|(?<=[{_CURRENCY}])(?=[0-9]))"
    f"(?:(?<=[{CJK}].)|(?<=[{CJK}][{CLOSE}].))"
)
# Latin, then CJK: matches the last character before the gap (a letter, a unit, ``C++``, a closing marker)
_LATIN_UNIT = f"{LATIN}{LATIN_ATOMS}%‰℃℉°"
_LATIN_CJK_RE = re.compile(
    f"[{_LATIN_UNIT}+#](?=[{CLOSE}]?[{OPEN}]?[{CJK}])(?:(?<=[{_LATIN_UNIT}])|(?<=[A-Za-z][+#])|(?<=[A-Za-z][+#][+#]))[{CLOSE}]?"
    f"(?=[{OPEN}]?[{CJK}])(?![{OPEN}]?{_KOREAN_ATTACHED})"
)


def spacing(text: str) -> str:
    """A space between CJK and Latin letters or digits (and code, math, URLs...): ``学习Python编程`` ->
    ``学习 Python 编程``. The space goes outside syntax markers: ``中文**English**`` -> ``中文 **English**``.
    Korean particles and counters stay attached: ``VMark에는``, ``3개``."""
    gaps = {match.start() for match in _CJK_LATIN_RE.finditer(text)}
    gaps.update(match.end() for match in _LATIN_CJK_RE.finditer(text))
    if not gaps:
        return text
    bounds = [0, *sorted(gaps), len(text)]
    return " ".join([text[start:end] for start, end in itertools.pairwise(bounds)])


# -- space cleanup ----------------------------------------------------------------------------------------------

_SPACE_AFTER_FULLWIDTH_RE = re.compile(f"[ \\t](?<=[{FW_STOPS}{FW_CLOSING}][ \\t])[ \\t]*(?=\\S)")
# spaces before full-width punctuation, and trailing whitespace unless it is a hard break (two or more spaces)
# (each alternative after the first space or tab: spaces before full-width punctuation; a tab, or a tab and a
# space, or a run of spaces and tabs ending so, before the line end; a single space before the line end)
_SPACE_DROP_RE = re.compile(
    f"[ \\t](?:(?<=\\S[ \\t])[ \\t]*(?=[{FW_STOPS}{FW_OPENING}])"
    "|(?<=\\t) ?(?=\\n)|[ \\t]*\\t ?(?=\\n)|(?<=[^ \\t] )(?=\\n))"
)
_COLLAPSE_RE = re.compile(r"  (?<=\S  ) *(?=\S)")


def spaces(text: str) -> str:
    """No spaces around full-width punctuation; runs of spaces inside a line collapsed to one; trailing
    whitespace removed unless it is a hard line break (two or more spaces)."""
    text = _SPACE_AFTER_FULLWIDTH_RE.sub("", text)
    text = _SPACE_DROP_RE.sub("", text)
    return _COLLAPSE_RE.sub(" ", text)


# -- the pipeline -----------------------------------------------------------------------------------------------

Rule = Callable[[str], str]


def pipeline(rules: CjkRules) -> list[Rule]:
    """The enabled rules in the order they run (after width normalisation and technical protection)."""
    steps: list[tuple[bool, Rule]] = [
        (rules.ellipsis, ellipsis),
        (rules.quotes, functools.partial(convert_quotes, style=rules.quote_style)),
        (rules.brackets, brackets),
        (rules.dash, dash),
        (rules.punctuation, punctuation),
        (rules.punctuation_limit > 0, functools.partial(punctuation_limit, limit=rules.punctuation_limit)),
        (rules.cleanup, currency),
        (rules.cleanup, slash),
        (rules.spacing, spacing),
        (rules.cleanup, spaces),
    ]
    return [rule for enabled, rule in steps if enabled]


class PlaceholderError(RuntimeError):
    """A rule lost or duplicated a placeholder (a bug): the text cannot be put back together."""


_TECH_PLACEHOLDER = re.compile(TECH)


def apply(text: str, rules: CjkRules) -> str:
    """All enabled rules over ``text`` (placeholders in, placeholders out)."""
    if rules.fullwidth_alphanumeric:
        text = fullwidth_alphanumeric(text)
    text, runs = protect_technical(text)
    for rule in pipeline(rules):
        text = rule(text)
    return restore(text, _TECH_PLACEHOLDER, runs)


def restore(text: str, placeholders: re.Pattern[str], runs: list[str]) -> str:
    """``text`` with each match of ``placeholders`` replaced by the next of ``runs``."""
    parts = placeholders.split(text)
    if len(parts) != len(runs) + 1:
        raise PlaceholderError(f"{len(parts) - 1} placeholders for {len(runs)} protected runs")
    out = [parts[0]]
    for run, part in zip(runs, parts[1:], strict=True):
        out.append(run)
        out.append(part)
    return "".join(out)
