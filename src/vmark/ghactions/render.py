"""Rendering new YAML values in the style of the text around them.

A value is rendered as a :class:`Rendered`: the ``head`` goes on the line of its key or dash (a
scalar, a flow collection, a block scalar header), the ``body`` lines follow it (a block mapping,
a block sequence, the lines of a literal block scalar), already indented.

Strings are written plain when that reads back as the same string under both YAML 1.2 and YAML 1.1
(so ``on``, ``yes``, ``no``, ``y``, ``n``, ``true``, ``1.10``, ``2024-01-01`` ... are quoted: every
GitHub parser reads what was meant); multi-line strings become literal block scalars in block
context and double-quoted scalars in flow context. The document's habits (:class:`Style`) are read
from its text only when a rendering depends on them.
"""

from __future__ import annotations

import functools
import io
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml.emitter import Emitter, ScalarAnalysis
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.resolver import VersionedResolver

from vmark.ghactions import yamltree as yt

_STR = "tag:yaml.org,2002:str"
_RESOLVERS = (VersionedResolver(version=(1, 2)), VersionedResolver(version=(1, 1)))
_EMITTER = Emitter(io.StringIO(), allow_unicode=True)


@dataclass(frozen=True)
class Style:
    """How the document writes things; inferred once per document, with GitHub's usual defaults."""

    indent: int = 2  # a nested block mapping's keys, relative to its parent key
    seq_offset: int = 2  # a block sequence's dashes, relative to its parent key (0: indentless)
    flow_pad: bool = False  # "[ a, b ]" rather than "[a, b]"
    quote: str = "'"  # the quote used when one is needed and nothing nearby decides
    flow_lists: bool = True  # a new list of strings is written "[a, b]" rather than as block lines


#: the document's style, asked for only when a rendering depends on it (reading it costs a scan of the text)
StyleOf = Callable[[], Style]


@dataclass
class Rendered:
    head: str = ""
    body: list[str] = field(default_factory=list)


_KEY_ONLY = re.compile(r"^( *)((?:- +)*)[^\s#'\"\[\]{}&*!|>%@`-][^#]*?:[ \t]*(?:#.*)?$")
_CONTENT = re.compile(r"^( *)(\S)(.*)$")
_QUOTE = re.compile(r"(?:^|[:,\[{-])[ \t]+(['\"])", re.MULTILINE)
_FLOW_OPEN = re.compile(r"(?:^|[:-])[ \t]+[\[{]( ?)[^\s\]}]", re.MULTILINE)
_FLOW_LIST = re.compile(r":[ \t]+\[[^\]\n]*[^\s\]][^\]\n]*\]", re.MULTILINE)


#: how many lines infer_style reads for indentation (enough to see the habit, cheap on long files)
_STYLE_LINES = 600


def infer_style(text: str) -> Style:
    """The usual indentation, sequence offset, flow padding and quote of ``text`` (a quick line scan).

    Only a preference, so a heuristic is enough; it reads the text alone, so every way of parsing
    the document renders new values identically.
    """
    indents: Counter[int] = Counter()
    offsets: Counter[int] = Counter()
    block_lists = 0
    owner: int | None = None  # column of the key of the last "key:" line with nothing after it
    for line in text.splitlines()[:_STYLE_LINES]:
        match = _CONTENT.match(line)
        if match is None or match.group(2) == "#":
            continue
        col = len(match.group(1))
        if owner is not None and col > owner:
            if match.group(2) == "-" and match.group(3)[:1] in (" ", ""):
                offsets[col - owner] += 1
                block_lists += ": " not in match.group(3) and not match.group(3).rstrip().endswith(":")
            else:
                indents[col - owner] += 1
        elif owner is not None and col == owner and match.group(2) == "-":
            offsets[0] += 1
        key_only = _KEY_ONLY.match(line)
        owner = len(key_only.group(1)) + len(key_only.group(2)) if key_only else None
    quotes = Counter(_QUOTE.findall(text))
    pads = Counter(pad == " " for pad in _FLOW_OPEN.findall(text))
    default = Style()
    flow_lists = len(_FLOW_LIST.findall(text))
    return Style(
        indent=_most_common(indents, default.indent),
        seq_offset=_most_common(offsets, default.seq_offset),
        flow_pad=_most_common(pads, default.flow_pad),
        quote=_most_common(quotes, default.quote),
        flow_lists=default.flow_lists if flow_lists == block_lists else flow_lists > block_lists,
    )


def _most_common(counter: Counter[Any], default: Any) -> Any:
    ranked = counter.most_common()
    if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return default
    return ranked[0][0]


# -- scalars ---------------------------------------------------------------------------------------------------------


def _analysis(text: str) -> ScalarAnalysis:
    analysis: ScalarAnalysis = _EMITTER.analyze_scalar(text)
    return analysis


def reads_as_string(text: str, *, yaml11: bool = True) -> bool:
    """``text`` written plain is a string under YAML 1.2 (and YAML 1.1 too, with ``yaml11``)."""
    resolvers = _RESOLVERS if yaml11 else _RESOLVERS[:1]
    return all(str(r.resolve(ScalarNode, text, (True, False))) == _STR for r in resolvers)


def plain_allowed(text: str, *, flow: bool, yaml11: bool = True) -> bool:
    if not text or not reads_as_string(text, yaml11=yaml11):
        return False
    analysis = _analysis(text)
    return bool(analysis.allow_flow_plain if flow else analysis.allow_block_plain)


def single_quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def double_quoted(text: str) -> str:
    return '"' + "".join(_escape(ch) for ch in text) + '"'


def _escape(ch: str) -> str:
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    if _printable(ch):
        return ch
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _printable(ch: str) -> bool:
    code = ord(ch)
    return (
        0x20 <= code <= 0x7E
        or 0xA0 <= code <= 0xD7FF
        or (0xE000 <= code <= 0xFFFD and code != 0xFEFF)
        or 0x10000 <= code <= 0x10FFFF
    )


def quoted(text: str, quote: str) -> str:
    if quote == "'" and all(_printable(ch) for ch in text):
        return single_quoted(text)
    return double_quoted(text)


def render_string(text: str, *, flow: bool, style: StyleOf, like: yt.Node | None = None) -> str:
    """A one-line string (``text`` has no line break); the quotes of the scalar it replaces win."""
    like_quote = like.style if isinstance(like, yt.Scalar) and like.style in ("'", '"') else None
    if plain_allowed(text, flow=flow) and like_quote is None:
        return text
    return quoted(text, like_quote or style().quote)


def render_number(value: int | float) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
    return repr(value)


def render_key(key: str, *, flow: bool, style: StyleOf) -> str:
    """A mapping key: quoted only when YAML 1.2 would not read it as this string (GitHub reads keys
    such as ``on`` as strings, so YAML 1.1 booleans stay plain here, unlike in values)."""
    return key if plain_allowed(key, flow=flow, yaml11=False) else quoted(key, style().quote)


def _literal_lines(text: str) -> list[str] | None:
    """The lines of ``text`` as a literal block scalar, or None when one cannot hold it exactly."""
    if text.endswith("\n\n") or any(not _printable(ch) and ch not in "\n\t" for ch in text):
        return None
    lines = text.removesuffix("\n").split("\n")
    first = next((line for line in lines if line.strip(" ")), "")
    leading_blank = lines[: lines.index(first)] if first else lines
    if first.startswith(" ") or any(line for line in leading_blank):
        return None  # would need an indentation indicator; double quotes are simpler and exact
    return lines


def render_multiline(text: str, *, indent: int, flow: bool) -> Rendered:
    lines = None if flow else _literal_lines(text)
    if lines is None:
        return Rendered(double_quoted(text))
    chomp = "" if text.endswith("\n") else "-"
    pad = " " * indent
    return Rendered("|" + chomp, [pad + line if line else "" for line in lines])


# -- values ----------------------------------------------------------------------------------------------------------


def is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, bool, int, float))


def render_scalar(value: Any, *, flow: bool, style: StyleOf, like: yt.Node | None = None) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return render_number(value)
    assert isinstance(value, str)
    return render_string(value, flow=flow, style=style, like=like)


def render_flow(value: Any, style: StyleOf, *, pad: bool | None = None, like: yt.Node | None = None) -> str:
    """``value`` on one line, in flow style (``pad``: spaces inside the brackets, default from ``style``)."""
    if isinstance(value, dict):
        items = [f"{render_key(str(k), flow=True, style=style)}: {render_flow(v, style)}" for k, v in value.items()]
        return _brackets("{", "}", items, style().flow_pad if pad is None else pad)
    if isinstance(value, list):
        items = [render_flow(item, style) for item in value]
        return _brackets("[", "]", items, style().flow_pad if pad is None else pad)
    if isinstance(value, str) and "\n" in value:
        return double_quoted(value)
    return render_scalar(value, flow=True, style=style, like=like)


def _brackets(opening: str, closing: str, items: list[str], pad: bool) -> str:
    if not items:
        return opening + closing
    space = " " if pad else ""
    return f"{opening}{space}{', '.join(items)}{space}{closing}"


class Renderer:
    """Renders values for one document; ``like`` is the node a value replaces (its style wins)."""

    def __init__(self, source: yt.Source, style: Style | None = None) -> None:
        self.source = source
        self._style = style

    @functools.cached_property
    def style(self) -> Style:
        """The document's habits, read when a value first needs them."""
        return self._style or infer_style(self.source.text)

    def style_of(self) -> Style:
        return self.style

    def flow(self, value: Any, like: yt.Node | None = None) -> str:
        """``value`` in flow style; a non-empty flow collection it replaces decides the padding."""
        pad = None
        if isinstance(like, (yt.Sequence, yt.Mapping)) and like.flow and (like.pairs if isinstance(like, yt.Mapping)
                                                                         else like.items):
            pad = self.source.text[like.start + 1 : like.start + 2] == " "
        return render_flow(value, self.style_of, pad=pad, like=like)

    def mapping_value(self, value: Any, key_col: int, like: yt.Node | None = None) -> Rendered:
        """``value`` as the value of a block mapping key at column ``key_col``."""
        if value is None:
            return Rendered()
        return self._block(value, key_col, like, lambda: key_col + self.style.indent,
                           lambda: self._dash_col(key_col, like))

    def seq_item(self, value: Any, dash_col: int, like: yt.Node | None = None) -> Rendered:
        """``value`` as an item of a block sequence whose dashes are at column ``dash_col``."""
        if isinstance(value, dict) and value:
            lines = self._mapping_lines(value, dash_col + 2)
            return Rendered(lines[0][dash_col + 2 :], lines[1:])
        if isinstance(value, list) and value and not self._inline_list(value, like):
            return Rendered("", self._seq_lines(value, dash_col + 2))
        return self._block(value, dash_col, like, lambda: dash_col + self.style.indent, lambda: dash_col + 2)

    def _block(
        self,
        value: Any,
        owner_col: int,
        like: yt.Node | None,
        child_col: Callable[[], int],
        dash_col: Callable[[], int],
    ) -> Rendered:
        """``value`` after a key or dash at ``owner_col``: nested keys go to ``child_col()``, dashes to
        ``dash_col()`` (computed only when needed: they may ask for the document's style)."""
        # a flow mapping replaced by a mapping stays flow; anything else becomes a block mapping
        if isinstance(value, dict) and value and not (isinstance(like, yt.Mapping) and like.flow):
            col = child_col()
            if isinstance(like, yt.Mapping) and not like.flow and like.pairs:
                col = max(self.source.column(like.pairs[0].key.start), owner_col + 1)
            return Rendered("", self._mapping_lines(value, col))
        if isinstance(value, list) and value and not self._inline_list(value, like):
            return Rendered("", self._seq_lines(value, dash_col()))
        if isinstance(value, str) and "\n" in value:
            return render_multiline(value, indent=child_col(), flow=False)
        if isinstance(value, (dict, list)):
            return Rendered(self.flow(value, like))
        return Rendered(render_scalar(value, flow=False, style=self.style_of, like=like))

    def _dash_col(self, key_col: int, like: yt.Node | None) -> int:
        if isinstance(like, yt.Sequence) and not like.flow and self.source.is_line_head(like.start):
            return self.source.column(like.start)
        return key_col + self.style.seq_offset

    def _inline_list(self, value: list[Any], like: yt.Node | None) -> bool:
        if not all(is_scalar(item) and not (isinstance(item, str) and "\n" in item) for item in value):
            return False
        if isinstance(like, yt.Sequence):
            return like.flow
        return self.style.flow_lists

    def _mapping_lines(self, value: dict[str, Any], col: int) -> list[str]:
        lines: list[str] = []
        for key, item in value.items():
            rendered = self.mapping_value(item, col)
            head = f"{' ' * col}{render_key(str(key), flow=False, style=self.style_of)}:"
            lines.append(f"{head} {rendered.head}" if rendered.head else head)
            lines.extend(rendered.body)
        return lines

    def _seq_lines(self, value: list[Any], dash_col: int) -> list[str]:
        lines: list[str] = []
        for item in value:
            rendered = self.seq_item(item, dash_col)
            dash = " " * dash_col + "-"
            lines.append(f"{dash} {rendered.head}" if rendered.head else dash)
            lines.extend(rendered.body)
        return lines
