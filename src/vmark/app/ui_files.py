"""Workspace images for the page: ``GET /files/<window>/<absolute path>`` (issue 18, rendering).

The WYSIWYG view shows a document's images. The page asks for them here, behind the same UI cookie
as the page itself, and only for files inside the path scope of the window it names (its workspace
roots and the folders of its open documents, the scope agents are bound by). Read-only (the guard in
front allows only GET and HEAD), images only (by name, with their content type), never a listing; a
path that canonicalizes (``..``, symlinks) outside the scope is refused with 403 like any other.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from vmark.protocol.limits import MAX_IMAGE_BYTES

from ..storage.images import ImageTooLarge, image_type, read_image
from ..storage.pathscope import PathScope, ScopeError, canonical

#: an image opened on its own runs nothing (an SVG's scripts) and loads nothing
FILE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"


class WorkspaceFiles:
    """The endpoint; ``scope_of(window label)`` is that window's path scope, or None for no such window."""

    def __init__(self, scope_of: Callable[[str], PathScope | None], admitted: Callable[[Request], bool]) -> None:
        self.scope_of = scope_of
        self.admitted = admitted

    async def handle(self, request: Request) -> Response:
        if not self.admitted(request):
            return _answer(403, "no UI cookie")
        label = request.path_params["window"]
        scope = self.scope_of(label)
        if scope is None:
            return _answer(404, f"no window {label!r}")
        asked = "/" + request.path_params["path"]
        try:
            real = canonical(asked)
        except ScopeError as exc:
            return _answer(400, str(exc))
        if not scope.roots or not scope.contains(real):
            return _answer(403, f"{asked} lies outside this window's workspace and open documents")
        content_type = image_type(real)
        if content_type is None:
            return _answer(403, "only images are served to the page")
        try:
            body = read_image(real, scope)
        except FileNotFoundError:
            return _answer(404, f"{asked} does not exist")
        except IsADirectoryError:
            return _answer(404, f"{asked} is not a file")
        except ImageTooLarge:
            return _answer(413, f"{asked} is larger than {MAX_IMAGE_BYTES} bytes")
        except (OSError, ScopeError) as exc:
            return _answer(403, f"{asked} cannot be read: {exc}")
        headers = {
            "cache-control": "no-cache",
            "content-security-policy": FILE_CSP,
            "content-disposition": "inline",
        }
        if request.method == "HEAD":
            headers["content-length"] = str(len(body))
            return Response(b"", media_type=content_type, headers=headers)
        return Response(body, media_type=content_type, headers=headers)


def _answer(status: int, reason: str) -> PlainTextResponse:
    return PlainTextResponse(f"{reason}\n", status_code=status)

