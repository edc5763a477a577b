"""A tiny local site for the driver and navigation tests: pages, redirects, slow pages, popups.

Served on 127.0.0.1 at a random port by a threading http.server; ``hits`` lists every path asked
for, so a test can tell that a refused request never reached the server.
"""

from __future__ import annotations

import html
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from vmark.browser.driver import BrowserDriver
from vmark.browser.urlpolicy import TargetVerdict, check_target
from vmark.testing.chromium import TEST_ARGS

#: a second site, for out-of-process (cross-site) frames: the guard resolves it to 127.0.0.1
CROSS_SITE_HOST = "cross.test"
POPUPS = """<title>Popups</title>
<button id=open onclick="window.open('/page?title=Opened')">open</button>
<a id=blank target=_blank href="/page?title=Blank">blank</a>"""
LOGIN = """<title>Sign in</title><p>Please sign in to continue.</p>
<form><input type=password name=pw><button>Sign in</button></form>"""


class LocalSite:
    def __init__(self) -> None:
        self.hits: list[str] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                site.hits.append(self.path)
                site._answer(self)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self._server.server_address[1]}"

    def url(self, path: str) -> str:
        return self.base + path

    def _answer(self, handler: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(handler.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        if parts.path == "/redirect":
            handler.send_response(302)
            handler.send_header("Location", query["to"])
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        if parts.path == "/slow":
            time.sleep(int(query.get("ms", "1000")) / 1000)
        status = int(query.get("status", "200"))
        title = html.escape(query.get("title", parts.path))
        body = {
            "/popups": POPUPS,
            "/login": LOGIN,
            "/image": f"<title>Image</title><img src='{html.escape(query.get('src', ''))}'>",
            "/frame": f"<title>Frame</title><iframe src='{html.escape(query.get('src', ''))}'></iframe>",
        }.get(parts.path, f"<title>{title}</title><p>hello</p><a id=frag href='#part'>part</a>")
        data = body.encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "text/html; charset=utf-8")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    @contextmanager
    def running(self) -> Iterator[LocalSite]:
        thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()


class Policy:
    """The target policy the tests steer: private targets allowed unless ``allow_private`` is off;
    ``localhost`` refused whatever the setting (a stand-in for a private host reached by a redirect,
    since the tests cannot leave 127.0.0.1); with ``rebinding`` every host *name* passes (its DNS
    answer looked public when checked) while addresses are still checked."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.allow_private = True
        self.rebinding = False

    def check(self, url: str) -> TargetVerdict:
        host = urlsplit(url).hostname or ""
        named = not host.replace(".", "").isdigit() and ":" not in host
        if self.rebinding and named:
            return TargetVerdict(True, "ok", url, f"{host} looked public")
        return check_target(url, allow_private=self.allow_private and host != "localhost")

    def driver(self, root: Path) -> BrowserDriver:
        return BrowserDriver(
            root, allow_private=lambda: self.allow_private, check=self.check, resolve=_resolve, extra_args=TEST_ARGS
        )


def _resolve(host: str, port: int) -> list[str]:
    """The system's answer, except for the cross-site test host, which is this computer."""
    if host == CROSS_SITE_HOST:
        return ["127.0.0.1"]
    return [str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]
