"""The public API: rules and their settings keys, transform kinds, format selection, line ends, hostile input."""

from __future__ import annotations

import pytest

from vmark.text import QUOTE_STYLES, SETTING_KEYS, CjkRules, setting_error
from vmark.text.transform import KINDS, edits, rules_for_kind, transform, transform_range

DOC = "# 标题Title\n\n```\n代码Code,x\n```\n\n学习Python编程,很有趣!\n"


# -- rules and settings -----------------------------------------------------------------------------------------


def test_setting_keys_declare_every_rule_with_its_type_and_default() -> None:
    assert {
        "cjk.spacing": (bool, True),
        "cjk.punctuation": (bool, True),
        "cjk.fullwidth_alphanumeric": (bool, True),
        "cjk.brackets": (bool, True),
        "cjk.dash": (bool, True),
        "cjk.ellipsis": (bool, True),
        "cjk.punctuation_limit": (int, 1),
        "cjk.quotes": (bool, True),
        "cjk.quote_style": (str, "curly"),
        "cjk.cleanup": (bool, True),
    } == SETTING_KEYS
    assert QUOTE_STYLES == ("curly", "corner", "guillemets")
    assert KINDS == ("cjk-format", "cjk-spacing", "cjk-punctuation")


def test_rules_round_trip_through_settings() -> None:
    rules = CjkRules(spacing=False, punctuation_limit=3, quote_style="corner")
    stored = rules.to_settings()
    assert stored["cjk.spacing"] is False and stored["cjk.quote_style"] == "corner"
    assert set(stored) == set(SETTING_KEYS)
    assert CjkRules.from_settings(stored) == rules
    assert CjkRules.from_settings({}) == CjkRules()


def test_from_settings_ignores_wrong_values_and_other_keys() -> None:
    rules = CjkRules.from_settings(
        {
            "cjk.spacing": "no",
            "cjk.punctuation_limit": True,
            "cjk.quote_style": "fancy",
            "cjk.dash": False,
            "readable_roots": [],
        }
    )
    assert rules == CjkRules(dash=False)
    assert CjkRules.from_settings({"cjk.punctuation_limit": 99}).punctuation_limit == 1


@pytest.mark.parametrize(
    ("key", "value", "error"),
    [
        ("cjk.spacing", False, None),
        ("cjk.punctuation_limit", 0, None),
        ("cjk.quote_style", "guillemets", None),
        ("cjk.spacing", 1, "setting 'cjk.spacing' takes a bool, not 1"),
        ("cjk.punctuation_limit", True, "setting 'cjk.punctuation_limit' takes a int, not True"),
        ("cjk.punctuation_limit", 10, "setting 'cjk.punctuation_limit' takes 0..9, not 10"),
        ("cjk.punctuation_limit", -1, "setting 'cjk.punctuation_limit' takes 0..9, not -1"),
        ("cjk.quote_style", "fancy", "setting 'cjk.quote_style' takes one of curly, corner, guillemets, not 'fancy'"),
        ("cjk.nope", True, "unknown CJK setting 'cjk.nope'"),
    ],
)
def test_setting_error(key: str, value: object, error: str | None) -> None:
    assert setting_error(key, value) == error


def test_rules_reject_invalid_parameters() -> None:
    with pytest.raises(ValueError, match="quote_style must be one of curly, corner, guillemets"):
        CjkRules(quote_style="fancy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"punctuation_limit must be 0\.\.9"):
        CjkRules(punctuation_limit=-1)
    with pytest.raises(ValueError, match=r"punctuation_limit must be 0\.\.9"):
        CjkRules(punctuation_limit=True)


def test_rules_are_frozen_and_replaceable() -> None:
    rules = CjkRules()
    with pytest.raises(AttributeError):
        rules.spacing = False  # type: ignore[misc]
    assert rules.replace(spacing=False).spacing is False
    assert rules.enabled and not CjkRules.none().enabled
    assert CjkRules.none().replace(punctuation_limit=2).enabled


# -- kinds ------------------------------------------------------------------------------------------------------


def test_single_rule_kinds_ignore_the_persons_settings() -> None:
    person = CjkRules(spacing=False, punctuation=False)
    assert rules_for_kind("cjk-format", person) is person
    assert rules_for_kind("cjk-spacing", person) == CjkRules.none().replace(spacing=True)
    assert rules_for_kind("cjk-punctuation", person) == CjkRules.none().replace(punctuation=True)


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown transform kind 'cjk-magic'; expected one of cjk-format, "):
        transform("中文", "cjk-magic", CjkRules())
    with pytest.raises(ValueError, match="unknown transform kind"):
        transform_range("中文", 0, 1, "", CjkRules())


def test_a_document_without_cjk_is_returned_as_it_is() -> None:
    text = "Hello , world  \n(Tom) -- done. . . !!!\n"
    assert transform(text, "cjk-format", CjkRules()) is text
    assert edits(text, CjkRules()) == []


# -- edits and byte identity ------------------------------------------------------------------------------------


def test_edits_replace_changed_lines_only() -> None:
    changes = edits(DOC, CjkRules())
    assert [(DOC[e.start : e.end], e.text) for e in changes] == [
        ("标题Title", "标题 Title"),
        ("学习Python编程,很有趣!", "学习 Python 编程，很有趣！"),
    ]


def test_everything_outside_the_changed_runs_is_byte_identical() -> None:
    source = "前言  \n\n<!-- 注释a,b -->\n\n| 表a | b |\n|:-|-:|\n\n> 引用Quote\t\n\n    缩进Code\n\n尾巴Tail"
    result = transform(source, "cjk-format", CjkRules())
    assert result == "前言\n\n<!-- 注释a,b -->\n\n| 表 a | b |\n|:-|-:|\n\n> 引用 Quote\n\n    缩进Code\n\n尾巴 Tail"


def test_crlf_offsets_are_source_offsets() -> None:
    source = "标题\r\n\r\n学习Python,好\r\n"
    changes = edits(source, CjkRules())
    assert [(source[e.start : e.end], e.text) for e in changes] == [("学习Python,好", "学习 Python，好")]


# -- format selection -------------------------------------------------------------------------------------------

PARAGRAPH = "学习Python编程,很有趣!使用Rust开发,也不错!"


def test_range_changes_only_inside_the_selection() -> None:
    start = PARAGRAPH.index("使用")
    assert transform_range(PARAGRAPH, start, len(PARAGRAPH), "cjk-format", CjkRules()) == (
        "学习Python编程,很有趣!使用 Rust 开发，也不错！"
    )


def test_range_does_not_insert_at_its_edges() -> None:
    start = PARAGRAPH.index("Python")
    end = start + len("Python")
    assert transform_range(PARAGRAPH, start, end, "cjk-spacing", CjkRules()) == PARAGRAPH
    assert transform_range(PARAGRAPH, start - 1, end + 1, "cjk-spacing", CjkRules()) == (
        "学习 Python 编程,很有趣!使用Rust开发,也不错!"
    )


def test_range_over_the_whole_document_is_the_transform() -> None:
    document = DOC + "\n" + PARAGRAPH + "\n"
    assert transform_range(document, 0, len(document), "cjk-format", CjkRules()) == transform(
        document, "cjk-format", CjkRules()
    )


def test_range_reads_context_outside_the_selection() -> None:
    start = PARAGRAPH.index(",")
    assert transform_range(PARAGRAPH, start, start + 1, "cjk-punctuation", CjkRules()) == PARAGRAPH.replace(
        ",", "，", 1
    )


def test_range_inside_code_changes_nothing() -> None:
    start = DOC.index("代码")
    assert transform_range(DOC, start, start + 8, "cjk-format", CjkRules()) == DOC


def test_range_with_crlf_uses_source_offsets() -> None:
    source = "标题Title\r\n\r\n学习Python\r\n"
    start = source.index("学习")
    assert transform_range(source, start, len(source), "cjk-format", CjkRules()) == "标题Title\r\n\r\n学习 Python\r\n"


@pytest.mark.parametrize(("start", "end"), [(-1, 2), (3, 2), (0, len(PARAGRAPH) + 1)])
def test_a_range_outside_the_document_is_refused(start: int, end: int) -> None:
    with pytest.raises(ValueError, match="outside the document"):
        transform_range(PARAGRAPH, start, end, "cjk-format", CjkRules())


# -- hostile input ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "中文" + "[" * 5000 + "a" + "]" * 5000,
        "中文" + "*" * 10000 + "文" + "_" * 10000,
        "中文" + "`" * 3000 + "a" + "``" * 1000,
        "中文" + "![" * 3000 + "中",
        "中文" + "<" * 5000 + "a",
        "中文" + "$" * 5000 + "a",
        "中文" + "(" * 3000 + "注意" + ")" * 3000,
        "中文" + "\\" * 5001,
        "> " * 200 + "中文Text",
        "- " * 200 + "中文Text",
    ],
    ids=[
        "brackets",
        "delimiters",
        "backticks",
        "images",
        "angles",
        "dollars",
        "parens",
        "backslashes",
        "quotes",
        "lists",
    ],
)
def test_hostile_input_is_handled(source: str) -> None:
    once = transform(source, "cjk-format", CjkRules())
    assert transform(once, "cjk-format", CjkRules()) == once


def test_a_wikilink_keeps_every_byte_while_the_text_around_it_is_formatted() -> None:
    text = "参见[[中文abc|别名abc]]和abc中文，[[笔记#第1节]]\n\n| 列 |\n|---|\n| 见[[表格abc\\|x]]abc |\n"
    assert transform(text, "cjk-format", CjkRules()) == (
        "参见[[中文abc|别名abc]]和 abc 中文，[[笔记#第1节]]\n\n| 列 |\n|---|\n| 见[[表格abc\\|x]]abc |\n"
    )
