"""Object identity in front matter: ``vmark: {id: <uuidv7>}``.

The identity line is not content: :func:`content_of` removes exactly what :func:`with_identity`
adds, so adding an identity never changes a document's content hash. A file whose front matter
already holds other keys keeps them; the identity line goes first in the block.
"""

from __future__ import annotations

import hashlib
import re

_OPEN = re.compile(r"\A---(\r?\n)")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.MULTILINE)
_FLOW = re.compile(r"^vmark:[ \t]*\{[ \t]*id:[ \t]*['\"]?([0-9a-fA-F-]{36})['\"]?[ \t]*\}[ \t]*(?:\r?\n)", re.MULTILINE)
_BLOCK = re.compile(r"^vmark:[ \t]*\r?\n[ \t]+id:[ \t]*['\"]?([0-9a-fA-F-]{36})['\"]?[ \t]*(?:\r?\n)", re.MULTILINE)


def _front_matter(text: str) -> tuple[int, int, str] | None:
    """``(start, end, newline)`` of the block's body (between the fences), or None."""
    opening = _OPEN.match(text)
    if opening is None:
        return None
    closing = _CLOSE.search(text, opening.end())
    if closing is None:
        return None
    return opening.end(), closing.start(), opening.group(1)


def _identity_line(text: str) -> re.Match[str] | None:
    block = _front_matter(text)
    if block is None:
        return None
    start, end, _ = block
    for pattern in (_FLOW, _BLOCK):
        found = pattern.search(text, start, end)
        if found is not None:
            return found
    return None


def identity_of(text: str) -> str | None:
    """The object id a document's front matter carries, lower-cased."""
    found = _identity_line(text)
    return found.group(1).lower() if found else None


def content_of(text: str) -> str:
    """The document without its identity. A front matter block left empty goes too (an empty block
    is not content either), which makes this the exact inverse of :func:`with_identity`."""
    found = _identity_line(text)
    if found is not None:
        text = text[: found.start()] + text[found.end() :]
    block = _front_matter(text)
    if block is not None and block[0] == block[1]:
        closing = _CLOSE.match(text, block[1])
        assert closing is not None
        return text[closing.end() :]
    return text


def with_identity(text: str, object_id: str) -> str:
    """``text`` carrying ``object_id`` (replacing another identity it carried)."""
    content = content_of(text)
    block = _front_matter(content)
    newline = block[2] if block else ("\r\n" if "\r\n" in content else "\n")
    line = f"vmark: {{id: {object_id}}}{newline}"
    if block is None:
        return f"---{newline}{line}---{newline}{content}"
    start = block[0]
    return content[:start] + line + content[start:]


def content_digest(text: str) -> str:
    """sha256 hex of the content (identity removed), the ``content`` of a revision record."""
    return hashlib.sha256(content_of(text).encode("utf-8")).hexdigest()


def revision_id(content: str, parents: list[str]) -> str:
    """``rev1:`` + sha256 over the content digest and the sorted parents: content-derived, so two
    writers recording the same edit of the same parent mint the same revision."""
    data = content + "\n" + "\n".join(sorted(parents))
    return "rev1:" + hashlib.sha256(data.encode("utf-8")).hexdigest()
