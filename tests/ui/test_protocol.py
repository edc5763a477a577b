"""What the page needs from the UI protocol, without a browser: ``ui.read``, ``ui.files``,
``ui.edit`` against a base revision, ``doc`` events between windows, the agents in ``state``,
and ``vmark url``."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from tests.conftest import make_client
from tests.contract.helpers import another_page, person_open, wait_event, wait_until
from tests.ui.helpers import agent_write
from vmark.app.server import RunningApp
from vmark.mcp.bridge_client import BridgeClient
from vmark.mcp.discovery import read_bridge
from vmark.storage.atomic_json import write_json
from vmark.storage.datadir import BridgeInfo, bridge_path
from vmark.testing.uiclient import UIClient, UIError

A = "# A\n\nalpha\n"


async def test_ui_read_gives_text_revision_and_view(vmark: RunningApp, person: UIClient, opened: Path) -> None:
    tab = await person_open(person, opened / "a.md")
    doc = vmark.app.session.find_tab(tab)[1].doc
    assert await person.call("ui.read", tabId=tab) == {
        "text": A,
        "revision": doc.state.revision,
        "kind": "markdown",
        "mode": "source",
        "dirty": False,
        "filePath": str((opened / "a.md").resolve()),
        "divergent": False,
        "readOnly": False,
        "lineEnding": "\n",
        "encoding": "UTF-8",
    }
    await person.call("ui.set_mode", tabId=tab, mode="wysiwyg")
    revision = await person.edit(tab, "changed\n")
    read = await person.call("ui.read", tabId=tab)
    assert (read["text"], read["revision"], read["mode"], read["dirty"]) == ("changed\n", revision, "wysiwyg", True)
    workflow = await person_open(person, opened / ".github" / "workflows" / "ci.yml")
    assert (await person.call("ui.read", tabId=workflow))["kind"] == "yaml-workflow"
    with pytest.raises(UIError) as info:
        await person.call("ui.read", tabId="tab-nope")
    assert info.value.error["error"] == "INVALID_TAB"
    with pytest.raises(UIError) as bad:
        await person.call("ui.read")
    assert bad.value.error == "argument 'tabId' must be a string"


async def test_ui_files_lists_what_vmark_opens(vmark: RunningApp, person: UIClient, opened: Path) -> None:
    (opened / "node_modules").mkdir()
    (opened / "node_modules" / "x.md").write_text("hidden\n")
    (opened / ".hidden").mkdir()
    (opened / ".hidden" / "y.md").write_text("hidden\n")
    (opened / ".github" / "notes.yml").write_text("not a workflow\n")
    listing = await person.call("ui.files")
    wsi = vmark.app.session.windows["main"].workspaces[0]
    assert listing == {
        "workspaces": [
            {
                "workspaceInstanceId": wsi.id,
                "root": str(opened.resolve()),
                "active": True,
                "files": [
                    {"path": "a.md", "kind": "markdown"},
                    {"path": "b.md", "kind": "markdown"},
                    {"path": "readme.txt", "kind": "markdown"},
                    {"path": ".github/workflows/ci.yml", "kind": "yaml-workflow"},
                    {"path": "notes/c.md", "kind": "markdown"},
                ],
                "folders": [".github", "notes", ".github/workflows"],
                "truncated": False,
            }
        ]
    }


async def test_ui_files_needs_an_attached_page_and_is_empty_without_a_workspace(vmark: RunningApp) -> None:
    async with UIClient(vmark.data_dir) as page:
        with pytest.raises(UIError) as info:
            await page.call("ui.files")
        assert info.value.error == "attach to a window first (ui.attach)"
        await page.attach("main")
        assert await page.call("ui.files") == {"workspaces": []}


async def test_an_edit_on_a_stale_base_changes_nothing_and_returns_the_text(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    tab = await person_open(person, opened / "a.md")
    base = (await person.call("ui.read", tabId=tab))["revision"]
    applied = await person.call("ui.edit", tabId=tab, text="mine\n", baseRevision=base)
    assert applied["applied"] is True and applied["revision"] != base
    refused = await person.call("ui.edit", tabId=tab, text="stale\n", baseRevision=base)
    assert refused == {"applied": False, "revision": applied["revision"], "text": "mine\n"}
    assert vmark.app.session.find_tab(tab)[1].doc.state.text == "mine\n"


async def test_doc_events_reach_the_other_windows_on_the_file(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    tab = await person_open(person, opened / "a.md")
    async with another_page(vmark) as other:
        assert other.window == "doc-1"
        other_tab = await person_open(other, opened / "a.md")
        base = (await person.call("ui.read", tabId=tab))["revision"]
        revision = await person.edit(tab, "typed in main\n")
        event = await wait_event(other, "doc", lambda p: p["revision"] == revision)
        # The span that changed, not the whole text.
        assert event == {
            "tabIds": [other_tab],
            "revision": revision,
            "changes": {"base": base, "spans": [[0, 10, "typed in main"]]},
            "origin": "person",
            "dirty": True,
        }
        async with make_client(vmark.data_dir) as agent:
            wrote = await agent_write(agent, other_tab, "written by an agent\n")
        for page, tab_id in ((person, tab), (other, other_tab)):
            pushed = await wait_event(page, "doc", lambda p, r=wrote["revision"]: p["revision"] == r)
            assert (pushed["tabIds"], pushed["changes"], pushed["origin"]) == (
                [tab_id],
                {"base": revision, "spans": [[0, 13, "written by an agent"]]},
                "agent",
            )
        await person.call("ui.state")
        # The page that typed never gets its own keystrokes back.
        assert [e for e in person.events_named("doc") if e["payload"]["origin"] == "person"] == []


async def test_an_external_change_is_pushed_as_disk(vmark: RunningApp, person: UIClient, opened: Path) -> None:
    tab = await person_open(person, opened / "a.md")
    (opened / "a.md").write_text("changed on disk\n", "utf-8")
    pushed = await wait_event(person, "doc", lambda p: p["text"] == "changed on disk\n")
    assert (pushed["tabIds"], pushed["origin"], pushed["dirty"]) == ([tab], "disk", False)


async def test_state_names_the_connected_agents_and_the_views(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    tab = await person_open(person, opened / "a.md")
    await person.call("ui.pin", tabId=tab)
    state = await person.call("ui.state")
    assert state["agents"] == []
    wsi = vmark.app.session.windows["main"].workspaces[0]
    assert state["views"]["main"] == {
        "workspaces": [{"id": wsi.id, "root": str(opened.resolve())}],
        "tabs": {
            tab: {
                "mode": "source",
                "pinned": True,
                "divergent": False,
                "divergenceKept": False,
                "missing": False,
                "readOnly": False,
                "workspaceInstanceId": wsi.id,
                "reviewCount": 0,
            }
        },
    }
    assert [t["reviewCount"] for w in state["windows"] for t in w["tabs"]] == [0]  # pages' tab state only
    token = vmark.app.principals.add("claude")
    agent = BridgeClient(vmark.data_dir, token, autostart=False)
    await agent.connect()
    (joined,) = vmark.app.session.agents.values()
    pushed = await wait_event(person, "state", lambda p: bool(p.get("agents")))
    assert pushed["agents"] == [{"connectionId": joined.id, "principal": "claude", "name": None, "label": "claude"}]
    await agent.close()
    await wait_until(lambda: not vmark.app.session.agents, "the agent to be gone")
    assert (await person.call("ui.state"))["agents"] == []


async def vmark_cli(data_dir: Path, *args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "vmark",
        *args,
        env={**os.environ, "VMARK_HOME": str(data_dir)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    return int(proc.returncode or 0), out.decode(), err.decode()


async def test_vmark_url_prints_the_ui_address(vmark: RunningApp, tmp_path: Path) -> None:
    assert await vmark_cli(vmark.data_dir, "url") == (0, f"http://127.0.0.1:{vmark.port}/?token={vmark.ui_token}\n", "")
    nothing = tmp_path / "no-app"
    nothing.mkdir()
    assert await vmark_cli(nothing, "url") == (1, "", "vmark: no app is running\n")


async def test_a_bridge_json_without_ui_token_still_reads(vmark: RunningApp) -> None:
    """An app from before the UI wrote no ``uiToken``: its bridge still works, it has no UI address."""
    write_json(bridge_path(vmark.data_dir), {"port": vmark.port, "token": vmark.token, "pid": os.getpid()})
    assert read_bridge(vmark.data_dir) == BridgeInfo(port=vmark.port, token=vmark.token, pid=os.getpid(), ui_token="")
    assert await vmark_cli(vmark.data_dir, "url") == (
        1,
        "",
        "vmark: the running app serves no UI (it is older than the UI)\n",
    )


async def test_a_pages_edit_keeps_a_crlf_files_line_endings(vmark: RunningApp, person: UIClient, opened: Path) -> None:
    """Editors show "\\n" only: what the page sends gets the file's line endings back, on disk too."""
    (opened / "w.md").write_bytes(b"# W\r\n\r\nalpha\r\n")
    tab = (await person.call("ui.open", path=str(opened / "w.md")))["tabId"]
    await person.edit(tab, "# W\n\nalpha beta\n")
    assert vmark.app.session.find_tab(tab)[1].doc.state.text == "# W\r\n\r\nalpha beta\r\n"
    await person.call("ui.save", tabId=tab)
    assert (opened / "w.md").read_bytes() == b"# W\r\n\r\nalpha beta\r\n"
