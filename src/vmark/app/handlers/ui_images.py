"""Images the person pastes or drops into a document: ``ui.image_save`` writes them beside it.

The page never puts an image into the text as a ``data:`` URI: it sends the image's bytes here, and the
app writes them into the folder the ``editor.image_folder`` setting names (``assets`` by default), relative to
the document's own folder, and answers the relative link the page writes as ``![alt](link)``.

- An untitled document has no folder: ``INVALID_PATH`` (the page asks the person to save it first).
- A read-only document: ``READ_ONLY`` (its text will not take the link either).
- The folder must lie in the window's path scope (its workspace roots and the folders of its open documents),
  canonicalized there: a setting such as ``../elsewhere`` or an ``assets`` that is a symlink out of the scope
  is ``INVALID_PATH``, and nothing is created or written. Missing folders inside the scope are created.
- The bytes must be a PNG, JPEG, GIF, WebP or SVG image (by their content, not by the name) of at most
  ``MAX_PASTED_IMAGE_BYTES``: otherwise a plain argument error.
- The name is the given name's stem, made safe (``image``, ``Screen-Shot-2024``), with the suffix of the
  image's real type; a name that is taken gets ``-1``, ``-2``, ... (``image.png``, ``image-1.png``): nothing is
  ever replaced. The write is atomic (a temp file, fsync'd, renamed into place without replacing).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import os
import posixpath
import re
from typing import TYPE_CHECKING

from ...protocol import wire_types as wire
from ...protocol.errors import ArgumentError, DomainError
from ...protocol.jsontypes import JSONObject
from ...protocol.limits import MAX_PASTED_IMAGE_BYTES
from ...storage.files import SaveError, save_new
from ...storage.pathscope import PathScope, ScopeError, canonical
from .args import tab_of
from .registry import PersonAction

if TYPE_CHECKING:
    from ..context import RequestContext

#: how many taken names (``image-1`` ... ``image-N``) are tried before the folder is called full
MAX_NAME_TRIES = 10_000
#: the longest stem a written image keeps (the suffix comes on top)
MAX_STEM_CHARS = 80
#: the base64 length of ``MAX_PASTED_IMAGE_BYTES`` bytes: a longer ``data`` is refused before it is decoded
_MAX_BASE64_CHARS = 4 * -(-MAX_PASTED_IMAGE_BYTES // 3)


async def save_image(ctx: RequestContext, args: JSONObject) -> wire.ImageSaved:
    window, tab = tab_of(ctx, args)
    doc = tab.doc
    if doc.path is None:
        raise DomainError("INVALID_PATH", "untitled: save the document first, its images go into a folder beside it")
    if doc.read_only:
        raise DomainError("READ_ONLY", f"{doc.path} is read-only: no image goes into it", filePath=doc.path)
    data = _decode(args["data"])
    suffix = image_suffix(data)
    if suffix is None:
        raise ArgumentError("argument 'data' must be a PNG, JPEG, GIF, WebP or SVG image")
    folder = str(ctx.settings.get("editor.image_folder"))
    scope = ctx.session.scope(window)
    stem = safe_stem(args["name"])
    target = await asyncio.to_thread(_write, scope, os.path.dirname(doc.path), folder, stem, suffix, data)
    ctx.session.files_changed()
    link = posixpath.normpath(posixpath.join(folder or ".", os.path.basename(target)))
    return {"path": target, "link": markdown_destination(link), "bytes": len(data)}


def _decode(text: str) -> bytes:
    if len(text) > _MAX_BASE64_CHARS:
        raise ArgumentError(f"argument 'data' must be an image of at most {MAX_PASTED_IMAGE_BYTES} bytes")
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ArgumentError("argument 'data' must be base64") from exc
    if len(data) > MAX_PASTED_IMAGE_BYTES:
        raise ArgumentError(f"argument 'data' must be an image of at most {MAX_PASTED_IMAGE_BYTES} bytes")
    return data


#: an SVG file's start: an optional BOM, XML declaration, comments and doctype, then the ``<svg`` element
_SVG_START = re.compile(
    rb"^(?:\xef\xbb\xbf)?\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*(?:<!DOCTYPE[^>]*>\s*)?(?:<!--.*?-->\s*)*<svg[\s>]",
    re.S | re.I,
)


def image_suffix(data: bytes) -> str | None:
    """The file suffix of the image ``data`` is, by its first bytes; None when it is none of the five kinds."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return ".png"
    if data.startswith(b"\xff\xd8\xff"):
        return ".jpg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return ".gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return ".webp"
    if _SVG_START.match(data[:4096]):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None
        return ".svg"
    return None


def safe_stem(name: str) -> str:
    """A file name stem from what the page called the image: no folders, no suffix, no characters a link or a
    shell would trip on (runs of them become one ``-``); ``image`` when nothing is left."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    stem = base.rsplit(".", 1)[0]  # ".png" (a name that is only a suffix) has no stem
    stem = re.sub(r"[^\w.-]+", "-", stem, flags=re.UNICODE).strip("-.")
    stem = re.sub(r"-{2,}", "-", stem)[:MAX_STEM_CHARS].strip("-.")
    return stem or "image"


def markdown_destination(link: str) -> str:
    """``link`` as a Markdown link destination: the characters that would end or break one percent-encoded."""
    return re.sub(r"[\s()<>]", lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), link)


def _write(scope: PathScope, doc_folder: str, folder: str, stem: str, suffix: str, data: bytes) -> str:
    """Write ``data`` under the first free name in ``doc_folder/folder`` (created inside the scope); its path."""
    try:
        real_folder = _make_folder(scope, os.path.normpath(os.path.join(doc_folder, folder)))
    except ScopeError as exc:
        raise exc.refusal(os.path.join(doc_folder, folder)) from exc
    for n in range(MAX_NAME_TRIES):
        target = os.path.join(real_folder, f"{stem}{'' if n == 0 else f'-{n}'}{suffix}")
        if os.path.lexists(target):
            continue
        try:
            save_new(scope.resolve(target), data, scope)
        except FileExistsError:
            continue  # taken between the look and the write: the next name
        except ScopeError as exc:
            raise exc.refusal(target) from exc
        except SaveError as exc:
            raise DomainError("INVALID_PATH", str(exc), filePath=target) from exc
        return target
    raise DomainError("INVALID_PATH", f"{real_folder} holds {MAX_NAME_TRIES} images named {stem}", filePath=real_folder)


def _make_folder(scope: PathScope, folder: str) -> str:
    """The canonical ``folder``, inside the scope, created (with its missing parents) if it is not there yet."""
    real = canonical(folder)
    if not scope.contains(real):
        raise ScopeError(f"{folder!r} lies outside the open workspace and documents")
    missing: list[str] = []
    at = real
    while not os.path.isdir(at):
        if os.path.lexists(at):
            raise ScopeError(f"{at!r} is not a folder")
        missing.append(at)
        at = os.path.dirname(at)
    for path in reversed(missing):
        scope.resolve(path)  # in the scope, its parent a settled folder (checked again for each level)
        try:
            os.mkdir(path)
        except FileExistsError:
            if not os.path.isdir(path):
                raise ScopeError(f"{path!r} is not a folder") from None
        except OSError as exc:
            raise ScopeError(f"cannot create the folder {path!r}: {exc.strerror}") from exc
    return real


ACTIONS = {
    "ui.image_save": PersonAction(save_image, checks=("tabId", "name", "data")),
}
