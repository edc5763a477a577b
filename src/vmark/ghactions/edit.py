"""Byte-preserving edits of a positioned YAML tree: each operation is one splice of the text.

Every function returns an :class:`Edit` (replace ``text[start:end]`` by ``new``) that touches only
the node that changes, or ``None`` when the document already says what was asked. Text outside the
splice (comments, blank lines, anchors, quoting, line breaks) is never rewritten.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Literal

from vmark.ghactions import yamltree as yt
from vmark.ghactions.render import Rendered, Renderer, render_key


class Refusal(Exception):
    """The edit cannot be made; the message says why (it becomes a patch error)."""


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    new: str
    #: the text (of the old version) around the change that must still read as YAML with it: the entry
    #: that changed, with its neighbours when entries come or go
    scope: tuple[int, int] | None = None

    def apply(self, text: str) -> str:
        return text[: self.start] + self.new + text[self.end :]

    def within(self, start: int, end: int) -> Edit:
        return dataclasses.replace(self, scope=(min(start, self.start), max(end, self.end)))


@dataclass(frozen=True)
class Slot:
    """Where a value lives: after a key's ``:`` or a block sequence's ``-``, or inside a flow collection."""

    node: yt.Node
    owner: Literal["key", "dash"]
    owner_col: int  # column of the key or the dash
    indicator: int  # index just after ":" / "-", or -1 (flow entry without an indicator)
    flow: bool
    lead: int  # where the entry starts: its key, its dash, or (in a flow sequence) the item


def same(a: Any, b: Any) -> bool:
    """Equal as YAML data: booleans are not numbers, mappings ignore key order, NaN equals NaN."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


class Editor:
    """The edits of one document version."""

    def __init__(self, source: yt.Source, renderer: Renderer) -> None:
        self.source = source
        self.text = source.text
        self.renderer = renderer

    # -- slots ---------------------------------------------------------------------------------------------------

    def pair_slot(self, mapping: yt.Mapping, pair: yt.Pair) -> Slot:
        if pair.colon < 0 and not mapping.flow:
            raise Refusal("unsupported YAML: an explicit '? key' entry cannot be edited")
        return Slot(pair.value, "key", self.source.column(pair.key.start), pair.colon, mapping.flow, pair.key.start)

    def item_slot(self, seq: yt.Sequence, index: int) -> Slot:
        item = seq.items[index]
        if seq.flow:
            return Slot(item, "dash", self.source.column(item.start), -1, True, item.start)
        dash = self.dash_of(item)
        return Slot(item, "dash", self.source.column(dash), dash + 1, False, dash)

    def dash_of(self, item: yt.Node) -> int:
        """The ``-`` of a block sequence item."""
        index = item.start - 1
        while index >= 0 and self.text[index] in " \t" + yt.BREAKS:
            index -= 1
        if index < 0 or self.text[index] != "-":
            raise Refusal("unsupported YAML: a comment between a '-' and its item")
        return index

    # -- replacing a value ---------------------------------------------------------------------------------------

    def replace(self, slot: Slot, value: Any) -> Edit | None:
        """Set the value in ``slot``; ``None`` when it already holds ``value``."""
        node = slot.node
        if same(yt.construct(node), value):
            return None
        if slot.flow:
            return self._replace_flow(slot, value).within(slot.lead, node.end)
        if slot.owner == "key":
            rendered = self.renderer.mapping_value(value, slot.owner_col, like=node)
        else:
            rendered = self.renderer.seq_item(value, slot.owner_col, like=node)
        return self._splice(slot, self._anchored(node, rendered)).within(slot.lead, node.end)

    def _replace_flow(self, slot: Slot, value: Any) -> Edit:
        node = slot.node
        new = self.renderer.flow(value, like=node)
        if node.anchor:
            new = f"&{node.anchor} {new}"
        if isinstance(node, yt.Scalar) and node.empty:  # "{a: }" or "{a}"
            return Edit(node.start, node.end, (" " if slot.indicator >= 0 else ": ") + new)
        return Edit(node.start, node.end, new)

    @staticmethod
    def _anchored(node: yt.Node, rendered: Rendered) -> Rendered:
        if not node.anchor:
            return rendered
        head = f"&{node.anchor} {rendered.head}" if rendered.head else f"&{node.anchor}"
        return Rendered(head, rendered.body)

    def _splice(self, slot: Slot, rendered: Rendered) -> Edit:
        node, src = slot.node, self.source
        empty = isinstance(node, yt.Scalar) and node.empty
        head, at = rendered.head, slot.indicator
        nl = src.newline_near(at)
        body = "".join(nl + line for line in rendered.body)
        if head and not empty:
            start, lead = node.start, head
        else:
            start, lead = at, (" " + head if head else "")
        if empty or node.start <= src.line_end(at):  # the value starts on the line of its key or dash
            if not body:
                return Edit(start, node.end, lead)
            on_one_line = node.end <= src.line_end(node.start)
            tail = src.line_end(node.end) if on_one_line else node.end
            return Edit(start, tail, lead + self.text[node.end : tail] + body)
        key_rest = src.rest_of_line(at)
        comment = key_rest if key_rest.strip() else ""
        if body and not head and src.is_line_head(node.start):
            # a block value replaced by a block value: the key line and the lines above the value stay
            return Edit(src.line_start(node.start), node.end, nl.join(rendered.body))
        return Edit(at, node.end, (" " + head if head else "") + comment + body)

    # -- mappings ------------------------------------------------------------------------------------------------

    def insert_pair(self, mapping: yt.Mapping, key: str, value: Any) -> Edit:
        """Add ``key: value`` at the end of ``mapping`` (which has no such key)."""
        if mapping.flow or not mapping.pairs:
            return self._insert_pair(mapping, key, value).within(mapping.start, mapping.end)
        last = mapping.pairs[-1]
        return self._insert_pair(mapping, key, value).within(last.key.start, last.end)

    def _insert_pair(self, mapping: yt.Mapping, key: str, value: Any) -> Edit:
        if not mapping.pairs:
            return self._replace_whole(mapping, {key: value})
        hint = self._sibling_like(mapping, value)
        if mapping.flow:
            last = mapping.pairs[-1]
            rendered_key = render_key(key, flow=True, style=self.renderer.style_of)
            entry = f"{rendered_key}: {self.renderer.flow(value, like=hint)}"
            prev_end = mapping.pairs[-2].end if len(mapping.pairs) > 1 else None
            return Edit(last.end, last.end, self._flow_separator(prev_end, last.key.start) + entry)
        col = self.source.column(mapping.pairs[0].key.start)
        rendered = self.renderer.mapping_value(value, col, like=hint)
        line = " " * col + render_key(key, flow=False, style=self.renderer.style_of) + ":"
        return self._append_lines(mapping, col, [f"{line} {rendered.head}" if rendered.head else line, *rendered.body])

    def _sibling_like(self, mapping: yt.Mapping, value: Any) -> yt.Node | None:
        """A sibling value whose style a new list should copy (a list of strings next to other lists)."""
        if not isinstance(value, list):
            return None
        for pair in mapping.pairs:
            node = pair.value
            if isinstance(node, yt.Sequence) and node.items and all(isinstance(i, yt.Scalar) for i in node.items):
                return node
        return None

    def remove_pair(self, mapping: yt.Mapping, index: int) -> Edit:
        """Remove the ``index``-th pair of a mapping that has at least two."""
        pairs = mapping.pairs
        starts = [pair.key.start for pair in pairs]
        return self._remove_entry(mapping.flow, starts, [pair.end for pair in pairs], index)

    # -- sequences -----------------------------------------------------------------------------------------------

    def append_item(self, seq: yt.Sequence, value: Any) -> Edit:
        if seq.flow or not seq.items:
            return self._append_item(seq, value).within(seq.start, seq.end)
        last = seq.items[-1]
        return self._append_item(seq, value).within(self.dash_of(last), last.end)

    def _append_item(self, seq: yt.Sequence, value: Any) -> Edit:
        if not seq.items:
            return self._replace_whole(seq, [value])
        last = seq.items[-1]
        if seq.flow:
            new = self.renderer.flow(value)
            prev_end = seq.items[-2].end if len(seq.items) > 1 else None
            return Edit(last.end, last.end, self._flow_separator(prev_end, last.start) + new)
        col = self.source.column(self.dash_of(seq.items[0]))
        rendered = self.renderer.seq_item(value, col)
        dash = " " * col + "-"
        return self._append_lines(seq, col, [f"{dash} {rendered.head}" if rendered.head else dash, *rendered.body])

    def remove_item(self, seq: yt.Sequence, index: int) -> Edit:
        """Remove the ``index``-th item of a sequence that has at least two."""
        items = seq.items
        starts = [item.start if seq.flow else self.dash_of(item) for item in items]
        return self._remove_entry(seq.flow, starts, [item.end for item in items], index)

    # -- shared --------------------------------------------------------------------------------------------------

    def _replace_whole(self, node: yt.Node, value: Any) -> Edit:
        """An empty flow collection (``{}``, ``[]``) replaced by a non-empty one."""
        new = self.renderer.flow(value, like=node)
        return Edit(node.start, node.end, f"&{node.anchor} {new}" if node.anchor else new)

    def _flow_separator(self, prev_end: int | None, last_start: int) -> str:
        """The separator the flow collection already uses between its last two entries, else ", "."""
        if prev_end is not None:
            between = self.text[prev_end:last_start]
            if "," in between and "#" not in between:
                return between
        return ", "

    def _append_lines(self, block: yt.Mapping | yt.Sequence, col: int, lines: list[str]) -> Edit:
        """Insert whole lines after the last entry of ``block`` (and the comment lines that follow it)."""
        src = self.source
        end = block.pairs[-1].end if isinstance(block, yt.Mapping) else block.items[-1].end
        at = src.line_end(end)
        if self._is_blank_line(at) and self._header(_last_leaf(block))[2] == "+":
            # "keep" chomping: the blank lines after the text belong to the value
            while self._is_blank_line(at):
                at = src.line_end(at + len(src.break_at(at)))
        while self._is_comment_line(at, col):
            at = src.line_end(at + len(src.break_at(at)))
        nl = src.newline_near(end)
        new = "".join(nl + line for line in lines)
        if at == len(self.text):
            return self._append_at_end(block, new)
        return Edit(at, at, new)

    def _following_line(self, at: int) -> str | None:
        """The line after the line break at ``at`` (None at the end of the text)."""
        following = at + len(self.source.break_at(at))
        return None if following == at or following >= len(self.text) else self.source.rest_of_line(following)

    def _is_blank_line(self, at: int) -> bool:
        line = self._following_line(at)
        return line is not None and not line.strip(" \t")

    def _is_comment_line(self, at: int, col: int) -> bool:
        """The next line is a comment indented at least to ``col``."""
        line = self._following_line(at)
        if line is None:
            return False
        content = line.lstrip(" ")
        return content.startswith("#") and len(line) - len(content) >= col

    def _header(self, node: yt.Node) -> tuple[int, int, str]:
        """Where a block scalar's header (``|``, ``>-``, ``|2+`` ...) is, and its chomping ("", "-" or "+")."""
        if not (isinstance(node, yt.Scalar) and node.style in ("|", ">")):
            return -1, -1, ""
        start = self.text.index(node.style, node.start)
        end = start + 1
        while end < len(self.text) and self.text[end] in "+-0123456789":
            end += 1
        indicators = self.text[start + 1 : end]
        return start, end, "+" if "+" in indicators else "-" if "-" in indicators else ""

    def _append_at_end(self, block: yt.Node, new: str) -> Edit:
        """Lines added after the last line of a text that has no final line break.

        A block scalar ending there has no final line break either; once lines follow it, "clip"
        or "keep" chomping would add one to its value, so its header is switched to "strip" ("|-"),
        which reads back exactly as before.
        """
        leaf = _last_leaf(block)
        start, end, chomp = self._header(leaf)
        if start < 0 or chomp == "-" or any(ch in yt.BREAKS for ch in self.text[leaf.end :]):
            return Edit(len(self.text), len(self.text), new)
        indicator = "".join(ch for ch in self.text[start + 1 : end] if ch.isdigit())
        assert isinstance(leaf, yt.Scalar) and leaf.style is not None
        return Edit(start, len(self.text), f"{leaf.style}-{indicator}{self.text[end:]}{new}")

    def _remove_entry(self, flow: bool, starts: list[int], ends: list[int], index: int) -> Edit:
        """The edit removing entry ``index``, scoped to it and its neighbours."""
        edit = self._entry_removal(flow, starts, ends, index)
        return edit.within(starts[max(index - 1, 0)], ends[min(index + 1, len(ends) - 1)])

    def _entry_removal(self, flow: bool, starts: list[int], ends: list[int], index: int) -> Edit:
        if flow:
            if index + 1 < len(starts):
                return Edit(starts[index], starts[index + 1], "")
            return Edit(ends[index - 1], ends[index], "")
        src = self.source
        start = starts[index]
        if not src.is_line_head(start):
            # the first entry shares its line with a parent ("- a: 1"): the next entry moves up
            return Edit(start, starts[index + 1], "")
        # whole lines go, with their line break (at the very end of a text without a final line break, the
        # break before them stays: taking it would change a block scalar above them)
        return Edit(src.line_start(start), src.next_line(ends[index]), "")


def _last_leaf(node: yt.Node) -> yt.Node:
    """The node whose text comes last in a block collection."""
    while not node.flow:
        if isinstance(node, yt.Mapping) and node.pairs:
            node = node.pairs[-1].value
        elif isinstance(node, yt.Sequence) and node.items:
            node = node.items[-1]
        else:
            break
    return node


def nested(path: tuple[str | int, ...], value: Any) -> Any:
    """``{a: {b: value}}`` for the path ``(a, b)``."""
    for segment in reversed(path):
        value = {str(segment): value}
    return value


def scalar_values(seq: yt.Sequence) -> list[Any] | None:
    """The values of a sequence of scalars (None if it holds anything else)."""
    if not all(isinstance(item, yt.Scalar) for item in seq.items):
        return None
    return [yt.construct(item) for item in seq.items]


__all__ = ["Edit", "Editor", "Refusal", "Slot", "nested", "same", "scalar_values"]
