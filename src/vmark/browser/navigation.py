"""Navigation tickets: ``open`` / ``navigate`` start one, ``wait`` observes one.

A ticket (``nav-<random>``) is ``pending`` until its navigation ends ``loaded`` or ``failed``, or a
newer navigation of the same tab ``superseded`` it. Waiting is bounded (``timeoutMs`` 1-9000); a
wait that runs out raises :class:`NavigationTimeout` carrying the ticket, and the navigation goes
on, so a later ``wait`` fetches its result.

A target is checked before anything navigates (:class:`TargetRefused`); the driver's guards check
every request, redirect hop and connection after that (a failed load names the refusal). An HTTP
error page is ``loaded`` (with its ``httpStatus``): the site
answered. A loaded result carries ``gate`` when the page reads as a login wall, consent
interstitial, challenge or rate limit (:func:`~vmark.browser.gates.detect_gate`).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from vmark.browser.driver import BrowserDriver
from vmark.browser.failures import PlaywrightError
from vmark.browser.gates import detect_gate
from vmark.browser.tabs import BrowserTab
from vmark.browser.urlpolicy import TargetVerdict, redact_url
from vmark.core.ids import new_id
from vmark.protocol import browser_results
from vmark.protocol.limits import (
    DEFAULT_TIMEOUT_MS,
    ERROR_PAGE_TIMEOUT_MS,
    GATE_TEXT_TIMEOUT_MS,
    MAX_TIMEOUT_MS,
    MIN_TIMEOUT_MS,
    NAVIGATION_LIMIT_MS,
    TICKETS_PER_TAB,
)

if TYPE_CHECKING:
    from playwright.async_api import Page, Response

TicketState = Literal["pending", "loaded", "failed", "superseded"]
_NET_ERROR = re.compile(r"net::ERR_[A-Z0-9_]+")
#: how a load fails when the proxy refused it
_PROXY_REFUSED = ("net::ERR_TUNNEL_CONNECTION_FAILED", "net::ERR_EMPTY_RESPONSE")
_ERROR_PAGE = re.compile(r"^chrome-error:")


class InvalidTimeout(ValueError):
    def __init__(self, value: object) -> None:
        super().__init__(f"timeoutMs must be an integer from {MIN_TIMEOUT_MS} to {MAX_TIMEOUT_MS}, not {value!r}")


class TargetRefused(Exception):
    """The target failed the policy; nothing navigated."""

    code = "TARGET_REFUSED"

    def __init__(self, verdict: TargetVerdict) -> None:
        super().__init__(f"refused ({verdict.reason}): {verdict.detail}")
        self.verdict = verdict


class UnknownNavigation(LookupError):
    def __init__(self, navigation_id: str | None) -> None:
        what = "this tab has no navigation" if navigation_id is None else f"no navigation {navigation_id[:80]!r}"
        super().__init__(f"{what} to wait for")
        self.navigation_id = navigation_id


class NavigationTimeout(Exception):
    """The ticket did not finish within the wait; it is still running."""

    code = "TIMEOUT"

    def __init__(self, ticket: Ticket, timeout_ms: int) -> None:
        super().__init__(f"navigation {ticket.id} did not finish within {timeout_ms} ms; wait for it again")
        self.ticket = ticket


@dataclass(eq=False)
class Ticket:
    id: str
    tab_id: str
    #: the target, redacted
    url: str
    state: TicketState = "pending"
    result: browser_results.Ticket = field(default_factory=lambda: browser_results.Ticket())
    _finished: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    @property
    def done(self) -> bool:
        return self.state != "pending"

    def _finish(self, state: TicketState, outcome: browser_results.Ticket) -> None:
        if self.done:
            return  # the first outcome stands (a superseded ticket stays superseded)
        self.state = state
        self.result = {"navigationId": self.id, "status": state, **outcome}
        self._finished.set()

    def pending_result(self) -> browser_results.Ticket:
        return {"navigationId": self.id, "status": "pending", "url": self.url}


def validate_timeout(timeout_ms: object) -> int:
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int):
        raise InvalidTimeout(timeout_ms)
    if not MIN_TIMEOUT_MS <= timeout_ms <= MAX_TIMEOUT_MS:
        raise InvalidTimeout(timeout_ms)
    return timeout_ms


def _error_text(exc: PlaywrightError) -> str:
    """What went wrong, without the URL (Playwright's message repeats it, query string included)."""
    match = _NET_ERROR.search(exc.message)
    if match:
        return match.group(0)
    if "Timeout" in exc.message:
        return f"the page did not finish loading within {NAVIGATION_LIMIT_MS // 1000} s"
    if "interrupted by another navigation" in exc.message:
        return "the page started another navigation"
    if "closed" in exc.message:
        return "the tab was closed"
    return "the navigation failed"


class Navigator:
    """Starts, supersedes and hands out the navigation tickets of every tab."""

    def __init__(self, driver: BrowserDriver) -> None:
        self.driver = driver
        self._tickets: dict[str, list[Ticket]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def navigate(self, tab: BrowserTab, url: str, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Ticket:
        """Check ``url``, navigate the tab to it and wait up to ``timeout_ms`` for the ticket."""
        validate_timeout(timeout_ms)
        verdict = await asyncio.to_thread(self.driver.check, url)
        if not verdict.allowed:
            raise TargetRefused(verdict)
        ticket = self._start(tab, verdict.url)
        return await self.wait(tab, ticket.id, timeout_ms)

    def ticket(self, tab: BrowserTab, navigation_id: str | None = None) -> Ticket:
        tickets = self._tickets.get(tab.id, [])
        if navigation_id is None and tickets:
            return tickets[-1]
        for ticket in tickets:
            if ticket.id == navigation_id:
                return ticket
        raise UnknownNavigation(navigation_id)

    async def wait(self, tab: BrowserTab, navigation_id: str | None, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Ticket:
        """The ticket once finished (any final state), or :class:`NavigationTimeout`."""
        validate_timeout(timeout_ms)
        ticket = self.ticket(tab, navigation_id)
        try:
            await asyncio.wait_for(ticket._finished.wait(), timeout_ms / 1000)
        except TimeoutError:
            raise NavigationTimeout(ticket, timeout_ms) from None
        return ticket

    def forget_tab(self, tab_id: str) -> None:
        for ticket in self._tickets.pop(tab_id, []):
            ticket._finish("failed", {"url": ticket.url, "error": "the tab was closed"})

    async def aclose(self) -> None:
        """Stop every running navigation (before the driver stops)."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    # --- running a ticket ------------------------------------------------------------------------
    def _start(self, tab: BrowserTab, url: str) -> Ticket:
        tickets = self._tickets.setdefault(tab.id, [])
        ticket = Ticket(new_id("nav"), tab.id, redact_url(url))
        for older in tickets:
            older._finish("superseded", {"url": older.url, "supersededBy": ticket.id})
        tickets.append(ticket)
        del tickets[:-TICKETS_PER_TAB]
        task = asyncio.create_task(self._run(tab, ticket, url))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return ticket

    async def _run(self, tab: BrowserTab, ticket: Ticket, url: str) -> None:
        tab.events.refusals.clear()  # what is refused from here on belongs to this navigation
        started = time.monotonic()
        try:
            response = await tab.page.goto(url, wait_until="load", timeout=NAVIGATION_LIMIT_MS)
        except PlaywrightError as exc:
            error = self._failure(tab, exc, started)
            await _settle_error_page(tab.page, exc)
            ticket._finish("failed", {"url": ticket.url, "error": error})
            return
        except asyncio.CancelledError:
            ticket._finish("failed", {"url": ticket.url, "error": "the browser stopped"})
            raise
        if ticket.done:
            return
        ticket._finish("loaded", await self._loaded(tab, response))

    def _failure(self, tab: BrowserTab, exc: PlaywrightError, started: float) -> str:
        """Why the load failed: a refusal of the page's document by the guards when there is one.
        The proxy cannot tell which tab asked, so its refusals are used for a load that failed the
        way a proxy refusal fails one, naming the latest since this navigation started."""
        refused = [r for r in tab.events.refusals if r.document]
        if refused:
            return _refusal_text(refused[-1].url, refused[-1].reason, refused[-1].detail)
        proxied = self.driver.guard.refusals_since(started)
        if proxied and any(code in exc.message for code in _PROXY_REFUSED):
            latest = proxied[-1]
            return _refusal_text(latest.url, latest.reason, latest.detail) if latest.refused else latest.detail
        return _error_text(exc)

    async def _loaded(self, tab: BrowserTab, response: Response | None) -> browser_results.Ticket:
        page = tab.page
        title = await tab.refresh_title()
        result: browser_results.Ticket = {"url": tab.url, "title": title, "generation": tab.generation}
        status = response.status if response is not None else None
        if status is not None:
            result["httpStatus"] = status
        gate = detect_gate(
            url=page.url,
            title=title,
            text=await _visible_text(page),
            html=await _html(page),
            status=status,
            frames=[frame.url for frame in page.frames[1:]],
        )
        if gate is not None:
            result["gate"] = gate.as_data()
        return result


def _refusal_text(url: str, reason: str, detail: str) -> str:
    return f"refused ({reason}): {url}: {detail}"


async def _settle_error_page(page: Page, exc: PlaywrightError) -> None:
    """Wait for the error page Chromium commits after a failed load (all network errors but an
    abort have one): it commits after ``goto`` has failed, and would cut off the next navigation."""
    match = _NET_ERROR.search(exc.message)
    if match is None or match.group(0) == "net::ERR_ABORTED":
        return
    with contextlib.suppress(PlaywrightError):
        await page.wait_for_url(_ERROR_PAGE, wait_until="commit", timeout=ERROR_PAGE_TIMEOUT_MS)


async def _visible_text(page: Page) -> str:
    try:
        return await page.locator("body").inner_text(timeout=GATE_TEXT_TIMEOUT_MS)
    except PlaywrightError:
        return ""


async def _html(page: Page) -> str | None:
    try:
        return await page.content()
    except PlaywrightError:
        return None
