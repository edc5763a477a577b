"""The person's address bar and buttons on a tab of the Browser panel: go, back, forward, reload.

The person may go to any http(s) address (no prompt: it is their browser); a navigation that fails
leaves Chromium's error page in the tab and its reason in the answer (``error``). An agent's
navigation goes through the app's gates instead (``browser.navigate``).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from vmark.browser.failures import PlaywrightError, first_line
from vmark.browser.tabs import BrowserTab
from vmark.protocol.errors import ArgumentError
from vmark.protocol.limits import VIEW_NAVIGATION_TIMEOUT_MS
from vmark.protocol.wire_types import BrowserWhere

#: something that starts with a scheme (``localhost:8000`` and ``host:80/x`` do not)
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):(?!\d)")


def person_url(raw: str) -> str:
    """Where the person asked to go: any http(s) address (``example.org`` means https); other schemes
    (``javascript:``, ``file:``, ``data:``, ...) are refused."""
    url = raw.strip()
    if not _SCHEME.match(url):
        url = "https://" + url
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ArgumentError(f"only http and https addresses can be opened, not {raw[:100]!r}")
    return url


async def move(tab: BrowserTab, op: object, url: object) -> BrowserWhere:
    """``op``: ``go`` (to ``url``), ``back``, ``forward`` or ``reload``: ``{tabId, url}`` (+ ``error``)."""
    if op == "go":
        if not isinstance(url, str) or not url.strip():
            raise ArgumentError("argument 'url' must be a non-empty string")
        return await goto(tab, person_url(url))
    moves = {"back": tab.page.go_back, "forward": tab.page.go_forward, "reload": tab.page.reload}
    step = moves.get(op) if isinstance(op, str) else None
    if step is None:
        raise ArgumentError("op must be 'back', 'forward', 'reload' or 'go'")
    error = None
    try:
        await step(wait_until="commit", timeout=VIEW_NAVIGATION_TIMEOUT_MS)
    except PlaywrightError as exc:
        error = first_line(exc)
    return where(tab, error)


async def goto(tab: BrowserTab, url: str) -> BrowserWhere:
    """Load ``url`` (checked by :func:`person_url`) in the tab: ``{tabId, url}`` (+ ``error``)."""
    error = None
    try:
        await tab.page.goto(url, wait_until="commit", timeout=VIEW_NAVIGATION_TIMEOUT_MS)
    except PlaywrightError as exc:  # the tab shows Chromium's error page: the person sees why
        error = first_line(exc)
    return where(tab, error)


def where(tab: BrowserTab, error: str | None) -> BrowserWhere:
    answer: BrowserWhere = {"tabId": tab.id, "url": tab.url}
    if error is not None:
        answer["error"] = error
    return answer
