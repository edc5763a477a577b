"""The person's prompt templates as MCP prompts, through the official client (in memory, both eras, and over
stdio): listed, got with arguments filled in from the app's state, list_changed when the person edits one,
malformed files listed nowhere and reported to the person."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.conftest import make_client
from tests.contract.helpers import person_open, wait_event, wait_until
from vmark.app.server import RunningApp
from vmark.storage.prompts import parse_prompt
from vmark.testing.uiclient import UIClient

SHIPPED = ["proofread", "summarize", "tighten", "translate"]
HEARD_WITHIN = 10.0


@pytest.fixture(params=["memory-2026", "memory-2025", "stdio"])
async def agent(request: pytest.FixtureRequest, vmark: RunningApp, data_dir: Path) -> AsyncIterator[Client]:
    heard: asyncio.Queue[Any] = asyncio.Queue()

    async def on_message(message: Any) -> None:
        heard.put_nowait(message)

    if request.param == "stdio":
        env = {**os.environ, "VMARK_HOME": str(data_dir)}
        params = StdioServerParameters(command=sys.executable, args=["-m", "vmark", "mcp"], env=env)
        client = Client(params, mode="legacy", read_timeout_seconds=30, message_handler=on_message)
    else:
        client = make_client(data_dir, "legacy" if request.param.endswith("2025") else "auto")
        client.message_handler = on_message
    async with client as connected:
        connected.heard = heard  # type: ignore[attr-defined]
        yield connected


async def _names(agent: Client) -> list[str]:
    return [p.name for p in (await agent.list_prompts(cache_mode="bypass")).prompts]


async def _text(agent: Client, name: str, arguments: dict[str, str] | None = None) -> str:
    result = await agent.get_prompt(name, arguments)
    (message,) = result.messages
    assert message.role == "user" and isinstance(message.content, types.TextContent)
    return message.content.text


async def _refused(agent: Client, name: str, arguments: dict[str, str] | None = None) -> MCPError:
    with pytest.raises(MCPError) as raised:
        await agent.get_prompt(name, arguments)
    assert raised.value.error.code == types.INVALID_PARAMS
    return raised.value


async def test_the_shipped_prompts_are_listed(agent: Client, vmark: RunningApp) -> None:
    listed = (await agent.list_prompts(cache_mode="bypass")).prompts
    assert [p.name for p in listed] == SHIPPED
    translate = next(p for p in listed if p.name == "translate")
    assert translate.title == "Translate the selection"
    assert translate.description == "Translate the text selected in a tab into another language, keeping its Markdown"
    assert [(a.name, a.required) for a in translate.arguments or []] == [("language", True), ("tab", False)]
    assert sorted(os.listdir(vmark.data_dir / "prompts")) == [f"{n}.md" for n in SHIPPED]


async def test_a_prompt_is_filled_in_from_the_tab_and_its_selection(
    agent: Client, vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    tab = await person_open(person, opened / "b.md")
    doc = vmark.app.session.find_tab(tab)[1].doc
    person.shows_editor = True
    await person.select(tab, 5, 9)  # "beta"
    text = await _text(agent, "translate", {"language": "German"})
    assert text.startswith('Translate the text below, selected in "b", into German.')
    assert f"tabId {tab} and expected_revision {doc.state.revision}" in text
    assert text.endswith("\n\nbeta\n")
    summary = await _text(agent, "summarize", {"tab": tab, "length": "one sentence"})
    assert f'Summarize the document "b" ({opened / "b.md"}) below' in summary
    assert "one sentence of prose" in summary and summary.endswith("\n\n# B\n\nbeta\n\n")


async def test_refusals_name_what_is_wrong(agent: Client, person: UIClient, opened: Path) -> None:
    await person_open(person, opened / "b.md")
    assert (await _refused(agent, "poem")).error.message == (
        "no prompt named 'poem' (the prompts: proofread, summarize, tighten, translate)"
    )
    assert (await _refused(agent, "translate")).error.message == "prompt 'translate' needs the argument 'language'"
    assert (await _refused(agent, "translate", {"language": "German", "tone": "warm"})).error.message == (
        "prompt 'translate' has no argument 'tone' (it takes: language, tab)"
    )
    unknown_tab = await _refused(agent, "summarize", {"tab": "tab-nothere00"})
    assert unknown_tab.error.data["error"] == "INVALID_TAB"  # type: ignore[index]
    person.shows_editor = False  # the page shows no editor: the selection is not to be had
    no_editor = await _refused(agent, "proofread")
    assert no_editor.error.data["error"] == "NO_EDITOR"  # type: ignore[index]


async def test_the_persons_edit_is_announced_and_a_malformed_file_listed_nowhere(
    agent: Client, vmark: RunningApp, person: UIClient
) -> None:
    folder = vmark.data_dir / "prompts"
    assert await _names(agent) == SHIPPED
    path = folder / "summarize.md"
    path.write_text(path.read_text("utf-8").replace("name: summarize", "name: digest"), "utf-8")
    await _list_changed(agent)
    assert await _names(agent) == ["proofread", "digest", "tighten", "translate"]  # in file order
    (folder / "broken.md").write_text("---\nname: broken\n---\nno description\n", "utf-8")
    (folder / "twin.md").write_text(path.read_text("utf-8"), "utf-8")
    notice = await wait_event(person, "notification", lambda p: "broken.md" in p.get("message", ""))
    assert notice == {
        "level": "warning",
        "message": "The prompt file broken.md is not offered to agents: the front matter needs 'description'",
    }
    await wait_event(person, "notification", lambda p: "twin.md" in p.get("message", ""))
    assert await _names(agent) == ["proofread", "digest", "tighten", "translate"]  # in file order
    overview = await person.call("prompts.list")
    errors = {Path(f["file"]).name: f["error"] for f in overview["prompts"] if f["error"]}
    assert errors == {
        "broken.md": "the front matter needs 'description'",
        "twin.md": "the name 'digest' is taken by summarize.md",
    }


async def _list_changed(agent: Client) -> None:
    if agent.protocol_version == "2026-07-28":
        async with agent.listen(prompts_list_changed=True) as subscription:

            async def first() -> Any:
                async for event in subscription:
                    return event

            await asyncio.wait_for(first(), HEARD_WITHIN)
        return
    heard: asyncio.Queue[Any] = agent.heard  # type: ignore[attr-defined]
    while not isinstance(await asyncio.wait_for(heard.get(), HEARD_WITHIN), types.PromptListChangedNotification):
        pass


async def test_completion_of_a_prompts_arguments(agent: Client, person: UIClient, opened: Path) -> None:
    tab = await person_open(person, opened / "b.md")
    ref = types.PromptReference(type="ref/prompt", name="translate")
    languages = await agent.complete(ref, {"name": "language", "value": "ge"})
    assert languages.completion.values == ["German"]
    tabs = await agent.complete(ref, {"name": "tab", "value": ""})
    assert tabs.completion.values == [tab]
    with pytest.raises(MCPError):
        await agent.complete(types.PromptReference(type="ref/prompt", name="poem"), {"name": "x", "value": ""})


async def test_a_new_prompt_file_from_settings_is_well_formed(vmark: RunningApp, person: UIClient) -> None:
    created = await person.call("prompts.new")
    assert Path(created["file"]).name == "prompt-1.md"
    prompt = parse_prompt(Path(created["file"]).read_text("utf-8"), created["file"])
    assert prompt.name == "prompt-1" and prompt.uses == ("selection", "document", "title")
    async with make_client(vmark.data_dir) as agent:
        await wait_until(lambda: _has(agent, "prompt-1"), "the new prompt to be listed")
    assert Path((await person.call("prompts.new"))["file"]).name == "prompt-2.md"


async def _has(agent: Client, name: str) -> bool:
    return name in await _names(agent)
