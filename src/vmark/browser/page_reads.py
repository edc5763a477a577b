"""An agent's reads of a page beyond the snapshot (:mod:`vmark.browser.snapshot`): a screenshot, the page as
reader-mode Markdown, and waiting for a condition (``browser_read.screenshot`` / ``extract`` / ``wait_for``).

What a read finds is page content: untrusted, and marked so in every answer.
"""

from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import Callable, Mapping
from typing import Any

from vmark.browser.isolated import world_for
from vmark.browser.reader import UNTRUSTED, reader_mode
from vmark.browser.snapshot import RefError, read_snapshot, resolve_ref
from vmark.browser.tabs import BrowserTab
from vmark.protocol.browser_results import Extracted, Match, ScreenshotTaken
from vmark.protocol.jsontypes import JSONObject

#: how often ``wait_for`` looks again
WAIT_FOR_POLL_SECONDS = 0.1
#: told the snapshot nodes a read handed out (their refs may be named by a later act)
Remember = Callable[[BrowserTab, list[JSONObject]], None]


async def screenshot(tab: BrowserTab) -> ScreenshotTaken:
    """The viewport as a JPEG, with a line naming the page (its title, its redacted URL)."""
    image = await tab.page.screenshot(type="jpeg", quality=60)
    title = await tab.refresh_title()
    return {
        "image": {"mimeType": "image/jpeg", "data": base64.b64encode(image).decode("ascii")},
        "text": f"Screenshot of {title!r} at {tab.url} ({UNTRUSTED})",
    }


async def extract(tab: BrowserTab, max_chars: int) -> Extracted:
    """The page as it is now, as reader-mode Markdown of at most ``max_chars`` characters."""
    return await reader_mode(await tab.page.content(), tab.page.url, max_chars)


async def wait_for(tab: BrowserTab, condition: Mapping[str, Any], timeout_ms: int, remember: Remember) -> Match:
    """Look until ``condition`` holds or ``timeout_ms`` passed: ``{matched}`` (+ the ``ref`` it found).
    ``condition``: exactly one of ``urlContains``, ``text``, ``ref``, ``role`` (+ ``name``), checked by
    the caller."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        found = await _condition(tab, condition, remember)
        if found is not None or time.monotonic() >= deadline:
            answer: Match = {"matched": found is not None}
            if isinstance(found, str):
                answer["ref"] = found
            return answer
        await asyncio.sleep(WAIT_FOR_POLL_SECONDS)


async def _condition(tab: BrowserTab, condition: Mapping[str, Any], remember: Remember) -> str | bool | None:
    """A ref (or True) when the condition holds now, else None."""
    if condition.get("urlContains") is not None:
        return True if condition["urlContains"] in tab.url else None
    if condition.get("text") is not None:
        text = await world_for(tab.page).evaluate("() => document.body ? document.body.innerText : ''")
        return True if condition["text"] in str(text) else None
    if condition.get("ref") is not None:
        try:
            await resolve_ref(tab.page, condition["ref"])
        except RefError:
            return None
        return str(condition["ref"])
    snapshot = await read_snapshot(tab.page)
    remember(tab, snapshot["snapshot"])
    for node in snapshot["snapshot"]:
        role, name = condition["role"], condition.get("name")
        if node.get("role") == role and (name is None or node.get("name") == name):
            return str(node["ref"])
    return None
