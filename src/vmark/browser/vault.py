"""Saved sessions (``session_save`` / ``session_load``): a login kept by reference under a handle.

What is kept: the cookies the browser sends to the page's origin and the origin's localStorage,
with the origin they belong to. Where: the OS keyring (``keyring``) when it has a usable backend;
otherwise ``session-vault.json`` in the app's data directory, readable by its owner only (0600)
and labelled ``file (unencrypted)`` in every answer. Nothing here ever returns or logs a value:
:meth:`Vault.save` answers counts, the agent only ever names a handle.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from vmark.browser.isolated import world_for
from vmark.browser.urlpolicy import redact_url

if TYPE_CHECKING:
    import keyring.backend
    from playwright.async_api import Page

#: ``(path, text, mode)``: replace a file atomically, created with exactly ``mode``
WriteText = Callable[[Path, str, int], None]

HANDLE = re.compile(r"[A-Za-z0-9._-]{1,128}")
VAULT_FILE = "session-vault.json"
KEYRING_SERVICE = "vmark-browser-session"
Store = Literal["keyring", "file (unencrypted)"]
#: the fields of a cookie that ``context.add_cookies`` takes back
_COOKIE_FIELDS = ("name", "value", "domain", "path", "expires", "httpOnly", "secure", "sameSite", "partitionKey")
_FILE_LOCK = threading.Lock()

_READ_STORAGE = """() => {
  const items = {};
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (key !== null) items[key] = localStorage.getItem(key);
  }
  return items;
}"""

_WRITE_STORAGE = """(items) => {
  for (const [key, value] of Object.entries(items)) localStorage.setItem(key, value);
  return Object.keys(items).length;
}"""


@dataclass(frozen=True)
class SavedSession:
    origin: str
    cookies: list[dict[str, Any]]
    local_storage: dict[str, str]

    def to_json(self) -> str:
        return json.dumps({"origin": self.origin, "cookies": self.cookies, "localStorage": self.local_storage})

    @staticmethod
    def from_json(text: str) -> SavedSession | None:
        try:
            data = json.loads(text)
        except ValueError:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("origin"), str):
            return None
        cookies = [c for c in data.get("cookies") or [] if isinstance(c, dict)]
        storage = data.get("localStorage") or {}
        items = {str(k): str(v) for k, v in storage.items()} if isinstance(storage, dict) else {}
        return SavedSession(data["origin"], cookies, items)


class Vault:
    """Saved sessions by handle: the keyring when usable, else the labelled 0600 file."""

    def __init__(self, data_dir: Path, write: WriteText, backend: keyring.backend.KeyringBackend | None = None) -> None:
        """``write(path, text, mode)``: the atomic write of a file (:func:`vmark.storage.atomic.write_text_atomic`)."""
        # keyring is imported by the first vault made (a session saved or loaded), not with this module: finding
        # its backends costs about 30 ms of CPU, which the app's start does not pay
        from keyring.errors import KeyringError

        self.path = data_dir / VAULT_FILE
        self._write = write
        self._keyring_error = KeyringError
        self._backend = backend if backend is not None else _usable_backend()

    @property
    def store(self) -> Store:
        return "keyring" if self._backend is not None else "file (unencrypted)"

    def save(self, handle: str, session: SavedSession) -> Store:
        """Keep ``session`` under ``handle`` (replacing one of that name); where it went."""
        if self._backend is not None:
            try:
                self._backend.set_password(KEYRING_SERVICE, handle, session.to_json())
            except self._keyring_error:
                self._backend = None  # locked or gone since: the labelled file, and the answer says so
            else:
                self._file_update(handle, None)  # no stale copy left in the file
                return "keyring"
        self._file_update(handle, session)
        return "file (unencrypted)"

    def load(self, handle: str) -> SavedSession | None:
        if self._backend is not None:
            with contextlib.suppress(self._keyring_error):
                text = self._backend.get_password(KEYRING_SERVICE, handle)
                if text is not None:
                    return SavedSession.from_json(text)
        record = self._file_read().get(handle)
        return SavedSession.from_json(json.dumps(record)) if isinstance(record, dict) else None

    def _file_read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _file_update(self, handle: str, session: SavedSession | None) -> None:
        with _FILE_LOCK:
            data = self._file_read()
            if session is None:
                if handle not in data:
                    return
                del data[handle]
            else:
                data[handle] = json.loads(session.to_json())
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # created 0600 with O_EXCL: an umask or an old file cannot widen it
            self._write(self.path, json.dumps(data, ensure_ascii=False), 0o600)


def _usable_backend() -> keyring.backend.KeyringBackend | None:
    """The keyring's backend, or None when there is none that works (a headless box: the fail
    backend, or one whose service is unreachable)."""
    import keyring
    from keyring.backends import fail

    try:
        backend = keyring.get_keyring()
    except Exception:  # a broken keyring configuration must not take session saving down
        return None
    if isinstance(backend, fail.Keyring):
        return None
    try:
        priority = backend.priority
    except Exception:
        return None
    return backend if priority > 0 else None


# --- the page side -------------------------------------------------------------------------------
async def capture(page: Page, origin: str) -> SavedSession:
    """The cookies the browser sends to the page (its origin and its path) and the origin's localStorage."""
    urls = sorted({origin + "/", redact_url(page.url) or origin + "/"})
    cookies = await page.context.cookies(urls)
    kept = [{k: cookie[k] for k in _COOKIE_FIELDS if k in cookie} for cookie in cookies]  # type: ignore[literal-required]
    storage = await world_for(page).evaluate(_READ_STORAGE)
    items = {str(k): str(v) for k, v in storage.items()} if isinstance(storage, dict) else {}
    return SavedSession(origin, kept, items)


async def restore(page: Page, session: SavedSession) -> None:
    """Put the saved cookies back into the tab's context and the items into the origin's localStorage."""
    if session.cookies:
        await page.context.add_cookies(session.cookies)  # type: ignore[arg-type]
    if session.local_storage:
        await world_for(page).evaluate(_WRITE_STORAGE, session.local_storage)
