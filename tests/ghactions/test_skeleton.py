"""The line scan that lets a patch parse only the entries it touches: it must agree with a full parse."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.corpora import needs
from tests.ghactions.corpus_support import load, workflow_files
from vmark.ghactions import document, skeleton
from vmark.ghactions import yamltree as yt

FILES = workflow_files()


def shape(node: yt.Node) -> Any:
    """Every node's kind and span, recursively (what the edits rely on)."""
    if isinstance(node, yt.Mapping):
        return ("map", node.start, node.end, [(shape(p.key), shape(p.value), p.colon, p.end) for p in node.pairs])
    if isinstance(node, yt.Sequence):
        return ("seq", node.start, node.end, [shape(item) for item in node.items])
    if isinstance(node, yt.Alias):
        return ("alias", node.start, node.end, node.name)
    assert isinstance(node, yt.Scalar)
    return ("scalar", node.start, node.end, node.value, node.style)


def entry_shape(mapping: yt.Mapping) -> list[Any]:
    """Keys, colons and ends of a mapping's entries, without loading their values."""
    return [(p.key.start, p.key.end, getattr(p.key, "value", None), p.colon, p.end) for p in mapping.pairs]


def lazy_and_full(text: str) -> tuple[yt.Node | None, yt.Node | None]:
    source = yt.Source(text)
    return document.load(source), yt.parse(source)


@pytest.mark.parametrize(
    "text",
    [
        "%YAML 1.2\n---\na: 1\n",
        "a: 1\n---\nb: 2\n",
        "a: 1\n...\n",
        "a:\n\tb: 1\n",
        "? a\n: b\n",
        "a: [1,\n",
        "a: 1\rb: 2\n",
        "a: b: c\n",
        "a: |2\n   x\n",
        "a:\n    x: |\n        text\n      y: 1\n",
        "a: 'x\n",
        "a: [b\n---\n]\n",
    ],
    ids=["directive", "two documents", "document end", "tab indentation", "explicit key", "unclosed flow",
         "lone CR", "mapping in a plain value", "indentation indicator", "odd block scalar end", "unclosed quote",
         "document marker in a flow"],
)
def test_the_scan_gives_up_on_unusual_text(text: str) -> None:
    assert skeleton.scan(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "a: [1,\n  2]\nb: {c: 'x,\n  y', d: [e, # note\n  f]}\n",
        'a: "one\n  two"\nb: \'it\'\'s\n  here\'\n',
        "a: |\n  # not a comment\n  'not a quote\n\n  [not a flow\nb: 1\n",
        "---\n# header\na: 1\n",
        "\ufeffa: 1\r\nb:\r\n  - x\r\n",
        "a:\n- b\n- c: d\n  e: f\nz: 1\n",
        "'quoted key': 1\n\"other\": 2\n",
        "a: &x 1\nb: !!str 3\nc: {d: &y [1], e: *y}\n",
    ],
    ids=["multi-line flow", "multi-line quoted", "block scalar body", "document start", "bom crlf",
         "indentless list", "quoted keys", "properties"],
)
def test_the_scan_agrees_with_a_full_parse(text: str) -> None:
    lines = skeleton.scan(text)
    assert lines is not None
    found = skeleton.entries(lines, 0, len(lines))
    assert found is not None
    full = yt.parse(yt.Source(text))
    assert isinstance(full, yt.Mapping)
    assert [entry.key.text for entry in found[1]] == [p.key.value for p in full.pairs if isinstance(p.key, yt.Scalar)]
    lazy, full = lazy_and_full(text)
    assert isinstance(lazy, yt.Mapping)
    assert shape(lazy) == shape(full)


def test_an_alias_of_an_anchor_in_another_entry_needs_a_full_parse() -> None:
    lazy, _full = lazy_and_full("a: &x 1\nb: *x\n")
    assert isinstance(lazy, yt.Mapping)
    assert isinstance(lazy.pairs[0].value, yt.Scalar)
    with pytest.raises(document.NeedsFullParse):
        _ = lazy.pairs[1].value


def test_jobs_are_split_into_entries() -> None:
    text = "on: push\njobs:\n  a:\n    runs-on: x\n\n  # b next\n  b:\n    steps:\n    - run: |\n        y\n"
    lazy, full = lazy_and_full(text)
    assert isinstance(lazy, yt.Mapping) and isinstance(full, yt.Mapping)
    jobs = lazy.pairs[1].value
    assert isinstance(jobs, yt.Mapping)
    assert [p.loaded for p in jobs.pairs] == [False, False]
    assert [p.region for p in jobs.pairs] == [(text.index("  a:"), text.index("  b:")), (text.index("  b:"), len(text))]
    assert shape(lazy) == shape(full)


@needs("workflows", found=bool(FILES))
@pytest.mark.parametrize("path", FILES, ids=[path.name for path in FILES])
def test_corpus_entries_match_a_full_parse(path: Path) -> None:
    """Where every top-level entry and every job starts and ends, as the scan finds them without parsing."""
    text = path.read_bytes().decode("utf-8")
    lazy, full = lazy_and_full(text)
    assert isinstance(full, yt.Mapping) and isinstance(lazy, yt.Mapping)
    assert entry_shape(lazy) == entry_shape(full)
    lazy_jobs = next((p.value for p in lazy.pairs if getattr(p.key, "value", None) == "jobs"), None)
    full_jobs = next((p.value for p in full.pairs if getattr(p.key, "value", None) == "jobs"), None)
    if isinstance(full_jobs, yt.Mapping):
        assert isinstance(lazy_jobs, yt.Mapping)
        assert entry_shape(lazy_jobs) == entry_shape(full_jobs)
    if FILES.index(path) % 10 == 0:  # and, on every tenth file, every node of every entry, and the data
        assert shape(lazy) == shape(full)
        assert yt.construct(lazy) == load(text)


@needs("workflows", found=bool(FILES))
def test_the_scan_reads_almost_every_corpus_file() -> None:
    given_up = [path.name for path in FILES if skeleton.scan(path.read_bytes().decode("utf-8")) is None]
    assert len(given_up) <= len(FILES) // 100, given_up
