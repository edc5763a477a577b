"""``browser.workflow_record`` on an AI-owned tab: record what the person does as a workflow.

A recording starts only with the person's yes for that one recording (``record`` is never a standing
grant); stopping it needs none and answers the workflow (:mod:`vmark.browser.recorder` does the page's
side: the shim, the events, the source built from them).
"""

from __future__ import annotations

import re

from vmark.browser.asks import Ask, Asker, Authorize
from vmark.browser.recorder import DEFAULT_SITE, RecordingError, is_recording, start_recording, stop_recording
from vmark.browser.tabs import BrowserTab
from vmark.protocol.browser_results import RecordedWorkflow, RecordingStarted
from vmark.protocol.errors import ArgumentError

#: a site id goes into the recorded front matter: one line of printable text
_SITE = re.compile(r"[^\x00-\x1f\x7f]{1,200}")


class Recordings:
    def __init__(self, authorize: Authorize) -> None:
        self._authorize = authorize

    async def start(self, asker: Asker, tab: BrowserTab, site: object) -> RecordingStarted:
        """Ask the person, then record ``tab``: ``{recording, tabId, url}``."""
        named = _site(site)
        if is_recording(tab.page):
            raise ArgumentError("browser.workflow_record: a recording is already running in this tab: stop it first")
        await self._authorize(asker, tab, Ask("record"))
        try:
            await start_recording(tab.page, named or DEFAULT_SITE)
        except RecordingError as exc:
            raise ArgumentError(f"browser.workflow_record: {exc}") from exc
        return {"recording": True, "tabId": tab.id, "url": tab.url}

    async def stop(self, tab: BrowserTab, site: object) -> RecordedWorkflow:
        """End the recording of ``tab``: ``{source, inputs, eventCount}`` (``site`` names the workflow's site)."""
        named = _site(site)
        try:
            return await stop_recording(tab.page, named)
        except RecordingError as exc:
            raise ArgumentError(f"browser.workflow_record: {exc}") from exc


def _site(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not _SITE.fullmatch(value) or not value.strip() or value.strip() == "---":
        raise ArgumentError("argument 'site' must be one line of 1-200 printable characters")
    return value.strip()
