"""The text blocks of a Markdown document, with their exact places in the source.

markdown-it-py parses the block structure (``inline`` tokens are left unparsed: the inline scanner does
that, see :mod:`vmark.text.inline`). Each ``inline`` token of a paragraph, heading or table cell becomes a
:class:`TextBlock`: its content as markdown-it sees it (indentation, ``>`` and list markers removed) and,
for every line of that content, where it lies in the source. Everything else (code blocks, HTML blocks,
front matter, math blocks, reference definitions, thematic breaks) is never looked at.

A block whose content cannot be located character for character in the source (a table cell with an
escaped pipe, a line whose indentation markdown-it rewrote, a NUL character) is dropped: it stays as it is.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable
from typing import Any, Literal, NamedTuple

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from .chars import RESERVED_RE
from .wikilink import wikilink_plugin


class LineSpan(NamedTuple):
    """One line of a block's content: ``content_line[skip:]`` is ``source[start:start + length]``.

    ``skip`` leading characters of the content line (indentation markdown-it kept or synthesised) have no
    place in the source; the rules never change leading whitespace, so they are checked, not mapped.
    """

    start: int
    skip: int
    length: int


#: Where a block's lines lie for markdown-it's block rules: ``paragraph`` (paragraphs and setext headings: every
#: line of the content starts where block syntax could start), ``heading`` (the text of an ATX heading, after its
#: ``#`` run), ``cell`` (a table cell after a pipe on its line), ``first-cell`` (a table cell that starts its line).
BlockKind = Literal["paragraph", "heading", "cell", "first-cell"]


class TextBlock(NamedTuple):
    content: str
    lines: tuple[LineSpan, ...]
    #: the source after the content on its last line, up to the line end (trailing spaces live there)
    tail: tuple[int, int] | None
    kind: BlockKind


class Parsed(NamedTuple):
    blocks: list[TextBlock]
    #: link reference labels (normalized) and footnote labels defined in the document
    references: frozenset[str]
    footnotes: frozenset[str]


def block_parser() -> MarkdownIt:
    """The Markdown dialect: CommonMark with HTML, GFM tables and strikethrough, front matter, ``$``/``$$`` math
    (Pandoc's rules: no space inside the dollars, no digit outside), footnotes and wikilinks (the editor's
    ``[[name]]``: :mod:`vmark.text.wikilink`)."""
    md = (
        MarkdownIt("commonmark", {"html": True})
        .enable(["table", "strikethrough"])
        .use(front_matter_plugin)
        .use(dollarmath_plugin, allow_space=False, allow_digits=False, double_inline=True)
        .use(footnote_plugin)
        .use(wikilink_plugin)
    )
    return md


@functools.cache
def _block_only_parser() -> MarkdownIt:
    md = block_parser()
    md.disable(["inline", "footnote_tail", "text_join"])
    return md


def parse(text: str, wanted: Callable[[str], bool]) -> Parsed:
    """The text blocks of ``text`` (``\\n`` line ends) whose content ``wanted`` accepts, in document order."""
    env: dict[str, Any] = {}
    tokens = _block_only_parser().parse(text, env)
    locator = _Locator(text)
    blocks: list[TextBlock] = []
    row: list[Token] = []
    for previous, token in itertools.pairwise(tokens):  # the first token opens a block: it is neither of these
        kind = token.type
        if kind == "inline" and token.map is not None:
            if previous.type in ("th_open", "td_open"):
                row.append(token)
            elif token.content and wanted(token.content):
                block = locator.block(token, previous)
                if block is not None:
                    blocks.append(block)
        elif kind == "tr_close":
            if any(wanted(cell.content) for cell in row):  # else none of its cells is wanted: no need to locate them
                blocks.extend(block for block in locator.row(row) if wanted(block.content))
            row = []
    footnotes = env.get("footnotes", {}).get("refs", {})
    return Parsed(blocks, frozenset(env.get("references", {})), frozenset(label[1:] for label in footnotes))


# before the content of an ATX heading: container markers, then the opening sequence and whitespace
_ATX_BEFORE = re.compile(r".*#[ \t]+|[ \t]*#+")
# after it: an optional closing sequence
_ATX_AFTER = re.compile(r"(?:[ \t]+#+)?[ \t]*")
_CELL_GAP = re.compile(r"[ \t|]*")


class _Locator:
    """Finds the content of ``inline`` tokens in the source, line by line."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.starts = list(itertools.accumulate((len(line) + 1 for line in self.lines), initial=0))

    def block(self, token: Token, parent: Token) -> TextBlock | None:
        assert token.map is not None
        if RESERVED_RE.search(token.content):
            return None
        if parent.type == "heading_open" and parent.markup.startswith("#"):
            return self._atx_heading(token.content, token.map[0])
        return self._paragraph(token.content, token.map[0], token.map[1])

    def _paragraph(self, content: str, first: int, end: int) -> TextBlock | None:
        """Paragraphs and setext headings: every content line ends its source line (the last one before
        trailing whitespace), so it is located from the right."""
        if "\n" not in content:  # the common case, without the loop below
            if first + 1 > min(end, len(self.lines)):
                return None
            line = self.lines[first]
            body = line.rstrip()
            core = content.lstrip(" \t")
            if not body.endswith(core):
                return None
            start = self.starts[first] + len(body) - len(core)
            span = LineSpan(start, len(content) - len(core), len(core))
            return TextBlock(content, (span,), (start + len(core), self.starts[first] + len(line)), "paragraph")
        parts = content.split("\n")
        if first + len(parts) > min(end, len(self.lines)):
            return None
        spans: list[LineSpan] = []
        last = len(parts) - 1
        for k, part in enumerate(parts):
            line = self.lines[first + k]
            body = line.rstrip() if k == last else line
            core = part.lstrip(" \t")
            if not body.endswith(core):
                return None
            spans.append(LineSpan(self.starts[first + k] + len(body) - len(core), len(part) - len(core), len(core)))
        line_end = self.starts[first + last] + len(self.lines[first + last])
        return TextBlock(content, tuple(spans), (spans[-1].start + spans[-1].length, line_end), "paragraph")

    def _atx_heading(self, content: str, line_no: int) -> TextBlock | None:
        """An ATX heading, possibly inside list items or block quotes: the content is the last occurrence of
        the heading text on its line, with the opening sequence before it and at most a closing one after."""
        line = self.lines[line_no]
        column = line.rfind(content)
        after = column + len(content)
        if column < 0 or not _ATX_BEFORE.fullmatch(line, 0, column) or not _ATX_AFTER.fullmatch(line, after):
            return None
        start = self.starts[line_no] + column
        line_end = self.starts[line_no] + len(line)
        return TextBlock(content, (LineSpan(start, 0, len(content)),), (start + len(content), line_end), "heading")

    def row(self, cells: list[Token]) -> list[TextBlock]:
        """The cells of one table row, located by searching the row from the right, each one up to the cell
        after it; nothing but spaces and pipes may lie between two cells. From a cell that cannot be located
        (markdown-it drops the backslash of ``\\|``), that cell and the ones left of it are dropped."""
        if not cells or cells[0].map is None:
            return []
        line_no = cells[0].map[0]
        line = self.lines[line_no]
        bound = len(line)
        located: list[TextBlock] = []
        for token in reversed(cells):
            content = token.content
            if not content:
                continue
            column = line.rfind(content, 0, bound)
            if "|" in content or RESERVED_RE.search(content) or column < 0:
                break
            if not _CELL_GAP.fullmatch(line, column + len(content), bound):
                break
            span = LineSpan(self.starts[line_no] + column, 0, len(content))
            located.append(TextBlock(content, (span,), None, "cell" if "|" in line[:column] else "first-cell"))
            bound = column
        located.reverse()
        return located
