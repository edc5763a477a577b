"""markdown-it-py, fully parsed, as the oracle: what a Markdown document *is*, apart from its text."""

from __future__ import annotations

import functools
from collections.abc import Iterator

from markdown_it import MarkdownIt
from markdown_it.token import Token

from vmark.text.blocks import block_parser

#: token types whose content is protected: it must survive a transform character for character
PROTECTED_CONTENT = frozenset(
    {
        "code_inline",
        "code_block",
        "fence",
        "html_inline",
        "html_block",
        "math_inline",
        "math_inline_double",
        "math_block",
        "math_block_label",
        "front_matter",
        "text_special",
    }
)


@functools.cache
def parser() -> MarkdownIt:
    md = block_parser()
    md.disable("text_join")  # keep escapes and entities as their own tokens
    return md


def _flat(tokens: list[Token]) -> Iterator[Token]:
    for token in tokens:
        yield token
        if token.children:
            yield from _flat(token.children)


def skeleton(markdown: str) -> list[tuple[object, ...]]:
    """The document without its text: every token's type, tag, nesting and markup, the attributes of links and
    images, and the content of every protected token (code, HTML, math, front matter, escapes, entities).
    Text tokens of spaces only are left out: a space between two images is a new text token."""
    env: dict[str, object] = {}
    shape: list[tuple[object, ...]] = []
    for token in _flat(parser().parse(markdown, env)):
        if token.type == "text" and not token.content.strip():
            continue
        attrs = tuple(sorted((k, v) for k, v in token.attrs.items() if k != "alt"))
        content = token.content if token.type in PROTECTED_CONTENT else None
        markup = token.markup if token.type not in ("text", "softbreak") else ""
        shape.append((token.type, token.tag, token.nesting, markup, token.info, attrs, content))
    return shape


def texts(markdown: str) -> list[str]:
    """The contents of the text tokens, in order."""
    return [token.content for token in _flat(parser().parse(markdown, {})) if token.type == "text"]
