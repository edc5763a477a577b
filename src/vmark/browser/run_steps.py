"""A workflow step on the page: find the element it means, click (following the navigation the click
started), type, and read the page as reader-mode Markdown.

No prompt and no bookkeeping here (that is :mod:`vmark.browser.run_driver`): a step arrives authorized.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from vmark.browser.act import act as page_act
from vmark.browser.failures import PlaywrightError
from vmark.browser.isolated import EvalContextLost, EvalError, IsolatedWorld, world_for
from vmark.browser.reader import reader_mode
from vmark.browser.snapshot import read_snapshot
from vmark.browser.tabs import BrowserTab
from vmark.browser.workflow import Step
from vmark.protocol.browser_results import ActDone, Extracted
from vmark.protocol.jsontypes import JSONObject
from vmark.protocol.limits import ACCESSIBLE_NAME_CHARS, BROWSER_RUN_EXTRACT_MAX_CHARS, BROWSER_RUN_STEP_READY_SECONDS

if TYPE_CHECKING:
    from playwright.async_api import Page, Request

#: what a page can throw at a step (a closed or navigating page, a script that failed in it)
PAGE_ERRORS = (PlaywrightError, EvalError)
#: how long a step waits for its element or its page (module constants, so a test can shorten them)
READY_SECONDS = BROWSER_RUN_STEP_READY_SECONDS
READY_POLL_SECONDS = 0.1
#: how soon after a click a navigation it started has begun (a form sent by the click)
SETTLE_SECONDS = 0.25
_FIELD_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})


async def ready(tab: BrowserTab, step: Step) -> Step:
    """Wait (a little) until the step's element shows on the page, e.g. after the navigation the previous
    step started, and answer the step aimed at it (see :func:`match`); then the act itself decides (it
    refuses a target that is not there, or several)."""
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        with contextlib.suppress(*PAGE_ERRORS):
            found = match((await read_snapshot(tab.page))["snapshot"], step)
            if found is not None:
                return replace(step, role=found[0], name=found[1])
        await asyncio.sleep(READY_POLL_SECONDS)
    return step


def match(nodes: list[JSONObject], step: Step) -> tuple[str, str] | None:
    """The element a step means: its exact role and name; else (a recording replayed on a page that changed
    a little) one element of the same role family whose name matches ignoring case and spacing, or starts
    with a name the snapshot cut at 200 characters, or the only element of the role when the name is empty.
    Several candidates are no match: a step never picks one by document order."""
    role, name = str(step.role), _normalized(str(step.name))
    if any(n.get("role") == role and n.get("name") == name[:ACCESSIBLE_NAME_CHARS] for n in nodes):
        return role, name
    family = _FIELD_ROLES if role in _FIELD_ROLES else frozenset({role})
    kin = [n for n in nodes if n.get("role") in family]
    if not name:
        return (str(kin[0]["role"]), str(kin[0].get("name", ""))) if len(kin) == 1 else None
    close = [n for n in kin if _loosely_named(str(n.get("name", "")), name.casefold())]
    return (str(close[0]["role"]), str(close[0]["name"])) if len(close) == 1 else None


def _loosely_named(name: str, wanted: str) -> bool:
    """``name`` is ``wanted`` (case-folded) ignoring case and spacing, or the snapshot cut it and it starts it."""
    loose = _normalized(name).casefold()
    return loose == wanted or (len(name) >= ACCESSIBLE_NAME_CHARS and wanted.startswith(loose))


def _normalized(name: str) -> str:
    """An accessible name as the page's runtime compares it (whitespace runs collapsed, trimmed)."""
    return re.sub(r"[\s\u00a0]+", " ", name).strip()


async def act(tab: BrowserTab, step: Step) -> ActDone:
    """A click or a type step on the element it names (see :func:`ready`): the act's answer."""
    if step.kind == "click":
        return await _click(tab.page, step)
    return await page_act(tab.page, "type", role=step.role, name=step.name, text=step.value)


async def _click(page: Page, step: Step) -> ActDone:
    """Click, and when the click started a navigation (a link followed, a form sent), wait for the new page to
    load, so the next step (or the agent, after the last) meets the page the click led to. The page itself says
    whether the click sent it away; a navigation its scripts start a moment later is caught by its request."""
    started, loaded = asyncio.Event(), asyncio.Event()

    def on_request(request: Request) -> None:
        if request.is_navigation_request() and request.frame == page.main_frame:
            started.set()

    def on_load(_page: Page) -> None:
        loaded.set()  # the page clicked on had loaded: a load now is the next page's

    world = world_for(page)
    page.on("request", on_request)
    page.on("load", on_load)
    try:
        await _page_call(world, "navArm")
        acted = await page_act(page, "click", role=step.role, name=step.name)
        if acted.get("ok"):
            if await _page_call(world, "navResult", gone=True):
                started.set()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(started.wait(), SETTLE_SECONDS)
            if started.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(loaded.wait(), READY_SECONDS)
        return acted
    finally:
        page.remove_listener("request", on_request)
        page.remove_listener("load", on_load)


async def _page_call(world: IsolatedWorld, name: str, *, gone: bool = False) -> bool:
    """A page function's yes or no; ``gone`` when the document it would run in is already replaced."""
    try:
        return bool(await world.call(name))
    except EvalContextLost:
        return gone
    except PAGE_ERRORS:
        return False


async def extract(tab: BrowserTab) -> Extracted:
    """The page as reader-mode Markdown, as ``browser_read.extract`` reads it, kept short."""
    return await reader_mode(await _content(tab.page), tab.page.url, BROWSER_RUN_EXTRACT_MAX_CHARS)


async def _content(page: Page) -> str:
    """The page's HTML once it loaded; a page that is navigating right now is waited for (a little)."""
    deadline = time.monotonic() + READY_SECONDS
    while True:
        try:
            await page.wait_for_load_state("load", timeout=READY_SECONDS * 1000)
            return await page.content()
        except PlaywrightError:
            if time.monotonic() >= deadline:
                raise
            await asyncio.sleep(READY_POLL_SECONDS)
