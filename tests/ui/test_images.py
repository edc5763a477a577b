"""Images in WYSIWYG (issue 18): workspace images through ``/files/``, remote ``https:`` ones by the CSP.

The UI server serves a window's images read-only, behind the UI cookie, only inside that window's path
scope; the page's policy admits ``https:`` images unless the person turns remote images off.
"""

from __future__ import annotations

import http.server
import ssl
import struct
import subprocess
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.contract.helpers import wait_until
from tests.ui.conftest import UI, Pages
from tests.ui.helpers import open_folder, open_from_tree
from tests.ui.test_security import cookie, fetch
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient


def png(width: int, height: int) -> bytes:
    """A valid RGB PNG of one colour."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + b"\x33\x66\x99" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


@pytest.fixture
def https_images(tmp_path: Path) -> Iterator[str]:
    """A local ``https`` server (self-signed certificate) answering every GET with a 7x5 PNG."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    body = png(7, 5)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(cert), str(key))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def images_workspace(root: Path, remote: str) -> str:
    (root / "pics").mkdir(parents=True)
    (root / "pics" / "dot.png").write_bytes(png(4, 3))
    (root / "notes").mkdir()
    text = (
        "# Pictures\n\n"
        "Relative: ![a dot](../pics/dot.png)\n\n"
        f"Remote: ![remote]({remote}/r.png)\n\n"
        "Missing: ![gone](nothing.png)\n"
    )
    (root / "notes" / "pics.md").write_text(text, "utf-8")
    return text


async def natural_widths(pages: Pages) -> dict[str, int]:
    page = pages.opened[-1]
    found = await page.eval_on_selector_all(
        ".ProseMirror img.md-image", "els => els.map(e => [e.alt, e.complete ? e.naturalWidth : -1])"
    )
    return {str(alt): int(width) for alt, width in found}


async def open_wysiwyg(pages: Pages, workspace: Path) -> None:
    context = await pages.context(ignore_https_errors=True)
    page = await pages.open(context=context)
    await open_folder(page, workspace)
    await open_from_tree(page, "notes/pics.md")
    await page.click("#mode-toggle")
    await page.wait_for_selector(".ProseMirror img.md-image")


async def test_workspace_and_remote_images_show_and_the_file_stays(
    pages: Pages, vmark: RunningApp, tmp_path: Path, https_images: str
) -> None:
    root = tmp_path / "imgs"
    text = images_workspace(root, https_images)
    await open_wysiwyg(pages, root)

    async def loaded() -> bool:
        widths = await natural_widths(pages)
        return widths.get("a dot") == 4 and widths.get("remote") == 7

    await wait_until(loaded, "both images to load")
    widths = await natural_widths(pages)
    assert widths == {"a dot": 4, "remote": 7, "gone": 0}
    page = pages.opened[-1]
    srcs = await page.eval_on_selector_all(".ProseMirror img.md-image", "els => els.map(e => e.getAttribute('src'))")
    assert srcs[0] == f"/files/main{root.resolve()}/pics/dot.png"
    assert await page.get_attribute(".ProseMirror img[alt=gone]", "data-state") == "broken"
    await pages.screenshots("images-light")
    assert (root / "notes" / "pics.md").read_text("utf-8") == text
    assert await page.evaluate("window.vmarkPage.editorText()") == text


async def test_remote_images_off_keeps_them_out(
    pages: Pages, vmark: RunningApp, tmp_path: Path, https_images: str
) -> None:
    vmark.app.settings.set("editor.remote_images", False)
    root = tmp_path / "imgs"
    images_workspace(root, https_images)
    await open_wysiwyg(pages, root)

    async def local_loaded() -> bool:
        return (await natural_widths(pages)).get("a dot") == 4

    await wait_until(local_loaded, "the workspace image to load")
    remote = pages.opened[-1].locator(".ProseMirror img[alt=remote]")
    assert await remote.get_attribute("src") is None  # not even asked for (so never loaded): no policy violation
    assert (await natural_widths(pages))["remote"] == 0
    assert await remote.get_attribute("data-state") == "broken"
    assert "turned off in Settings" in (await remote.get_attribute("title") or "")


# --- /files/ over HTTP -------------------------------------------------------------------------------
@pytest.fixture
async def served(person: UIClient, tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "a.png").write_bytes(png(2, 2))
    (root / "sub" / "b.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="3" height="3"/>', "utf-8")
    (root / "notes.md").write_text("# n\n", "utf-8")
    (root / "dir.png").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.png").write_bytes(png(1, 1))
    (root / "link.png").symlink_to(outside / "secret.png")
    await person.call("ui.open_folder", path=str(root))
    return root


async def test_files_serves_images_of_the_window_scope(ui: UI, served: Path) -> None:
    base = f"/files/main{served.resolve()}"
    reply = await fetch(ui, f"{base}/a.png", Cookie=cookie(ui))
    assert (reply.status, reply.header("content-type")) == (200, "image/png")
    assert reply.body == (served / "a.png").read_bytes()
    csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"
    assert reply.header("content-security-policy") == csp
    assert reply.header("x-content-type-options") == "nosniff"
    svg = await fetch(ui, f"{base}/sub/b.svg", Cookie=cookie(ui))
    assert (svg.status, svg.header("content-type")) == (200, "image/svg+xml")
    head = await fetch(ui, f"{base}/a.png", method="HEAD", Cookie=cookie(ui))
    assert (head.status, head.body, head.header("content-length")) == (200, b"", str(len(reply.body)))
    spaced = served / "with space.png"
    spaced.write_bytes(png(1, 1))
    assert (await fetch(ui, f"{base}/with%20space.png", Cookie=cookie(ui))).status == 200


@pytest.mark.parametrize(
    ("suffix", "status", "reason"),
    [
        ("/notes.md", 403, "only images are served to the page"),
        ("/", 403, "only images are served to the page"),
        ("/sub", 403, "only images are served to the page"),
        ("/dir.png", 404, "is not a file"),
        ("/nothing.png", 404, "does not exist"),
        ("/link.png", 403, "lies outside this window's workspace"),
        ("/../outside/secret.png", 403, "lies outside this window's workspace"),
        ("/%2e%2e/outside/secret.png", 403, "lies outside this window's workspace"),
    ],
)
async def test_files_refuses_what_is_no_image_of_the_scope(
    ui: UI, served: Path, suffix: str, status: int, reason: str
) -> None:
    reply = await fetch(ui, f"/files/main{served.resolve()}{suffix}", Cookie=cookie(ui))
    assert reply.status == status, reply.body
    assert reason in reply.body.decode()
    assert b"PNG" not in reply.body


async def test_files_needs_the_cookie_a_window_and_a_scope(ui: UI, served: Path, tmp_path: Path) -> None:
    path = f"{served.resolve()}/a.png"
    assert (await fetch(ui, f"/files/main{path}")).status == 403
    assert (await fetch(ui, f"/files/main{path}", Cookie=f"{ui.cookie_name}={'0' * 64}")).status == 403
    assert (await fetch(ui, f"/files/nowindow{path}", Cookie=cookie(ui))).status == 404
    outside = f"{(tmp_path / 'outside').resolve()}/secret.png"
    assert (await fetch(ui, f"/files/main{outside}", Cookie=cookie(ui))).status == 403
    assert (await fetch(ui, f"/files/main{path}", method="POST", Cookie=cookie(ui))).status == 403


async def test_the_csp_admits_https_images_until_turned_off(ui: UI, vmark: RunningApp) -> None:
    reply = await fetch(ui, "/", Cookie=cookie(ui))
    assert "img-src 'self' data: https:;" in (reply.header("content-security-policy") or "")
    vmark.app.settings.set("editor.remote_images", False)
    reply = await fetch(ui, "/", Cookie=cookie(ui))
    assert "img-src 'self' data:;" in (reply.header("content-security-policy") or "")
    assert "https:" not in (reply.header("content-security-policy") or "")


async def test_the_diagram_frame_needs_the_cookie_and_only_our_page_frames_it(ui: UI) -> None:
    assert (await fetch(ui, "/mermaid-frame")).status == 403
    reply = await fetch(ui, "/mermaid-frame", Cookie=cookie(ui))
    assert reply.status == 200
    assert reply.header("x-frame-options") == "SAMEORIGIN"
    assert reply.header("content-security-policy") == (
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
    )
    assert b"<script>" not in reply.body
