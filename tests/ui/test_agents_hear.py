"""Agents hear the person, in real Chromium with the official MCP client over HTTP (``vmark mcp --http``).

The person types, clicks Accept / Reject, and edits a prompt file in a tab; the agents hear it through
``resources/updated`` (2025-11-25 ``resources/subscribe``, 2026-07-28 ``subscriptions/listen``),
``session.changes`` and ``notifications/prompts/list_changed``.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from playwright.async_api import Page, expect

from tests.conftest import ok
from tests.contract.helpers import wait_until
from tests.http.helpers import CURRENT, client_with_header, http_server
from tests.ui.conftest import ARTIFACTS, Pages
from tests.ui.helpers import doc_of, open_folder, open_from_tree, type_at_end, wait_doc_text
from tests.ui.test_theme import themed_page
from vmark.app.server import RunningApp
from vmark.protocol.limits import CHANGES_MAX_WAIT_MS
from vmark.storage.principals import Principals

TEXT = "# Plan\n\nThe first step is slow.\n\nThe second step is hard.\n\nThe third step is long.\n"
#: how long a notification may take to arrive before the test gives up (a bound, not a timing assertion)
HEARD_WITHIN = 10.0


@pytest.fixture
def plan(workspace: Path) -> Path:
    path = workspace / "plan.md"
    path.write_text(TEXT, "utf-8")
    return path


@pytest.fixture
async def url(vmark: RunningApp) -> AsyncIterator[str]:
    async with http_server(vmark.data_dir) as served:
        yield served


def _token(vmark: RunningApp, name: str) -> str:
    return Principals(vmark.data_dir / "principals.json").add(name)


async def _page(pages: Pages, workspace: Path, name: str) -> tuple[Page, str]:
    page = await pages.open()
    await open_folder(page, workspace)
    return page, await open_from_tree(page, name)


# --- resources/updated when the person types ------------------------------------------------------------------
async def test_a_subscribed_2025_client_hears_the_person_type(
    pages: Pages, vmark: RunningApp, workspace: Path, plan: Path, url: str
) -> None:
    page, tab = await _page(pages, workspace, "plan.md")
    uri = f"vmark://tabs/{tab}"
    heard: asyncio.Queue[types.ResourceUpdatedNotification] = asyncio.Queue()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            heard.put_nowait(message)

    client = client_with_header(url, _token(vmark, "alice"), mode="legacy")
    client.message_handler = on_message
    async with client as agent:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # resources/subscribe is the 2025 way (deprecated for 2026-07-28)
            await agent.subscribe_resource(uri)
        await type_at_end(page, "Typed by the person.")
        notification = await asyncio.wait_for(heard.get(), HEARD_WITHIN)
        assert notification.params.uri == uri
        await wait_doc_text(vmark, tab, TEXT + "Typed by the person.")
        read = await agent.read_resource(uri)
        (contents,) = read.contents
        assert isinstance(contents, types.TextResourceContents)
        assert contents.text == TEXT + "Typed by the person."
        assert contents.mime_type == "text/markdown"
        assert contents.meta is not None and contents.meta["revision"] == doc_of(vmark, tab).state.revision


async def test_a_listening_2026_client_hears_the_person_type(
    pages: Pages, vmark: RunningApp, workspace: Path, plan: Path, url: str
) -> None:
    page, tab = await _page(pages, workspace, "plan.md")
    uri = f"vmark://tabs/{tab}"
    async with client_with_header(url, _token(vmark, "alice")) as agent:
        assert agent.protocol_version == CURRENT
        async with agent.listen(resource_subscriptions=[uri]) as subscription:
            await type_at_end(page, "More.")

            async def first() -> Any:
                async for event in subscription:
                    return event

            event = await asyncio.wait_for(first(), HEARD_WITHIN)
        assert event.uri == uri
        await wait_doc_text(vmark, tab, TEXT + "More.")
        read = await agent.read_resource(uri, cache_mode="bypass")
        (contents,) = read.contents
        assert isinstance(contents, types.TextResourceContents)
        assert contents.text == TEXT + "More."
        assert contents.meta is not None and contents.meta["revision"] == doc_of(vmark, tab).state.revision


# --- session.changes ----------------------------------------------------------------------------------------
async def test_wait_ms_answers_when_the_person_types(
    pages: Pages, vmark: RunningApp, workspace: Path, plan: Path, url: str
) -> None:
    page, tab = await _page(pages, workspace, "plan.md")
    async with client_with_header(url, _token(vmark, "alice")) as agent:
        since = (await ok(agent, "session", "changes"))["cursor"]
        waiting = asyncio.ensure_future(
            ok(agent, "session", "changes", since=since, kinds=["edit"], wait_ms=CHANGES_MAX_WAIT_MS)
        )
        await asyncio.sleep(0)
        await type_at_end(page, "x")
        answer = await asyncio.wait_for(waiting, HEARD_WITHIN)
        (edit,) = answer["events"]
        assert (edit["kind"], edit["by"], edit["tabIds"], edit["filePath"]) == ("edit", "person", [tab], str(plan))
        assert edit["lines"] == [{"from": 8, "to": 8}] and edit["inserted"] >= 1  # the last line, empty before


async def test_the_persons_verdicts_from_real_clicks_reach_their_agent_only(
    pages: Pages, vmark: RunningApp, workspace: Path, plan: Path, url: str
) -> None:
    page, tab = await _page(pages, workspace, "plan.md")
    async with (
        client_with_header(url, _token(vmark, "alice")) as alice,
        client_with_header(url, _token(vmark, "bob")) as bob,
    ):
        since_alice = (await ok(alice, "session", "changes"))["cursor"]
        since_bob = (await ok(bob, "session", "changes"))["cursor"]
        made = []
        for old, new in (("slow", "quick"), ("hard", "easy"), ("long", "short")):
            made.append(await ok(alice, "document", "edit", tabId=tab, edits=[{"old": old, "new": new}]))
        await expect(page.get_by_role("button", name="Reject change")).to_have_count(3)
        await page.get_by_role("button", name="Reject change").nth(1).click()  # "easy": the second change
        await expect(page.get_by_role("button", name="Accept change")).to_have_count(2)
        await page.get_by_role("button", name="Accept change").nth(1).click()  # "short": now the second
        await expect(page.get_by_role("button", name="Accept change")).to_have_count(1)

        async def verdicts(agent: Client, since: str) -> list[dict[str, Any]]:
            answer = await ok(agent, "session", "changes", since=since, kinds=["verdict"])
            return list(answer["events"])

        await wait_until(lambda: _count(verdicts(alice, since_alice), 2), "two verdicts")
        heard = await verdicts(alice, since_alice)
        assert [(v["verdict"], v["text"], v["old"], v["revision"]) for v in heard] == [
            ("rejected", "easy", "hard", made[1]["revision"]),
            ("accepted", "short", "long", made[2]["revision"]),
        ]
        assert all(v["tabIds"] == [tab] and v["filePath"] == str(plan) for v in heard)
        assert len({v["changeId"] for v in heard}) == 2
        assert await verdicts(bob, since_bob) == []


async def _count(found: Any, n: int) -> bool:
    return len(await found) >= n


# --- the person's prompts -----------------------------------------------------------------------------------
@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_prompts_edited_in_a_tab_reach_agents(
    pages: Pages, vmark: RunningApp, workspace: Path, url: str, scheme: str
) -> None:
    folder = vmark.data_dir / "prompts"
    (folder / "broken.md").write_text("name: no front matter\n", "utf-8")
    page = await themed_page(pages, scheme)
    await page.click("#settings-open")
    prompts = page.get_by_test_id("prompts")
    await expect(prompts.locator(".prompt-file")).to_have_count(5)
    await expect(prompts.locator(".prompt-file[data-file='broken.md'] .prompt-error")).to_have_text(
        "Not offered to agents: there is no front matter at its start (a line ---, the fields, a line ---)"
    )
    await expect(prompts.locator(".prompt-file[data-file='translate.md'] .prompt-name")).to_have_text(
        "Translate the selection"
    )
    ARTIFACTS.mkdir(exist_ok=True)
    await page.locator("#settings").screenshot(path=str(ARTIFACTS / f"agents-hear-prompts-{scheme}.png"))

    changed = asyncio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.PromptListChangedNotification):
            changed.set()

    client = client_with_header(url, _token(vmark, "alice"), mode="legacy")
    client.message_handler = on_message
    async with client as agent:
        listed = {p.name: p for p in (await agent.list_prompts()).prompts}
        assert sorted(listed) == ["proofread", "summarize", "tighten", "translate"]
        # Edit: the person opens the prompt file in a tab, changes its description, saves.
        await prompts.locator(".prompt-file[data-file='translate.md'] .prompt-edit").click()
        await page.wait_for_selector(".tab.active .title:text-is('translate')")
        tab = await page.evaluate("document.querySelector('.tab.active')?.dataset.tabId")
        await page.click(".cm-content")
        await page.keyboard.press("Control+Home")
        for _ in range(4):
            await page.keyboard.press("ArrowDown")  # to the description line
        await page.keyboard.press("End")
        await page.keyboard.type(", for the reader")
        await page.keyboard.press("Control+s")
        await wait_until(lambda: not doc_of(vmark, tab).dirty, "the save")
        await asyncio.wait_for(changed.wait(), HEARD_WITHIN)
        listed = {p.name: p for p in (await agent.list_prompts()).prompts}
        assert listed["translate"].description == (
            "Translate the text selected in a tab into another language, keeping its Markdown, for the reader"
        )
