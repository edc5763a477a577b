"""Rendering bridge answers as MCP tool results (DESIGN.md section 4).

Success: JSON text plus ``structuredContent``. Domain error: ``isError`` with the
envelope as JSON text and as ``structuredContent``. Argument error: ``isError`` with
the plain string. Anything over 75,000 UTF-8 bytes is replaced by a truncation note.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from ..core.text_pages import compact_json
from ..protocol.errors import parse_wire_error
from ..protocol.limits import OUTPUT_BOUND_BYTES

TRUNCATION_NOTE = (
    "The result was larger than {bound} bytes and was cut. For a document, read it in pages (`document.read`"
    " with `offset` = `nextOffset`); for a web page, use `browser_read.query` with a narrower selector."
)

_json = compact_json


def bound(data: Any) -> tuple[str, Any]:
    """``(text, structured)`` of ``data`` within the output bound."""
    text = _json(data)
    size = len(text.encode("utf-8"))
    if size <= OUTPUT_BOUND_BYTES:
        return text, data
    shell = {
        "truncated": True,
        "truncation_note": TRUNCATION_NOTE.format(bound=OUTPUT_BOUND_BYTES),
        "bytes_total": size,
        "bytes_shown": 0,
        "preview": "",
    }
    room = OUTPUT_BOUND_BYTES - len(_json(shell).encode("utf-8")) - 64
    preview = text.encode("utf-8")[: max(room, 0)]
    # A JSON-escaped preview grows; shrink until the whole result fits.
    while True:
        shown = preview.decode("utf-8", "ignore")
        shell.update(preview=shown, bytes_shown=len(shown.encode("utf-8")))
        out = _json(shell)
        if len(out.encode("utf-8")) <= OUTPUT_BOUND_BYTES:
            return out, shell
        preview = preview[: len(preview) - (len(out.encode("utf-8")) - OUTPUT_BOUND_BYTES) - 16]


def render(response: dict[str, Any]) -> types.CallToolResult:
    if response.get("success"):
        data = response.get("data")
        if isinstance(data, dict) and set(data) == {"image", "text"}:
            return _image(data)
        text, structured = bound(data)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content=structured if isinstance(structured, dict) else {"result": structured},
        )
    return render_error(str(response.get("error", "unknown error")))


def render_error(error: str) -> types.CallToolResult:
    parsed = parse_wire_error(error)
    if isinstance(parsed, dict) and parsed.get("shape") == "token":
        envelope = {key: parsed.get(key) for key in ("error", "message", "data")}
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"{envelope['error']}: {envelope['message']}")],
            structured_content=envelope,
            is_error=True,
        )
    if isinstance(parsed, dict):
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=_json(parsed))],
            structured_content=parsed,
            is_error=True,
        )
    return types.CallToolResult(content=[types.TextContent(type="text", text=parsed)], is_error=True)


def _image(data: dict[str, Any]) -> types.CallToolResult:
    """A screenshot: the image block, then the line naming the page (``structuredContent``: the line and the
    image's type; the bytes travel once, in the image block)."""
    image = data["image"]
    return types.CallToolResult(
        content=[
            types.ImageContent(type="image", data=image["data"], mime_type=image["mimeType"]),
            types.TextContent(type="text", text=str(data["text"])),
        ],
        structured_content={"mimeType": image["mimeType"], "text": str(data["text"])},
    )
