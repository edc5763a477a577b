"""Passes after the first format only the blocks the pass before changed, without parsing the document again,
when the edits keep the block structure: the result must be the one of parsing the whole document for every pass."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vmark.text import CjkRules, passes
from vmark.text.blocks import BlockKind, LineSpan, Parsed, TextBlock
from vmark.text.structure import keeps_structure
from vmark.text.transform import _fixed_point

from . import corpus
from .test_properties import documents as property_documents
from .test_properties import rule_sets


def _both(document: str, rules: CjkRules) -> tuple[str, str]:
    return _fixed_point(document, rules), _fixed_point(document, rules, reuse=False)


def _reuses(document: str, rules: CjkRules, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Whether formatting ``document`` skipped a parse."""
    answers: list[bool] = []
    next_todo = passes.next_todo

    def spy(parsed: Parsed, outcomes: list[passes.Outcome], edits: list[passes.Edit]) -> passes.Todo | None:
        todo = next_todo(parsed, outcomes, edits)
        answers.append(todo is not None)
        return todo

    monkeypatch.setattr(passes, "next_todo", spy)
    _fixed_point(document, rules)
    monkeypatch.undo()
    return any(answers)


FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(property_documents.map(lambda document: document.replace("\r", "")), rule_sets)
def test_reusing_blocks_gives_what_parsing_again_gives(document: str, rules: CjkRules) -> None:
    reused, parsed = _both(document, rules)
    assert reused == parsed


@FAST
@given(st.randoms(use_true_random=False), rule_sets)
def test_reusing_blocks_on_hazardous_documents(rng: random.Random, rules: CjkRules) -> None:
    document = corpus.random_document(rng).replace("\r", "")
    reused, parsed = _both(document, rules)
    assert reused == parsed


# -- cases where an edit changes what markdown-it would see -----------------------------------------------------

STRUCTURE_CHANGES = [
    ("fullwidth-digit-becomes-list-marker", "中文\n１. 中文", "中文\n1. 中文"),
    ("fullwidth-digit-becomes-paren-marker", "中文\n１) 中文", "中文\n1) 中文"),
    ("nested-list-marker", "- 中文\n  １. 嵌套", "- 中文\n  1. 嵌套"),
    ("quote-first-character", '"中文"好\n[ref]: /u', "“中文”好\n[ref]:/u"),
    ("bracket-first-character", "(中文)\n- 项目", "（中文）\n- 项目"),
    ("heading-ending-with-hash", "# 学习C#", "# 学习 C#"),
    ("math-label-after-trailing-spaces", "$$\nx\n中文 $$ (eq1)   \n", "$$\nx\n中文 $$ (eq1)   \n"),
    ("pipes-in-a-paragraph", "中文a|b\n文字,好", "中文 a|b\n文字，好"),
]


@pytest.mark.parametrize(
    ("source", "expected"), [case[1:] for case in STRUCTURE_CHANGES], ids=[case[0] for case in STRUCTURE_CHANGES]
)
def test_edits_that_may_change_the_structure_parse_again(
    source: str, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _both(source, CjkRules()) == (expected, expected)
    assert not _reuses(source, CjkRules(), monkeypatch)


SAFE = [
    ("paragraph", "学习Python编程,很有趣!\n\n第二段English"),
    ("list-and-quote", "- 项目Item,好\n- 第二Second\n\n> 引用Quote,好"),
    ("heading-and-table", "## 标题Title\n\n| 名称 | 数量 |\n|---|---|\n| Python工具 | 5个 |"),
    ("digits-not-a-marker", "2024年发布了v1.2.3版本,很好"),
]


@pytest.mark.parametrize("source", [case[1] for case in SAFE], ids=[case[0] for case in SAFE])
def test_edits_inside_text_reuse_the_blocks(source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    reused, parsed = _both(source, CjkRules())
    assert reused == parsed != source
    assert _reuses(source, CjkRules(), monkeypatch)


def test_the_benchmark_document_is_formatted_with_one_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _reuses(corpus.bench_document(30_000), CjkRules(), monkeypatch)


# -- the structure check itself --------------------------------------------------------------------------------


def _block(content: str, kind: BlockKind = "paragraph") -> TextBlock:
    spans = tuple(LineSpan(0, 0, len(line)) for line in content.split("\n"))
    return TextBlock(content, spans, (0, 0) if kind in ("paragraph", "heading") else None, kind)


KEEPS = [
    ("cjk-start", "paragraph", "中文,好", "中文，好", True),
    ("latin-start", "paragraph", "Python编程", "Python 编程", True),
    ("digits-then-cjk", "paragraph", "3个苹果", "3 个苹果", True),
    ("digits-then-period", "paragraph", "3.中文", "3。中文", False),
    ("fullwidth-digits-become-digits", "paragraph", "１２中文", "12 中文", True),
    ("list-marker-after-the-edit", "paragraph", "１. 中文", "1. 中文", False),
    ("punctuation-start", "paragraph", "(中文)", "（中文）", False),
    ("quote-start", "paragraph", '"中文"', "“中文”", False),
    ("pipe", "paragraph", "中文|a", "中文 |a", False),
    ("dollars", "paragraph", "中文$$", "中文 $$", False),
    ("backslash-at-end", "cell", "中文a", "中文a\\", False),
    ("heading-hash-end", "heading", "学习C#", "学习 C#", False),
    ("heading-text", "heading", "学习C", "学习 C", True),
    ("cell-after-pipe-digit", "cell", "5个", "5 个", True),
    ("first-cell-digit", "first-cell", "5个", "5 个", True),
    ("first-cell-marker", "first-cell", "１.中文", "1.中文", False),
    ("cell-space-end", "cell", "中文", "中文 ", False),
]


@pytest.mark.parametrize(("kind", "old", "new", "keeps"), [case[1:] for case in KEEPS], ids=[case[0] for case in KEEPS])
def test_keeps_structure(kind: BlockKind, old: str, new: str, keeps: bool) -> None:
    block = _block(old, kind)
    assert keeps_structure(block, [(block.lines[0], old, new)], tail_edited=False) is keeps


def test_a_paragraph_starting_with_block_syntax_is_parsed_again_whatever_line_changes() -> None:
    block = _block("[中文\n文字,好")
    assert not keeps_structure(block, [(block.lines[1], "文字,好", "文字，好")], tail_edited=False)
    assert keeps_structure(_block("中文\n文字,好"), [(block.lines[1], "文字,好", "文字，好")], tail_edited=False)


def test_trailing_spaces_removed_from_a_line_with_dollars_need_a_parse() -> None:
    assert not keeps_structure(_block("中文 $$ (eq1)"), [], tail_edited=True)
    assert keeps_structure(_block("中文"), [], tail_edited=True)
