"""The lossless tests' oracle (no browser): which paragraph a keystroke goes to and the bytes expected after it."""

from __future__ import annotations

import pytest

from tests.ui.lossless import Paragraph, first_plain_paragraph, insert_at_line_end, matching_paragraph


@pytest.mark.parametrize(
    ("text", "line", "suffix"),
    [
        ("# T\n\nFirst para.\n", 2, "First para."),
        ("Ends in **bold**\n\nplain one.\n", 2, "plain one."),
        ("Ends in [a link](x)\n\nAn `inline` then words.\n", 2, "An inline then words."),
        ("Ends in &copy;\n\nnext one\n", 2, "next one"),
        ("Trailing spaces  \n\nok text.\n", 2, "ok text."),
        ("---\ntitle: front matter\n---\n\nText here.\n", 4, "Text here."),
        ("| a | b |\n|---|---|\n| c | d |\n\nreal text.\n", 4, "real text."),
        ("$$\nx\n$$\n\nafter math.\n", 4, "after math."),
        ("- item text\n\n> quoted text\n\nTop text.\n", 4, "Top text."),
        ("<div>\nhtml text\n</div>\n\nAfter html.\n", 4, "After html."),
        ("Two lines\nof one paragraph.\n", 1, "Two lines of one paragraph."),
        ("![img](i.png) then text\n", 0, "then text"),
        ("Escaped \\*star\\*\n", 0, "Escaped *star*"),
        ("No final newline", 0, "No final newline"),
    ],
)
def test_the_first_plain_paragraph(text: str, line: int, suffix: str) -> None:
    assert first_plain_paragraph(text) == Paragraph(line, suffix, 0)


def test_earlier_paragraphs_with_the_same_end_are_counted() -> None:
    assert first_plain_paragraph("Sees the end.  \n\nSees the end.\n") == Paragraph(2, "Sees the end.", 1)


@pytest.mark.parametrize("text", ["- only a list\n", "# Heading\n", "Ends in `code`\n", "x\n", "```\ncode\n```\n"])
def test_no_plain_paragraph(text: str) -> None:
    assert first_plain_paragraph(text) is None


@pytest.mark.parametrize(
    ("data", "line", "want"),
    [
        (b"a\nb\n", 0, b"aQ\nb\n"),
        (b"a\nb\n", 1, b"a\nbQ\n"),
        (b"a\r\nb\r\n", 0, b"aQ\r\nb\r\n"),
        (b"a\nlast", 1, b"a\nlastQ"),
        ("d\u00e9j\u00e0\n".encode(), 0, "d\u00e9j\u00e0Q\n".encode()),
    ],
)
def test_insert_at_line_end(data: bytes, line: int, want: bytes) -> None:
    assert insert_at_line_end(data, line) == want


def test_the_paragraph_on_screen_is_the_nth_with_that_end() -> None:
    shown = ["intro", "Sees the end.", "other", "Sees the end."]
    assert matching_paragraph(shown, Paragraph(2, "Sees the end.", 1)) == 3
    assert matching_paragraph(shown, Paragraph(2, "Sees the end.", 0)) == 1
    assert matching_paragraph(shown, Paragraph(2, "Sees the end.", 2)) is None
