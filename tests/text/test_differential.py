"""The engine gives the results it gave before it was optimised: outputs frozen from that engine (see
``differential.py``) for seeded random documents under every configuration, format selection, single-pass edits,
the benchmark's document and the shared corpora."""

from __future__ import annotations

import difflib
import json
from typing import Any

import pytest

from tests.corpora import needs
from vmark.text import CjkRules
from vmark.text.transform import transform

from .corpus import CONFIGS, bench_document, corpus_documents, random_documents
from .differential import (
    BENCH_100K,
    BENCH_CONFIGS,
    CORPUS_CONFIGS,
    EXPECTED,
    RANDOM_COUNT,
    RANDOM_SEED,
    changed_lines,
    digest,
    edit_outputs,
    random_outputs,
    range_outputs,
)


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(EXPECTED.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def documents() -> list[str]:
    return random_documents(RANDOM_SEED, RANDOM_COUNT)


def _mismatches(documents: list[str], got: list[str], want: list[str]) -> list[str]:
    return [repr(document) for document, a, b in zip(documents, got, want, strict=True) if a != b]


def test_the_random_documents_are_the_frozen_ones(expected: dict[str, Any]) -> None:
    assert expected["random"]["seed"] == RANDOM_SEED and expected["random"]["count"] == RANDOM_COUNT
    assert set(expected["random"]["outputs"]) == {name for name, _, _ in CONFIGS}


@pytest.mark.parametrize("config", [name for name, _, _ in CONFIGS])
def test_random_documents(config: str, documents: list[str], expected: dict[str, Any]) -> None:
    got = random_outputs(documents, only=config)[config]
    assert _mismatches(documents, got, expected["random"]["outputs"][config]) == []


def test_format_selection_over_random_ranges(documents: list[str], expected: dict[str, Any]) -> None:
    assert _mismatches(documents, range_outputs(documents), expected["ranges"]) == []


def test_single_pass_edits(documents: list[str], expected: dict[str, Any]) -> None:
    assert _mismatches(documents, edit_outputs(documents), expected["edits"]) == []


def test_bench_document_100k_exact() -> None:
    want = BENCH_100K.read_text(encoding="utf-8")
    got = transform(bench_document(100_000), "cjk-format", CjkRules())
    if got != want:
        diff = difflib.unified_diff(want.split("\n"), got.split("\n"), "expected", "now", n=0, lineterm="")
        pytest.fail("\n".join(list(diff)[:40]))


def test_bench_document_1mb(expected: dict[str, Any]) -> None:
    document = bench_document(expected["bench"]["size"])
    configs = {name: (kind, rules) for name, kind, rules in CONFIGS}
    got = {name: digest(transform(document, *configs[name])) for name in BENCH_CONFIGS}
    assert got == expected["bench"]["outputs"]


# The documents the outputs were frozen for (the shared corpora may hold more: those have no frozen output).
_FROZEN = set(json.loads(EXPECTED.read_text(encoding="utf-8"))["corpora"])
_CORPUS = [(name, text) for name, text in corpus_documents() if name in _FROZEN]


@needs("markdown")
def test_every_frozen_corpus_document_is_there() -> None:
    assert {name for name, _ in _CORPUS} == _FROZEN


@needs("markdown", found=bool(_CORPUS))
@pytest.mark.parametrize(("name", "text"), _CORPUS, ids=[name for name, _ in _CORPUS])
def test_corpus_document(name: str, text: str, expected: dict[str, Any]) -> None:
    configs = {config: (kind, rules) for config, kind, rules in CONFIGS}
    for config in CORPUS_CONFIGS:
        output = transform(text, *configs[config])
        want = expected["corpora"][name][config]
        assert (changed_lines(text, output), digest(output)) == (want["changed"], want["digest"]), config
