"""Loading a workflow's tree, parsing only the entries a patch touches.

:func:`load` returns the root mapping of the workflow. When the line scan of
:mod:`vmark.ghactions.skeleton` can split the text into top-level entries (and the ``jobs:``
mapping into jobs), each entry's value is parsed by ruamel.yaml on first use, from that entry's
lines alone; everything else is never parsed. Positions are identical to a full parse: the
entries' text is parsed in place (same line starts, same columns, indices offset).

When an entry's lines do not parse on their own (an alias of an anchor defined elsewhere, say),
:class:`NeedsFullParse` is raised and the caller starts over with :func:`load_full`.
"""

from __future__ import annotations

from vmark.ghactions import skeleton as sk
from vmark.ghactions import yamltree as yt

#: top-level keys whose block-mapping value is itself split into entries (one per job)
SPLIT_KEYS = frozenset({"jobs"})


class NeedsFullParse(Exception):
    """An entry could not be parsed on its own; parse the whole document instead."""


def load_full(source: yt.Source) -> yt.Node | None:
    return yt.parse(source)


def load(source: yt.Source) -> yt.Node | None:
    """The document's tree, lazily parsed where possible (raises :class:`yt.YamlSyntaxError`)."""
    lines = sk.scan(source.text)
    found = sk.entries(lines, 0, len(lines)) if lines is not None else None
    if lines is None or found is None:
        return load_full(source)
    return _Lazy(source, lines).mapping(found[1], split=True)


class _Lazy:
    def __init__(self, source: yt.Source, lines: list[sk.Line]) -> None:
        self.source = source
        self.lines = lines

    def region(self, first: int, stop: int) -> tuple[int, int]:
        end = self.lines[stop].start if stop < len(self.lines) else len(self.source.text)
        return self.lines[first].start, end

    def mapping(self, entries: list[sk.Entry], *, split: bool) -> yt.Mapping:
        pairs = [self.pair(entry, split) for entry in entries]
        return yt.Mapping(pairs[0].key.start, pairs[-1].end, pairs=pairs)

    def pair(self, entry: sk.Entry, split: bool) -> yt.Pair:
        key = entry.key
        node = yt.Scalar(key.start, key.end, value=key.text, style=key.style,
                         implicit=(key.style is None, key.style is not None))
        return yt.Pair(node, None, key.colon, load=lambda: self.value(entry, split),
                       end=self.lines[entry.last].content_end, region=self.region(entry.first, entry.stop))

    def value(self, entry: sk.Entry, split: bool) -> yt.Node:
        if split and entry.key.text in SPLIT_KEYS and self.lines[entry.first].content_end == entry.key.colon:
            nested = sk.entries(self.lines, entry.first + 1, entry.stop)
            if nested is not None and nested[1]:
                return self.mapping(nested[1], split=False)
        start, end = self.region(entry.first, entry.stop)
        try:
            root = yt.parse(self.source, start, end)
        except yt.YamlSyntaxError as exc:
            raise NeedsFullParse(str(exc)) from exc
        if not isinstance(root, yt.Mapping) or root.flow or len(root.pairs) != 1:
            raise NeedsFullParse("an entry's lines do not hold one mapping entry")
        pair = root.pairs[0]
        if pair.key.start != entry.key.start or pair.colon != entry.key.colon:
            raise NeedsFullParse("an entry's key is not where the line scan found it")
        return pair.value



def region_around(root: yt.Node | None, start: int, end: int) -> tuple[int, int] | None:
    """The lines of the innermost lazily loaded entry holding ``text[start:end]`` (None: no such entry)."""
    found = None
    node = root
    while isinstance(node, yt.Mapping) and not node.flow:
        holder = next((p for p in node.pairs if p.region and p.region[0] <= start and end <= p.region[1]), None)
        if holder is None or holder.region is None:
            break
        found = holder.region
        if not holder.loaded:
            break
        node = holder.value
    return found
