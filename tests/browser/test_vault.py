"""``browser.session_save`` / ``session_load`` through the official MCP client, and the vault's stores."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import keyring.errors
import pytest
from jaraco.classes import properties
from keyring.backend import KeyringBackend
from mcp import Client

from tests.browser.test_browser_tools import answer_next_prompt, ok, plain, token
from tests.browser.test_recorder import click, fill, tab_page
from tests.conftest import call
from vmark.app import browser as browser_service
from vmark.app.server import RunningApp
from vmark.browser.vault import VAULT_FILE, SavedSession, Vault
from vmark.storage.atomic import write_text_atomic
from vmark.testing.uiclient import UIClient

pytestmark = pytest.mark.anyio

COOKIE = "sid=cookie-secret-4f1d"
TOKEN = "storage-secret-9c2e"


async def signed_in(agent: Client, vmark: RunningApp, site: str) -> str:
    """An AI tab where the person signed in (the page set a cookie and a localStorage item)."""
    opened = await ok(agent, "browser", "open", url=f"{site}/rec-login.html")
    page = tab_page(vmark, opened["tabId"])
    await fill(page, "#user", "someone")
    await fill(page, "#pass", "pw")
    await click(page, "button[type=submit]")
    await page.wait_for_url("**/rec-form.html?*")
    return str(opened["tabId"])


async def approved(agent: Client, person: UIClient, action: str, **args: Any) -> tuple[Any, dict[str, Any]]:
    task = asyncio.ensure_future(call(agent, "browser", action, **args))
    prompt = await answer_next_prompt(person, True, "site")  # never standing: taken as once
    return await task, prompt


async def test_save_and_load_on_the_same_origin(agent: Client, person: UIClient, vmark: RunningApp, site: str) -> None:
    tab_id = await signed_in(agent, vmark, site)
    saved, prompt = await approved(agent, person, "session_save", handle="mail.work_1")
    assert not saved.is_error, saved.content
    assert saved.structured_content == {
        "handle": "mail.work_1",
        "origin": site,
        "cookies": 1,
        "localStorage": 1,
        "store": "file (unencrypted)",
    }
    assert prompt["detail"]["action"] == "session" and prompt["detail"]["value"] == "save:mail.work_1"
    vault = vmark.data_dir / VAULT_FILE
    assert stat.S_IMODE(os.stat(vault).st_mode) == 0o600
    page = tab_page(vmark, tab_id)
    await page.context.clear_cookies()
    await page.evaluate("localStorage.clear()")
    assert await page.evaluate("document.cookie") == ""
    loaded, prompt = await approved(agent, person, "session_load", handle="mail.work_1")
    assert loaded.structured_content == {"loaded": True, "handle": "mail.work_1"}
    assert prompt["detail"]["value"] == "load:mail.work_1"
    assert await page.evaluate("document.cookie") == COOKIE
    assert await page.evaluate("localStorage.getItem('token')") == TOKEN
    # another origin (same server, another host name) is refused before anyone is asked
    port = urlsplit(site).port
    await ok(agent, "browser", "navigate", url=f"http://localhost:{port}/rec-form.html")
    refused = await token(agent, "browser", "session_load", handle="mail.work_1")
    assert refused["error"] == "SESSION_ORIGIN_MISMATCH"
    assert refused["data"] == {"origin": f"http://localhost:{port}", "handle": "mail.work_1"}
    assert [a for a in (await person.call("approvals.list"))["approvals"] if a["state"] == "pending"] == []


async def test_unknown_handles_and_bad_ones(agent: Client, vmark: RunningApp, site: str) -> None:
    await ok(agent, "browser", "open", url=f"{site}/rec-form.html")
    missing = await token(agent, "browser", "session_load", handle="nothing-here")
    assert missing["error"] == "SESSION_NOT_FOUND" and missing["data"] == {"handle": "nothing-here"}
    for bad in ("", "a/b", "x" * 129, "sp ace"):
        text = await plain(agent, "browser", "session_save", handle=bad)
        assert text == f"argument 'handle' must be 1-128 characters of A-Z a-z 0-9 . _ -, not {bad[:70]!r}"
    human = await vmark.app.browser.open_human_tab()
    assert (await token(agent, "browser", "session_save", handle="a", tabId=human.id))["error"] == "TAB_NOT_AI_OWNED"


async def test_an_approval_serves_only_its_handle(
    agent: Client, person: UIClient, vmark: RunningApp, site: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(browser_service, "BROWSER_PROMPT_WAIT_SECONDS", 0.2)
    await signed_in(agent, vmark, site)
    pending = await token(agent, "browser", "session_save", handle="a")
    assert pending["error"] == "APPROVAL_PENDING"
    await person.call("approvals.answer", id=pending["data"]["approvalId"], allow=True)
    # the yes for save:a does not save b: b asks for itself
    other = await token(agent, "browser", "session_save", handle="b")
    assert other["error"] == "APPROVAL_PENDING" and other["data"]["approvalId"] != pending["data"]["approvalId"]
    listed = [a for a in (await person.call("approvals.list"))["approvals"] if a["state"] == "pending"]
    assert [a["detail"]["value"] for a in listed] == ["save:b"]
    # nor does it load a: that is another call
    assert (await token(agent, "browser", "session_load", handle="a"))["error"] == "SESSION_NOT_FOUND"
    assert (await ok(agent, "browser", "session_save", handle="a"))["handle"] == "a"  # redeemed by its own call
    again = await token(agent, "browser", "session_save", handle="a")  # used up: asks again
    assert again["error"] == "APPROVAL_PENDING"


class MemoryKeyring(KeyringBackend):
    """A keyring for these tests only: never viable, so keyring itself never picks it for the app."""

    @properties.classproperty
    def priority(cls) -> float:
        raise RuntimeError("a keyring for tests, handed to a Vault by hand")

    def __init__(self, broken: bool = False) -> None:
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}
        self.broken = broken

    def set_password(self, service: str, username: str, password: str) -> None:
        if self.broken:
            raise keyring.errors.PasswordSetError("locked")
        self.items[(service, username)] = password

    def get_password(self, service: str, username: str) -> str | None:
        return self.items.get((service, username))

    def delete_password(self, service: str, username: str) -> None:
        self.items.pop((service, username), None)


SESSION = SavedSession(
    "https://example.com", [{"name": "sid", "value": "v", "domain": "example.com", "path": "/"}], {"k": "v"}
)


def test_the_keyring_is_used_when_it_works(tmp_path: Path) -> None:
    backend = MemoryKeyring()
    vault = Vault(tmp_path, write_text_atomic, backend)
    assert vault.store == "keyring"
    Vault(tmp_path, write_text_atomic, MemoryKeyring(broken=True)).save("h", SESSION)  # an older copy in the file ...
    assert (tmp_path / VAULT_FILE).exists()
    assert vault.save("h", SESSION) == "keyring"
    assert list(backend.items) == [("vmark-browser-session", "h")]
    assert vault.load("h") == SESSION
    assert Vault(tmp_path, write_text_atomic, MemoryKeyring()).load("h") is None  # ... is gone from the file
    assert vault.load("other") is None


def test_a_broken_keyring_falls_back_to_the_labelled_file(tmp_path: Path) -> None:
    vault = Vault(tmp_path, write_text_atomic, MemoryKeyring(broken=True))
    assert vault.save("h", SESSION) == "file (unencrypted)"
    assert vault.store == "file (unencrypted)"
    assert stat.S_IMODE(os.stat(tmp_path / VAULT_FILE).st_mode) == 0o600
    # not in the keyring: the file has it
    assert Vault(tmp_path, write_text_atomic, MemoryKeyring()).load("h") == SESSION


def test_this_headless_box_has_no_keyring(tmp_path: Path) -> None:
    assert Vault(tmp_path, write_text_atomic).store == "file (unencrypted)"
