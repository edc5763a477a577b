"""The export's own headless Chromium: it renders a document as the editor does and prints it.

An offline Chromium (:class:`vmark.browser.offline.OfflineChromium`: Debian's, with the product's flags and
the machine's ``VMARK_CHROMIUM_ARGS``), started for one export and closed after it; it is not the agents'
browser and shares nothing with it. Every request its pages make is answered here, so nothing reaches a
network:

- ``http://export.localhost/export.html`` and ``/assets/*``: the built export page (``frontend/export.html``);
- ``/files/export/<absolute path>``: a document's image, read through the path scope
  (:func:`vmark.export.images.read_scoped_image`); a refusal answers 403 with the reason, which the page
  reports as a warning;
- anything else is aborted.

The printed page (PDF) is the exported HTML itself, loaded into a context with JavaScript off and every
request aborted: what it shows is what the HTML file shows offline.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import unquote, urlsplit

from ..browser.launch import CHROMIUM
from ..browser.offline import ChromiumFailed, OfflineChromium, OfflinePage, PageFailed, Served
from ..storage.pathscope import PathScope
from .errors import failed
from .images import ImageRefused, read_scoped_image
from .pandoc import Diagram

ORIGIN_HOST = "export.localhost"
ORIGIN = f"http://{ORIGIN_HOST}"
#: the built UI (``make setup`` builds ``frontend/`` into it)
DIST = Path(__file__).resolve().parent.parent / "ui" / "dist"
#: the export page: our scripts only, Mermaid's inline styles, images and fonts from us or data:
PAGE_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
    ]
)
#: how long the export page may take to load and answer (a loaded machine is slow)
PAGE_TIMEOUT_MS = 60_000
#: diagrams are photographed at twice their CSS size (sharp in a document, not huge)
DIAGRAM_SCALE = 2
#: the printed page's footer (its page number), shown when the margins leave room for it
FOOTER = (
    '<div style="width:100%;font-size:8px;color:#6e7781;text-align:center;'
    'font-family:sans-serif"><span class="pageNumber"></span> / <span class="totalPages"></span></div>'
)


@dataclass(frozen=True)
class Rendered:
    html: str
    warnings: list[str]
    headings: list[dict[str, Any]]


class ExportBrowser:
    """``async with ExportBrowser(scope, extra_args) as browser``: one Chromium for one export."""

    def __init__(
        self,
        scope: PathScope,
        extra_args: Sequence[str] = (),
        *,
        executable: str = CHROMIUM,
        dist: Path = DIST,
    ) -> None:
        self._scope = scope
        self._chromium = OfflineChromium(extra_args, executable=executable)
        self._dist = dist
        self._page: OfflinePage | None = None

    async def __aenter__(self) -> ExportBrowser:
        if not self._chromium.installed:
            raise failed(
                "chromium_missing",
                f"Chromium is not installed at {self._chromium.executable} (exports are rendered with it): "
                "sudo apt-get install chromium",
            )
        if not (self._dist / "export.html").is_file():
            raise failed("render_failed", f"the export page is not built ({self._dist}): run `make setup`")
        try:
            await self._chromium.start()
        except ChromiumFailed as exc:
            raise failed("chromium_failed", f"Chromium did not start: {exc}") from exc
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self._chromium.stop()

    # --- the export page ---------------------------------------------------------------------------------
    async def _export_page(self) -> OfflinePage:
        if self._page is not None:
            return self._page
        try:
            page = await self._chromium.open(
                f"{ORIGIN}/export.html",
                self._serve,
                scale=DIAGRAM_SCALE,
                ready="() => Boolean(window.vmarkExport)",
                timeout_ms=PAGE_TIMEOUT_MS,
            )
        except PageFailed as exc:
            raise failed("render_failed", f"the export page did not load: {exc}") from exc
        self._page = page
        return page

    def _serve(self, url: str) -> Served | None:
        parts = urlsplit(url)
        if parts.scheme != "http" or parts.netloc != ORIGIN_HOST:
            return None
        path = unquote(parts.path)
        if path == "/export.html":
            body = (self._dist / "export.html").read_bytes()
            headers = {"content-security-policy": PAGE_POLICY, "cache-control": "no-store"}
            return Served(200, body, "text/html; charset=utf-8", headers)
        if path.startswith("/assets/"):
            return self._asset(path.removeprefix("/assets/"))
        if path.startswith("/files/export/"):
            return self._image("/" + path.removeprefix("/files/export/"))
        return Served(404, f"{path}: no such file of the export page\n")

    def _asset(self, name: str) -> Served:
        if "/" in name or name in ("", ".", ".."):
            return Served(404, "no such asset\n")
        file = self._dist / "assets" / name
        if not file.is_file():
            return Served(404, f"{name}: no such asset\n")
        content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if name.endswith(".js"):
            content_type = "text/javascript"
        return Served(200, file.read_bytes(), content_type)

    def _image(self, path: str) -> Served:
        try:
            data, content_type = read_scoped_image(path, self._scope)
        except ImageRefused as exc:
            return Served(403, f"{exc}\n", "text/plain; charset=utf-8")
        return Served(200, data, content_type)

    # --- what an export asks -----------------------------------------------------------------------------
    async def render_html(
        self, markdown: str, *, title: str, doc_path: str | None, remote: str, lang: str | None
    ) -> Rendered:
        """The document as one self-contained HTML file (see ``frontend/src/export/page.ts``)."""
        page = await self._export_page()
        ask = {"markdown": markdown, "title": title, "docPath": doc_path, "remote": remote, "lang": lang}
        try:
            answer = await page.evaluate("(ask) => window.vmarkExport.render(ask)", ask)
        except PageFailed as exc:
            raise failed("render_failed", f"the document could not be rendered: {exc}") from exc
        return Rendered(str(answer["html"]), [str(w) for w in answer["warnings"]], list(answer["headings"]))

    async def pdf(self, html: str, *, page_size: str, margin_mm: int) -> bytes:
        """``html`` printed: the page size and margins given, an outline of its headings, tagged text."""
        footer = FOOTER if margin_mm >= 10 else None
        try:
            return await self._chromium.print_pdf(
                html, page_size=page_size, margin=f"{margin_mm}mm", footer=footer, timeout_ms=PAGE_TIMEOUT_MS
            )
        except PageFailed as exc:
            raise failed("render_failed", f"the PDF could not be printed: {exc}") from exc

    async def diagrams(self, sources: list[str]) -> list[Diagram]:
        """Each Mermaid source drawn alone and photographed as PNG (at :data:`DIAGRAM_SCALE`)."""
        page = await self._export_page()
        try:
            answers = await page.evaluate("(sources) => window.vmarkExport.drawDiagrams(sources)", sources)
            shots: list[Diagram] = []
            for n, answer in enumerate(answers):
                if not answer["ok"]:
                    shots.append(Diagram(None, 0, str(answer["error"])))
                    continue
                png = await page.screenshot(f"#diagram-shot-{n}")
                shots.append(Diagram(png, int(answer["width"]), None))
            return shots
        except PageFailed as exc:
            raise failed("render_failed", f"the diagrams could not be drawn: {exc}") from exc
