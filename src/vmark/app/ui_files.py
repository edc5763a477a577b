"""Workspace images for the page: ``GET /files/<window>/<absolute path>`` (issue 18, rendering).

The WYSIWYG view shows a document's images. The page asks for them here, behind the same UI cookie
as the page itself, and only for files inside the path scope of the window it names (its workspace
roots and the folders of its open documents, the scope agents are bound by). Read-only (the guard in
front allows only GET and HEAD), images only (by name, with their content type), never a listing; a
path that canonicalizes (``..``, symlinks) outside the scope is refused with 403 like any other.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from ..storage.pathscope import PathScope, ScopeError, canonical

#: what the page may load as an image, by file name suffix
IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".avif": "image/avif",
    ".svg": "image/svg+xml",
    ".bmp": "image/bmp",
    ".ico": "image/x-icon",
}
#: no image a document shows is larger; past this the answer is 413
MAX_IMAGE_BYTES = 64 * 1024 * 1024
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
        suffix = os.path.splitext(real)[1].lower()
        content_type = IMAGE_TYPES.get(suffix)
        if content_type is None:
            return _answer(403, "only images are served to the page")
        try:
            body = _read(real, scope)
        except FileNotFoundError:
            return _answer(404, f"{asked} does not exist")
        except IsADirectoryError:
            return _answer(404, f"{asked} is not a file")
        except _TooLarge:
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


class _TooLarge(Exception):
    pass


def _read(real: str, scope: PathScope) -> bytes:
    """The file's bytes, opened without following a last-moment symlink and checked again once open."""
    fd = os.open(real, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        scope.check_fd(fd, real)
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(real)
        if not stat.S_ISREG(info.st_mode):
            raise OSError("not a regular file")
        if info.st_size > MAX_IMAGE_BYTES:
            raise _TooLarge()
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(MAX_IMAGE_BYTES + 1)
    finally:
        os.close(fd)


def _answer(status: int, reason: str) -> PlainTextResponse:
    return PlainTextResponse(f"{reason}\n", status_code=status)

