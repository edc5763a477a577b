"""The export's own headless Chromium: it renders a document as the editor does and prints it.

Debian's Chromium (:data:`vmark.browser.launch.CHROMIUM`, with the product's flags and the machine's
``VMARK_CHROMIUM_ARGS``), started for one export and closed after it; it is not the agents' browser and
shares nothing with it. Every request its pages make is routed here, so nothing reaches a network:

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
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import unquote, urlsplit

from playwright.async_api import Browser, BrowserContext, Page, Playwright, Route, async_playwright
from playwright.async_api import Error as PlaywrightError

from ..browser.launch import CHROMIUM, LAUNCH_ARGS
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
        self._args = [*LAUNCH_ARGS, *extra_args]
        self._executable = executable
        self._dist = dist
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._context: BrowserContext | None = None
        self._page: Page | None = None

    async def __aenter__(self) -> ExportBrowser:
        if not (os.path.isfile(self._executable) and os.access(self._executable, os.X_OK)):
            raise failed(
                "chromium_missing",
                f"Chromium is not installed at {self._executable} (exports are rendered with it): "
                "sudo apt-get install chromium",
            )
        if not (self._dist / "export.html").is_file():
            raise failed("render_failed", f"the export page is not built ({self._dist}): run `make setup`")
        self._playwright = await async_playwright().start()
        try:
            self._browser = await self._playwright.chromium.launch(executable_path=self._executable, args=self._args)
        except PlaywrightError as exc:
            await self._playwright.stop()
            self._playwright = None
            raise failed("chromium_failed", f"Chromium did not start: {_first_line(exc)}") from exc
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            if self._browser is not None:
                await self._browser.close()
        finally:
            if self._playwright is not None:
                await self._playwright.stop()

    # --- the export page ---------------------------------------------------------------------------------
    async def _export_page(self) -> Page:
        if self._page is not None:
            return self._page
        assert self._browser is not None
        self._context = await self._browser.new_context(device_scale_factor=DIAGRAM_SCALE)
        await self._context.route("**/*", self._serve)
        page = await self._context.new_page()
        page.set_default_timeout(PAGE_TIMEOUT_MS)
        try:
            await page.goto(f"{ORIGIN}/export.html")
            await page.wait_for_function("() => Boolean(window.vmarkExport)")
        except PlaywrightError as exc:
            raise failed("render_failed", f"the export page did not load: {_first_line(exc)}") from exc
        self._page = page
        return page

    async def _serve(self, route: Route) -> None:
        url = urlsplit(route.request.url)
        if url.scheme != "http" or url.netloc != ORIGIN_HOST:
            await route.abort("blockedbyclient")
            return
        path = unquote(url.path)
        if path == "/export.html":
            body = (self._dist / "export.html").read_bytes()
            headers = {"content-security-policy": PAGE_POLICY, "cache-control": "no-store"}
            await route.fulfill(status=200, body=body, content_type="text/html; charset=utf-8", headers=headers)
        elif path.startswith("/assets/"):
            await self._asset(route, path.removeprefix("/assets/"))
        elif path.startswith("/files/export/"):
            await self._image(route, "/" + path.removeprefix("/files/export/"))
        else:
            await route.fulfill(status=404, body=f"{path}: no such file of the export page\n")

    async def _asset(self, route: Route, name: str) -> None:
        if "/" in name or name in ("", ".", ".."):
            await route.fulfill(status=404, body="no such asset\n")
            return
        file = self._dist / "assets" / name
        if not file.is_file():
            await route.fulfill(status=404, body=f"{name}: no such asset\n")
            return
        content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if name.endswith(".js"):
            content_type = "text/javascript"
        await route.fulfill(status=200, body=file.read_bytes(), content_type=content_type)

    async def _image(self, route: Route, path: str) -> None:
        try:
            data, content_type = read_scoped_image(path, self._scope)
        except ImageRefused as exc:
            await route.fulfill(status=403, body=f"{exc}\n", content_type="text/plain; charset=utf-8")
            return
        await route.fulfill(status=200, body=data, content_type=content_type)

    # --- what an export asks -----------------------------------------------------------------------------
    async def render_html(
        self, markdown: str, *, title: str, doc_path: str | None, remote: str, lang: str | None
    ) -> Rendered:
        """The document as one self-contained HTML file (see ``frontend/src/export/page.ts``)."""
        page = await self._export_page()
        ask = {"markdown": markdown, "title": title, "docPath": doc_path, "remote": remote, "lang": lang}
        try:
            answer = await page.evaluate("(ask) => window.vmarkExport.render(ask)", ask)
        except PlaywrightError as exc:
            raise failed("render_failed", f"the document could not be rendered: {_first_line(exc)}") from exc
        return Rendered(str(answer["html"]), [str(w) for w in answer["warnings"]], list(answer["headings"]))

    async def pdf(self, html: str, *, page_size: str, margin_mm: int) -> bytes:
        """``html`` printed: the page size and margins given, an outline of its headings, tagged text."""
        assert self._browser is not None
        context = await self._browser.new_context(java_script_enabled=False)
        try:
            await context.route("**/*", lambda route: route.abort("blockedbyclient"))
            page = await context.new_page()
            page.set_default_timeout(PAGE_TIMEOUT_MS)
            await page.set_content(html, wait_until="load")
            await page.evaluate("() => document.fonts.ready.then(() => true)")
            margin = f"{margin_mm}mm"
            footer = (
                '<div style="width:100%;font-size:8px;color:#6e7781;text-align:center;'
                'font-family:sans-serif"><span class="pageNumber"></span> / <span class="totalPages"></span></div>'
            )
            return await page.pdf(
                format=page_size,
                margin={"top": margin, "right": margin, "bottom": margin, "left": margin},
                print_background=True,
                outline=True,
                tagged=True,
                display_header_footer=margin_mm >= 10,
                header_template="<span></span>",
                footer_template=footer,
            )
        except PlaywrightError as exc:
            raise failed("render_failed", f"the PDF could not be printed: {_first_line(exc)}") from exc
        finally:
            await context.close()

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
                png = await page.locator(f"#diagram-shot-{n}").screenshot(type="png", omit_background=False)
                shots.append(Diagram(png, int(answer["width"]), None))
            return shots
        except PlaywrightError as exc:
            raise failed("render_failed", f"the diagrams could not be drawn: {_first_line(exc)}") from exc


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
