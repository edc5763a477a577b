"""A document's images for an export: where an image reference points, and its bytes through the path scope.

The reading of a reference is the editor's (``imageAddress`` in ``frontend/src/renderctx.ts``): a path
relative to the document's folder, an absolute path or a ``file://`` address is a workspace image; ``data:``
stays as it is; ``https:`` is a web image, never fetched by an export; anything else is not an image VMark
loads. Every file is read through :func:`vmark.storage.images.read_image`, inside the export's scope.
"""

from __future__ import annotations

import base64
import posixpath
import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote

from ..protocol.limits import MAX_IMAGE_BYTES
from ..storage.images import ImageTooLarge, image_type, read_image
from ..storage.pathscope import PathScope, ScopeError, canonical


@dataclass(frozen=True)
class Reference:
    kind: Literal["file", "data", "web", "other"]
    #: the absolute path of a ``file`` reference
    path: str = ""


def reference_of(src: str, doc_path: str | None) -> Reference:
    trimmed = src.strip()
    if trimmed == "":
        return Reference("other")
    if re.match(r"https:", trimmed, re.I):
        return Reference("web")
    if re.match(r"data:image/", trimmed, re.I):
        return Reference("data")
    if re.match(r"file://", trimmed, re.I):
        path = re.sub(r"^file://(localhost)?", "", trimmed, flags=re.I)
    elif re.match(r"[a-z][a-z0-9+.-]*:", trimmed, re.I):
        return Reference("other")
    elif trimmed.startswith("/"):
        path = trimmed
    elif doc_path is None:
        return Reference("other")  # an untitled document has no folder
    else:
        path = posixpath.join(posixpath.dirname(doc_path), trimmed)
    path = re.sub(r"[?#].*$", "", path, flags=re.S)
    parts: list[str] = []
    for part in unquote(path).split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
        else:
            parts.append(part)
    return Reference("file", "/" + "/".join(parts))


class ImageRefused(Exception):
    """The image cannot be embedded; the message says why (shown as an export's warning)."""


def read_scoped_image(path: str, scope: PathScope) -> tuple[bytes, str]:
    """``(bytes, content type)`` of the image at absolute ``path``, read inside ``scope``, else
    :class:`ImageRefused`."""
    try:
        real = canonical(path)
    except ScopeError as exc:
        raise ImageRefused(str(exc)) from exc
    if not scope.roots or not scope.contains(real):
        raise ImageRefused(f"{path} lies outside the workspace and the document's folder")
    content_type = image_type(real)
    if content_type is None:
        raise ImageRefused(f"{path} is not an image file (by its name)")
    try:
        return read_image(real, scope), content_type
    except FileNotFoundError as exc:
        raise ImageRefused(f"{path} does not exist") from exc
    except IsADirectoryError as exc:
        raise ImageRefused(f"{path} is a folder") from exc
    except ImageTooLarge as exc:
        raise ImageRefused(f"{path} is larger than {MAX_IMAGE_BYTES} bytes") from exc
    except (OSError, ScopeError) as exc:
        raise ImageRefused(f"{path} cannot be read: {exc}") from exc


def data_uri(data: bytes, content_type: str) -> str:
    return f"data:{content_type};base64,{base64.b64encode(data).decode('ascii')}"
