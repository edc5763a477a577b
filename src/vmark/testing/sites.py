"""Local test sites: an HTTP server on 127.0.0.1 (a random port) in a thread.

Tests and benchmarks of the embedded browser use these; no other network target is ever used.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@contextmanager
def serving(handler: Callable[..., BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve with ``handler`` until the block ends; yields the base URL (``http://127.0.0.1:PORT``)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietFiles(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def serving_directory(root: Path) -> Any:
    """The files of ``root``, quietly."""
    return serving(functools.partial(_QuietFiles, directory=str(root)))


def serving_pages(pages: Mapping[str, str]) -> Any:
    """Fixed HTML pages: the first key that a request path starts with answers (``""`` for any)."""

    class _Pages(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            html = next((page for prefix, page in pages.items() if self.path.startswith(prefix)), None)
            if html is None:
                self.send_error(404)
                return
            data = html.encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return serving(_Pages)
