"""What the differential test compares, and how its expected data was frozen.

``python -m tests.text.differential`` writes ``tests/text/data/differential.json`` and
``tests/text/data/bench-100k.expected.md`` from the engine as it is. It was run once, on the engine before it was
optimised; run it again only for a deliberate change of results (and say so in the commit).

Outputs are kept as SHA-256 digests (16 hex digits): the inputs are regenerated from seeds or read from the
corpora (third-party text is not copied into this repository). The 100 kB benchmark document's output is kept
in full, for a readable diff.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from vmark.text import CjkRules
from vmark.text.transform import edits, transform, transform_range

from .corpus import CONFIGS, DATA, bench_document, corpus_documents, random_documents

EXPECTED = DATA / "differential.json"
BENCH_100K = DATA / "bench-100k.expected.md"
RANDOM_SEED = 20260601
RANDOM_COUNT = 600
BENCH_SIZE = 1_000_000
#: the configurations the corpus documents are checked under (the big ones take a while)
CORPUS_CONFIGS = ("format", "spacing", "punctuation", "corner-limit2")


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def changed_lines(before: str, after: str) -> list[int]:
    return [number for number, (a, b) in enumerate(zip(before.split("\n"), after.split("\n"), strict=True)) if a != b]


def random_outputs(documents: list[str], only: str | None = None) -> dict[str, list[str]]:
    """config name -> the digest of every document's output (every configuration, or ``only`` that one)."""
    return {
        name: [digest(transform(document, kind, rules)) for document in documents]
        for name, kind, rules in CONFIGS
        if only in (None, name)
    }


def _range(document: str, index: int) -> tuple[int, int]:
    rng = random.Random(index)
    start = rng.randint(0, len(document))
    return start, rng.randint(start, len(document))


def range_outputs(documents: list[str]) -> list[str]:
    """The digest of ``transform_range`` (default rules) over a seeded range of every document."""
    return [
        digest(transform_range(document, *_range(document, index), "cjk-format", CjkRules()))
        for index, document in enumerate(documents)
    ]


def edit_outputs(documents: list[str]) -> list[str]:
    """The digest of the single-pass ``edits`` (default rules) of every document."""
    return [digest(repr(edits(document, CjkRules()))) for document in documents]


def corpus_outputs() -> dict[str, dict[str, Any]]:
    """corpus document -> config -> {digest, changed line numbers}."""
    configs = {name: (kind, rules) for name, kind, rules in CONFIGS}
    results: dict[str, dict[str, Any]] = {}
    for name, text in corpus_documents():
        results[name] = {}
        for config in CORPUS_CONFIGS:
            kind, rules = configs[config]
            output = transform(text, kind, rules)
            results[name][config] = {"digest": digest(output), "changed": changed_lines(text, output)}
    return results


#: the configurations the 1 MB benchmark document is checked under
BENCH_CONFIGS = ("format", "spacing", "punctuation")


def bench_outputs(document: str) -> dict[str, str]:
    return {name: digest(transform(document, kind, rules)) for name, kind, rules in CONFIGS if name in BENCH_CONFIGS}


def main() -> None:
    documents = random_documents(RANDOM_SEED, RANDOM_COUNT)
    expected = {
        "random": {"seed": RANDOM_SEED, "count": RANDOM_COUNT, "outputs": random_outputs(documents)},
        "ranges": range_outputs(documents),
        "edits": edit_outputs(documents),
        "bench": {"size": BENCH_SIZE, "outputs": bench_outputs(bench_document(BENCH_SIZE))},
        "corpora": corpus_outputs(),
    }
    DATA.mkdir(exist_ok=True)
    EXPECTED.write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    small = bench_document(100_000)
    BENCH_100K.write_text(transform(small, "cjk-format", CjkRules()), encoding="utf-8", newline="")


if __name__ == "__main__":
    main()
