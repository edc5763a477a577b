"""Word, OpenDocument and EPUB through Pandoc (the ``pypandoc-binary`` package of the ``export`` extra ships it).

Two runs of Pandoc, both with ``--sandbox`` (it reads no file and fetches nothing: it sees only what we hand
it on stdin): Markdown to Pandoc's JSON document, then, after we have put the images in, JSON to the format.
Between the two, here:

- every image the document shows from the workspace is read through the path scope and put in as a
  ``data:`` URI; one that cannot be read is left out (its description stays) and named in the warnings;
- a web (``https:``) image becomes a link to it, never fetched;
- every ``mermaid`` code block becomes the diagram, drawn by Chromium as PNG (``diagrams``).

The reader is Pandoc's CommonMark with the extensions the editor's Markdown has (tables, ``$`` math, footnotes,
task lists, strikethrough, raw HTML) and without those it has not (typographic quotes, ``~sub~``, ``^sup^``,
emoji names, ``{#id}`` attributes, ``:::`` divs, YAML blocks: the front matter is taken off before and its
title and language put in as plain strings), so the export reads the text as the editor shows it.
Math becomes native equations (Word's OMML, OpenDocument's formulas, EPUB's MathML).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ..core.progress import report
from ..extras import extra_requirement
from ..protocol.limits import PANDOC_TIMEOUT_SECONDS
from ..storage.pathscope import PathScope
from .errors import failed
from .images import ImageRefused, Reference, data_uri, read_scoped_image, reference_of

READER = (
    "commonmark_x-smart-subscript-superscript-emoji-attributes-bracketed_spans-fenced_divs"
    "-definition_lists-fancy_lists-implicit_header_references-alerts-yaml_metadata_block"
)
#: the package of the ``export`` extra, as ``vmark doctor`` names it
PANDOC_PACKAGE = "pypandoc-binary"

Json = dict[str, Any]


@dataclass(frozen=True)
class Diagram:
    """A Mermaid diagram drawn as PNG (``png``, its CSS ``width``), or why it cannot be drawn (``error``)."""

    png: bytes | None
    width: int
    error: str | None


DrawDiagrams = Callable[[list[str]], Awaitable[list[Diagram]]]


def find_pandoc() -> str | None:
    """The Pandoc the ``pypandoc-binary`` package ships, else a ``pandoc`` on ``PATH``, else None."""
    try:
        import pypandoc  # type: ignore[import-untyped]
    except ImportError:
        pypandoc = None
    if pypandoc is not None and getattr(pypandoc, "__file__", None):
        shipped = os.path.join(os.path.dirname(pypandoc.__file__), "files", "pandoc")
        if os.path.isfile(shipped) and os.access(shipped, os.X_OK):
            return shipped
    return shutil.which("pandoc")


def install_command(python: str) -> str:
    """The command that installs the Pandoc of the ``export`` extra into ``python``'s environment."""
    return f"{python} -m pip install '{extra_requirement(PANDOC_PACKAGE, 'export')}'"


def missing_pandoc_message(python: str) -> str:
    return f"Pandoc is not installed (Word, OpenDocument and EPUB are written with it): {install_command(python)}"


async def run_pandoc(pandoc: str, args: list[str], stdin: bytes) -> bytes:
    """Pandoc's stdout for ``args`` with ``stdin``; ``EXPORT_FAILED`` (``pandoc_failed``) with its words else."""
    try:
        proc = await asyncio.create_subprocess_exec(
            pandoc,
            "--sandbox",
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except OSError as exc:
        raise failed("pandoc_failed", f"Pandoc ({pandoc}) did not start: {exc.strerror or exc}") from exc
    try:
        out, err = await asyncio.wait_for(proc.communicate(stdin), PANDOC_TIMEOUT_SECONDS)
    except (TimeoutError, asyncio.CancelledError):
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
        raise
    if proc.returncode != 0:
        said = err.decode("utf-8", "replace").strip().splitlines()
        raise failed("pandoc_failed", f"Pandoc failed: {said[-1] if said else f'exit {proc.returncode}'}")
    return out


async def convert(
    pandoc: str,
    markdown: str,
    *,
    writer: str,
    title: str,
    lang: str | None,
    doc_path: str | None,
    scope: PathScope,
    draw: DrawDiagrams,
    warnings: list[str],
) -> bytes:
    """``markdown`` (front matter taken off) written as Pandoc's ``writer`` (``docx``, ``odt``, ``epub3``)."""
    report(0, 1, "Reading the document with Pandoc")
    document: Json = json.loads(await run_pandoc(pandoc, ["-f", READER, "-t", "json"], markdown.encode("utf-8")))
    report(1, 1, "Reading the document with Pandoc")
    found = _Found()
    _walk(document["blocks"], found)
    if found.diagrams:
        sources = [str(block["c"][1]) for block in found.diagrams]
        report(0, len(sources), "Drawing the diagrams")
        drawn = await draw(sources)
        report(len(sources), len(sources), "Drawing the diagrams")
        for n, (block, diagram) in enumerate(zip(found.diagrams, drawn, strict=True)):
            _put_diagram(block, diagram, n, warnings)
    for k, image in enumerate(found.images):
        report(k, len(found.images), "Embedding the images")
        _put_image(image, doc_path, scope, warnings)
    if found.images:
        report(len(found.images), len(found.images), "Embedding the images")
    # The title and language as plain strings of the document (Pandoc would read ``--metadata`` values as YAML).
    document["meta"] = {"title": _meta_string(title)} | ({"lang": _meta_string(lang)} if lang else {})
    args = ["-f", "json", "-t", writer, "-o", "-"]
    if writer.startswith("epub"):
        args.append("--mathml")
    report(0, 1, f"Writing {writer} with Pandoc")
    out = await run_pandoc(pandoc, args, json.dumps(document).encode("utf-8"))
    report(1, 1, f"Writing {writer} with Pandoc")
    return out


def _meta_string(text: str) -> Json:
    return {"t": "MetaInlines", "c": [{"t": "Str", "c": text}]}


class _Found:
    def __init__(self) -> None:
        self.images: list[Json] = []
        self.diagrams: list[Json] = []


def _walk(node: Any, found: _Found) -> None:
    """Every ``Image`` inline and every ``mermaid`` ``CodeBlock`` of a Pandoc JSON tree, in document order."""
    if isinstance(node, list):
        for child in node:
            _walk(child, found)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("t")
    if kind == "Image":
        found.images.append(node)
        _walk(node["c"][1], found)  # its description may hold more
        return
    if kind == "CodeBlock":
        classes = node["c"][0][1]
        if classes and str(classes[0]).lower() == "mermaid":
            found.diagrams.append(node)
        return
    if "c" in node:
        _walk(node["c"], found)


def _put_diagram(block: Json, diagram: Diagram, n: int, warnings: list[str]) -> None:
    """The code block becomes a paragraph with the diagram's image (a diagram that fails stays code)."""
    if diagram.png is None:
        warnings.append(f"diagram {n + 1}: {diagram.error}; left as its source")
        return
    attrs = [["width", f"{diagram.width}px"]] if diagram.width > 0 else []
    image = {
        "t": "Image",
        "c": [
            ["", ["diagram"], attrs],
            [{"t": "Str", "c": f"Diagram {n + 1}"}],
            [data_uri(diagram.png, "image/png"), ""],
        ],
    }
    block.clear()
    block.update({"t": "Para", "c": [image]})


def _put_image(image: Json, doc_path: str | None, scope: PathScope, warnings: list[str]) -> None:
    attr, description, (src, title) = image["c"]
    reference: Reference = reference_of(str(src), doc_path)
    if reference.kind == "data":
        return
    if reference.kind == "web":
        warnings.append(f"{src}: an image from the web, written as a link")
        _replace(image, {"t": "Link", "c": [attr, description or [{"t": "Str", "c": str(src)}], [src, title]]})
        return
    if reference.kind == "other":
        why = "an untitled document's image cannot be found" if doc_path is None else "not an image VMark loads"
        warnings.append(f"{src}: {why}; left out")
        _replace(image, {"t": "Span", "c": [["", ["missing-image"], []], description]})
        return
    try:
        data, content_type = read_scoped_image(reference.path, scope)
    except ImageRefused as exc:
        warnings.append(f"{src}: {exc}; left out")
        _replace(image, {"t": "Span", "c": [["", ["missing-image"], []], description]})
        return
    image["c"][2] = [data_uri(data, content_type), title]


def _replace(node: Json, new: Json) -> None:
    node.clear()
    node.update(new)
