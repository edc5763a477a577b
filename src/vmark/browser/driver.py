"""The Chromium driver: browser contexts for AI and human tabs, and the guards every AI page gets.

Contexts (all lazy, all closed by :meth:`BrowserDriver.stop`):
- ``sandbox``: one shared non-persistent context of a launched browser (the AI's own cookie store);
- ``shared``: the person's persistent profile (``<profile_root>/shared``); human tabs live here too;
- named profiles: persistent AI contexts (``<profile_root>/profiles/<name>``).

Network guard. Every request of an AI page must pass the target policy (``check``, by default
:func:`~vmark.browser.urlpolicy.check_target` with ``allow_private()`` read at each request), or it is
aborted and the refusal (redacted URL + reason) is recorded on the page's :class:`PageEvents`. Three
layers, because Playwright's routing sees only the first hop of a redirect chain (it continues the
following hops itself, unrouted) and no layer inside the browser sees everything:
- ``context.route("**/*")`` checks every request Playwright sees: documents, subresources, frames,
  workers (``route_web_socket`` does the same for WebSockets);
- a CDP ``Fetch`` interceptor on each AI page (request stage) checks every redirect hop of the
  page's own frames: Chromium pauses each hop there before sending it, so the refusal is attributed
  to the tab and a failed navigation can name it;
- every context connects through :class:`~vmark.browser.netguard.NetGuard`, a local proxy that
  checks each connection by name *and* by the address it resolves to, then connects to that address:
  it catches what the first two cannot see (redirect hops in cross-site frames and workers, a DNS
  answer that changed after a check), without knowing the tab.
Service workers are blocked (their requests would bypass routing). In the shared profile the
proxy applies the policy to the person's own tabs as well (one profile, one proxy).

Popups are blocked on every page we drive: a page the page opens (``window.open``, a
``target=_blank`` link) is closed at once, none of its requests goes out, and the URL it asked for
is recorded (redacted) on the opener's ``popups``. Human pages follow the same rule: the UI has no
window to show a popup in.

JS dialogs follow one explicit policy, recorded on the page's ``dialogs``: ``alert`` is accepted,
``confirm`` dismissed (the page sees ``false``), ``prompt`` dismissed (``null``), ``beforeunload``
accepted (leaving is never blocked by the page).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from vmark.browser import launch
from vmark.browser.failures import PlaywrightError
from vmark.browser.launch import CHROMIUM, start_playwright
from vmark.browser.lent import LentChromium
from vmark.browser.netguard import NetGuard, Resolver
from vmark.browser.urlpolicy import TargetVerdict, check_target, redact_url
from vmark.protocol.limits import DIALOG_MESSAGE_CHARS, EVENT_LOG_LIMIT

if TYPE_CHECKING:
    from playwright.async_api import (
        Browser,
        BrowserContext,
        CDPSession,
        Dialog,
        Page,
        Playwright,
        Request,
        Route,
        WebSocketRoute,
    )

Posture = Literal["sandbox", "shared"]
Check = Callable[[str], TargetVerdict]
PROFILE_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")
_DIALOG_ACCEPTED = frozenset({"alert", "beforeunload"})


class InvalidProfileName(ValueError):
    """A profile name outside ``[A-Za-z0-9._-]{1,64}``."""


@dataclass(frozen=True)
class Refusal:
    url: str  # redacted
    reason: str
    detail: str
    #: a document request (a navigation of the page or of one of its frames)
    document: bool


@dataclass(frozen=True)
class DialogRecord:
    type: str
    message: str
    action: Literal["accept", "dismiss"]


@dataclass
class PageEvents:
    """What the guards saw on one page; the tab and the navigator read and clear these."""

    ai: bool
    refusals: list[Refusal] = field(default_factory=list)
    #: redacted URLs the page tried to open in a new window
    popups: list[str] = field(default_factory=list)
    dialogs: list[DialogRecord] = field(default_factory=list)

    def add(self, log: list[Any], item: Any) -> None:
        """Append ``item`` to one of these logs, dropping its oldest entries beyond the limit."""
        log.append(item)
        del log[:-EVENT_LOG_LIMIT]


def _default_check(allow_private: Callable[[], bool]) -> Check:
    def check(url: str) -> TargetVerdict:
        return check_target(url, allow_private=allow_private())

    return check


class BrowserDriver:
    """One Playwright instance, its browsers and contexts, and the pages VMark drives."""

    def __init__(
        self,
        profile_root: Path,
        *,
        allow_private: Callable[[], bool],
        check: Check | None = None,
        resolve: Resolver | None = None,
        executable: str = CHROMIUM,
        args: list[str] | None = None,
        extra_args: Sequence[str] = (),
    ) -> None:
        """``args``: the launch flags (the product's :data:`LAUNCH_ARGS` by default); ``extra_args``: the
        machine's additions (``VMARK_CHROMIUM_ARGS``, e.g. ``--no-sandbox`` where Chromium cannot sandbox)."""
        self.profile_root = profile_root
        self.allow_private = allow_private
        self.check: Check = check or _default_check(allow_private)
        self.guard = NetGuard(self.check, resolve=resolve)
        self._executable = executable
        self._own_args = args
        self._extra_args = tuple(extra_args)
        self._lock = asyncio.Lock()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._contexts: dict[str, BrowserContext] = {}  # "sandbox", "shared", "profile:<name>"
        self._pages: dict[Page, PageEvents] = {}
        self._sessions: dict[Page, CDPSession] = {}
        self._background: set[asyncio.Future[None]] = set()
        #: a test hook: Playwright and the sandbox Chromium borrowed, not started here (:mod:`.lent`)
        self.lent: LentChromium | None = None

    @property
    def _args(self) -> list[str]:
        """The launch flags, read when Chromium is launched (the product's are made at their first use)."""
        return [*(launch.LAUNCH_ARGS if self._own_args is None else self._own_args), *self._extra_args]

    # --- lifecycle -------------------------------------------------------------------------------
    @property
    def started(self) -> bool:
        return self._playwright is not None

    async def start(self) -> None:
        async with self._lock:
            await self._start_locked()

    async def _start_locked(self) -> Playwright:
        if self._playwright is None:
            self._playwright = await (start_playwright() if self.lent is None else self.lent.playwright())
        return self._playwright

    async def stop(self) -> None:
        """Close every context, the browser and Playwright (its driver process ends Chromium's)."""
        async with self._lock:
            contexts, self._contexts = list(self._contexts.values()), {}
            for context in contexts:
                with contextlib.suppress(PlaywrightError):
                    await context.close()
            if self._browser is not None and self.lent is None:  # a lent one is the lender's to close
                with contextlib.suppress(PlaywrightError):
                    await self._browser.close()
            self._browser = None
            if self._playwright is not None and self.lent is None:
                with contextlib.suppress(PlaywrightError):
                    await self._playwright.stop()
            self._playwright = None
            await self.guard.stop()
            for task in self._background:
                task.cancel()
            self._pages.clear()
            self._sessions.clear()

    # --- pages -----------------------------------------------------------------------------------
    async def new_page(self, posture: Posture, profile: str | None = None, *, ai: bool = True) -> Page:
        """A fresh page (about:blank) in the posture's context, or in the named profile's."""
        if profile is not None and not PROFILE_NAME.fullmatch(profile):
            raise InvalidProfileName(f"profile names are 1-64 of A-Z a-z 0-9 . _ -, not {profile[:70]!r}")
        async with self._lock:
            context = await self._context(posture, profile)
            page = await context.new_page()
            self._pages[page] = PageEvents(ai=ai)
        self._watch(page)
        await self._attach_session(page, ai)
        return page

    def events(self, page: Page) -> PageEvents:
        return self._pages[page]

    def forget(self, page: Page) -> None:
        self._pages.pop(page, None)
        self._sessions.pop(page, None)

    def _watch(self, page: Page) -> None:
        page.on("popup", self._on_popup)
        page.on("dialog", self._on_dialog)
        page.on("close", self.forget)

    async def _context(self, posture: Posture, profile: str | None) -> BrowserContext:
        key = f"profile:{profile}" if profile is not None else posture
        context = self._contexts.get(key)
        if context is not None:
            return context
        playwright = await self._start_locked()
        proxy = {"server": await self.guard.start()}
        options: dict[str, Any] = {"service_workers": "block", "accept_downloads": False, "proxy": proxy}
        if key == "sandbox":
            if self._browser is None and self.lent is not None:
                self._browser = await self.lent.browser(self._executable, self._args)
            elif self._browser is None:
                self._browser = await playwright.chromium.launch(executable_path=self._executable, args=self._args)
            context = await self._browser.new_context(**options)
        else:
            folder = self.profile_root / ("shared" if profile is None else f"profiles/{profile}")
            folder.mkdir(parents=True, exist_ok=True)
            context = await playwright.chromium.launch_persistent_context(
                folder, executable_path=self._executable, args=self._args, **options
            )
            # a persistent context opens with a blank page of its own: no tab owns it
            for stray in context.pages:
                await stray.close()
        await context.route("**/*", self._guard_route)
        await context.route_web_socket(re.compile(".*"), self._guard_web_socket)
        self._contexts[key] = context
        return context

    # --- the network guard -----------------------------------------------------------------------
    async def _verdict(self, url: str) -> TargetVerdict:
        # the check may resolve a host name: keep the event loop free meanwhile
        return await asyncio.to_thread(self.check, url)

    def _record(self, events: PageEvents | None, url: str, verdict: TargetVerdict, document: bool) -> None:
        if events is not None:
            events.add(events.refusals, Refusal(redact_url(url), verdict.reason, verdict.detail, document))

    def _page_of(self, request: Request) -> Page | None:
        try:
            return request.frame.page
        except PlaywrightError:  # a worker's request, or the first navigation of a new window
            return None

    async def _guard_route(self, route: Route) -> None:
        request = route.request
        page = self._page_of(request)
        events = self._pages.get(page) if page is not None else None
        if events is None and (page is not None or request.is_navigation_request()):
            # a page we did not create, or a navigation issued before its window existed: a popup
            # (the opener's Page.windowOpen noted what it asked for)
            await route.abort("blockedbyclient")
            return
        if events is not None and not events.ai:
            await route.continue_()  # the person's own browsing
            return
        verdict = await self._verdict(request.url)
        if verdict.allowed:
            await route.continue_()
            return
        self._record(events, request.url, verdict, request.resource_type == "document")
        await route.abort("blockedbyclient")

    async def _guard_web_socket(self, ws: WebSocketRoute) -> None:
        http_url = re.sub(r"^ws", "http", ws.url, flags=re.IGNORECASE)
        verdict = await self._verdict(http_url)
        if verdict.allowed:
            ws.connect_to_server()
        else:
            await ws.close(code=1008, reason="refused by VMark")

    async def _attach_session(self, page: Page, ai: bool) -> None:
        """A CDP session of our own on the page: it reports the windows the page tries to open
        (with the URL asked for, which the blocked popup never reaches) and, on an AI page,
        pauses every redirect hop for the guard."""
        session = await page.context.new_cdp_session(page)
        self._sessions[page] = session
        session.on("Page.windowOpen", lambda event: self._note_popup(page, str(event.get("url", ""))))
        await session.send("Page.enable")
        if not ai:
            return

        session.on("Fetch.requestPaused", lambda event: self._spawn(self._guard_hop(session, page, event)))
        await session.send("Fetch.enable", {"patterns": [{"urlPattern": "*", "requestStage": "Request"}]})

    async def _guard_hop(self, session: CDPSession, page: Page, event: dict[str, Any]) -> None:
        """A request our interceptor paused: a redirect hop is checked, anything else goes on (its
        first hop is the route guard's)."""
        request_id = event["requestId"]
        url = event["request"]["url"]
        with contextlib.suppress(PlaywrightError):  # the page went away meanwhile
            verdict = await self._verdict(url) if event.get("redirectedRequestId") else None
            if verdict is None or verdict.allowed:
                await session.send("Fetch.continueRequest", {"requestId": request_id})
                return
            self._record(self._pages.get(page), url, verdict, event.get("resourceType") == "Document")
            await session.send("Fetch.failRequest", {"requestId": request_id, "errorReason": "BlockedByClient"})

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._background.add(task)  # a reference until done: the loop keeps only weak ones
        task.add_done_callback(self._background.discard)

    # --- popups and dialogs ----------------------------------------------------------------------
    def _note_popup(self, opener: Page, url: str) -> None:
        events = self._pages.get(opener)
        redacted = redact_url(url)
        if events is not None and redacted:
            events.add(events.popups, redacted)

    async def _on_popup(self, popup: Page) -> None:
        # its requests were refused already (it is no page of ours); what it asked for was noted
        # from the opener's Page.windowOpen
        with contextlib.suppress(PlaywrightError):
            await popup.close()

    async def _on_dialog(self, dialog: Dialog) -> None:
        accept = dialog.type in _DIALOG_ACCEPTED
        events = self._pages.get(dialog.page) if dialog.page is not None else None
        if events is not None:
            record = DialogRecord(dialog.type, dialog.message[:DIALOG_MESSAGE_CHARS], "accept" if accept else "dismiss")
            events.add(events.dialogs, record)
        with contextlib.suppress(PlaywrightError):
            await (dialog.accept() if accept else dialog.dismiss())
