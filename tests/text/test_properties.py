"""Properties over random mixed CJK/Latin Markdown: transforms are fixed points after one run, keep the
Markdown structure and protected content, and change nothing but text lines."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vmark.text import CjkRules
from vmark.text.transform import KINDS, edits, transform

from .oracle import skeleton

WORDS = [
    "中文",
    "学习",
    "Python",
    "VMark",
    "한국어",
    "これは",
    "3",
    "2024",
    "v1.2.3",
    "3.14",
    "12:30",
    "1,000",
    "a@b.co",
    "example.com",
    "https://x.com/a?b=1",
    "１２",
    "ＡＢ",
    "don't",
    "'90s",
    "5'10\"",
    "C++",
    "50%",
]
PUNCTUATION = [
    ",",
    ".",
    "!",
    "?",
    ":",
    ";",
    "...",
    ". . .",
    "--",
    "——",
    "！！！",
    "，",
    "。",
    "(",
    ")",
    '"',
    "'",
    "/",
    "$",
]
QUOTES = ["“", "”", "‘", "’", "「", "」", "（", "）", "…", "、", "’s", '"中文"', "'English'"]
INLINE = [
    "^[",
    "[^1]",
    "![图a](/i)",
    "[ref]",
    "[文档Docs]",
    "\n",
    "*",
    "**",
    "_",
    "`",
    "``",
    "[",
    "](/u)",
    "![",
    "<b>",
    "</b>",
    "&amp;",
    "\\,",
    "$x$",
    "<https://a.b>",
    "~~",
]
SPACES = [" ", "  ", "   ", "\t"]
LINE_STARTS = ["", "", "", "# ", "## ", "- ", "1. ", "> ", "> - ", "    ", "  ", "| ", "[^1]: ", "[ref]: /u "]
BLOCKS = ["```\n中文a,b\n```", "$$\n中a,b\n$$", "<div>\n中文a\n</div>", "---", "| a中 | b |\n|---|---|\n| 中c | d |"]

_token = st.one_of(
    st.sampled_from(WORDS),
    st.sampled_from(PUNCTUATION),
    st.sampled_from(INLINE),
    st.sampled_from(SPACES),
    st.sampled_from(QUOTES),
)
_line = st.builds(
    lambda start, tokens: start + "".join(tokens), st.sampled_from(LINE_STARTS), st.lists(_token, max_size=12)
)
_block = st.one_of(st.lists(_line, min_size=1, max_size=3).map("\n".join), st.sampled_from(BLOCKS))
DEFINITIONS = "[ref]: /r\n[文档Docs]: /d\n[^1]: 注释Note\n\n"
documents = st.lists(_block, max_size=6).map(lambda blocks: DEFINITIONS + "\n\n".join(blocks))
rule_sets = st.builds(
    CjkRules,
    punctuation_limit=st.integers(0, 3),
    quote_style=st.sampled_from(["curly", "corner", "guillemets"]),
    spacing=st.booleans(),
    cleanup=st.booleans(),
)
FAST = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(documents, st.sampled_from(KINDS), rule_sets)
def test_a_transform_is_a_fixed_point(document: str, kind: str, rules: CjkRules) -> None:
    once = transform(document, kind, rules)
    assert transform(once, kind, rules) == once


@FAST
@given(documents, st.sampled_from(KINDS))
def test_structure_and_protected_content_survive(document: str, kind: str) -> None:
    assert skeleton(transform(document, kind, CjkRules())) == skeleton(document)


@FAST
@given(documents)
def test_changes_stay_inside_lines_and_do_not_overlap(document: str) -> None:
    changes = edits(document, CjkRules())
    for edit in changes:
        assert "\n" not in document[edit.start : edit.end] and "\n" not in edit.text
    assert all(a.end <= b.start for a, b in itertools.pairwise(changes))
    lines_before = document.split("\n")
    lines_after = transform(document, "cjk-format", CjkRules()).split("\n")
    assert len(lines_after) == len(lines_before)
