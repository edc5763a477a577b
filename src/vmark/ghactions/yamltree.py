"""Positioned YAML trees: every node knows the exact span of text it came from.

The tree is built from the events of ruamel.yaml's parser (the same events its composer turns into
nodes), because events also carry the positions of *aliases*, which composed nodes lose (an alias
composes to the anchored node itself). Indices are positions in the Python string, so a UTF-8 BOM
(U+FEFF at index 0) and CRLF line breaks are counted like any other character.

Spans (``start``/``end``, end exclusive):

- a scalar covers its text including properties (``&anchor``, ``!tag``) and quotes; a block scalar
  (``|``/``>``) ends after its last non-blank character (its trailing blank lines stay outside);
- an empty value (``key:`` with nothing after it) is an empty span right after its indicator;
- a flow collection covers its brackets; a block collection runs from its first entry (or its
  properties) to the end of its last entry;
- an alias covers ``*name``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    Event,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)
from ruamel.yaml.nodes import ScalarNode

from vmark.protocol.limits import YAML_MAX_DEPTH

#: Characters ruamel.yaml's reader counts as line breaks (a lone CR included).
BREAKS = "\n\r\x85\u2028\u2029"
BOM = "\ufeff"
#: ruamel.yaml's safe loader (YAML 1.2 core schema, its default), used only to resolve and construct scalars.
_SCALARS = YAML(typ="safe", pure=True)


class YamlSyntaxError(Exception):
    """The text is not a single well-formed YAML document."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        where = f" (line {line}, column {column})" if line is not None and column is not None else ""
        super().__init__(f"{message}{where}")
        self.line = line
        self.column = column


class Source:
    """The text being edited, with line helpers that agree with ruamel.yaml's idea of a line."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.bom = text.startswith(BOM)
        self.newline = "\r\n" if "\r\n" in text else "\n"
        #: the line break characters this text contains (usually just "\n": fewer scans per lookup)
        self.breaks = [ch for ch in BREAKS if ch in text]

    def line_start(self, index: int) -> int:
        start = max((self.text.rfind(ch, 0, index) for ch in self.breaks), default=-1) + 1
        return 1 if start == 0 and self.bom else start

    def line_end(self, index: int) -> int:
        """Index of the line break that ends the line holding ``index`` (or the end of the text)."""
        ends = [pos for pos in (self.text.find(ch, index) for ch in self.breaks) if pos >= 0]
        return min(ends) if ends else len(self.text)

    def break_at(self, index: int) -> str:
        """The line break starting at ``index`` ("" at the end of the text)."""
        if self.text.startswith("\r\n", index):
            return "\r\n"
        return self.text[index] if index < len(self.text) else ""

    def next_line(self, index: int) -> int:
        """Start of the line after the one holding ``index`` (the end of the text on the last line)."""
        end = self.line_end(index)
        return end + len(self.break_at(end))

    def column(self, index: int) -> int:
        return index - self.line_start(index)

    def newline_near(self, index: int) -> str:
        """The line break used by the line holding ``index``, else the document's usual one."""
        return self.break_at(self.line_end(index)) or self.newline

    def is_line_head(self, index: int) -> bool:
        """Only blanks precede ``index`` on its line."""
        return self.text[self.line_start(index) : index].strip(" \t") == ""

    def skip_blanks(self, index: int) -> int:
        """The first index at or after ``index`` that is not a space or a tab."""
        while index < len(self.text) and self.text[index] in " \t":
            index += 1
        return index

    def rest_of_line(self, index: int) -> str:
        return self.text[index : self.line_end(index)]


@dataclass(eq=False)
class Node:
    """A positioned node. ``start``/``end`` are indices into the whole text."""

    start: int
    end: int
    anchor: str | None = None
    tag: str | None = None

    @property
    def flow(self) -> bool:
        return False


@dataclass(eq=False)
class Scalar(Node):
    value: str = ""
    style: str | None = None  # None (plain), "'", '"', "|", ">"
    implicit: tuple[bool, bool] = (True, False)

    @property
    def empty(self) -> bool:
        """``key:`` with nothing after it: an empty plain scalar with no properties."""
        return self.start == self.end


@dataclass(eq=False)
class Alias(Node):
    name: str = ""
    target: Node | None = None


class Pair:
    """A mapping entry. Its value may be loaded on first use (see :mod:`vmark.ghactions.document`)."""

    __slots__ = ("_end", "_load", "_value", "colon", "key", "region")

    def __init__(
        self,
        key: Node,
        value: Node | None,
        colon: int = -1,
        *,
        load: Callable[[], Node] | None = None,
        end: int | None = None,
        region: tuple[int, int] | None = None,
    ) -> None:
        self.key = key
        #: the lines a lazily loaded entry was found on (start of its key line, start of the next entry)
        self.region = region
        #: index just after the ``:`` indicator, or -1 when there is none (``{a, b}``, ``? a``)
        self.colon = colon
        self._value = value
        self._load = load
        self._end = end

    @property
    def loaded(self) -> bool:
        return self._value is not None

    @property
    def value(self) -> Node:
        if self._value is None:
            assert self._load is not None
            self._value = self._load()
        return self._value

    @property
    def end(self) -> int:
        """End of the entry's text (its value's end; the colon for an empty value)."""
        if self._value is None and self._end is not None:
            return self._end
        return max(self.value.end, self.colon, self.key.end)


@dataclass(eq=False)
class Mapping(Node):
    pairs: list[Pair] = field(default_factory=list)
    is_flow: bool = False

    @property
    def flow(self) -> bool:
        return self.is_flow

    def find(self, key: str) -> list[Pair]:
        """Every pair whose key is the plain string ``key`` (duplicates are the caller's concern)."""
        return [pair for pair in self.pairs if isinstance(pair.key, Scalar) and pair.key.value == key]


@dataclass(eq=False)
class Sequence(Node):
    items: list[Node] = field(default_factory=list)
    is_flow: bool = False

    @property
    def flow(self) -> bool:
        return self.is_flow


class _Builder:
    """Turns an event stream into a tree of positioned nodes."""

    def __init__(self, source: Source, events: Iterator[Event], offset: int) -> None:
        self.source = source
        self.events = events
        self.offset = offset
        self.line_offset = _line_number(source.text, offset)
        self.anchors: dict[str, Node] = {}

    def next(self) -> Event:
        return next(self.events)

    def position(self, event: Event) -> tuple[int, int]:
        """1-based line and column of ``event`` in the whole text."""
        return event.start_mark.line + 1 + self.line_offset, event.start_mark.column + 1

    def document(self) -> Node | None:
        event = self.next()
        if not isinstance(event, StreamStartEvent):
            raise YamlSyntaxError("unexpected YAML event stream")
        event = self.next()
        if isinstance(event, StreamEndEvent):
            return None
        if not isinstance(event, DocumentStartEvent):
            raise YamlSyntaxError("unexpected YAML event stream")
        root = self.node(self.next(), 0)
        if not isinstance(self.next(), DocumentEndEvent):
            raise YamlSyntaxError("unexpected YAML event stream")
        following = self.next()
        if not isinstance(following, StreamEndEvent):
            raise YamlSyntaxError("expected a single YAML document, found another", *self.position(following))
        return root

    def node(self, event: Event, depth: int) -> Node:
        if depth > YAML_MAX_DEPTH:
            raise YamlSyntaxError("the document nests too deeply", *self.position(event))
        start = event.start_mark.index + self.offset
        if isinstance(event, AliasEvent):
            return self.alias(event, start)
        if isinstance(event, ScalarEvent):
            node: Node = self.scalar(event, start)
        elif isinstance(event, SequenceStartEvent):
            node = self.sequence(event, start, depth)
        elif isinstance(event, MappingStartEvent):
            node = self.mapping(event, start, depth)
        else:
            raise YamlSyntaxError("unexpected YAML event", *self.position(event))
        if event.anchor is not None:
            self.anchors[event.anchor] = node
        return node

    def alias(self, event: AliasEvent, start: int) -> Alias:
        target = self.anchors.get(event.anchor)
        if target is None:
            raise YamlSyntaxError(f"found undefined alias {event.anchor!r}", *self.position(event))
        return Alias(start, event.end_mark.index + self.offset, name=event.anchor, target=target)

    def scalar(self, event: ScalarEvent, start: int) -> Scalar:
        end = event.end_mark.index + self.offset
        if event.style in ("|", ">"):
            end = start + len(self.source.text[start:end].rstrip(" \t" + BREAKS))
        tag = None if event.tag is None else str(event.tag)
        return Scalar(start, end, event.anchor, tag, value=event.value, style=event.style, implicit=event.implicit)

    def sequence(self, event: SequenceStartEvent, start: int, depth: int) -> Sequence:
        node = Sequence(start, start, event.anchor, _tag(event), is_flow=bool(event.flow_style))
        if event.anchor is not None:
            self.anchors[event.anchor] = node
        item = self.next()
        while not isinstance(item, SequenceEndEvent):
            node.items.append(self.node(item, depth + 1))
            item = self.next()
        node.end = item.end_mark.index + self.offset if node.is_flow else self._block_end(node.items, start)
        return node

    def mapping(self, event: MappingStartEvent, start: int, depth: int) -> Mapping:
        node = Mapping(start, start, event.anchor, _tag(event), is_flow=bool(event.flow_style))
        if event.anchor is not None:
            self.anchors[event.anchor] = node
        item = self.next()
        while not isinstance(item, MappingEndEvent):
            key = self.node(item, depth + 1)
            value = self.node(self.next(), depth + 1)
            node.pairs.append(self._pair(key, value))
            item = self.next()
        ends = [pair.end for pair in node.pairs]
        node.end = item.end_mark.index + self.offset if node.is_flow else max(ends, default=start)
        return node

    def _pair(self, key: Node, value: Node) -> Pair:
        text = self.source.text
        after_key = self.source.skip_blanks(key.end)
        colon = after_key + 1 if text.startswith(":", after_key) else -1
        if isinstance(value, Scalar) and value.empty:
            # ruamel places an empty value at the next token; it belongs right after its indicator
            value.start = value.end = colon if colon >= 0 else key.end
        return Pair(key, value, colon)

    @staticmethod
    def _block_end(nodes: list[Node], start: int) -> int:
        return max((node.end for node in nodes), default=start)


def _tag(event: Event) -> str | None:
    tag = getattr(event, "tag", None)
    return None if tag is None else str(tag)


def parse(source: Source, start: int = 0, end: int | None = None) -> Node | None:
    """The tree of ``source.text[start:end]`` (a whole document; ``None`` when it is empty).

    ``start`` must be the start of a line: indices of the result are indices into the whole text,
    and columns are unchanged. Raises :class:`YamlSyntaxError` when the text is not a single,
    well-formed YAML document.
    """
    fragment = source.text[start:end] if start or end is not None else source.text
    try:
        return _Builder(source, iter(_events(fragment)), start).document()
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        if mark is None:
            raise YamlSyntaxError(problem) from exc
        line = mark.line + 1 + _line_number(source.text, start)
        raise YamlSyntaxError(problem, line, mark.column + 1) from exc
    except YAMLError as exc:
        raise YamlSyntaxError(str(exc).strip() or "invalid YAML") from exc


@functools.lru_cache(maxsize=16)
def _events(text: str) -> tuple[Event, ...]:
    """ruamel.yaml's parser events for ``text``.

    Kept for a while: patches in a row (and the check after each one) parse the same entries again.
    A fresh loader each time, because a YAML instance keeps per-stream state and is not reentrant.
    """
    return tuple(YAML(typ="safe", pure=True).parse(text))


def _line_number(text: str, index: int) -> int:
    """How many line breaks precede ``index`` (a CRLF counts once)."""
    return text.count("\n", 0, index) + text.count("\r", 0, index) - text.count("\r\n", 0, index) if index else 0


def construct(node: Node, depth: int = 0) -> Any:
    """The Python value of ``node`` under the YAML 1.2 core schema (what ruamel.yaml's safe loader gives)."""
    if depth > YAML_MAX_DEPTH:
        raise YamlSyntaxError("the document nests too deeply (recursive alias?)")
    if isinstance(node, Alias):
        assert node.target is not None
        return construct(node.target, depth + 1)
    if isinstance(node, Mapping):
        return {_hashable(construct(pair.key, depth + 1)): construct(pair.value, depth + 1) for pair in node.pairs}
    if isinstance(node, Sequence):
        return [construct(item, depth + 1) for item in node.items]
    assert isinstance(node, Scalar)
    return construct_scalar(node)


def resolve_tag(value: str, implicit: tuple[bool, bool] = (True, False)) -> str:
    """The tag YAML 1.2 gives an untagged scalar (``implicit[0]``: it is plain)."""
    return str(_SCALARS.resolver.resolve(ScalarNode, value, implicit))


def construct_scalar(node: Scalar) -> Any:
    tag = node.tag if node.tag not in (None, "!") else resolve_tag(node.value, node.implicit)
    constructor = _SCALARS.constructor
    build = constructor.yaml_constructors.get(tag)
    if build is None or tag in _COLLECTION_TAGS:
        return node.value  # a local tag (GitHub has none): keep the text
    return build(constructor, ScalarNode(tag, node.value))


_COLLECTION_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}" for name in ("seq", "map", "omap", "pairs", "set")
)


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_hashable(item) for item in value)
    if isinstance(value, dict):
        return tuple(sorted((repr(k), _hashable(v)) for k, v in value.items()))
    return value


def clear_cache() -> None:
    """Forget the parses kept by :func:`parse` (benchmarks measure a first patch with it)."""
    _events.cache_clear()
