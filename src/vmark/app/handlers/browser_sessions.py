"""``browser.workflow_record``, ``session_save`` and ``session_load`` on AI-owned tabs.

A recording starts only with the person's yes for that one recording (``record`` is never a
standing grant); a session is saved or loaded only with the person's yes for that call and that
handle (``session`` binds ``save:<handle>`` / ``load:<handle>``, never standing), so an approval
cannot be redeemed for another handle. No answer carries a value: the agent names a handle and
gets counts back.
"""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from ...browser.isolated import EvalError, EvalTimeout
from ...browser.recorder import DEFAULT_SITE, RecordingError, is_recording, start_recording, stop_recording
from ...browser.urlpolicy import origin_of
from ...browser.vault import HANDLE, Vault, capture, restore
from ...core.errors import ArgumentError, BrowserError
from ...storage.atomic import write_text_atomic
from ..browser import Ask

if TYPE_CHECKING:
    from ...browser.tabs import BrowserTab
    from ..context import RequestContext

#: what a page can do to a read or a write of it; never shown as text, which may name URLs or values
_PAGE_FAILURES = (PlaywrightError, EvalError, EvalTimeout)
#: a site id goes into the recorded front matter: one line of printable text
_SITE = re.compile(r"[^\x00-\x1f\x7f]{1,200}")


async def workflow_record(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    browser = ctx.browser
    tab = browser.tab(args.get("tabId"), ai_only=True)
    site = _site(args.get("site"))
    if args["recordOp"] == "stop":
        try:
            return await stop_recording(tab.page, site)
        except RecordingError as exc:
            raise ArgumentError(f"browser.workflow_record: {exc}") from exc
    if is_recording(tab.page):
        raise ArgumentError("browser.workflow_record: a recording is already running in this tab: stop it first")
    await browser.authorize(ctx.connection, tab, Ask("record"), by_ref=False)
    try:
        await start_recording(tab.page, site or DEFAULT_SITE)
    except RecordingError as exc:
        raise ArgumentError(f"browser.workflow_record: {exc}") from exc
    return {"recording": True, "tabId": tab.id, "url": tab.url}


async def session_save(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    browser = ctx.browser
    tab = browser.tab(args.get("tabId"), ai_only=True)
    handle = _handle(args["handle"])
    origin = _origin(tab)
    await browser.authorize(ctx.connection, tab, Ask("session", value=f"save:{handle}"), by_ref=False)
    _same_origin(tab, origin, "the page left {saved} while the user was asked; nothing was saved")
    try:
        session = await capture(tab.page, origin)
    except _PAGE_FAILURES as exc:
        raise BrowserError(
            "EVAL_FAILED", "The page's session could not be read (navigating or closed); nothing was saved"
        ) from exc
    vault = Vault(ctx.data_dir, write_text_atomic)
    store = await asyncio.to_thread(lambda: vault.save(handle, session))  # the keyring blocks
    return {
        "handle": handle,
        "origin": origin,
        "cookies": len(session.cookies),
        "localStorage": len(session.local_storage),
        "store": store,
    }


async def session_load(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    browser = ctx.browser
    tab = browser.tab(args.get("tabId"), ai_only=True)
    handle = _handle(args["handle"])
    saved = await asyncio.to_thread(lambda: Vault(ctx.data_dir, write_text_atomic).load(handle))
    if saved is None:
        raise BrowserError("SESSION_NOT_FOUND", f"No session is saved under {handle!r}", handle=handle)
    message = "the session {handle!r} was saved from {saved}; the page is on {origin}: navigate there first"
    _same_origin(tab, saved.origin, message, handle=handle)
    await browser.authorize(ctx.connection, tab, Ask("session", value=f"load:{handle}"), by_ref=False)
    _same_origin(tab, saved.origin, message, handle=handle)  # it may have navigated while the user was asked
    try:
        await restore(tab.page, saved)
    except _PAGE_FAILURES as exc:
        raise BrowserError("EVAL_FAILED", "The session could not be restored (the page navigated or closed)") from exc
    return {"loaded": True, "handle": handle}


def _handle(value: Any) -> str:
    if not isinstance(value, str) or not HANDLE.fullmatch(value):
        shown = value[:70] if isinstance(value, str) else value
        raise ArgumentError(f"argument 'handle' must be 1-128 characters of A-Z a-z 0-9 . _ -, not {shown!r}")
    return value


def _site(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not _SITE.fullmatch(value) or not value.strip() or value.strip() == "---":
        raise ArgumentError("argument 'site' must be one line of 1-200 printable characters")
    return value.strip()


def _origin(tab: BrowserTab) -> str:
    origin = origin_of(tab.page.url)
    if origin == "null":
        raise ArgumentError("a session is saved from an http(s) page: navigate the tab to the site first")
    return origin


def _same_origin(tab: BrowserTab, saved: str, message: str, handle: str | None = None) -> None:
    origin = origin_of(tab.page.url)
    if origin != saved:
        text = message.format(handle=handle, saved=saved, origin=origin)
        raise BrowserError("SESSION_ORIGIN_MISMATCH", text, origin=origin, **({"handle": handle} if handle else {}))


ACTIONS = {
    "workflow_record": workflow_record,
    "session_save": session_save,
    "session_load": session_load,
}
