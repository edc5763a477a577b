"""What the person's pages are sent when an agent writes, through the real app: the pages of the window showing
the document get its ``doc``, ``review`` and ``state`` events; a page of another window gets nothing of it
(app/page_push.py). No timing: the other window's own change afterwards is pushed after anything the write
caused, so its events up to that change are all it got."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp import Client

from tests.conftest import ok
from tests.contract.helpers import another_page, person_open, wait_event
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient


def _pushed(events: list[dict[str, Any]]) -> list[str]:
    """The events pushed to a page by what changed, in order: not answers to its requests, nor the tree
    watcher's ``files_changed`` (it tells every page of a root once when it starts watching the root, in its
    own time, app/tree_watch.py)."""
    return [e["event"] for e in events if e.get("requestId") is None and e["event"] != "files_changed"]


async def test_an_agent_write_reaches_only_the_window_showing_the_document(
    mcp: Client, vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    tab = await person_open(person, opened / "a.md")
    async with another_page(vmark) as other:
        other_tab = await person_open(other, opened / "b.md")
        await ok(mcp, "session", "get_state")  # the agent is connected: every page heard of it
        await wait_event(other, "state", lambda p: bool(p["agents"]))
        mark, other_mark = len(person.events), len(other.events)

        wrote = await ok(mcp, "document", "write", tabId=tab, content="# A\n\nomega\n")
        assert wrote["saved"] is True
        await wait_event(person, "review", lambda p: p["revision"] == wrote["revision"])
        await other.call("ui.pin", tabId=other_tab)  # the other window's own change, pushed after the write's
        shown = other.window or ""
        pinned = await wait_event(
            other, "state", lambda p: p["views"][shown]["tabs"].get(other_tab, {}).get("pinned") is True
        )

        assert _pushed(other.events[other_mark:]) == ["state"]
        assert [w["label"] for w in pinned["windows"]] == [other.window]
        assert pinned["views"]["main"]["tabs"] == {}  # another window's tabs are not its pages' business
        got = _pushed(person.events[mark:])
        assert got[:2] == ["doc", "review"] and set(got) == {"doc", "review", "state"}
        doc = next(e["payload"] for e in person.events[mark:] if e["event"] == "doc")
        assert (doc["tabIds"], doc["revision"], doc["origin"]) == ([tab], wrote["revision"], "agent")
        assert doc["reviewFollows"] is True  # the page redraws the text and its review once


async def test_a_doc_event_says_whether_a_review_event_follows(
    mcp: Client, vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    """``reviewFollows`` only when the document's ``review`` event comes right after its ``doc`` event: not for
    a person's edit of a document with nothing to review; for one that moves a pending change."""
    tab = await person_open(person, opened / "a.md")
    async with another_page(vmark) as other:
        other_tab = await person_open(other, opened / "a.md")
        read = await other.call("ui.read", tabId=other_tab)
        mark = len(person.events)
        typed = await other.call("ui.edit", tabId=other_tab, baseRevision=read["revision"], changes=[[0, 0, "x"]])
        doc = await wait_event(person, "doc", lambda p: p["revision"] == typed["revision"])
        assert "reviewFollows" not in doc

        wrote = await ok(mcp, "document", "write", tabId=tab, content="x# A\n\nomega\n")
        await wait_event(person, "review", lambda p: p["revision"] == wrote["revision"])
        typed = await other.call("ui.edit", tabId=other_tab, baseRevision=wrote["revision"], changes=[[0, 0, "y"]])
        doc = await wait_event(person, "doc", lambda p: p["revision"] == typed["revision"])
        assert doc["reviewFollows"] is True
        review = await wait_event(person, "review", lambda p: p["revision"] == typed["revision"])
        assert len(review["changes"]) == 1
        pushed = [e for e in person.events[mark:] if e["event"] in ("doc", "review")]
        order = [(e["event"], e["payload"]["revision"]) for e in pushed]
        assert order.index(("doc", typed["revision"])) + 1 == order.index(("review", typed["revision"]))
