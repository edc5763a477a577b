"""The formats a document exports to, and what each is made with."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Literal, NamedTuple

from ..protocol.errors import ArgumentError

if TYPE_CHECKING:  # the wire's types are many classes to build: the command line imports this module for FORMATS
    from ..protocol.wire_types import ExportFormat


class Format(NamedTuple):  # not a dataclass: every vmark process imports this module (`vmark export`'s choices)
    #: the name the command line and the page use (``--to html``)
    name: ExportFormat
    suffix: str
    #: what a person calls it
    label: str
    #: ``browser``: VMark's own rendering in Chromium; ``pandoc``: Pandoc from that rendering's inputs
    engine: Literal["browser", "pandoc"]
    #: Pandoc's writer (``pandoc -t``) for a Pandoc format
    writer: str = ""


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("html", ".html", "HTML", "browser"),
        Format("pdf", ".pdf", "PDF", "browser"),
        Format("docx", ".docx", "Word (.docx)", "pandoc", "docx"),
        Format("odt", ".odt", "OpenDocument text (.odt)", "pandoc", "odt"),
        Format("epub", ".epub", "EPUB", "pandoc", "epub3"),
    )
}


def format_named(name: object) -> Format:
    """The format called ``name``, or the plain argument error that lists them."""
    found = FORMATS.get(name) if isinstance(name, str) else None
    if found is None:
        raise ArgumentError(f"argument 'format' must be one of {', '.join(FORMATS)}, not {name!r}")
    return found


def default_output(source: str, fmt: Format) -> str:
    """Beside ``source``, its name with the format's suffix (``notes.md`` -> ``notes.pdf``)."""
    return os.path.splitext(source)[0] + fmt.suffix
