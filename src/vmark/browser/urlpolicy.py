"""Where an agent may send a browser tab, and what of a URL an agent may see.

``check_target`` is applied to every target an agent names and to every redirect hop. Only public
http(s) targets pass unless ``browser.allow_private_network`` is on. The host is parsed the way the
browser parses it (WHATWG URL rules: backslashes as slashes, percent-decoding, IDNA, and the odd
IPv4 spellings ``2130706433``, ``0x7f.1``, ``017700000001`` read as the address they denote), and the
verdict carries the normalized URL: navigate to *that*, so the browser goes exactly where we looked.

Decisions:
- ``about:blank`` is refused like every other non-http(s) target. A fresh tab shows it without any
  navigation of ours, so an agent never needs to ask for it, and one rule without exceptions is
  easier to trust.
- Userinfo (``http://user@host/``) is refused even with private targets allowed: it carries a
  credential or disguises the host (``http://bank.example@evil.example/``).
- A host that cannot be resolved is refused (``unresolvable``): we cannot vouch for it, and the
  browser would fail on it anyway.
- Hosts with IDNA deviation characters (``ß``, final sigma, ZWJ, ZWNJ) are refused as malformed:
  the encodings disagree on them, so the host we checked could differ from the host meant.
- Resolving is a snapshot (DNS can change between the check and the connection); the driver should
  also check the address it actually connected to.
"""

from __future__ import annotations

import ipaddress
import socket
import string
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote_to_bytes, urlsplit

Reason = Literal[
    "ok",
    "malformed",
    "scheme",
    "userinfo",
    "localhost",
    "loopback",
    "private",
    "link-local",
    "metadata",
    "unspecified",
    "multicast",
    "reserved",
    "unresolvable",
]
Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str], list[str]]


@dataclass(frozen=True)
class TargetVerdict:
    allowed: bool
    reason: Reason
    #: the normalized URL to navigate to ("" when the URL could not be parsed); it may carry a query
    #: string, so show the agent ``redact_url(url)``, never this
    url: str
    #: one sentence for the agent, naming the host, never the query string
    detail: str


_SCHEMES = {"http": 80, "https": 443}
_V4 = ipaddress.IPv4Network
_V6 = ipaddress.IPv6Network
# Checked in order, so the most telling name wins (169.254.169.254 is "metadata", not "link-local").
_CLASSES: tuple[tuple[Reason, tuple[_V4 | _V6, ...]], ...] = (
    # cloud instance metadata: AWS/GCP/Azure/OpenStack, AWS over IPv6, Azure's wire server
    ("metadata", (_V4("169.254.169.254/32"), _V6("fd00:ec2::254/128"), _V4("168.63.129.16/32"))),
    ("unspecified", (_V4("0.0.0.0/8"), _V6("::/128"))),
    ("loopback", (_V4("127.0.0.0/8"), _V6("::1/128"))),
    (
        "private",
        (
            _V4("10.0.0.0/8"),
            _V4("172.16.0.0/12"),
            _V4("192.168.0.0/16"),
            _V4("100.64.0.0/10"),  # carrier-grade NAT
            _V6("fc00::/7"),  # unique local
            _V6("fec0::/10"),  # the deprecated site-local block
        ),
    ),
    ("link-local", (_V4("169.254.0.0/16"), _V6("fe80::/10"))),
    ("multicast", (_V4("224.0.0.0/4"), _V6("ff00::/8"))),
)
#: IPv6 blocks that embed an IPv4 address the traffic ends up at: NAT64 and 6to4
_EMBEDDING = (_V6("64:ff9b::/96"), _V6("2002::/16"))
_METADATA_HOSTS = frozenset({"metadata.google.internal", "metadata.goog", "metadata"})
# WHATWG "forbidden domain code points", and what the ASCII-only checks below treat alike
_FORBIDDEN_HOST = frozenset(" #%/:<>?@[\\]^|\x7f") | frozenset(chr(c) for c in range(0x20))
_IDNA_DEVIATIONS = frozenset("\u00df\u03c2\u200c\u200d")
_HEX = frozenset(string.hexdigits)
_DIGITS = frozenset(string.digits)


class _Malformed(ValueError):
    """The URL cannot be a target; ``reason`` is "malformed" or "scheme"."""

    def __init__(self, detail: str, reason: Reason = "malformed") -> None:
        super().__init__(detail)
        self.reason: Reason = reason


@dataclass(frozen=True)
class _Parsed:
    scheme: str
    host: str  # ASCII, lowercase; an IPv6 literal without brackets
    ip: Address | None
    port: int | None  # None for the scheme's default port
    path: str
    query: str
    fragment: str
    userinfo: bool

    @property
    def origin(self) -> str:
        host = f"[{self.host}]" if isinstance(self.ip, ipaddress.IPv6Address) else self.host
        return f"{self.scheme}://{host}" + (f":{self.port}" if self.port is not None else "")

    @property
    def url(self) -> str:
        return (
            self.origin
            + self.path
            + (f"?{self.query}" if self.query else "")
            + (f"#{self.fragment}" if self.fragment else "")
        )


# --- parsing -----------------------------------------------------------------------------------------
def _clean(raw: str) -> str:
    """What the browser does before parsing: trim C0 controls and spaces, drop tabs and newlines,
    and read backslashes before the query as slashes (http and https, the only schemes parsed on)."""
    url = raw.strip("".join(chr(c) for c in range(0x21))).translate({9: None, 10: None, 13: None})
    cut = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))
    return url[:cut].replace("\\", "/") + url[cut:]


def _ipv4_number(part: str) -> int | None:
    radix = 10
    if part[:2] in ("0x", "0X"):
        part, radix = part[2:], 16
    elif len(part) > 1 and part[0] == "0":
        part, radix = part[1:], 8
    if not part:
        return 0
    allowed = {10: _DIGITS, 8: frozenset("01234567"), 16: _HEX}[radix]
    return int(part, radix) if set(part) <= allowed else None


def _ends_in_number(host: str) -> bool:
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    last = parts[-1]
    return (bool(last) and set(last) <= _DIGITS) or (last[:2] in ("0x", "0X") and set(last[2:]) <= _HEX)


def _parse_ipv4(host: str) -> ipaddress.IPv4Address:
    """The WHATWG IPv4 parser: 1 to 4 parts, each decimal, octal (leading 0) or hex (0x)."""
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    numbers = [_ipv4_number(p) if p else None for p in parts]
    if len(parts) > 4 or None in numbers:
        raise _Malformed(f"{host!r} is not a valid IPv4 address")
    values = [n for n in numbers if n is not None]
    if any(n > 255 for n in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        raise _Malformed(f"{host!r} is not a valid IPv4 address")
    return ipaddress.IPv4Address(values[-1] + sum(n << (8 * (3 - i)) for i, n in enumerate(values[:-1])))


def _parse_host(raw: str) -> tuple[str, Address | None]:
    if raw.startswith("["):
        if not raw.endswith("]") or "%" in raw:  # zone ids are not URLs
            raise _Malformed(f"{raw!r} is not a valid IPv6 address")
        try:
            v6 = ipaddress.IPv6Address(raw[1:-1])
        except ValueError:
            raise _Malformed(f"{raw!r} is not a valid IPv6 address") from None
        return v6.compressed, v6
    try:
        host = unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        raise _Malformed("the host is not valid UTF-8 once percent-decoded") from None
    if not host.isascii():
        if _IDNA_DEVIATIONS & set(host):
            raise _Malformed("the host contains a character that IDNA encodings map differently")
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise _Malformed("the host is not a valid internationalized domain name") from None
    host = host.lower()
    if not host or _FORBIDDEN_HOST & set(host):
        raise _Malformed("the host is empty or contains a character hosts cannot have")
    if _ends_in_number(host):
        v4 = _parse_ipv4(host)
        return str(v4), v4
    return host, None


def _parse(raw: str) -> _Parsed:
    url = _clean(raw)
    try:
        parts = urlsplit(url)
    except ValueError:  # unbalanced brackets, or a bracketed host that is no IPv6 address
        raise _Malformed("the URL cannot be parsed") from None
    scheme = parts.scheme.lower()
    if not scheme:
        raise _Malformed("the URL has no scheme; use http:// or https://")
    if scheme not in _SCHEMES:
        raise _Malformed(f"{scheme}: URLs are not allowed, only http and https", "scheme")
    _, at, hostport = parts.netloc.rpartition("@")
    if hostport.startswith("["):
        end = hostport.find("]") + 1
        host_raw, port_raw = hostport[:end], hostport[end:]
        if end == 0 or (port_raw and not port_raw.startswith(":")):
            raise _Malformed("the IPv6 host is not closed by ']'")
        port_raw = port_raw[1:]
    else:
        host_raw, _, port_raw = hostport.partition(":")
    if not host_raw:
        raise _Malformed("the URL has no host")
    if port_raw and (not set(port_raw) <= _DIGITS or int(port_raw) > 65535):
        raise _Malformed(f"{port_raw[:20]!r} is not a valid port")
    host, ip = _parse_host(host_raw)
    port = int(port_raw) if port_raw else None
    return _Parsed(
        scheme=scheme,
        host=host,
        ip=ip,
        port=None if port == _SCHEMES[scheme] else port,
        path=parts.path or "/",
        query=parts.query,
        fragment=parts.fragment,
        userinfo=bool(at),
    )


# --- classification ----------------------------------------------------------------------------------
def _classify(ip: Address) -> Reason:
    """``ok`` for a public address, else the name of its class."""
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    if mapped is not None:
        return _classify(mapped)
    if isinstance(ip, ipaddress.IPv6Address) and any(ip in net for net in _EMBEDDING):
        embedded = ip.sixtofour
        return _classify(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF) if embedded is None else embedded)
    for reason, nets in _CLASSES:
        if any(ip.version == net.version and ip in net for net in nets):
            return reason
    # documentation, benchmarking, protocol assignments, 240/4, 255.255.255.255, ::/8 and the like
    return "ok" if ip.is_global and not ip.is_reserved else "reserved"


_PHRASES: dict[Reason, str] = {
    "metadata": "a cloud metadata address",
    "unspecified": "an unspecified address",
    "loopback": "a loopback address",
    "private": "a private address",
    "link-local": "a link-local address",
    "multicast": "a multicast address",
    "reserved": "a reserved address",
}


def _system_resolve(host: str) -> list[str]:
    infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    return [str(info[4][0]).partition("%")[0] for info in infos]


def _resolved(host: str, resolve: Resolver) -> list[Address]:
    try:
        return [ipaddress.ip_address(a) for a in resolve(host)]
    except (OSError, UnicodeError, ValueError):
        return []


def _first_refusal(addresses: Iterable[Address]) -> tuple[Reason, Address] | None:
    for address in addresses:
        reason = _classify(address)
        if reason != "ok":
            return reason, address
    return None


# --- the API -----------------------------------------------------------------------------------------
def check_target(url: str, *, allow_private: bool, resolve: Resolver | None = None) -> TargetVerdict:
    """May a tab be sent to ``url``? Refuses malformed, non-http(s) and userinfo URLs, and (unless
    ``allow_private``) hosts that are, or resolve to, anything but a public address."""
    try:
        parsed = _parse(url)
    except _Malformed as exc:
        return TargetVerdict(False, exc.reason, "", str(exc) if exc.reason == "scheme" else f"malformed URL: {exc}")
    normalized = parsed.url
    if parsed.userinfo:
        return TargetVerdict(False, "userinfo", normalized, "URLs with a user name or password are not allowed")
    if allow_private:
        return TargetVerdict(True, "ok", normalized, f"{parsed.host} is allowed")
    host = parsed.host.rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return TargetVerdict(False, "localhost", normalized, f"{host} names this computer")
    if host in _METADATA_HOSTS:
        return TargetVerdict(False, "metadata", normalized, f"{host} is a cloud metadata host")
    if parsed.ip is not None:
        reason = _classify(parsed.ip)
        if reason != "ok":
            return TargetVerdict(False, reason, normalized, f"{parsed.host} is {_PHRASES[reason]}")
        return TargetVerdict(True, "ok", normalized, f"{parsed.host} is a public address")
    addresses = _resolved(host, resolve or _system_resolve)
    if not addresses:
        return TargetVerdict(False, "unresolvable", normalized, f"{host} could not be resolved")
    refusal = _first_refusal(addresses)
    if refusal is not None:
        reason, address = refusal
        return TargetVerdict(False, reason, normalized, f"{host} resolves to {address}, {_PHRASES[reason]}")
    return TargetVerdict(True, "ok", normalized, f"{host} resolves to public addresses only")


def redact_url(url: str) -> str:
    """The URL as an agent may see it: no user info, query string or fragment. Schemes whose rest is
    content or a local path (data:, javascript:, blob:, file:) are reduced to the scheme; a URL that
    cannot be parsed becomes ""."""
    try:
        parsed = _parse(url)
    except _Malformed:
        scheme, sep, rest = _clean(url).partition(":")
        scheme = scheme.lower()
        if not sep or scheme in _SCHEMES or not scheme.isascii() or not scheme.replace("-", "").isalnum():
            return ""
        if scheme == "about":
            return "about:" + rest.partition("?")[0].partition("#")[0]
        return f"{scheme}:"
    return parsed.origin + parsed.path


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of an http(s) URL (default ports omitted), else "null" as browsers say
    for opaque origins."""
    try:
        return _parse(url).origin
    except _Malformed:
        return "null"
