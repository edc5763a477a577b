"""Site readers: a reader registered for a host pattern gets first claim on matching pages.

Patterns are host globs (``en.wikipedia.org``, ``*.wikipedia.org``; ``*.`` also matches the bare
domain) or origins (``https://example.com``, which also pins the scheme and port). A reader may also
recognise pages by their content (``recognise``), for sites served under other hosts (a MediaWiki on
its own domain). Order of claims: readers whose pattern matches the URL, the most recently registered
first; then readers that recognise the page; then the generic reader. A reader declines by returning None.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from .model import Article, Page

ReadFn = Callable[[Page], Article | None]
RecogniseFn = Callable[[Page], bool]


@dataclass(frozen=True)
class SiteReader:
    name: str
    patterns: tuple[str, ...]
    read: ReadFn
    recognise: RecogniseFn | None = None


_readers: list[SiteReader] = []


def register_reader(
    name: str, patterns: tuple[str, ...] | list[str], read: ReadFn, *, recognise: RecogniseFn | None = None
) -> Callable[[], None]:
    """Register a site reader; returns the function that unregisters it."""
    reader = SiteReader(name, tuple(p.strip().lower() for p in patterns), read, recognise)
    _readers.append(reader)

    def unregister() -> None:
        if reader in _readers:
            _readers.remove(reader)

    return unregister


def _origin(url: str) -> tuple[str, str, int | None]:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return ("", "", None)
    scheme = parts.scheme.lower()
    default = {"http": 80, "https": 443}.get(scheme)
    return (scheme, (parts.hostname or "").lower(), port if port is not None else default)


def _host_matches(pattern: str, host: str) -> bool:
    if pattern.startswith("*."):
        domain = pattern[2:]
        return host == domain or host.endswith("." + domain)
    return host == pattern


def matches(pattern: str, url: str) -> bool:
    scheme, host, port = _origin(url)
    if not host:
        return False
    if "://" in pattern:
        p_scheme, p_host, p_port = _origin(pattern)
        return p_scheme == scheme and p_port == port and _host_matches(p_host, host)
    return _host_matches(pattern, host)


def candidates(page: Page) -> list[SiteReader]:
    """The readers with a claim on ``page``, in the order they get it."""
    newest_first = list(reversed(_readers))
    by_url = [r for r in newest_first if any(matches(p, page.url) for p in r.patterns)]
    by_content = [r for r in newest_first if r not in by_url and r.recognise is not None and r.recognise(page)]
    return by_url + by_content
