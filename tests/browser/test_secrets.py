"""No value ever appears in a response, a log line or a file VMark writes: a recording of a login and
a form, a saved and restored session, with distinctive secret values typed, set as cookies, kept in
localStorage and carried in a query string; then every MCP response, the app's log (DEBUG) and every
file under the data directory (SQLite databases included, read as bytes) are searched for them. The
one place cookies may be is the vault's fallback file, which must be the owner's only (0600)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
from typing import Any

import pytest
from mcp import Client

from tests.browser.test_browser_tools import answer_next_prompt
from tests.browser.test_recorder import click, fill, tab_page
from tests.conftest import call
from vmark.app.server import RunningApp
from vmark.browser.vault import VAULT_FILE
from vmark.testing.uiclient import UIClient

pytestmark = pytest.mark.anyio

#: set by the test site (rec-login.html) when the person signs in
PAGE_SECRETS = ["cookie-secret-4f1d", "storage-secret-9c2e", "query-secret-77ab"]
TYPED = {"user": "typed-user-5e0b", "password": "typed-pass-8a3c", "subject": "typed-subject-1f7d"}
SECRETS = [*PAGE_SECRETS, *TYPED.values()]


class Transcript:
    """Every answer the agent got, as the text and the structured content it arrived as."""

    def __init__(self, agent: Client) -> None:
        self.agent = agent
        self.texts: list[str] = []

    async def call(self, action: str, tool: str = "browser", **args: Any) -> dict[str, Any]:
        result = await call(self.agent, tool, action, **args)
        self.texts.extend(getattr(block, "text", "") for block in result.content)
        self.texts.append(json.dumps(result.structured_content))
        assert not result.is_error, result.content
        return dict(result.structured_content or {})

    async def approved(self, person: UIClient, action: str, **args: Any) -> dict[str, Any]:
        task = asyncio.ensure_future(self.call(action, **args))
        prompt = await answer_next_prompt(person, True)
        self.texts.append(json.dumps(prompt))
        return await task


async def test_no_secret_leaves_the_page(
    agent: Client, person: UIClient, vmark: RunningApp, site: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    said = Transcript(agent)
    opened = await said.call("open", url=f"{site}/rec-login.html")
    page = tab_page(vmark, opened["tabId"])
    await said.approved(person, "workflow_record", recordOp="start")
    await fill(page, "#user", TYPED["user"])
    await fill(page, "#pass", TYPED["password"])
    await click(page, "button[type=submit]")
    await page.wait_for_url("**/rec-form.html?*")
    await page.wait_for_selector("#subject")
    await fill(page, "#subject", TYPED["subject"])
    await click(page, "button[type=submit]")
    await page.wait_for_function("document.getElementById('status').textContent === 'Sent'")
    recorded = await said.call("workflow_record", recordOp="stop")
    assert recorded["inputs"] == ["user_name", "subject"]
    saved = await said.approved(person, "session_save", handle="acct")
    assert (saved["cookies"], saved["localStorage"], saved["store"]) == (1, 1, "file (unencrypted)")
    await page.context.clear_cookies()
    await page.evaluate("localStorage.clear()")
    await said.approved(person, "session_load", handle="acct")
    assert await page.evaluate("localStorage.getItem('token')") == "storage-secret-9c2e"
    await said.call("read", tool="browser_read")
    await said.call("get_state", tool="session")
    for text in said.texts:
        for secret in SECRETS:
            assert secret not in text, (secret, text)
    logged = caplog.text + "\n".join(str(record.__dict__) for record in caplog.records)
    assert caplog.records, "the log was captured"
    for secret in SECRETS:
        assert secret not in logged, secret
    vault = vmark.data_dir / VAULT_FILE
    assert stat.S_IMODE(os.stat(vault).st_mode) == 0o600
    files = [os.path.join(root, name) for root, _, names in os.walk(vmark.data_dir) for name in names]
    assert any(name.endswith(".db") for name in files)  # the journal and the history are searched too
    for path in files:
        if path == str(vault):
            continue
        with open(path, "rb") as handle:
            data = handle.read()
        for secret in SECRETS:
            assert secret.encode() not in data, (secret, path)
    # the vault file holds the session, and nothing the person typed
    held = vault.read_bytes()
    assert b"cookie-secret-4f1d" in held
    for secret in TYPED.values():
        assert secret.encode() not in held
