"""The inline scanner against markdown-it-py: what the scanner calls text is text, and nothing else is.

The check: every character the scanner calls text has its ASCII letters rotated (a->b, ..., z->a); then the
fully parsed document must have the same structure and the same protected content (code, HTML, math,
destinations, escapes), and every text token must come out either fully rotated or (for the few texts the
scanner protects on purpose: autolinks, reference labels) untouched.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from vmark.text import blocks, inline
from vmark.text.transform import Edit, _line_edits, apply_edits

from .oracle import skeleton, texts

_ROTATE = str.maketrans(
    string.ascii_lowercase + string.ascii_uppercase,
    string.ascii_lowercase[1:] + "a" + string.ascii_uppercase[1:] + "A",
)
DEFINITIONS = "[ref]: /r\n[文档Docs]: /d\n[^1]: note\n\n"


def rotate_text(markdown: str) -> str:
    parsed = blocks.parse(markdown, lambda content: True)
    changes: list[Edit] = []
    for block in parsed.blocks:
        pieces = inline.scan(block.content, parsed.references, parsed.footnotes)
        assert "".join(text for _, text in pieces) == block.content
        rotated = "".join(text.translate(_ROTATE) if kind == "T" else text for kind, text in pieces)
        changes.extend(_line_edits(block, rotated))
    return apply_edits(markdown, sorted(changes))


def assert_agrees(markdown: str) -> None:
    rotated = rotate_text(markdown)
    assert skeleton(rotated) == skeleton(markdown)
    for before, after in zip(texts(markdown), texts(rotated), strict=True):
        assert after in (before.translate(_ROTATE), before), (before, after)


CORPUS = [
    "plain text with *em* and **strong** and ***both***",
    "*a **b** c* and _a __b__ c_ and a*b*c and a_b_c",
    "**unclosed and *em*",
    "`code` and ``co`de`` and ` unclosed and ``` x ``` ",
    "`a` `` b ` c ``",
    "[link](/url) [link](</my url> \"title\") [link]( /u 'title' )",
    "[a [nested] b](/u) [a [b](/c) d](/e) [unclosed (/u)",
    '![img *alt*](/i.png) ![img](/i.png "t") [![inner](/i)](/outer)',
    "[ref] [text][ref] [text][] [文档Docs] [文档Docs][] [missing] [text][missing]",
    "<https://example.com/a?b> <mailto:x@y.z> <a@b.co> <not a link> <http://a b>",
    '<b>bold</b> <span title="a*b*c">x</span> <!-- comment *x* --> <?php x ?> <!DOCTYPE html>',
    "&amp; &#44; &#x2C; &bogus; & alone &copy",
    "\\* \\_ \\` \\[ \\] \\\\ \\a \\中 trailing\\",
    "line one  \nline two\\\nline three\n  indented continuation",
    "$x$ $$y$$ $ a $ 5$ $6 $a$b$ \\$z$ $a\\$b$",
    "~~strike~~ ~single~ ~~~three~~~ a~~b~~c",
    "footnote[^1] and [^missing] and ^[inline *note*] and ^[unclosed",
    "emphasis *across [link* text](/u)* and [*a*](/u)*",
    "`code [not](link)` [link `with ]` code](/u)",
    "<span>[link](/u)</span> [<b>](/u) [a <b]> c](/u)",
    "中文*English*中文 **粗体English**后面 [链接Link](/u)后面",
    "a * b * c and a ** b and *a * b*",
    "***a** b* and **a *b*** and *a **b***",
    "[link]\n(/u) [link](\n/u\n) [a\nb](/u)",
    "**a\nb** *a\n\nb*",
    "[x](/u(a)b) [x](/u(a) [x](<a)b>)",
    '![a](</i> "t") ![b][ref] ![c][] ![ref]',
    "a <http://x.y>`code` [a](b)`c` $m$`c`",
    "[[中文abc]] [[a|别名b]] [[n#标题x|y]] `[[code]]` \\[[esc]] [[a [b] c]] [[[x]]] [see [[w]]](/u) ![[img]]",
    # dollarmath reads the string's last character before its first: these blocks' opening `$x$` is text
    "$abc$abc\\",
    "$abc$ abc 5",
    "\\\\$abc$x\\",
    "![$a$b\\](/u) and ^[$a$b\\] and $c$d",
]


@pytest.mark.parametrize("text", CORPUS)
def test_scanner_agrees_with_markdown_it(text: str) -> None:
    assert_agrees(DEFINITIONS + text)


@pytest.mark.parametrize("text", CORPUS)
def test_scanner_agrees_inside_containers(text: str) -> None:
    quoted = "\n".join(f"> - {line}" for line in text.split("\n"))
    assert_agrees(DEFINITIONS + quoted)


FRAGMENTS = [
    "中文",
    "abc",
    "Xy",
    " ",
    "  ",
    "\n",
    "*",
    "**",
    "_",
    "__",
    "~~",
    "~",
    "`",
    "``",
    "[",
    "]",
    "(",
    ")",
    "![",
    "^[",
    "[^1]",
    "](/u)",
    '](/u "t")',
    "][ref]",
    "[ref]",
    "<b>",
    "</b>",
    "<https://x.y>",
    "<a@b.co>",
    "&amp;",
    "&#44;",
    "\\",
    "\\*",
    "$",
    "$$",
    "1",
    ",",
    ".",
    '"',
    "'",
    "<",
    ">",
    "!",
    "^",
    "&",
    ":",
    "[[",
    "]]",
    "|",
    "#",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40))
@example(["$", "abc", "$", "abc", "\\"])
def test_scanner_agrees_on_random_inline_text(fragments: list[str]) -> None:
    assert_agrees(DEFINITIONS + "".join(fragments))


def test_a_link_to_a_forbidden_scheme_is_text() -> None:
    assert inline.scan("[x](javascript:alert(1))中文", frozenset(), frozenset()) == [
        ("T", "[x](javascript:alert(1))中文")
    ]


def test_a_wikilink_is_protected_whole() -> None:
    pieces = inline.scan("参见[[中文abc]]和[[笔记#标题A|别名b]]，`[[code]]`与\\[[x]]", frozenset(), frozenset())
    assert "|".join(f"{kind}:{text}" for kind, text in pieces) == (
        "T:参见|S:[[中文abc]]|T:和|S:[[笔记#标题A|别名b]]|T:，|C:`[[code]]`|T:与|S:\\[|T:[x]]"
    )


def test_pieces_of_a_paragraph() -> None:
    source = '中文**粗体**`code`[链接](/u "t")<b>&amp;\\,$x$<https://a.b>'
    assert inline.scan(source, frozenset(), frozenset()) == [
        ("T", "中文"),
        ("O", "**"),
        ("T", "粗体"),
        ("X", "**"),
        ("C", "`code`"),
        ("O", "["),
        ("T", "链接"),
        ("X", '](/u "t")'),
        ("S", "<b>&amp;\\,"),
        ("C", "$x$<https://a.b>"),
    ]
