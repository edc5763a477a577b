"""The app speaks the wire shapes the page is typed with (``protocol/wire_types.py`` -> ``wire.gen.ts``).

A page-like client drives the real app through every request of the editor (happy and refused paths), an
agent and a second window make the app push its events and request events, and every request, answer, event
and reply seen on the way is checked strictly against the TypedDicts (``vmark.protocol.wirecheck``).
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.conftest import make_client, ok
from tests.contract.helpers import wait_event, wait_until
from tests.ui.helpers import agent_write
from tests.ui.test_images import png
from tests.ui.wirepage import EDITOR_REQUESTS, CheckedPage
from vmark.app import turns
from vmark.app.server import RunningApp
from vmark.protocol import wire_types
from vmark.testing.uiclient import UIError


@pytest.fixture
async def page(vmark: RunningApp) -> AsyncIterator[CheckedPage]:
    async with CheckedPage(vmark.data_dir) as client:
        yield client


async def test_every_request_answer_and_event_has_its_wire_shape(
    vmark: RunningApp, page: CheckedPage, workspace: Path, monkeypatch: pytest.MonkeyPatch, trash: Path
) -> None:
    monkeypatch.setattr(turns, "COMPOSITION_GRACE_SECONDS", 0.0)  # the agent writes right after a composition
    await page.attach("main")
    await page.call("ui.state")
    await page.call("ui.focus", focused=True, visible=True)
    await page.call("ui.open_folder", path=str(workspace))
    a = (await page.call("ui.open", path=str(workspace / "a.md")))["tabId"]
    read = await page.call("ui.read", tabId=a)
    await page.call("ui.set_mode", tabId=a, mode="wysiwyg")
    await page.call("ui.set_mode", tabId=a, mode="source")
    # edits: a whole text, changes on the current revision, then changes and a text on a stale base
    first = await page.call("ui.edit", tabId=a, text=read["text"] + "one\n")
    second = await page.call("ui.edit", tabId=a, baseRevision=first["revision"], changes=[[0, 0, "x"]])
    stale = await page.call("ui.edit", tabId=a, baseRevision=first["revision"], changes=[[0, 0, "y"]])
    assert (stale["applied"], stale["revision"], stale["changes"]) == (False, second["revision"], [[0, 0, "x"]])
    stale_text = await page.call("ui.edit", tabId=a, baseRevision=first["revision"], text="z\n")
    assert (stale_text["applied"], "text" in stale_text) == (False, True)
    await page.call("ui.selection", tabId=a, **{"from": 1, "to": 2})
    await page.call("ui.composition", tabId=a, state="start", mode="source")
    await page.call("ui.composition", tabId=a, state="end")
    # closing: dirty, pinned, forced
    assert (await page.call("ui.close", tabId=a)) == {"closed": False, "reason": "DIRTY"}
    await page.call("ui.pin", tabId=a, pinned=True)
    assert (await page.call("ui.close", tabId=a, force=True)) == {"closed": False, "reason": "PINNED"}
    await page.call("ui.pin", tabId=a, pinned=False)
    await page.call("ui.save", tabId=a)
    untitled = (await page.call("ui.new", kind="markdown"))["tabId"]
    await page.call("ui.edit", tabId=untitled, text="new\n")
    await page.call("ui.save_as", tabId=untitled, path=str(workspace / "saved-as.md"))
    await page.call("ui.switch_tab", tabId=a)
    other = (await page.call("ui.new"))["tabId"]
    await page.call("ui.edit", tabId=other, text="gone\n")
    assert (await page.call("ui.close", tabId=other, force=True)) == {"closed": True}
    settings = (await page.call("settings.list"))["settings"]
    await page.call("settings.set", key=settings[0]["key"], value=settings[0]["value"])
    with pytest.raises(UIError):
        await page.call("ui.set_mode", tabId=a, mode="rich")  # refused: nothing to check but the payload
    assert page.problems == ["ui.set_mode payload.mode: 'rich' is not one of ['wysiwyg', 'source']"]
    page.problems.clear()

    # an agent: a write (a doc event), the selection (an editor request), a tab switch (activate), a window
    # focus (focus), a close (flush), a refused save as (a notification) and a workspace to approve (a prompt)
    async with make_client(vmark.data_dir) as agent:
        await agent_write(agent, a, "agent text\n")
        await wait_event(page, "doc", lambda p: p.get("origin") == "agent")
        await ok(agent, "selection", "get")
        await ok(agent, "workspace", "switch_tab", tabId=untitled)
        await ok(agent, "workspace", "focus_window", windowLabel="main")
        await ok(agent, "workspace", "close", tabId=untitled)  # the pages are asked to flush first
        elsewhere = str(workspace / "elsewhere.md")
        refused = await agent.call_tool("workspace", {"action": "save_as", "tabId": a, "filePath": elsewhere})
        assert refused.is_error and '"APPROVAL_REQUIRED"' in refused.content[0].text  # type: ignore[union-attr]
        await wait_event(page, "notification")
        # a prompt: listed, allowed; the agent's retry switches the window's workspace (workspace_switch)
        other = workspace.parent / "other"
        other.mkdir()
        await ok(agent, "workspace", "open_workspace", folderPath=str(other))
        prompt = await wait_event(page, "prompt")
        assert [a["id"] for a in (await page.call("approvals.list"))["approvals"]] == [prompt["id"]]
        answered = await page.call("approvals.answer", id=prompt["id"], allow=True)
        assert (answered["approval"]["kind"], answered["approval"]["state"]) == ("open_workspace", "allowed")
        await ok(agent, "workspace", "open_workspace", folderPath=str(other))
        await wait_event(page, "workspace_switch")

    # a second window typing into the same document: a doc event with changes, from the person
    async with CheckedPage(vmark.data_dir) as second:
        await second.attach()
        b = (await second.call("ui.open", path=str(workspace / "a.md")))["tabId"]
        base = (await second.call("ui.read", tabId=b))["revision"]
        await second.call("ui.edit", tabId=b, baseRevision=base, changes=[[0, 0, "2nd "]])
        await wait_event(page, "doc", lambda p: p.get("origin") == "person" and "changes" in p)
        assert second.problems == [] and second.event_problems() == []

    # the history the saves and the agent's write made: listed, read, reverted to, reviewed
    listing = await page.call("history.list", tabId=a, content=False)
    assert {s["kind"] for s in listing["snapshots"]} >= {"manual", "mcp"} and listing["unreviewed"] == 1
    full = await page.call("history.list", tabId=a)
    assert all("content" in s for s in full["snapshots"])
    first_snapshot = listing["snapshots"][0]["id"]
    assert "content" in await page.call("history.get", tabId=a, id=first_snapshot)
    await page.call("history.revert", tabId=a, id=first_snapshot)
    assert (await page.call("history.mark_reviewed", tabId=a)) == {"reviewed": 0}  # the revert reviewed it

    # review comments: one added on a quote of the text, read by tab and by file, replied to, resolved,
    # reopened, deleted (each change pushes a comments event)
    quote = (await page.call("ui.read", tabId=a))["text"][:5]
    added = await page.call("comments.add", tabId=a, quote=quote, body="a note", at=0)
    by_tab = await page.call("comments.threads", tabId=a)
    by_file = await page.call("comments.threads", filePath=str(workspace / "a.md"))
    assert [t["comment"] for t in by_tab["threads"]] == [added["comment"]] and by_file == by_tab
    await page.call("comments.person_reply", commentId=added["comment"], body="a reply")
    for verb, state in (("resolve", "resolved"), ("reopen", "reopened"), ("delete", "deleted")):
        assert (await page.call(f"comments.{verb}", commentId=added["comment"]))["state"] == state
    await wait_event(page, "comments")

    # the workspace's files: listed, a folder and a file created, renamed, trashed; a search; a CJK format
    listed = (await page.call("ui.files"))["workspaces"]
    assert [w["root"] for w in listed] == [str(workspace.resolve()), str(other.resolve())]
    await page.call("ui.switch_workspace", workspaceInstanceId=listed[0]["workspaceInstanceId"])
    await page.call("ui.file_create", path=str(workspace / "drafts"), type="folder")
    created = await page.call("ui.file_create", path=str(workspace / "drafts" / "n"))
    assert created == {"path": str((workspace / "drafts" / "n.md").resolve()), "type": "file"}
    renamed = await page.call("ui.file_rename", **{"from": created["path"], "to": str(workspace / "drafts" / "m.md")})
    assert renamed["moved"] == []
    assert (await page.call("ui.file_delete", path=renamed["path"]))["trashed"] is True
    assert (trash / "files" / "m.md").read_text("utf-8") == ""
    # a link followed: to a file (opened), to a missing one (no tab: the page offers to create it)
    linked = await page.call("ui.open_link", tabId=a, path="b.md")
    assert linked["path"] == str((workspace / "b.md").resolve()) and linked["tabId"]
    assert (await page.call("ui.open_link", tabId=a, path="notes/missing.md")) == {
        "path": str((workspace / "notes" / "missing.md").resolve())
    }
    # the files that link to b.md: a wikilink (its name carried for the page to resolve) and a Markdown link
    (workspace / "to-b.md").write_text("[[b]] here\n[b](b.md)\n", "utf-8")
    backlinked = await page.call("ui.backlinks", tabId=linked["tabId"])
    assert backlinked["filePath"] == linked["path"]
    assert [b for b in backlinked["backlinks"] if b["path"] == str((workspace / "to-b.md").resolve())] == [
        {"path": str((workspace / "to-b.md").resolve()), "line": 1, "text": "[[b]] here", "wikilinks": ["b"]},
        {"path": str((workspace / "to-b.md").resolve()), "line": 2, "text": "[b](b.md)"},
    ]
    found = await page.call("ui.search", query="alpha", matchCase=True)
    assert found["results"] and found["truncated"] is False
    # the picker: a folder listed (a file's folder, its entries' every kind), the places, a recent forgotten
    (workspace / "out").symlink_to("/")
    listed = await page.call("ui.browse", path=str(workspace / "a.md"), hidden=True)
    assert listed["selected"] == "a.md" and {e["kind"] for e in listed["entries"]} == {"folder", "file", "outside"}
    await page.call("ui.browse", path=str(workspace), filter="a")
    places = await page.call("ui.places")
    assert places["recentFolders"] and places["recentFiles"]
    assert await page.call("ui.recent_forget", path=places["recentFiles"][0]["path"]) == {"forgotten": True}
    await page.call("ui.cjk_format", text="中文English")
    # the person's prompt files: the shipped ones listed, a new one created in the same folder
    prompts = await page.call("prompts.list")
    assert {p["name"] for p in prompts["prompts"]} >= {"proofread", "summarize"}
    created = await page.call("prompts.new")
    assert Path(created["file"]).parent == Path(prompts["folder"])
    image = png(2, 2)
    saved = await page.call("ui.image_save", tabId=a, name="dot.png", data=base64.b64encode(image).decode())
    assert saved["link"] == "assets/dot.png" and Path(saved["path"]).read_bytes() == image
    exported = await page.call("ui.export", tabId=a, format="html", path=str(workspace / "a.html"))
    assert exported["path"] == str((workspace / "a.html").resolve()) and exported["format"] == "html"

    # agent changes under review: listed, one accepted by id, the rest of a later write rejected (each pushes a
    # review event; the rejection is the person's edit)
    async with make_client(vmark.data_dir) as agent:
        await agent_write(agent, a, "reviewed text\n")
        await wait_event(page, "review", lambda p: bool(p["changes"]))
        pending = (await page.call("review.list", tabId=a))["changes"]
        accepted = await page.call("review.accept", tabId=a, ids=[pending[0]["id"]])
        assert accepted["accepted"] == 1
        later = await agent_write(agent, a, "rejected text\n")
        await wait_event(page, "review", lambda p: p["revision"] == later["revision"] and bool(p["changes"]))
    assert (await page.call("review.reject", tabId=a, all=True))["rejected"] >= 1
    assert (await page.call("review.list", tabId=a))["changes"] == []

    # the file changes on disk under unsaved typing: divergent, then the person keeps the disk's text
    await page.call("ui.edit", tabId=a, text="unsaved\n")
    await asyncio.sleep(0.05)
    (workspace / "a.md").write_text("from disk\n", "utf-8")
    await wait_event(page, "divergent")
    await page.call("ui.resolve_divergence", tabId=a, keep="disk")
    await wait_until(lambda: bool(page.events_named("state")), "a state event")

    assert page.problems == []
    assert page.event_problems() == []
    seen = {e["event"] for e in page.events}
    pushed = {"state", "doc", "divergent", "notification", "prompt", "comments", "review"}
    assert pushed | {"flush", "editor", "activate", "focus", "workspace_switch"} <= seen
    assert page.sent == EDITOR_REQUESTS  # the panels' requests: test_wire_shapes_panels


def test_every_request_of_the_wire_is_a_request_of_the_app() -> None:
    from vmark.app.handlers.person import ACTIONS

    assert set(wire_types.REQUESTS) - set(ACTIONS) == set()
