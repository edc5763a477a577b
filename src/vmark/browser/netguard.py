"""The forward proxy every browser context of ours connects through: where a tab may connect, decided
at the connection itself.

Playwright's routing sees the first hop of each request; the driver's CDP interceptor adds the
redirect hops of a page's own frames. Neither sees the redirect hops of out-of-process (cross-site)
frames or of workers, and neither knows which address a host name resolves to when the connection is
made. The proxy does: Chromium sends every request to it (``CONNECT host:port`` for https and
WebSockets, an absolute URL for plain http, loopback included through ``<-loopback>``), and it
checks the target with the same policy, resolves the host itself, checks every address it got, and
connects to a vetted address: what was checked is what is connected to, so a DNS answer that
changes after a check (rebinding) reaches nothing private.

Decisions:
- A refused CONNECT is answered ``403`` (Chromium reports ``ERR_TUNNEL_CONNECTION_FAILED``); a
  refused plain-http request gets its connection closed without an answer (``ERR_EMPTY_RESPONSE``),
  because an answer would be shown as the site's page.
- Plain-http connections carry one request each (``Connection: close`` both ways), so a connection
  kept open for a second request can never carry it to the first request's host.
- Refusals, and connections that failed, are kept (redacted, bounded) for the navigator to name the
  reason of a failed load: the browser sees both as the same network error.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from vmark.browser.urlpolicy import TargetVerdict, redact_url
from vmark.protocol.limits import PROXY_CONNECT_SECONDS, PROXY_HEAD_BYTES, PROXY_REFUSALS_KEPT

Check = Callable[[str], TargetVerdict]
Resolver = Callable[[str, int], list[str]]
_Stream = tuple[asyncio.StreamReader, asyncio.StreamWriter]
_HOP_HEADERS = (b"proxy-connection", b"proxy-authorization", b"connection", b"keep-alive")


@dataclass(frozen=True)
class ProxyRefusal:
    """A connection the guard did not make: refused by the policy, or (``refused`` false) one that
    failed (``reason`` "unreachable")."""

    at: float  # time.monotonic()
    url: str  # redacted
    reason: str
    detail: str
    refused: bool = True


def _system_resolve(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]).partition("%")[0] for info in infos]


def _literal(address: str) -> str:
    return f"[{address}]" if ":" in address else address


def _split_hostport(hostport: str, default_port: int) -> tuple[str, int]:
    """``host:port`` (``[v6]:port`` for IPv6) as the browser writes it; ValueError if malformed."""
    if hostport.startswith("["):
        host, _, rest = hostport[1:].partition("]")
    else:
        host, _, port = hostport.partition(":")
        rest = f":{port}" if port else ""
    return host, int(rest[1:]) if rest else default_port


def _without_hop_headers(lines: list[bytes]) -> list[bytes]:
    return [line for line in lines if line.split(b":", 1)[0].strip().lower() not in _HOP_HEADERS]


class NetGuard:
    """A local forward proxy that refuses what ``check`` refuses, by name and by address."""

    def __init__(self, check: Check, *, resolve: Resolver | None = None) -> None:
        self._check = check
        self._resolve = resolve or _system_resolve
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self.refusals: deque[ProxyRefusal] = deque(maxlen=PROXY_REFUSALS_KEPT)

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the guard is not running")
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def start(self) -> str:
        if self._server is None:
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=PROXY_HEAD_BYTES)
        return self.url

    async def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        with contextlib.suppress(Exception):
            await server.wait_closed()

    def refusals_since(self, moment: float) -> list[ProxyRefusal]:
        return [refusal for refusal in self.refusals if refusal.at >= moment]

    # --- one connection from the browser ---------------------------------------------------------
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            await self._handle(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass  # a broken or malformed exchange ends the connection, nothing more
        finally:
            self._connections.discard(task)
            writer.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        request_line, *headers = head[:-4].split(b"\r\n")
        method, target, version = request_line.decode("latin-1").split(" ")
        if method == "CONNECT":
            host, port = _split_hostport(target, 443)
            upstream = await self._connect(f"https://{_literal(host)}:{port}/", host, port)
            if upstream is None:  # refused or unreachable: either way the tunnel fails
                writer.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                await writer.drain()
                return
            writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            await self._pipe_both(reader, writer, upstream)
            return
        parts = urlsplit(target)
        if parts.scheme != "http" or not parts.netloc:
            return  # only absolute http URLs are proxied in the clear
        host, port = _split_hostport(parts.netloc, 80)
        upstream = await self._connect(target, host, port)
        if upstream is None:
            return
        origin_form = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        first = f"{method} {origin_form} {version}".encode("latin-1")
        upstream[1].write(b"\r\n".join([first, *_without_hop_headers(headers), b"Connection: close", b"", b""]))
        await self._pipe_response(reader, writer, upstream)

    async def _connect(self, url: str, host: str, port: int) -> _Stream | None:
        """A connection to a vetted address of ``host``, or None (the refusal is recorded). Every
        address the name resolves to must pass, as in the policy's own check."""
        verdict = await asyncio.to_thread(self._check, url)
        addresses: list[str] = []
        if verdict.allowed:
            with contextlib.suppress(OSError):
                addresses = await asyncio.to_thread(self._resolve, host, port)
            if not addresses:
                verdict = TargetVerdict(False, "unresolvable", url, f"{host} could not be resolved")
            for address in addresses:
                by_address = self._check(f"http://{_literal(address)}/")  # a literal: nothing to resolve
                if not by_address.allowed:
                    verdict = TargetVerdict(False, by_address.reason, url, f"{host} resolved to {by_address.detail}")
                    break
        if not verdict.allowed:
            self.refusals.append(ProxyRefusal(time.monotonic(), redact_url(url), verdict.reason, verdict.detail))
            return None
        failure: OSError | None = None
        for address in addresses:
            try:
                return await asyncio.wait_for(asyncio.open_connection(address, port), PROXY_CONNECT_SECONDS)
            except OSError as exc:  # TimeoutError included
                failure = exc
        detail = f"could not connect to {host}:{port} ({type(failure).__name__})"
        self.refusals.append(ProxyRefusal(time.monotonic(), redact_url(url), "unreachable", detail, False))
        return None

    async def _pipe_both(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        upstream: _Stream,
    ) -> None:
        up_reader, up_writer = upstream
        try:
            await asyncio.gather(_copy(reader, up_writer), _copy(up_reader, writer))
        finally:
            up_writer.close()

    async def _pipe_response(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        upstream: _Stream,
    ) -> None:
        """The request body goes up as it comes; the answer comes back with ``Connection: close``."""
        up_reader, up_writer = upstream
        body = asyncio.create_task(_copy(reader, up_writer))
        try:
            head = await up_reader.readuntil(b"\r\n\r\n")
            status_line, *headers = head[:-4].split(b"\r\n")
            writer.write(b"\r\n".join([status_line, *_without_hop_headers(headers), b"Connection: close", b"", b""]))
            await _copy(up_reader, writer)
        finally:
            body.cancel()
            up_writer.close()


async def _copy(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    while data := await source.read(65536):
        sink.write(data)
        await sink.drain()
    with contextlib.suppress(OSError):
        if sink.can_write_eof():
            sink.write_eof()
