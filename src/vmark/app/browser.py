"""The app's side of the embedded browser: tabs, navigation tickets, and the person's grants.

The driver, the page half, the policies and the services built on them (workflow runs, recordings,
saved sessions, the person's views) live in :mod:`vmark.browser`; this service decides who may do what,
and :class:`BrowserPrompts` lets a run follow the prompts its steps raised. Reading an AI-owned tab needs
nothing; every mutating act needs a grant for the tab's site, asked for in a prompt the person answers in
VMark (or with ``vmark approvals``). A prompt binds what it shows: the element (role + name) and, for
type / key / scroll, the exact text, chord or delta.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..browser.asks import Ask, Asker
from ..browser.console import install_console
from ..browser.driver import PROFILE_NAME, BrowserDriver, InvalidProfileName, Posture
from ..browser.grants import Decision, GrantRequest, GrantStore
from ..browser.navigation import InvalidTimeout, NavigationTimeout, Navigator, TargetRefused, UnknownNavigation
from ..browser.tabs import BrowserTab, TabLimit, TabRegistry, TeardownFailed, UnknownTab
from ..browser.urlpolicy import TargetVerdict, check_target, origin_of
from ..protocol import browser_results
from ..protocol.errors import ArgumentError, BrowserError
from ..protocol.jsontypes import JSONObject
from ..protocol.limits import BROWSER_PROMPT_WAIT_SECONDS, MAX_BROWSER_PROMPTS, TIMEOUT_MS_RULE
from ..protocol.wire_types import BrowserDetail, BrowserTabSummary
from ..storage.settings import Settings
from .approvals import Approvals
from .state import Session

#: set to 1 by the test suite and the benchmarks: the browser may reach only 127.0.0.1 / localhost
LOOPBACK_ONLY_ENV = "VMARK_BROWSER_LOOPBACK_ONLY"


class BrowserService:
    def __init__(
        self,
        session: Session,
        settings: Settings,
        approvals: Approvals,
        profile_dir: Path,
        *,
        loopback_only: bool = False,
        chromium_args: Sequence[str] = (),
    ) -> None:
        self.session = session
        self.settings = settings
        self.approvals = approvals
        self.driver = BrowserDriver(
            profile_dir,
            allow_private=self._allow_private,
            check=self._loopback_only if loopback_only else None,
            extra_args=tuple(chromium_args),
        )
        #: told the id of every tab closed here (a browser run on it stops)
        self.closed_listeners: list[Callable[[str], None]] = []
        #: told when the agents' tabs or what they may do changed (the pages' Browser panels list them again)
        self.changed_listeners: list[Callable[[], None]] = []
        self.tabs = TabRegistry(self.driver)
        self.navigator = Navigator(self.driver)
        self.grants = GrantStore()
        self.focused: str | None = None
        #: per AI tab, the agent that opened it as the person sees it (the Browser panel says whose it is)
        self.openers: dict[str, str] = {}
        #: per tab, the role and name of every ref its reads handed out (grants bind role + name)
        self._refs: dict[str, dict[str, tuple[str, str]]] = {}

    def _changed(self) -> None:
        for listener in self.changed_listeners:
            listener()

    def _allow_private(self) -> bool:
        return bool(self.settings.get("browser.allow_private_network"))

    def _loopback_only(self, url: str) -> TargetVerdict:
        """Tests and benchmarks: nothing but this machine is ever a target, not even a DNS lookup."""
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if parts.scheme.lower() in ("http", "https") and host not in ("127.0.0.1", "localhost", "::1"):
            detail = f"{host or url[:60]} is not this machine ({LOOPBACK_ONLY_ENV})"
            return TargetVerdict(False, "unresolvable", "", detail)
        return check_target(url, allow_private=self._allow_private())

    async def stop(self) -> None:
        await self.navigator.aclose()
        await self.driver.stop()

    # --- tabs ----------------------------------------------------------------------------------
    def require_enabled(self) -> None:
        if not self.settings.get("browser.enabled"):
            raise BrowserError("BROWSER_DISABLED", "The embedded browser is turned off (setting browser.enabled)")

    def tab(self, tab_id: Any, *, ai_only: bool = False) -> BrowserTab:
        """The tab named, else the focused one; ``ai_only``: the person's tabs are refused."""
        self.require_enabled()
        if tab_id is not None and not isinstance(tab_id, str):
            raise ArgumentError("argument 'tabId' must be a string")
        wanted = tab_id or self.focused
        if wanted is None:
            raise BrowserError("NO_BROWSER_TAB", "No browser tab is open: browser.open one first")
        try:
            tab = self.tabs.get(wanted)
        except UnknownTab as exc:
            raise BrowserError("NO_BROWSER_TAB", f"No browser tab {wanted!r} (closed, or never opened)") from exc
        if ai_only and tab.owner != "ai":
            raise BrowserError("TAB_NOT_AI_OWNED", f"{tab.id} is the user's tab", tabId=tab.id)
        return tab

    async def open(self, conn: Asker, url: str, timeout_ms: int, profile: str | None) -> browser_results.TabOpened:
        """A new AI-owned tab at ``url``; a named profile (a persistent login) is asked for every time."""
        self.require_enabled()
        if profile is not None:
            if not PROFILE_NAME.fullmatch(profile):
                raise ArgumentError(
                    f"argument 'profile' must be 1-64 characters of A-Z a-z 0-9 . _ -, not {profile[:70]!r}"
                )
            await self._authorize_profile(conn, profile)
        posture = "sandbox" if profile is not None else self.posture()
        try:
            tab = await self.tabs.open_ai_tab(posture, profile)
        except TabLimit as exc:
            raise BrowserError("TAB_LIMIT") from exc
        except InvalidProfileName as exc:
            raise ArgumentError(str(exc)) from exc
        tab.on_navigate(self._navigated)
        await install_console(tab.page)
        self.openers[tab.id] = conn.label
        self.focused = tab.id
        self._changed()
        try:
            await self.destination(conn, tab, url, wait=False)  # the tab stays for the retry
            ticket = await self.navigate(conn, tab, url, timeout_ms)
        except BrowserError as exc:
            if exc.code == "TARGET_REFUSED":
                await self.close(tab.id)  # nothing was loaded: no empty tab is left behind
            else:
                exc.extra.setdefault("tabId", tab.id)
            raise
        return {"tabId": tab.id, **ticket}  # the tab, then its navigation's ticket

    async def open_human_tab(self) -> BrowserTab:
        """A tab of the person's (their own profile); agents reach it only through an attachment."""
        self.require_enabled()
        tab = await self.tabs.open_human_tab()
        tab.on_navigate(self._navigated)
        self._changed()
        return tab

    async def navigate(self, conn: Asker, tab: BrowserTab, url: str, timeout_ms: int) -> browser_results.Ticket:
        self.focused = tab.id
        await self.destination(conn, tab, url)
        try:
            ticket = await self.navigator.navigate(tab, url, timeout_ms)
        except TargetRefused as exc:
            verdict = exc.verdict
            raise BrowserError("TARGET_REFUSED", verdict.detail, reason=verdict.reason) from exc
        except InvalidTimeout as exc:
            raise ArgumentError(TIMEOUT_MS_RULE) from exc
        except NavigationTimeout as exc:
            raise _timeout(exc) from exc
        return _ticket_result(ticket.state, ticket.result)

    async def wait(self, tab: BrowserTab, navigation_id: str | None, timeout_ms: int) -> browser_results.Ticket:
        try:
            ticket = await self.navigator.wait(tab, navigation_id, timeout_ms)
        except UnknownNavigation as exc:
            raise ArgumentError(
                f"no navigation {navigation_id!r} on {tab.id}: give a navigationId that open or navigate answered"
                " for this tab, or none for its newest"
            ) from exc
        except InvalidTimeout as exc:
            raise ArgumentError(TIMEOUT_MS_RULE) from exc
        except NavigationTimeout as exc:
            raise _timeout(exc) from exc
        return _ticket_result(ticket.state, ticket.result)

    async def close(self, tab_id: str, *, ai_only: bool = True) -> browser_results.TabClosed:
        """Close a tab (an agent: its own only; the person: any)."""
        tab = self.tab(tab_id, ai_only=ai_only)
        for listener in self.closed_listeners:
            listener(tab.id)
        self.navigator.forget_tab(tab.id)
        self.grants.lapse_tab(tab.id)
        self._refs.pop(tab.id, None)
        self.openers.pop(tab.id, None)
        if self.focused == tab.id:
            self.focused = None
        try:
            await self.tabs.close(tab.id)
        except TeardownFailed as exc:
            raise BrowserError("TAB_TEARDOWN_FAILED", tabId=tab.id, destroyed=False) from exc
        finally:
            self._changed()
        return {"tabId": tab.id, "closed": True, "destroyed": True}

    def _navigated(self, tab: BrowserTab) -> None:
        """Any navigation, in-page ones too: what the person allowed may not be what the page shows now."""
        self.grants.lapse_tab(tab.id)
        self._refs.pop(tab.id, None)
        self._changed()

    async def listing(self) -> list[BrowserTabSummary]:
        return await self.tabs.listing()

    # --- refs -------------------------------------------------------------------------------------
    def remember_refs(self, tab: BrowserTab, snapshot: list[JSONObject]) -> None:
        known = self._refs.setdefault(tab.id, {})
        for node in snapshot:
            known[str(node["ref"])] = (str(node.get("role", "")), str(node.get("name", "")))

    def ref_target(self, tab: BrowserTab, ref: str) -> tuple[str, str]:
        found = self._refs.get(tab.id, {}).get(ref)
        if found is None:
            raise BrowserError(
                "STALE_COMMAND",
                f"{ref} is not a ref of the current view of {tab.id}: browser_read.read the page again",
                ref=ref,
                generation=tab.generation,
            )
        return found

    # --- grants and prompts ------------------------------------------------------------------------
    async def authorize(self, conn: Asker, tab: BrowserTab, ask: Ask, *, by_ref: bool) -> None:
        """Pass when a grant covers ``ask`` (a once-grant is used up); else ask the person, or refuse."""
        site = origin_of(tab.page.url)
        request = GrantRequest(tab.id, site, ask.operation, ask.role, ask.name, ask.value)
        if self.grants.check(request):
            return
        if by_ref:
            raise BrowserError(
                "NOT_GRANTED",
                f"{ask.operation} is not granted on {site} yet; a ref is accepted only for an operation already"
                " granted: use role + name so the user's prompt shows a readable element",
                operation=ask.operation,
                site=site,
            )
        decision = await self._prompt(conn, tab, ask, site)
        if decision == "deny":
            raise BrowserError("NOT_GRANTED", f"The user denied {ask.describe(site)}", operation=ask.operation)
        self.grants.grant(request, decision)
        if not self.grants.check(request):
            raise BrowserError("NOT_GRANTED", f"{ask.operation} can never be granted", operation=ask.operation)

    async def _authorize_profile(self, conn: Asker, profile: str) -> None:
        site = f"profile {profile}"
        ask = Ask("profile", value=profile)
        request = GrantRequest("-", site, "profile", None, None, profile)
        decision = await self._prompt(conn, None, ask, site)
        if decision == "deny":
            raise BrowserError("NOT_GRANTED", f"The user denied opening the profile {profile!r}", operation="profile")
        self.grants.grant(request, decision)
        self.grants.check(request)  # per use: whatever the person chose, this use spends it

    async def readable(self, conn: Asker, tab_id: Any, *, standing: bool = False) -> BrowserTab:
        """The tab, for a read or an act: an AI tab as it is, a person's tab only after they attach it
        ("Allow once": this one read or act; "Allow until navigation"). ``standing``: many reads (a
        wait_for) need the second."""
        tab = self.tab(tab_id)
        if tab.owner == "ai":
            return tab
        site = origin_of(tab.page.url)
        request = GrantRequest(tab.id, site, "attach")
        if standing and self.grants.standing(request):
            return tab
        if not standing and self.grants.check(request):
            return tab
        if standing and self.grants.covers(request):
            raise BrowserError("ATTACHMENT_ONCE_INSUFFICIENT", tabId=tab.id)
        decision = await self._prompt(conn, tab, Ask("attach"), site)
        if decision == "deny":
            raise BrowserError("NOT_GRANTED", f"The user did not attach {tab.id} ({site})", operation="attach")
        if standing and decision != "site":
            raise BrowserError("ATTACHMENT_ONCE_INSUFFICIENT", tabId=tab.id)  # nothing kept: it cannot serve
        self.grants.grant(request, decision)
        if not standing:
            self.grants.check(request)
        return tab

    async def destination(self, conn: Asker, tab: BrowserTab, url: str, *, wait: bool = True) -> None:
        """The shared posture (the person's own profile): a new origin needs the person's yes, unless a
        navigate grant covers it. Without ``wait`` the prompt is left for a retry of ``navigate``."""
        if tab.posture != "shared":
            return
        site = origin_of(url)
        if site == origin_of(tab.page.url):
            return
        request = GrantRequest("*", site, "navigate")  # not bound to a tab: it survives navigations
        if self.grants.check(request):
            return
        retry = {"action": "navigate", "tabId": tab.id, "url": url}
        decision = await self._prompt(conn, tab, Ask("navigate"), site, wait=wait, retry=retry)
        if decision == "deny":
            raise BrowserError("NOT_GRANTED", f"The user did not allow {site} in this tab", tabId=tab.id)
        self.grants.grant(request, decision)
        self.grants.check(request)

    def posture(self) -> Posture:
        return "shared" if self.settings.get("browser.posture") == "shared" else "sandbox"

    async def _prompt(
        self,
        conn: Asker,
        tab: BrowserTab | None,
        ask: Ask,
        site: str,
        *,
        wait: bool = True,
        retry: JSONObject | None = None,
    ) -> Decision:
        approvals = self.approvals
        subject = ask.describe(site)
        approval = approvals.find("browser", conn.id, subject)
        if approval is not None and approval.state != "pending":
            decision = _decision_of(approval.state, approval.decision)
            approvals.consume(approval)  # an answer given while the agent was not waiting
            return decision
        if approval is None:
            if len(approvals.pending_of_kind("browser")) >= MAX_BROWSER_PROMPTS:
                raise BrowserError("NOT_GRANTED", "Too many prompts are waiting for the user; try again later")
            detail: BrowserDetail = {
                "site": site,
                "tabId": tab.id if tab else None,
                "action": ask.operation,
                "element": None,
                "value": ask.value,
            }
            if ask.role:
                detail["element"] = {"role": ask.role, "name": ask.name or ""}
            approval = approvals.request(
                "browser", conn.id, conn.requester, subject, "main", detail=detail, agent=conn.label
            )
        answered = await approvals.wait(approval, BROWSER_PROMPT_WAIT_SECONDS if wait else 0.0)
        if answered.state == "pending":
            raise BrowserError(
                "APPROVAL_PENDING",
                f"The user has not answered yet: {subject}. Retry the same call to use their answer",
                approvalId=approval.id,
                retry=retry or {"action": ask.operation},
                **({"tabId": tab.id} if tab else {}),
            )
        decision = _decision_of(answered.state, answered.decision)
        approvals.consume(answered)
        return decision


class BrowserPrompts:
    """The person's browser prompts by id, as a workflow run follows them (:class:`vmark.browser.asks.Prompts`)."""

    def __init__(self, approvals: Approvals) -> None:
        self._approvals = approvals

    def pending(self, asker: Asker, subject: str) -> str | None:
        approval = self._approvals.find("browser", asker.id, subject)
        return approval.id if approval is not None and approval.state == "pending" else None

    def is_pending(self, prompt_id: str) -> bool:
        approval = self._approvals.get(prompt_id)
        return approval is not None and approval.state == "pending"

    async def answered(self, prompt_id: str, seconds: float) -> None:
        approval = self._approvals.get(prompt_id)
        if approval is not None:
            await self._approvals.wait(approval, seconds)

    def withdraw(self, prompt_id: str) -> None:
        approval = self._approvals.get(prompt_id)
        if approval is not None and approval.state == "pending":
            self._approvals.consume(approval)


def _decision_of(state: str, decision: str | None) -> Decision:
    if state != "allowed":
        return "deny"
    return "site" if decision == "site" else "once"


def _ticket_result(state: str, result: browser_results.Ticket) -> browser_results.Ticket:
    if state == "superseded":
        data: JSONObject = {k: v for k, v in result.items() if k != "status"}
        raise BrowserError("NAVIGATION_SUPERSEDED", **data)
    return browser_results.Ticket(**result)  # a copy: the ticket keeps its own


def _timeout(exc: NavigationTimeout) -> BrowserError:
    ticket = exc.ticket
    return BrowserError(
        "TIMEOUT",
        f"{exc}; it goes on: browser_read.wait {{navigationId: {ticket.id}}} gets its result",
        navigationId=ticket.id,
        tabId=ticket.tab_id,
        url=ticket.url,
    )
