"""HTML -> Markdown (CommonMark plus GFM tables), for an article subtree that a reader picked.

Blocks are rendered to lists of strings and joined with blank lines; inline content is assembled
with whitespace collapsed as a browser would, then escaped so that page text can never turn into
Markdown structure. Links and images are resolved against the page URL, and only http(s), mailto and
in-page links survive (no ``javascript:``; ``data:`` images are dropped). Recursion is bounded: a subtree
deeper than ``EXTRACT_MARKDOWN_MAX_DEPTH`` is flattened to its text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from lxml import etree

from vmark.protocol.limits import EXTRACT_MARKDOWN_MAX_DEPTH

from .dom import BLOCK_TAGS, Element, raw_text, text_of

_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_EMPHASIS = {"em": "*", "i": "*", "dfn": "*", "var": "*", "strong": "**", "b": "**", "del": "~~",
             "s": "~~", "strike": "~~"}  # fmt: skip
_CODE = frozenset({"code", "kbd", "samp", "tt"})

_BREAK = "\ue000"  # a <br> while a paragraph is assembled; becomes a hard line break
_SPACES = re.compile(r"[ \t\n\r\f\v]+")
_ESCAPED = re.compile(r"([\\`*_\[\]<])")
_ENTITY_LIKE = re.compile(r"&(?=#?\w+;)")
_LINE_START = re.compile(r"^(\s*)(#{1,6}(?=\s|$)|>|[-+*](?=\s|$)|(\d{1,9})([.)])(?=\s|$)|=+\s*$|~~~|-{3,}\s*$)")
_SAFE_SCHEMES = frozenset({"http", "https", "mailto"})


def to_markdown(root: Element, base_url: str) -> str:
    """The Markdown of ``root``'s content."""
    return "\n\n".join(_Writer(base_url).blocks(root, 0)).strip() + "\n"


def _collapse(text: str) -> str:
    return _SPACES.sub(" ", text)


def _escape(text: str) -> str:
    return _ENTITY_LIKE.sub("&amp;", _ESCAPED.sub(r"\\\1", text))


def _escape_line_start(line: str) -> str:
    match = _LINE_START.match(line)
    if match is None:
        return line
    lead, marker = match.group(1), match.group(2)
    if match.group(3) is not None:  # "1." would start an ordered list
        return f"{lead}{match.group(3)}\\{match.group(4)}{line[match.end(2) :]}"
    return f"{lead}\\{marker}{line[match.end(2) :]}"


def _finish_inline(text: str) -> str:
    """Collapse the assembled inline text and turn <br> markers into hard line breaks."""
    text = _SPACES.sub(" ", text)
    lines = [line.strip() for line in text.split(_BREAK)]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    lines = [_escape_line_start(line) for line in lines if line]
    return "\\\n".join(lines)


def _span(cell: Element, name: str) -> int:
    try:
        return int((cell.get(name) or "1").strip() or "1")
    except ValueError:
        return 1


def _join(parts: list[str]) -> str:
    """Concatenate inline pieces; where one piece's closing delimiter run meets an identical opening run of the
    next (``**A**`` + ``**n**``, one format split over sibling elements), the two merge into one span."""
    out = ""
    for piece in parts:
        if out and piece:
            for char in "*~":
                closing = len(out) - len(out.rstrip(char))
                opening = len(piece) - len(piece.lstrip(char))
                if closing and closing == opening and not out[: len(out) - closing].endswith("\\"):
                    out, piece = out[: len(out) - closing], piece[opening:]
                    break
        out += piece
    return out


def _fence(content: str, char: str = "`") -> str:
    longest = max((len(run) for run in re.findall(re.escape(char) + "+", content)), default=0)
    return char * max(3 if char == "`" and "\n" in content else 1, longest + 1)


def _preformatted_text(el: Element) -> str:
    """The text of a ``<pre>`` as shown: its ``<br>`` are line breaks (no recursion: the tree may be deep)."""
    parts: list[str] = []
    for event, node in etree.iterwalk(el, events=("start", "end")):
        if event == "start":
            parts.append("\n" if node.tag == "br" else node.text or "")
        elif node is not el:
            parts.append(node.tail or "")
    return "".join(parts)


def _indent(text: str, prefix: str, first: str | None = None) -> str:
    lines = text.split("\n")
    head = first if first is not None else prefix
    return "\n".join((head if i == 0 else prefix) + line if line else line for i, line in enumerate(lines))


@dataclass
class _Writer:
    base_url: str

    # -- blocks ---------------------------------------------------------------------------------------------
    def blocks(self, el: Element, depth: int) -> list[str]:
        """The Markdown blocks of ``el``'s content (not of ``el`` itself)."""
        if depth > EXTRACT_MARKDOWN_MAX_DEPTH:
            text = _escape(text_of(el))
            return [text] if text else []
        out: list[str] = []
        run: list[str] = [_escape(_collapse(el.text or ""))]
        for child in el:
            if isinstance(child.tag, str) and self._is_block(child):
                self._flush(run, out)
                out.extend(self.block(child, depth + 1))
                run = []
            elif isinstance(child.tag, str):
                run.append(self.inline(child, depth + 1))
            run.append(_escape(_collapse(child.tail or "")))
        self._flush(run, out)
        return out

    def _is_block(self, el: Element) -> bool:
        if el.tag in BLOCK_TAGS:
            return True
        # an inline wrapper (a <span> or <a>) around blocks is rendered as those blocks
        return el.tag not in ("br", "img") and any(
            isinstance(d.tag, str) and d.tag in BLOCK_TAGS for d in el.iterdescendants()
        )

    def _flush(self, run: list[str], out: list[str]) -> None:
        text = _finish_inline(_join(run))
        if text:
            out.append(text)

    def block(self, el: Element, depth: int) -> list[str]:
        tag = el.tag
        if depth > EXTRACT_MARKDOWN_MAX_DEPTH:
            return self.blocks(el, depth)
        if tag in _HEADINGS:
            text = _finish_inline(self._inline_content(el, depth)).replace("\\\n", " ")
            return [f"{'#' * _HEADINGS[tag]} {text}"] if text else []
        if tag == "hr":
            return ["---"]
        if tag == "pre":
            return [self._pre(el)]
        if tag in ("ul", "ol", "menu", "dir"):
            return self._list(el, depth)
        if tag == "li":  # a stray item outside a list
            parts = self.blocks(el, depth)
            return [self._join_item(parts, "- ")] if parts else []
        if tag == "blockquote":
            inner = "\n\n".join(self.blocks(el, depth))
            return [_indent(inner, "> ").replace("\n\n", "\n>\n")] if inner else []
        if tag == "table":
            return self._table(el, depth)
        if tag == "dl":
            return self._definitions(el, depth)
        return self.blocks(el, depth)  # paragraphs and every other container

    def _pre(self, el: Element) -> str:
        code = _preformatted_text(el).replace("\r\n", "\n")
        if code.startswith("\n"):
            code = code[1:]
        code = code.rstrip("\n")
        fence = "`" * max(3, len(_fence(code)))
        language = ""
        for node in (el, *el.iterdescendants("code")):
            for name in (node.get("class") or "").split():
                if name.startswith(("language-", "lang-")):
                    language = name.split("-", 1)[1]
                    break
            if language:
                break
        language = re.sub(r"[^\w+#.-]", "", language)
        return f"{fence}{language}\n{code}\n{fence}"

    def _list(self, el: Element, depth: int) -> list[str]:
        ordered = el.tag == "ol"
        try:
            number = int(el.get("start") or "1")
        except ValueError:
            number = 1
        if not 0 <= number < 10**8:  # CommonMark list numbers have at most nine digits
            number = 1
        items: list[str] = []
        loose = False
        for child in el:
            if not isinstance(child.tag, str):
                continue
            if child.tag != "li":
                items.extend(self.block(child, depth + 1) if self._is_block(child) else [])
                continue
            marker = f"{number}. " if ordered else "- "
            number += 1
            parts = self.blocks(child, depth + 1)
            if len([p for p in parts if not p.lstrip().startswith(("- ", "1. "))]) > 1:
                loose = True
            items.append(self._join_item(parts, marker))
        if not items:
            return []
        return ["\n\n".join(items) if loose else "\n".join(items)]

    @staticmethod
    def _join_item(parts: list[str], marker: str) -> str:
        if not parts:
            return marker.rstrip()
        # a sub-list right after the item's text keeps the list tight
        body = parts[0]
        for part in parts[1:]:
            tight = part.startswith(("- ", "1. ")) or re.match(r"\d+\. ", part) is not None
            body += ("\n" if tight else "\n\n") + part
        return _indent(body, " " * len(marker), marker)

    def _definitions(self, el: Element, depth: int) -> list[str]:
        out: list[str] = []
        for child in el:
            if not isinstance(child.tag, str):
                continue
            if child.tag == "dt":
                term = _finish_inline(self._inline_content(child, depth + 1))
                if term:
                    out.append(f"**{term}**")
            else:
                out.extend(self.blocks(child, depth + 1))
        return out

    # -- tables ---------------------------------------------------------------------------------------------
    def _rows(self, table: Element) -> list[Element]:
        rows: list[Element] = []
        for child in table:
            if child.tag == "tr":
                rows.append(child)
            elif child.tag in ("thead", "tbody", "tfoot"):
                rows.extend(row for row in child if row.tag == "tr")
        return rows

    def _is_simple(self, rows: list[Element]) -> bool:
        if not rows:
            return False
        for row in rows:
            for cell in row:
                if not isinstance(cell.tag, str):
                    continue
                if cell.tag not in ("td", "th"):
                    return False
                if _span(cell, "colspan") != 1 or _span(cell, "rowspan") != 1:
                    return False
                if any(isinstance(d.tag, str) and d.tag in BLOCK_TAGS and d.tag != "p" for d in cell.iterdescendants()):
                    return False
        return True

    def _table(self, el: Element, depth: int) -> list[str]:
        rows = self._rows(el)
        caption = el.find("caption")
        out: list[str] = []
        if caption is not None:
            out.extend(self.blocks(caption, depth + 1))
        if not self._is_simple(rows):
            # a layout table (or one with spans or blocks in cells): its cells' content, in order
            for row in rows:
                for cell in row:
                    if isinstance(cell.tag, str):
                        out.extend(self.blocks(cell, depth + 1))
            return out
        grid = [
            [self._cell(cell, depth + 1) for cell in row if isinstance(cell.tag, str) and cell.tag in ("td", "th")]
            for row in rows
        ]
        grid = [row for row in grid if row]
        if not grid:
            return out
        width = max(len(row) for row in grid)
        if width == 1 and len(grid) == 1:
            return [*out, grid[0][0]] if grid[0][0] else out
        lines = []
        for i, cells_of_row in enumerate(grid):
            cells = cells_of_row + [""] * (width - len(cells_of_row))
            lines.append("| " + " | ".join(cells) + " |")
            if i == 0:
                lines.append("|" + "|".join(" --- " for _ in range(width)) + "|")
        out.append("\n".join(lines))
        return out

    def _cell(self, cell: Element, depth: int) -> str:
        text = _finish_inline(self._inline_content(cell, depth))
        return text.replace("\\\n", " ").replace("\n", " ").replace("|", "\\|")

    # -- inline ---------------------------------------------------------------------------------------------
    def _inline_content(self, el: Element, depth: int) -> str:
        parts = [_escape(_collapse(el.text or ""))]
        for child in el:
            if isinstance(child.tag, str):
                parts.append(self.inline(child, depth + 1))
            parts.append(_escape(_collapse(child.tail or "")))
        return _join(parts)

    def inline(self, el: Element, depth: int) -> str:
        tag = el.tag
        if depth > EXTRACT_MARKDOWN_MAX_DEPTH:
            return _escape(text_of(el))
        if tag == "br":
            return _BREAK
        if tag == "img":
            return self._image(el)
        if tag in _CODE:
            return self._code_span(el)
        if tag == "a":
            return self._link(el, depth)
        if tag in _EMPHASIS:
            return self._wrap(self._inline_content(el, depth), _EMPHASIS[tag])
        if tag in BLOCK_TAGS:  # a block met in inline context (a paragraph in a table cell): keep words apart
            return f" {self._inline_content(el, depth)} "
        return self._inline_content(el, depth)

    @staticmethod
    def _wrap(content: str, marker: str) -> str:
        inner = content.strip()
        if not inner or _BREAK in inner:
            return content
        lead = " " if content[:1].isspace() else ""
        trail = " " if content[-1:].isspace() else ""
        return f"{lead}{marker}{inner}{marker}{trail}"

    def _code_span(self, el: Element) -> str:
        code = _collapse(raw_text(el))
        if not code.strip():
            return code
        fence = _fence(code)
        pad = " " if code.startswith("`") or code.endswith("`") else ""
        return f"{fence}{pad}{code}{pad}{fence}"

    def _url(self, raw: str | None) -> str | None:
        if raw is None:
            return None
        raw = raw.strip()
        if not raw or raw.startswith("data:"):
            return None
        try:
            url = urljoin(self.base_url, raw)
            scheme = urlsplit(url).scheme.lower()
        except ValueError:
            return None
        if scheme not in _SAFE_SCHEMES:
            return None
        return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29").replace("<", "%3C").replace(">", "%3E")

    def _image(self, el: Element) -> str:
        src = self._url(el.get("src") or el.get("data-src"))
        if src is None:
            return ""
        alt = _escape(_collapse(el.get("alt") or "").strip())
        return f"![{alt}]({src})"

    def _link(self, el: Element, depth: int) -> str:
        content = self._inline_content(el, depth)
        href = self._url(el.get("href"))
        if href is None:
            return content
        inner = content.strip()
        if not inner:
            return content
        lead = " " if content[:1].isspace() else ""
        trail = " " if content[-1:].isspace() else ""
        inner = inner.replace(_BREAK, " ")
        return f"{lead}[{inner}]({href}){trail}"
