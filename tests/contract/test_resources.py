"""Open documents as MCP resources, through the official client: in memory (both eras), over stdio (the real
``vmark mcp``) and over HTTP (``vmark mcp --http``). The person is the person's protocol."""

from __future__ import annotations

import asyncio
import os
import sys
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.conftest import fail_code, make_client, make_data_dir, running_app
from tests.contract.helpers import open_tab, person_open, wait_until
from tests.http.helpers import Served, client_with_header, served_app
from vmark.app.server import RunningApp
from vmark.storage.principals import Principals
from vmark.testing.uiclient import UIClient

HEARD_WITHIN = 10.0
TRANSPORTS = ["memory-2026", "memory-2025", "stdio", "http-2026", "http-2025"]


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """One event loop for the module, so that the HTTP transports' shared app and server serve all their tests."""
    return "asyncio"


@pytest.fixture(scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Served]:
    """One app and one ``vmark mcp --http`` for every test over HTTP (a process start is most of such a test's
    CPU). Each test opens its own workspace (its ``tmp_path``) in it, a fresh client connects, and the person
    closes every tab after it (``person``), so each test begins, as on an app of its own, with none."""
    async with served_app(tmp_path_factory.mktemp("served"), readable=tmp_path_factory.getbasetemp()) as served:
        yield served


def _over_http(request: pytest.FixtureRequest) -> bool:
    callspec = getattr(request.node, "callspec", None)
    return callspec is not None and str(callspec.params.get("agent", "")).startswith("http")


@pytest.fixture
def data_dir(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    if _over_http(request):
        served: Served = request.getfixturevalue("served")
        return served.app.data_dir
    return make_data_dir(tmp_path)


@pytest.fixture
async def vmark(request: pytest.FixtureRequest, data_dir: Path) -> AsyncIterator[RunningApp]:
    if _over_http(request):
        served: Served = request.getfixturevalue("served")
        assert list(served.app.app.session.tabs()) == [], "the previous test's tabs are still open"
        yield served.app
        return
    async with running_app(data_dir) as running:
        yield running


@pytest.fixture
async def person(request: pytest.FixtureRequest, vmark: RunningApp) -> AsyncIterator[UIClient]:
    """The person, with a page attached to window ``main``; on the shared app, it closes every tab at the end."""
    async with UIClient(vmark.data_dir) as client:
        await client.attach("main")
        yield client
        if _over_http(request):
            for _window, tab in list(vmark.app.session.tabs()):
                assert (await client.call("ui.close", tabId=tab.id, force=True))["closed"] is True


@pytest.fixture(params=TRANSPORTS)
async def agent(request: pytest.FixtureRequest, vmark: RunningApp, data_dir: Path) -> AsyncIterator[Client]:
    """The official client, and the notifications it heard (``agent.heard``, handshake era)."""
    transport: str = request.param
    token = request.getfixturevalue("served").alice if _over_http(request) else _add_alice(data_dir)
    legacy = transport.endswith("2025")
    heard: asyncio.Queue[Any] = asyncio.Queue()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ServerNotification | types.ResourceUpdatedNotification) or hasattr(
            message, "method"
        ):
            heard.put_nowait(message)

    if transport.startswith("memory"):
        client = make_client(data_dir, "legacy" if legacy else "auto", token)
        client.message_handler = on_message
        async with client as connected:
            connected.heard = heard  # type: ignore[attr-defined]
            yield connected
    elif transport == "stdio":
        env = {**os.environ, "VMARK_HOME": str(data_dir), "VMARK_MCP_TOKEN": token}
        params = StdioServerParameters(command=sys.executable, args=["-m", "vmark", "mcp"], env=env)
        client = Client(params, mode="legacy", read_timeout_seconds=30, message_handler=on_message)
        async with client as connected:
            connected.heard = heard  # type: ignore[attr-defined]
            yield connected
    else:
        client = client_with_header(request.getfixturevalue("served").url, token, mode="legacy" if legacy else "auto")
        client.message_handler = on_message
        async with client as connected:
            connected.heard = heard  # type: ignore[attr-defined]
            yield connected


def _add_alice(data_dir: Path) -> str:
    return Principals(data_dir / "principals.json").add("alice")


def _legacy(agent: Client) -> bool:
    return agent.protocol_version != "2026-07-28"


async def _updated(agent: Client, uri: str, change: Any) -> None:
    """``change()`` happens; the client hears ``uri`` updated (subscribed the way its protocol has)."""
    if _legacy(agent):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await agent.subscribe_resource(uri)
        await change()
        heard: asyncio.Queue[Any] = agent.heard  # type: ignore[attr-defined]
        while True:
            message = await asyncio.wait_for(heard.get(), HEARD_WITHIN)
            if isinstance(message, types.ResourceUpdatedNotification) and message.params.uri == uri:
                return
    async with agent.listen(resource_subscriptions=[uri]) as subscription:
        await change()

        async def first() -> Any:
            async for event in subscription:
                return event

        event = await asyncio.wait_for(first(), HEARD_WITHIN)
        assert event.uri == uri


async def _read(agent: Client, uri: str) -> types.TextResourceContents:
    result = await agent.read_resource(uri, cache_mode="bypass")
    (contents,) = result.contents
    assert isinstance(contents, types.TextResourceContents)
    return contents


async def _refused(agent: Client, uri: str) -> MCPError:
    with pytest.raises(MCPError) as raised:
        await agent.read_resource(uri, cache_mode="bypass")
    assert raised.value.error.code == types.INVALID_PARAMS
    return raised.value


# --- listing and reading -----------------------------------------------------------------------------------
async def test_each_open_tab_is_a_resource(agent: Client, vmark: RunningApp, person: UIClient, opened: Path) -> None:
    tab = await person_open(person, opened / "a.md")
    workflow = await person_open(person, opened / ".github/workflows/ci.yml")
    untitled = (await person.call("ui.new"))["tabId"]
    listed = await agent.list_resources(cache_mode="bypass")
    by_uri = {r.uri: r for r in listed.resources}
    assert list(by_uri) == [f"vmark://tabs/{tab}", f"vmark://tabs/{workflow}", f"vmark://tabs/{untitled}"]
    a = by_uri[f"vmark://tabs/{tab}"]
    assert (a.name, a.mime_type) == ("a", "text/markdown")
    assert a.meta == {
        "revision": vmark.app.session.find_tab(tab)[1].doc.state.revision,
        "tabIds": [tab],
        "filePath": str(opened / "a.md"),
        "dirty": False,
    }
    assert by_uri[f"vmark://tabs/{workflow}"].mime_type == "application/yaml"
    assert by_uri[f"vmark://tabs/{untitled}"].meta == {
        "revision": vmark.app.session.find_tab(untitled)[1].doc.state.revision,
        "tabIds": [untitled],
        "dirty": False,
    }
    if not _legacy(agent):
        assert (listed.ttl_ms, listed.cache_scope) == (0, "private")
    templates = await agent.list_resource_templates(cache_mode="bypass")
    assert [t.uri_template for t in templates.resource_templates] == ["vmark://tabs/{tabId}", "file://{+path}"]


async def test_a_tab_reads_as_its_text_and_a_file_as_the_open_text_or_the_disk(
    agent: Client, vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    tab = await person_open(person, opened / "a.md")
    revision = await person.edit(tab, "# A\n\nunsaved\n")
    contents = await _read(agent, f"vmark://tabs/{tab}")
    assert (contents.text, contents.mime_type) == ("# A\n\nunsaved\n", "text/markdown")
    assert contents.meta == {"revision": revision, "tabIds": [tab], "filePath": str(opened / "a.md"), "dirty": True}
    # the open file reads as its tab's (unsaved) text; a file no tab shows, from the disk, with no revision
    opened_file = await _read(agent, f"file://{opened}/a.md")
    assert (opened_file.text, opened_file.meta["revision"]) == ("# A\n\nunsaved\n", revision)  # type: ignore[index]
    on_disk = await _read(agent, f"file://{opened}/notes/c.md")
    assert on_disk.text == "# C\n"
    assert on_disk.meta == {"tabIds": [], "filePath": str(opened / "notes/c.md"), "dirty": False}
    spaced = opened / "with space.md"
    spaced.write_text("# spaced\n", "utf-8")
    assert (await _read(agent, f"file://{opened}/with%20space.md")).text == "# spaced\n"


async def test_the_scope_binds_every_resource(
    agent: Client, vmark: RunningApp, person: UIClient, opened: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("# secret\n", "utf-8")
    refused = await _refused(agent, f"file://{outside}")
    assert refused.error.data == {
        "error": "INVALID_PATH",
        "message": f"{str(outside)!r} lies outside the open workspace and documents",
        "filePath": str(outside),
        "uri": f"file://{outside}",
    }
    # the same refusal, in the same words, as workspace.open's
    async with make_client(vmark.data_dir) as tools:
        envelope = await fail_code(tools, "workspace", "open", filePath=str(outside))
    assert {k: envelope[k] for k in ("error", "message")} == {
        k: refused.error.data[k]  # type: ignore[index]
        for k in ("error", "message")
    }
    escaping = await _refused(agent, f"file://{opened}/../outside.md")
    assert escaping.error.data["error"] == "INVALID_PATH"  # type: ignore[index]
    image = await _refused(agent, f"file://{opened}/image.png")
    assert image.error.data["error"] == "INVALID_PATH"  # type: ignore[index]
    unknown = await _refused(agent, "vmark://tabs/tab-nothere00")
    assert unknown.error.message == "Resource not found"
    assert unknown.error.data["uri"] == "vmark://tabs/tab-nothere00"  # type: ignore[index]
    foreign = await _refused(agent, "https://example.com/a.md")
    assert foreign.error.message == "Resource not found"
    # a subscription is checked as a read is
    with pytest.raises(MCPError) as raised:
        if _legacy(agent):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                await agent.subscribe_resource(f"file://{outside}")
        else:
            async with agent.listen(resource_subscriptions=[f"file://{outside}"]):
                pass
    assert raised.value.error.data["error"] == "INVALID_PATH"  # type: ignore[index]


# --- hearing of changes ---------------------------------------------------------------------------------------
async def test_a_subscriber_hears_the_person_an_agent_and_the_disk(
    agent: Client, vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    tab = await person_open(person, opened / "a.md")
    uri = f"vmark://tabs/{tab}"
    await _updated(agent, uri, lambda: person.edit(tab, "# A\n\nby the person\n"))
    assert (await _read(agent, uri)).text == "# A\n\nby the person\n"
    await person.call("ui.save", tabId=tab)
    async with make_client(vmark.data_dir) as other:

        async def write() -> None:
            edits = [{"old": "person", "new": "agent"}]
            await other.call_tool("document", {"action": "edit", "tabId": tab, "edits": edits})

        await _updated(agent, uri, write)
    assert (await _read(agent, uri)).text == "# A\n\nby the agent\n"

    async def disk() -> None:
        (opened / "a.md").write_text("# A\n\nfrom the disk\n", "utf-8")

    await _updated(agent, f"file://{opened}/a.md", disk)
    contents = await _read(agent, uri)
    assert contents.text == "# A\n\nfrom the disk\n"
    assert contents.meta["revision"] == vmark.app.session.find_tab(tab)[1].doc.state.revision  # type: ignore[index]


async def test_the_list_changes_when_tabs_open_and_close(
    agent: Client, vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    await agent.list_resources(cache_mode="bypass")
    if _legacy(agent):
        heard: asyncio.Queue[Any] = agent.heard  # type: ignore[attr-defined]
        tab = await person_open(person, opened / "b.md")
        while not isinstance(await asyncio.wait_for(heard.get(), HEARD_WITHIN), types.ResourceListChangedNotification):
            pass
        await person.call("ui.close", tabId=tab)
        while not isinstance(await asyncio.wait_for(heard.get(), HEARD_WITHIN), types.ResourceListChangedNotification):
            pass
    else:
        async with agent.listen(resources_list_changed=True) as subscription:
            await person_open(person, opened / "b.md")

            async def first() -> Any:
                async for event in subscription:
                    return event

            assert type(await asyncio.wait_for(first(), HEARD_WITHIN)).__name__ == "ResourcesListChanged"
    listed = await agent.list_resources(cache_mode="bypass")
    expected = [] if _legacy(agent) else [f"vmark://tabs/{next(t.id for _w, t in vmark.app.session.tabs())}"]
    assert [r.uri for r in listed.resources] == expected


# --- completion -----------------------------------------------------------------------------------------------
async def test_completion_of_tab_ids_and_workspace_paths(
    agent: Client, vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    tab = await person_open(person, opened / "a.md")
    other = await open_tab_as_person(person, opened / "b.md")
    tab_template = types.ResourceTemplateReference(type="ref/resource", uri="vmark://tabs/{tabId}")
    found = await agent.complete(tab_template, {"name": "tabId", "value": "tab-"})
    assert found.completion.values == [tab, other] and found.completion.total == 2
    by_title = await agent.complete(tab_template, {"name": "tabId", "value": "b"})
    assert by_title.completion.values == [other]
    file_template = types.ResourceTemplateReference(type="ref/resource", uri="file://{+path}")
    paths = await agent.complete(file_template, {"name": "path", "value": f"{opened}/n"})
    assert paths.completion.values == [str(opened / "notes/c.md")]
    everything = await agent.complete(file_template, {"name": "path", "value": str(opened)})
    assert sorted(everything.completion.values) == sorted(
        str(opened / p) for p in ("a.md", "b.md", "notes/c.md", "readme.txt", ".github/workflows/ci.yml")
    )
    with pytest.raises(MCPError) as raised:
        await agent.complete(file_template, {"name": "nope", "value": ""})
    assert raised.value.error.code == types.INVALID_PARAMS


async def open_tab_as_person(person: UIClient, path: Path) -> str:
    return await person_open(person, path)


async def test_reading_a_tab_counts_as_a_read_for_the_next_write(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    async with make_client(vmark.data_dir) as agent:
        tab = await open_tab(agent, opened / "a.md")
        contents = await _read(agent, f"vmark://tabs/{tab}")
        revision = contents.meta["revision"]  # type: ignore[index]
        args = {"action": "write", "tabId": tab, "content": "# A\n\nrewritten\n", "expected_revision": revision}
        result = await agent.call_tool("document", args)
        assert not result.is_error, result.content
        await wait_until(lambda: (opened / "a.md").read_text() == "# A\n\nrewritten\n", "the save")
