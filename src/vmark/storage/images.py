"""Workspace images read through the path scope: the page's ``/files/`` route and the export's embedding.

An image is named by its file name's suffix (:data:`IMAGE_TYPES`), opened without following a last-moment
symlink, checked against the scope again once open, and read whole up to :data:`MAX_IMAGE_BYTES`.
"""

from __future__ import annotations

import os
import stat

from ..protocol.limits import MAX_IMAGE_BYTES
from .pathscope import PathScope

#: what is read as an image, by file name suffix
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


class ImageTooLarge(Exception):
    """The file is larger than :data:`MAX_IMAGE_BYTES`."""


def image_type(path: str) -> str | None:
    """The content type of an image file by its name, or None when the name is not an image's."""
    return IMAGE_TYPES.get(os.path.splitext(path)[1].lower())


def read_image(real: str, scope: PathScope) -> bytes:
    """The bytes of canonical ``real`` (in ``scope``): ``FileNotFoundError``, ``IsADirectoryError``,
    :class:`ImageTooLarge`, :class:`~.pathscope.ScopeError` (it left the scope) or another ``OSError``."""
    fd = os.open(real, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        scope.check_fd(fd, real)
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(real)
        if not stat.S_ISREG(info.st_mode):
            raise OSError("not a regular file")
        if info.st_size > MAX_IMAGE_BYTES:
            raise ImageTooLarge(real)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(MAX_IMAGE_BYTES + 1)
        if len(data) > MAX_IMAGE_BYTES:
            raise ImageTooLarge(real)
        return data
    finally:
        os.close(fd)
