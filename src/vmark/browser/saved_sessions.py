"""``browser.session_save`` and ``session_load`` on AI-owned tabs: a login kept under a handle.

A session is saved or loaded only with the person's yes for that call and that handle (``session``
binds ``save:<handle>`` / ``load:<handle>``, never standing), so an approval cannot be redeemed for
another handle; and only on the origin it belongs to, checked again after the person answered (the page
may have navigated meanwhile). No answer carries a value: the agent names a handle and gets counts back.
Where sessions are kept is :class:`~vmark.browser.vault.Vault`'s.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from vmark.browser.asks import Ask, Asker, Authorize
from vmark.browser.failures import PlaywrightError
from vmark.browser.isolated import EvalError, EvalTimeout
from vmark.browser.tabs import BrowserTab
from vmark.browser.urlpolicy import origin_of
from vmark.browser.vault import HANDLE, Vault, WriteText, capture, restore
from vmark.protocol.browser_results import SessionLoaded, SessionSaved
from vmark.protocol.errors import ArgumentError, BrowserError

#: what a page can do to a read or a write of it; never shown as text, which may name URLs or values
_PAGE_FAILURES = (PlaywrightError, EvalError, EvalTimeout)
_MOVED = "the session {handle!r} was saved from {saved}; the page is on {origin}: navigate there first"


class SavedSessions:
    def __init__(self, data_dir: Path, write: WriteText, authorize: Authorize) -> None:
        """``write``: the atomic write of the vault's file (:func:`vmark.storage.atomic.write_text_atomic`)."""
        self._data_dir = data_dir
        self._write = write
        self._authorize = authorize

    def _vault(self) -> Vault:
        # made per call: the keyring is looked for each time (one unlocked or set up since is used)
        return Vault(self._data_dir, self._write)

    async def save(self, asker: Asker, tab: BrowserTab, handle: object) -> SessionSaved:
        """Ask the person, then keep the tab's cookies and localStorage under ``handle``: counts, and where."""
        name = _handle(handle)
        origin = _origin(tab)
        await self._authorize(asker, tab, Ask("session", value=f"save:{name}"))
        _same_origin(tab, origin, "the page left {saved} while the user was asked; nothing was saved")
        try:
            session = await capture(tab.page, origin)
        except _PAGE_FAILURES as exc:
            raise BrowserError(
                "EVAL_FAILED", "The page's session could not be read (navigating or closed); nothing was saved"
            ) from exc
        # the keyring blocks (and is imported by the first vault): both on a worker thread
        store = await asyncio.to_thread(lambda: self._vault().save(name, session))
        return {
            "handle": name,
            "origin": origin,
            "cookies": len(session.cookies),
            "localStorage": len(session.local_storage),
            "store": store,
        }

    async def load(self, asker: Asker, tab: BrowserTab, handle: object) -> SessionLoaded:
        """Ask the person, then put the session saved under ``handle`` back into the tab (on its origin)."""
        name = _handle(handle)
        saved = await asyncio.to_thread(lambda: self._vault().load(name))
        if saved is None:
            raise BrowserError("SESSION_NOT_FOUND", f"No session is saved under {name!r}", handle=name)
        _same_origin(tab, saved.origin, _MOVED, handle=name)
        await self._authorize(asker, tab, Ask("session", value=f"load:{name}"))
        _same_origin(tab, saved.origin, _MOVED, handle=name)  # it may have navigated while the user was asked
        try:
            await restore(tab.page, saved)
        except _PAGE_FAILURES as exc:
            raise BrowserError(
                "EVAL_FAILED", "The session could not be restored (the page navigated or closed)"
            ) from exc
        return {"loaded": True, "handle": name}


def _handle(value: object) -> str:
    if not isinstance(value, str) or not HANDLE.fullmatch(value):
        shown = value[:70] if isinstance(value, str) else value
        raise ArgumentError(f"argument 'handle' must be 1-128 characters of A-Z a-z 0-9 . _ -, not {shown!r}")
    return value


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
