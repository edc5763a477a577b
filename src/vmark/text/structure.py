"""Whether the edits of a pass leave markdown-it's block structure as it was, so that the next pass of the fixed
point can format the changed blocks where they now are instead of parsing the whole document again.

markdown-it's block rules read a line's indentation and container markers (an edit never touches them: it replaces
the text after them), the first characters of the line where a block could start (list markers, ``#``, ``>``,
fences, ``<``, ``$$``, ``[``, setext underlines, thematic breaks, table delimiter rows, a reference title's quote
or parenthesis), pipes and the backslashes before them (table cells), ``$$`` at the end of a line (the closing line
of a math block, possibly with a label, which trailing spaces hide) and whether a line is blank. The content of a
block is its text without the whitespace around it (and without an ATX heading's closing ``#`` run).

So an edit of a pass keeps the structure when none of that changes; this is checked conservatively, on what the
edit does rather than on what the rules can do:

- the line starts, before and after the edit, with what cannot start block syntax (then markdown-it's block rules
  all pass it by): a letter or a non-ASCII character that is not whitespace, or digits followed by anything but
  ``.`` or ``)`` (an ordered list marker); this holds for every line of a paragraph and for a table cell that
  starts its line;
- a paragraph edited anywhere starts that way (else its first line may open a link reference definition or a math
  block that reads the following lines);
- no pipe, no ``$$`` in the old or new text, as many backslashes, and a backslash at its end only if there was one;
- the new text does not begin or end with whitespace where markdown-it strips it, and an ATX heading's does not end
  with ``#``;
- a removal of trailing spaces (the tail of a paragraph or heading) is on a line without ``$$``.

Anything else makes the next pass parse the whole document again, as the first pass did.
"""

from __future__ import annotations

from .blocks import LineSpan, TextBlock

#: a line an edit changes: its span, and its text before and after (without the leading characters it skips)
ChangedLine = tuple[LineSpan, str, str]

_DIGITS = "0123456789"


def _inert(text: str) -> bool:
    """Whether a line starting with ``text`` cannot start block syntax: it starts with a letter or a non-ASCII
    character that is not whitespace, or with digits that are not an ordered list marker's."""
    char = text[:1]
    if "0" <= char <= "9":
        return text.lstrip(_DIGITS)[:1] not in (".", ")")
    return (char.isascii() and char.isalpha()) or (not char.isascii() and not char.isspace())


def keeps_structure(block: TextBlock, lines: list[ChangedLine], tail_edited: bool) -> bool:
    """Whether changing ``lines`` of ``block``, and removing its trailing spaces when ``tail_edited``, leaves
    the block structure of the document as it was."""
    kind, content = block.kind, block.content
    if kind == "paragraph" and not _inert(content):
        return False
    if tail_edited and "$$" in content[content.rfind("\n") + 1 :]:
        return False
    last = block.lines[-1]
    for span, old, new in lines:
        if not new or "|" in old or "|" in new or "$$" in old or "$$" in new:
            return False
        if ("\\" in old or "\\" in new) and (
            old.count("\\") != new.count("\\") or (old[-1:] == "\\") != (new[-1:] == "\\")
        ):
            return False
        if kind == "paragraph":  # markdown-it strips the whitespace after the last line only
            if not (_inert(old) and _inert(new)) or (span is last and new[-1].isspace()):
                return False
            continue
        if kind == "first-cell" and not (_inert(old) and _inert(new)):
            return False
        if new[0].isspace() or new[-1].isspace() or (kind == "heading" and new[-1] == "#"):
            return False
    return True
