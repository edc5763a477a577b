"""``session.changes``: what an agent hears of since it last looked, through the official MCP client.

The person is the person's protocol (a page's requests); the agents are the official client in memory (both
protocol eras) and, for the verdicts of two principals, over HTTP (``vmark mcp --http``) and stdio.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import fail, fail_code, make_client, ok
from tests.contract.helpers import open_tab, person_open, wait_until
from tests.http.helpers import client_with_header, http_server
from vmark.app.server import RunningApp
from vmark.protocol.limits import CHANGES_MAX_WAIT_MS
from vmark.storage.principals import Principals
from vmark.testing.uiclient import UIClient

CURSOR = r"cur-[0-9A-Za-z]+-\d+"
REVISION = r"rev-[0-9A-Za-z]{8}"
ISO = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"
PLAN = "# Plan\n\nThe first part is short.\n\nThe second part is long.\n\nThe third part is done.\n"


async def cursor(agent: Client) -> str:
    answer = await ok(agent, "session", "changes")
    assert answer["events"] == [] and re.fullmatch(CURSOR, answer["cursor"]), answer
    return str(answer["cursor"])


async def changes(agent: Client, since: str, **args: Any) -> dict[str, Any]:
    answer = await ok(agent, "session", "changes", since=since, **args)
    assert re.fullmatch(CURSOR, answer["cursor"]), answer
    for event in answer["events"]:
        assert re.fullmatch(ISO, event["at"]), event
    return answer


def kinds(answer: dict[str, Any]) -> list[str]:
    return [e["kind"] for e in answer["events"]]


def without_at(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k != "at"}


@asynccontextmanager
async def _alice_and_bob(data_dir: Path, plan: Path) -> AsyncIterator[tuple[Client, Client, str, str, str]]:
    """Two agents of two principals, ``plan`` open (by alice), and each one's cursor."""
    principals = Principals(data_dir / "principals.json")
    alice, bob = principals.add("alice"), principals.add("bob")
    async with make_client(data_dir, client_token=alice) as a, make_client(data_dir, client_token=bob) as b:
        tab = await open_tab(a, plan)
        yield a, b, tab, await cursor(a), await cursor(b)


@pytest.fixture
def plan(opened: Path) -> Path:
    path = opened / "plan.md"
    path.write_text(PLAN, "utf-8")
    return path


# --- the cursor ----------------------------------------------------------------------------------------------
async def test_without_since_the_current_cursor_and_no_events(mcp: Client, person: UIClient, plan: Path) -> None:
    first = await cursor(mcp)
    tab = await person_open(person, plan)
    second = await cursor(mcp)
    assert second != first
    assert await cursor(mcp) == second  # nothing happened since
    answer = await changes(mcp, first)
    assert kinds(answer) == ["tab_opened", "tab_switched"]
    opened, switched = answer["events"]
    assert without_at(opened) == {
        "kind": "tab_opened",
        "tabId": tab,
        "windowLabel": "main",
        "filePath": str(plan),
        "title": "plan",
        "documentKind": "markdown",
    }
    assert without_at(switched) == {"kind": "tab_switched", "windowLabel": "main", "tabId": tab, "previousTabId": None}
    assert answer["cursor"] == second
    assert (await changes(mcp, second))["events"] == []


async def test_argument_errors_are_plain(mcp: Client, vmark: RunningApp) -> None:
    assert await fail(mcp, "session", "changes", since="nonsense") == (
        "session.changes: argument 'since' must be a cursor from an earlier answer, got 'nonsense'"
    )
    now = await cursor(mcp)
    ahead = re.sub(r"\d+$", lambda m: str(int(m.group()) + 5), now)
    assert str(await fail(mcp, "session", "changes", since=ahead)).startswith(
        f"session.changes: no cursor {ahead!r} was handed out"
    )
    assert str(await fail(mcp, "session", "changes", since=now, kinds=["edit", "typing"])) == (
        "session.changes: argument 'kinds' has unknown kind 'typing'; known: edit, save, tab_opened, tab_closed,"
        " tab_switched, file_changed, verdict, comment, reply, approval, selection"
    )
    assert await fail(mcp, "session", "changes", since=now, wait_ms=CHANGES_MAX_WAIT_MS + 1) == (
        f"session.changes: argument 'wait_ms' must be an integer from 0 to {CHANGES_MAX_WAIT_MS}"
    )
    assert await fail(mcp, "session", "changes", since=now, wait_ms=-1) == (
        f"session.changes: argument 'wait_ms' must be an integer from 0 to {CHANGES_MAX_WAIT_MS}"
    )
    envelope = await fail_code(mcp, "session", "changes", since=now, tabId="tab-nope")
    assert envelope["error"] == "INVALID_TAB"


async def test_cursor_expired_names_the_oldest_cursor_still_held(
    mcp: Client, person: UIClient, plan: Path, vmark: RunningApp
) -> None:
    vmark.app.changes.limit = 4
    tab = await person_open(person, plan)
    old = await cursor(mcp)
    for n in range(6):
        await person.edit(tab, PLAN + f"line {n}\n")
        await cursor(mcp)  # seen: every edit is an event of its own
    envelope = await fail_code(mcp, "session", "changes", since=old)
    assert envelope["error"] == "CURSOR_EXPIRED"
    assert set(envelope) == {"error", "message", "oldest_cursor"}
    answer = await changes(mcp, envelope["oldest_cursor"])
    assert kinds(answer) == ["edit"] * 4
    assert answer["events"][-1]["revisionAfter"] == vmark.app.session.find_tab(tab)[1].doc.state.revision
    # a cursor of another run of the app names nothing this one kept
    foreign = re.sub(r"^cur-[0-9A-Za-z]+-", "cur-zzzzzzzzzz-", old)
    assert (await fail_code(mcp, "session", "changes", since=foreign))["error"] == "CURSOR_EXPIRED"


# --- the person's edits ------------------------------------------------------------------------------------
async def test_the_persons_edit_in_lines_not_text(mcp: Client, person: UIClient, plan: Path, vmark: RunningApp) -> None:
    tab = await person_open(person, plan)
    before = vmark.app.session.find_tab(tab)[1].doc.state.revision
    since = await cursor(mcp)
    text = PLAN.replace("The second part is long.", "The second part is long.\nIt has a new line.")
    after = await person.edit(tab, text)
    answer = await changes(mcp, since)
    assert [without_at(e) for e in answer["events"]] == [
        {
            "kind": "edit",
            "by": "person",
            "tabIds": [tab],
            "filePath": str(plan),
            "revisionBefore": before,
            "revisionAfter": after,
            "lines": [{"from": 6, "to": 6}],
            "inserted": len("\nIt has a new line."),
            "deleted": 0,
        }
    ]


async def test_typing_nobody_has_seen_is_one_edit(mcp: Client, person: UIClient, plan: Path, vmark: RunningApp) -> None:
    tab = await person_open(person, plan)
    first = vmark.app.session.find_tab(tab)[1].doc.state.revision
    since = await cursor(mcp)
    one = PLAN.replace("short", "shorter")
    await person.edit(tab, one)
    two = one + "\nA last line.\n"
    last = await person.edit(tab, two)
    answer = await changes(mcp, since)
    assert kinds(answer) == ["edit"]
    edit = answer["events"][0]
    assert (edit["revisionBefore"], edit["revisionAfter"]) == (first, last)
    assert edit["lines"] == [{"from": 3, "to": 3}, {"from": 8, "to": 9}]
    assert (edit["inserted"], edit["deleted"]) == (len("er") + len("\nA last line.\n"), 0)
    # once seen, the next edit is an event of its own
    third = await person.edit(tab, two + "More.\n")
    answer = await changes(mcp, answer["cursor"])
    assert [(e["revisionBefore"], e["revisionAfter"]) for e in answer["events"]] == [(last, third)]


async def test_own_edits_are_not_heard_another_agents_are(
    vmark: RunningApp, person: UIClient, plan: Path, data_dir: Path
) -> None:
    async with _alice_and_bob(data_dir, plan) as (a, b, tab, since_a, since_b):
        written = await ok(a, "document", "edit", tabId=tab, edits=[{"old": "short", "new": "brief"}], save=False)
        assert (await changes(a, since_a))["events"] == []
        heard = (await changes(b, since_b))["events"]
        assert [without_at(e) for e in heard] == [
            {
                "kind": "edit",
                "by": "agent",
                "principal": "alice",
                "tabIds": [tab],
                "filePath": str(plan),
                "revisionBefore": heard[0]["revisionBefore"],
                "revisionAfter": written["revision"],
                "lines": [{"from": 3, "to": 3}],
                "inserted": 5,
                "deleted": 5,
            }
        ]


async def test_wait_ms_answers_as_soon_as_the_person_types(mcp: Client, person: UIClient, plan: Path) -> None:
    tab = await person_open(person, plan)
    since = await cursor(mcp)
    waiting = asyncio.ensure_future(changes(mcp, since, wait_ms=CHANGES_MAX_WAIT_MS, kinds=["edit"]))
    await asyncio.sleep(0)
    assert not waiting.done()
    revision = await person.edit(tab, PLAN + "typed\n")
    answer = await asyncio.wait_for(waiting, CHANGES_MAX_WAIT_MS / 1000)
    assert [(e["kind"], e["revisionAfter"]) for e in answer["events"]] == [("edit", revision)]


async def test_wait_ms_with_nothing_to_hear_answers_empty(mcp: Client, person: UIClient, plan: Path) -> None:
    since = await cursor(mcp)
    answer = await changes(mcp, since, wait_ms=50)
    assert answer == {"cursor": since, "events": []}


# --- saves, tabs, the disk, comments, the selection ------------------------------------------------------------
async def test_saves_tabs_disk_comments_and_selection(
    mcp: Client, person: UIClient, plan: Path, vmark: RunningApp
) -> None:
    tab = await person_open(person, plan)
    other = await person_open(person, plan.parent / "a.md")
    since = await cursor(mcp)
    revision = await person.edit(tab, PLAN + "x\n")
    saved = await person.call("ui.save", tabId=tab)
    await person.call("ui.switch_tab", tabId=tab)
    added = await person.call("comments.add", tabId=tab, quote="second part", body="Make this one shorter")
    replied = await person.call("comments.person_reply", commentId=added["comment"], body="Really.")
    await person.select(tab, 2, 6)
    await person.call("ui.close", tabId=other)
    answer = await changes(mcp, since)
    events = [without_at(e) for e in answer["events"]]
    assert [e["kind"] for e in events] == [
        "edit", "save", "tab_switched", "comment", "reply", "selection", "tab_closed",
    ]  # fmt: skip
    assert events[1] == {
        "kind": "save",
        "by": "person",
        "tabIds": [tab],
        "filePath": str(plan),
        "revision": saved["revision"],
    }
    assert saved["revision"] == revision
    assert events[2] == {"kind": "tab_switched", "windowLabel": "main", "tabId": tab, "previousTabId": other}
    assert events[3] == {
        "kind": "comment",
        "action": "created",
        "commentId": added["comment"],
        "quote": "second part",
        "body": "Make this one shorter",
        "tabIds": [tab],
        "filePath": str(plan),
    }
    assert events[4] == {
        "kind": "reply",
        "commentId": added["comment"],
        "replyId": replied["reply"],
        "body": "Really.",
        "tabIds": [tab],
        "filePath": str(plan),
    }
    assert events[5] == {
        "kind": "selection",
        "tabId": tab,
        "windowLabel": "main",
        "mode": "source",
        "from": 2,
        "to": 6,
        "empty": False,
        "revision": revision,
        "lines": {"from": 1, "to": 1},
    }
    assert events[6] == {
        "kind": "tab_closed",
        "tabId": other,
        "windowLabel": "main",
        "filePath": str(plan.parent / "a.md"),
    }
    # the file changed on disk: a clean tab reloads it
    since = answer["cursor"]
    plan.write_text("# Plan\n\nRewritten elsewhere.\n", "utf-8")
    doc = vmark.app.session.find_tab(tab)[1].doc
    await wait_until(lambda: doc.state.text.startswith("# Plan\n\nRewritten"), "the reload")
    answer = await changes(mcp, since, kinds=["file_changed"])
    assert [without_at(e) for e in answer["events"]] == [
        {
            "kind": "file_changed",
            "tabIds": [tab],
            "filePath": str(plan),
            "reloaded": True,
            "revisionBefore": revision,
            "revisionAfter": doc.state.revision,
            "lines": [{"from": 3, "to": 3}],
            # the lines between "# Plan\n\n" and the last line break, which both texts share
            "inserted": len("Rewritten elsewhere."),
            "deleted": len(PLAN + "x") - len("# Plan\n\n"),
        }
    ]


async def test_a_selection_that_moves_again_before_anyone_looks_is_one(
    mcp: Client, person: UIClient, plan: Path
) -> None:
    tab = await person_open(person, plan)
    since = await cursor(mcp)
    await person.select(tab, 0, 1)
    await person.select(tab, 9, 12)
    answer = await changes(mcp, since, kinds=["selection"], tabId=tab)
    assert [(e["from"], e["to"]) for e in answer["events"]] == [(9, 12)]


async def test_kinds_and_tab_filter(mcp: Client, person: UIClient, plan: Path) -> None:
    tab = await person_open(person, plan)
    other = await person_open(person, plan.parent / "a.md")
    since = await cursor(mcp)
    await person.edit(tab, PLAN + "one\n")
    await person.edit(other, "# A\n\nalpha, changed\n")
    answer = await changes(mcp, since, tabId=other)
    assert [(e["kind"], e["tabIds"]) for e in answer["events"]] == [("edit", [other])]
    assert kinds(await changes(mcp, since, kinds=["save"])) == []


async def test_events_of_a_file_outside_the_scope_are_not_heard(
    mcp: Client, person: UIClient, plan: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "private" / "diary.md"
    outside.parent.mkdir()
    outside.write_text("# Diary\n", "utf-8")
    since = await cursor(mcp)
    tab = await person_open(person, outside)  # the person may open anything: while open, its folder is in scope
    await person.edit(tab, "# Diary\n\nDear diary.\n")
    assert kinds(await changes(mcp, since)) == ["tab_opened", "tab_switched", "edit"]
    await person.call("ui.close", tabId=tab, force=True)
    answer = await changes(mcp, since)
    assert answer["events"] == []  # closed: its folder left the scope, and what happened there with it


# --- verdicts and approvals are the asking agent's own -----------------------------------------------------------
async def _three_changes(agent: Client, tab: str) -> list[dict[str, Any]]:
    made = []
    for old, new in (("short", "brief"), ("long", "lengthy"), ("done", "finished")):
        made.append(await ok(agent, "document", "edit", tabId=tab, edits=[{"old": old, "new": new}]))
    return made


async def _verdicts(agent: Client, since: str) -> list[dict[str, Any]]:
    return [without_at(e) for e in (await changes(agent, since, kinds=["verdict"]))["events"]]


async def _judge_two(person: UIClient, tab: str) -> tuple[dict[str, Any], dict[str, Any]]:
    pending = (await person.call("review.list", tabId=tab))["changes"]
    assert [c["old"] for c in pending] == ["short", "long", "done"]
    rejected, accepted = pending[1], pending[2]
    await person.call("review.reject", tabId=tab, ids=[rejected["id"]])
    await person.call("review.accept", tabId=tab, ids=[accepted["id"]])
    return rejected, accepted


def _expected(change: dict[str, Any], verdict: str, text: str, tab: str, path: Path) -> dict[str, Any]:
    return {
        "kind": "verdict",
        "verdict": verdict,
        "changeId": change["id"],
        "revision": change["revision"],
        "text": text,
        "old": change["old"],
        "tabIds": [tab],
        "filePath": str(path),
    }


async def test_verdicts_are_heard_by_their_agent_only(
    vmark: RunningApp, person: UIClient, plan: Path, data_dir: Path
) -> None:
    async with _alice_and_bob(data_dir, plan) as (a, b, tab, since_a, since_b):
        made = await _three_changes(a, tab)
        rejected, accepted = await _judge_two(person, tab)
        assert [rejected["revision"], accepted["revision"]] == [made[1]["revision"], made[2]["revision"]]
        assert await _verdicts(a, since_a) == [
            _expected(rejected, "rejected", "lengthy", tab, plan),
            _expected(accepted, "accepted", "finished", tab, plan),
        ]
        assert await _verdicts(b, since_b) == []
        # the rejection restored the old text: that is the person's edit, which both hear
        assert [e["by"] for e in (await changes(a, since_a, kinds=["edit"]))["events"]] == ["person"]


async def test_verdicts_over_http_per_principal(
    vmark: RunningApp, person: UIClient, plan: Path, data_dir: Path
) -> None:
    principals = Principals(data_dir / "principals.json")
    alice, bob = principals.add("alice"), principals.add("bob")
    async with http_server(data_dir) as url, client_with_header(url, alice) as a, client_with_header(url, bob) as b:
        tab = await open_tab(a, plan)
        since_a, since_b = await cursor(a), await cursor(b)
        await _three_changes(a, tab)
        rejected, accepted = await _judge_two(person, tab)
        assert await _verdicts(a, since_a) == [
            _expected(rejected, "rejected", "lengthy", tab, plan),
            _expected(accepted, "accepted", "finished", tab, plan),
        ]
        assert await _verdicts(b, since_b) == []


async def test_an_approval_decided_is_heard_by_the_agent_that_asked(
    vmark: RunningApp, person: UIClient, workspace: Path, data_dir: Path
) -> None:
    principals = Principals(data_dir / "principals.json")
    alice, bob = principals.add("alice"), principals.add("bob")
    async with make_client(data_dir, client_token=alice) as a, make_client(data_dir, client_token=bob) as b:
        since_a, since_b = await cursor(a), await cursor(b)
        asked = await ok(a, "workspace", "open_workspace", folderPath=str(workspace))
        assert asked["needsApproval"] is True
        (approval,) = await person.approvals()
        await person.answer(approval["id"], allow=True)
        heard = (await changes(a, since_a, kinds=["approval"]))["events"]
        assert [without_at(e) for e in heard] == [
            {
                "kind": "approval",
                "approvalId": approval["id"],
                "approvalKind": "open_workspace",
                "subject": str(workspace),
                "decision": "allowed",
                "windowLabel": "main",
            }
        ]
        assert (await changes(b, since_b, kinds=["approval"]))["events"] == []


async def test_a_long_backlog_comes_in_pages(mcp: Client, person: UIClient, plan: Path) -> None:
    tab = await person_open(person, plan)
    since = await cursor(mcp)
    body = "x" * 15_000
    for n in range(8):
        await person.call("comments.add", tabId=tab, quote="Plan", body=f"{n} {body}")
    seen: list[str] = []
    at, pages = since, 0
    while True:
        answer = await changes(mcp, at, kinds=["comment"])
        seen += [e["body"][:1] for e in answer["events"]]
        at, pages = answer["cursor"], pages + 1
        if not answer.get("more"):
            break
    assert seen == [str(n) for n in range(8)]
    assert pages > 1
