"""One export, from a document's text to a written file: the same steps for the app and the command line.

The text is only read (an export changes no document: not its text, revision, dirty state, history or
journal). The target is checked first, then the document is rendered (Chromium for HTML, PDF and diagrams;
Pandoc for Word, OpenDocument and EPUB), then written at once (:mod:`.output`). Progress is reported
through :func:`vmark.core.progress.report`, phase by phase, to whoever listens (the page's progress bar,
the terminal's).

The renderers (Chromium's page, Pandoc) and the front matter's YAML parser are imported by the first export,
not with this module: the app makes its :class:`Exporter` as it starts, and most apps never export.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..browser.launch import CHROMIUM
from ..core.progress import report
from ..protocol.limits import EXPORT_TIMEOUT_SECONDS
from ..protocol.wire_types import Exported, ExportFormat
from .errors import failed

if TYPE_CHECKING:
    from ..storage.pathscope import PathScope
    from .browser import ExportBrowser
    from .formats import Format
    from .pandoc import Diagram


@dataclass(frozen=True)
class ExportJob:
    #: the document's text as it is now (the person's unsaved typing included)
    text: str
    #: the document's file (its images resolve against its folder), None for an untitled one
    doc_path: str | None
    fmt: Format
    #: where to write (absolute)
    target: str
    #: what may be read (images) and written (the target)
    scope: PathScope
    #: write over an existing file (``--force``)
    replace: bool = False
    #: a PDF's page: ``A4`` or ``Letter``, and its margins in millimetres
    page_size: str = "A4"
    margin_mm: int = 20


@dataclass(frozen=True)
class ExportResult:
    path: str
    format: ExportFormat
    bytes: int
    #: what the export left out or changed, in words (an image it could not read, a diagram it could not draw)
    warnings: list[str] = field(default_factory=list)

    def wire(self) -> Exported:
        return {"path": self.path, "format": self.format, "bytes": self.bytes, "warnings": self.warnings}


class Exporter:
    """Makes exports with Debian's Chromium (plus ``chromium_args``) and the Pandoc it finds."""

    def __init__(
        self,
        chromium_args: Sequence[str] = (),
        *,
        executable: str = CHROMIUM,
        dist: Path | None = None,
    ) -> None:
        """``dist``: the built page's folder (:data:`vmark.export.browser.DIST` by default)."""
        self.chromium_args = tuple(chromium_args)
        self.executable = executable
        self.dist = dist

    async def run(self, job: ExportJob) -> ExportResult:
        try:
            return await asyncio.wait_for(self._run(job), EXPORT_TIMEOUT_SECONDS)
        except TimeoutError as exc:
            raise failed(
                "timeout", f"the export took longer than {EXPORT_TIMEOUT_SECONDS:.0f} s; nothing was written"
            ) from exc

    async def _run(self, job: ExportJob) -> ExportResult:
        from .frontmatter import split_front_matter
        from .output import check_target, write_target

        real = check_target(job.target, job.scope, replace=job.replace, source=job.doc_path)
        split = split_front_matter(job.text)
        title = split.title or _stem(job.doc_path)
        warnings: list[str] = []
        if job.fmt.engine == "pandoc":
            data = await self._pandoc(job, split.body, title, split.lang, warnings)
        else:
            data = await self._browser(job, split.body, title, split.lang, warnings)
        report(0, 1, "Writing the file")
        await asyncio.to_thread(write_target, real, data, job.scope, replace=job.replace)
        report(1, 1, "Writing the file")
        return ExportResult(real, job.fmt.name, len(data), warnings)

    def _chromium(self, scope: PathScope) -> ExportBrowser:
        from .browser import DIST, ExportBrowser

        return ExportBrowser(scope, self.chromium_args, executable=self.executable, dist=self.dist or DIST)

    async def _browser(self, job: ExportJob, body: str, title: str, lang: str | None, warnings: list[str]) -> bytes:
        pdf = job.fmt.name == "pdf"
        report(0, 1, "Starting Chromium")
        async with self._chromium(job.scope) as browser:
            report(1, 1, "Starting Chromium")
            report(0, 1, "Rendering the document")
            rendered = await browser.render_html(
                body, title=title, doc_path=job.doc_path, remote="link" if pdf else "keep", lang=lang
            )
            report(1, 1, "Rendering the document")
            warnings.extend(rendered.warnings)
            if not pdf:
                return rendered.html.encode("utf-8")
            report(0, 1, "Printing the PDF")
            data = await browser.pdf(rendered.html, page_size=job.page_size, margin_mm=job.margin_mm)
            report(1, 1, "Printing the PDF")
            return data

    async def _pandoc(self, job: ExportJob, body: str, title: str, lang: str | None, warnings: list[str]) -> bytes:
        from .pandoc import convert, find_pandoc, missing_pandoc_message

        pandoc = find_pandoc()
        if pandoc is None:
            raise failed("pandoc_missing", missing_pandoc_message(sys.executable))
        browser: ExportBrowser | None = None

        async def draw(sources: list[str]) -> list[Diagram]:
            nonlocal browser
            if browser is None:  # Chromium only for a document that has diagrams
                started = self._chromium(job.scope)
                await started.__aenter__()
                browser = started
            return await browser.diagrams(sources)

        try:
            return await convert(
                pandoc,
                body,
                writer=job.fmt.writer,
                title=title,
                lang=lang,
                doc_path=job.doc_path,
                scope=job.scope,
                draw=draw,
                warnings=warnings,
            )
        finally:
            if browser is not None:
                await browser.__aexit__(None, None, None)


def _stem(doc_path: str | None) -> str:
    if doc_path is None:
        return "Untitled"
    return os.path.splitext(os.path.basename(doc_path))[0] or "Untitled"
