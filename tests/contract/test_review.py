"""The review of agent changes through the official MCP client and the person's protocol (``review.*``).

An agent's changes become pending word-level changes of the document; the person accepts or rejects each;
the ranges follow every later edit; the review survives a page reload and an app restart; the backlog
(``REVIEW_BACKLOG_FULL``) counts what is not judged yet; the history shows each revision and who made it.
"""

from __future__ import annotations

import json
import random
import re
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import fail_code, make_client, ok
from tests.contract.helpers import (
    another_page,
    background,
    doc_of,
    history,
    journal_gate,
    open_tab,
    person_open,
    wait_event,
    wait_until,
)
from vmark.app.review.pending import DocReview
from vmark.app.server import RunningApp
from vmark.app.writes import Writer
from vmark.core.document import content_hash
from vmark.storage.journal import BeforePatch
from vmark.testing.uiclient import UIClient, UIError

PLAN = "# Plan\n\nThe first part is short.\n\nThe second part is long.\n\nThe third part is done.\n"
ONE = PLAN.replace("short", "brief")
TWO = ONE.replace("long", "lengthy")
THREE = TWO.replace("done", "finished")
AT_TWO = THREE.replace("lengthy", "long")  # changes one and three, the original text at two
ISO = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"


# --- helpers ---------------------------------------------------------------------------------------------
async def _edit(agent: Client, tab: str, old: str, new: str) -> dict[str, Any]:
    return await ok(agent, "document", "edit", tabId=tab, edits=[{"old": old, "new": new}])


async def _changes(person: UIClient, tab: str) -> list[dict[str, Any]]:
    return list((await person.call("review.list", tabId=tab))["changes"])


def _ranges(changes: list[dict[str, Any]]) -> list[tuple[int, int, str]]:
    return [(c["from"], c["to"], c["old"]) for c in changes]


def _shown(text: str, changes: list[dict[str, Any]]) -> list[str]:
    return [text[c["from"] : c["to"]] for c in changes]


async def _journaled(vmark: RunningApp, tool: str) -> list[dict[str, Any]]:
    return [e for e in await vmark.app.journal.entries() if e["tool"] == tool]


async def _unreviewed(person: UIClient, tab: str) -> int:
    return int((await person.call("history.list", tabId=tab, content=False))["unreviewed"])


async def _three_changes(agent: Client, tab: str) -> list[dict[str, Any]]:
    return [
        await _edit(agent, tab, "short", "brief"),
        await _edit(agent, tab, "long", "lengthy"),
        await _edit(agent, tab, "done", "finished"),
    ]


@pytest.fixture
def plan(opened: Path) -> Path:
    path = opened / "plan.md"
    path.write_text(PLAN, "utf-8")
    return path


# --- the issue's scenario ----------------------------------------------------------------------------------
async def test_three_changes_reject_the_second_save_history_reload_restart(data_dir: Path, workspace: Path) -> None:
    path = workspace / "plan.md"
    path.write_text(PLAN, "utf-8")
    first = RunningApp(data_dir, test_hooks=True)
    await first.start()
    try:
        token = first.app.principals.add("alice")
        async with UIClient(data_dir) as person, make_client(data_dir, client_token=token) as agent:
            await person.attach("main")
            await person.call("ui.open_folder", path=str(workspace))
            tab = await person_open(person, path)
            wrote = await _three_changes(agent, tab)
            assert path.read_text("utf-8") == THREE  # document.edit saves
            changes = await _changes(person, tab)
            assert _ranges(changes) == [
                (THREE.index("brief"), THREE.index("brief") + 5, "short"),
                (THREE.index("lengthy"), THREE.index("lengthy") + 7, "long"),
                (THREE.index("finished"), THREE.index("finished") + 8, "done"),
            ]
            assert [(c["revision"], c["principal"], c["tool"]) for c in changes] == [
                (w["revision"], "alice", "document.edit") for w in wrote
            ]
            for change in changes:
                assert set(change) == {"id", "revision", "principal", "agent", "tool", "from", "to", "old", "at"}
                assert re.fullmatch(ISO, change["at"]), change["at"]
            # The page got a review event for the last revision, with the notice naming the agent and tool.
            event = await wait_event(person, "review", lambda p: p["revision"] == wrote[2]["revision"])
            assert event == {
                "filePath": str(path),
                "docKey": str(path),
                "tabIds": [tab],
                "revision": wrote[2]["revision"],
                "changes": changes,
                "notice": {"principal": "alice", "tool": "document.edit", "count": 1},
            }
            assert (await person.call("ui.state"))["views"]["main"]["tabs"][tab]["reviewCount"] == 3
            assert await _unreviewed(person, tab) == 3

            rejected = await person.call("review.reject", tabId=tab, ids=[changes[1]["id"]])
            doc = doc_of(first, tab)
            assert rejected == {"rejected": 1, "revision": doc.state.revision, "unreviewed": 2}
            assert (doc.state.text, doc.dirty) == (AT_TWO, True)
            # An agent holding the revision before the rejection is refused.
            stale = await fail_code(
                agent, "document", "write", tabId=tab, content="# x\n", expected_revision=wrote[2]["revision"]
            )
            assert (stale["error"], stale["current_revision"]) == ("STALE", rejected["revision"])
            # The page gets the person's edit as a document change, then the review of that revision.
            doc_event = await wait_event(person, "doc", lambda p: p["revision"] == rejected["revision"])
            start = THREE.index("lengthy")
            assert doc_event["changes"] == {"base": wrote[2]["revision"], "spans": [[start, start + 7, "long"]]}
            review = await wait_event(person, "review", lambda p: p["revision"] == rejected["revision"])
            assert "notice" not in review
            left = await _changes(person, tab)
            assert [c["id"] for c in left] == [changes[0]["id"], changes[2]["id"]]
            assert _shown(AT_TWO, left) == ["brief", "finished"]
            assert [e["event"] for e in person.events if e["event"] in ("doc", "review")][-2:] == ["doc", "review"]

            # The journal records the rejection (the person's edit), with what it replaced.
            await wait_until(lambda: _journaled(first, "review.reject"), "the rejection's journal entry", timeout=10)
            [entry] = await _journaled(first, "review.reject")
            assert (entry["rev_before"], entry["rev_after"], entry["file"], entry["tab"]) == (
                wrote[2]["revision"],
                rejected["revision"],
                str(path),
                tab,
            )
            assert BeforePatch(**json.loads(entry["before_patch"])).restore(AT_TWO) == THREE
            assert (entry["hash_before"], entry["hash_after"]) == (content_hash(THREE), content_hash(AT_TWO))

            await person.call("ui.save", tabId=tab)  # autosave is off by default: the person saves
            assert path.read_bytes() == AT_TWO.encode()

            snaps = await history(person, tab)
            assert [(s["kind"], s["content"], s["actor"]) for s in snaps] == [
                ("disk", PLAN, {"kind": "disk"}),
                ("mcp", ONE, {"kind": "agent", "principal": "alice", "tool": "document.edit"}),
                ("mcp", TWO, {"kind": "agent", "principal": "alice", "tool": "document.edit"}),
                ("mcp", THREE, {"kind": "agent", "principal": "alice", "tool": "document.edit"}),
                ("reject", AT_TWO, {"kind": "person", "tool": "review.reject"}),
            ]
            assert [s["revision"] for s in snaps[1:4]] == [w["revision"] for w in wrote]

        # A reload of the page: a new page on the window gets the same review.
        async with UIClient(data_dir) as reloaded:
            await reloaded.attach("main")
            pushed = await wait_event(reloaded, "review")
            assert (pushed["tabIds"], pushed["changes"]) == ([tab], left)
            assert await _changes(reloaded, tab) == left
    finally:
        await first.stop()

    second = RunningApp(data_dir, test_hooks=True)
    await second.start()
    try:
        async with UIClient(data_dir) as person:
            await person.attach("main")
            tab = await person_open(person, path)
            restored = await _changes(person, tab)
            assert [(c["id"], c["from"], c["to"], c["old"]) for c in restored] == [
                (c["id"], c["from"], c["to"], c["old"]) for c in left
            ]
            assert {c["revision"] for c in restored} == {c["revision"] for c in left}
            assert await _unreviewed(person, tab) == 2
            accepted = await person.call("review.accept", tabId=tab, all=True)
            assert accepted == {"accepted": 2, "revision": doc_of(second, tab).state.revision, "unreviewed": 0}
            assert await _changes(person, tab) == []
            assert path.read_bytes() == AT_TWO.encode()  # accepting changes no text
    finally:
        await second.stop()


# --- refusals ----------------------------------------------------------------------------------------------
async def test_judging_refuses_unknown_ids_and_bad_arguments_and_changes_nothing(
    mcp: Client, plan: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab = await person_open(person, plan)
    await _edit(mcp, tab, "short", "brief")
    [change] = await _changes(person, tab)
    doc = doc_of(vmark, tab)
    state = doc.state
    cases: list[tuple[dict[str, Any], str]] = [
        ({"ids": [change["id"], "rc-unknown"]}, "no pending change 'rc-unknown' in this document"),
        ({}, "give exactly one of ids (a list of change ids) or all: true"),
        ({"ids": [change["id"]], "all": True}, "give exactly one of ids (a list of change ids) or all: true"),
        ({"ids": []}, "ids must be a non-empty list of change ids (strings)"),
        ({"ids": [3]}, "ids must be a non-empty list of change ids (strings)"),
        # the person's argument registry checks the types, in its one shape of refusal
        ({"ids": change["id"]}, "argument 'ids' must be an array"),
        ({"all": "yes"}, "argument 'all' must be a boolean"),
    ]
    for action in ("review.accept", "review.reject"):
        for args, message in cases:
            with pytest.raises(UIError) as info:
                await person.call(action, tabId=tab, **args)
            assert info.value.error == message, (action, args)
    with pytest.raises(UIError) as unnamed:
        await person.call("review.list")
    assert unnamed.value.error == "name the document: tabId or filePath"
    with pytest.raises(UIError) as unknown_tab:
        await person.call("review.accept", tabId="tab-nope", all=True)
    assert unknown_tab.value.error["error"] == "INVALID_TAB"
    assert doc.state == state and doc.state.revision == state.revision
    assert await _changes(person, tab) == [change]
    assert await _unreviewed(person, tab) == 1
    # Judging nothing is no error: all of no changes.
    await person.call("review.accept", tabId=tab, all=True)
    assert await person.call("review.reject", tabId=tab, all=True) == {
        "rejected": 0,
        "revision": doc.state.revision,
        "unreviewed": 0,
    }
    assert doc.state.text == ONE


async def test_agents_cannot_judge(mcp: Client, plan: Path, person: UIClient, vmark: RunningApp) -> None:
    tab = await person_open(person, plan)
    await _edit(mcp, tab, "short", "brief")
    agent_bridge = vmark.app.session.agents
    assert agent_bridge  # the agent is connected; its bridge cannot send person actions
    from vmark.mcp.bridge_client import BridgeClient

    bridge = BridgeClient(vmark.data_dir, autostart=False)
    await bridge.connect()
    try:
        response = await bridge.request("review.reject", {"tabId": tab, "all": True})
    finally:
        await bridge.close()
    assert response["success"] is False
    assert "'review.reject' is a person's action; agents cannot send it" in str(response["error"])
    assert doc_of(vmark, tab).state.text == ONE
    assert len(await _changes(person, tab)) == 1


# --- word granularity and merging --------------------------------------------------------------------------
@pytest.mark.legacy_protocol
async def test_a_write_of_the_whole_text_is_one_change_per_changed_phrase(
    mcp: Client, plan: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab = await person_open(person, plan)
    text = PLAN.replace("first part is short", "first bit is short").replace("third part", "last part")
    text = text.replace("# Plan", "# Plan!")
    await ok(mcp, "document", "write", tabId=tab, content=text)
    changes = await _changes(person, tab)
    assert [(text[c["from"] : c["to"]], c["old"]) for c in changes] == [
        ("!", ""),  # a punctuation mark is a word of its own
        ("bit", "part"),
        ("last", "third"),
    ]
    assert {c["tool"] for c in changes} == {"document.write"}
    # Rejecting the middle one leaves the others where they are.
    await person.call("review.reject", tabId=tab, ids=[changes[1]["id"]])
    assert doc_of(vmark, tab).state.text == text.replace("first bit", "first part")
    assert [(c["old"], c["from"]) for c in await _changes(person, tab)] == [
        ("", changes[0]["from"]),
        ("third", changes[2]["from"] + 1),  # "part" is one character longer than "bit"
    ]


async def test_an_agent_changing_its_own_pending_change_again_merges_them(
    mcp: Client, plan: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab = await person_open(person, plan)
    one = await _edit(mcp, tab, "short", "brief")
    two = await _edit(mcp, tab, "brief", "tiny indeed")
    [change] = await _changes(person, tab)
    text = doc_of(vmark, tab).state.text
    assert (text[change["from"] : change["to"]], change["old"], change["revision"]) == (
        "tiny indeed",
        "short",
        two["revision"],
    )
    assert await _unreviewed(person, tab) == 2  # both revisions wait for this one change
    await person.call("review.reject", tabId=tab, ids=[change["id"]])
    assert doc_of(vmark, tab).state.text == PLAN
    assert await _unreviewed(person, tab) == 0
    assert one["revision"] != two["revision"]


async def test_an_agent_putting_back_the_old_text_leaves_nothing_to_review(
    mcp: Client, plan: Path, person: UIClient
) -> None:
    tab = await person_open(person, plan)
    await _edit(mcp, tab, "short", "brief")
    await _edit(mcp, tab, "brief", "short")
    assert await _changes(person, tab) == []
    assert await _unreviewed(person, tab) == 0


async def test_insertions_and_deletions(mcp: Client, plan: Path, person: UIClient, vmark: RunningApp) -> None:
    tab = await person_open(person, plan)
    await _edit(mcp, tab, "The second part is long.", "The second part is very long.")
    await _edit(mcp, tab, "The third part is done.", "The third part is.")
    changes = await _changes(person, tab)
    text = doc_of(vmark, tab).state.text
    inserted, deleted = changes
    assert (text[inserted["from"] : inserted["to"]], inserted["old"]) in (("very ", ""), (" very", ""))
    assert deleted["from"] == deleted["to"] and deleted["old"] in (" done", "done ")
    await person.call("review.reject", tabId=tab, all=True)
    assert doc_of(vmark, tab).state.text == PLAN


# --- mapping through the person's edits -----------------------------------------------------------------------
async def test_ranges_follow_the_persons_edits_and_an_edit_across_a_change_judges_it(
    mcp: Client, plan: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab = await person_open(person, plan)
    await _three_changes(mcp, tab)
    first, second, third = await _changes(person, tab)
    doc = doc_of(vmark, tab)

    async def splice(start: int, end: int, insert: str) -> None:
        await person.call("ui.edit", tabId=tab, baseRevision=doc.state.revision, changes=[[start, end, insert]])

    await splice(0, 0, "Intro. ")  # before every change: all move
    assert [c["from"] for c in await _changes(person, tab)] == [c["from"] + 7 for c in (first, second, third)]
    at = doc.state.text.index("lengthy")
    await splice(at + 3, at + 3, "XX")  # inside the second change: it grows and keeps its old text
    moved = await _changes(person, tab)
    assert _shown(doc.state.text, moved) == ["brief", "lenXXgthy", "finished"]
    assert moved[1]["old"] == "long"
    at = doc.state.text.index("brief")
    await splice(at, at + 5, "")  # the person deletes all of the first change: judged by that edit
    assert _shown(doc.state.text, await _changes(person, tab)) == ["lenXXgthy", "finished"]
    at = doc.state.text.index("finished")
    await splice(at - 3, at + 3, "ABC")  # across the start of the third: what is left of it stays
    remaining = await _changes(person, tab)
    assert _shown(doc.state.text, remaining) == ["lenXXgthy", "ished"]
    assert remaining[1]["old"] == "done"
    assert await _unreviewed(person, tab) == 2  # the first revision was judged by the person's edit
    # Rejecting the edited ones restores their old text over what is left of them.
    await person.call("review.reject", tabId=tab, all=True)
    assert doc.state.text == "Intro. " + PLAN.replace("The first part is short.", "The first part is .").replace(
        "is done.", "ABCdone."
    )
    assert await _unreviewed(person, tab) == 0


# --- several pages ----------------------------------------------------------------------------------------------
async def test_two_windows_on_one_document_agree(mcp: Client, plan: Path, person: UIClient, vmark: RunningApp) -> None:
    tab = await person_open(person, plan)
    async with another_page(vmark) as other:
        other_tab = await person_open(other, plan)
        wrote = await _edit(mcp, tab, "short", "brief")
        for page, shown in ((person, tab), (other, other_tab)):
            event = await wait_event(page, "review", lambda p: p["revision"] == wrote["revision"])
            assert event["tabIds"] == [shown] and len(event["changes"]) == 1
        [change] = event["changes"]
        seen = {id(page): len(page.events) for page in (person, other)}
        accepted = await other.call("review.accept", tabId=other_tab, ids=[change["id"]])
        assert accepted["accepted"] == 1
        # Both pages' tab state says so (the tab marker of a tab not shown too).
        for page, shown in ((person, tab), (other, other_tab)):
            await wait_until(
                lambda page=page, shown=shown: any(
                    t["id"] == shown and t["reviewCount"] == 0
                    for e in page.events[seen[id(page)] :]
                    if e["event"] == "state"
                    for w in e["payload"]["windows"]
                    for t in w["tabs"]
                ),
                "a state event with the tab's new reviewCount",
            )
        await wait_until(
            lambda: any(
                e["payload"]["changes"] == [] for e in person.events_named("review") if e["payload"]["tabIds"] == [tab]
            ),
            "the first window hearing of the accept",
        )
        assert await _changes(person, tab) == []
        # Rejecting the last change tells every page too (an empty set, after the restored text).
        rejected_at = len(other.events)
        wrote = await _edit(mcp, tab, "long", "lengthy")
        await wait_event(other, "review", lambda p: p["revision"] == wrote["revision"])
        rejected = await person.call("review.reject", tabId=tab, all=True)
        for page in (person, other):
            event = await wait_event(page, "review", lambda p: p["revision"] == rejected["revision"])
            assert event["changes"] == []
        names = [e["event"] for e in other.events[rejected_at:] if e["event"] in ("doc", "review")]
        assert names[-2:] == ["doc", "review"]


# --- long rewrites: the word diff after the answer ----------------------------------------------------------
#: a document of about 100,000 characters: a whole-text rewrite changing its first and last paragraphs has a word
#: diff of tens of milliseconds, after the answer (as every agent edit's)
LONG = PLAN + "".join(f"Paragraph {n} says nothing new.\n\n" for n in range(3000))


def _far_apart(text: str, first: tuple[str, str], paragraph: int) -> str:
    """``text`` with ``first`` replaced near its start and paragraph ``paragraph`` (near its end) changed."""
    assert len(text) > 100_000
    return text.replace(*first).replace(f"Paragraph {paragraph} says", f"Paragraph {paragraph} said")


async def test_the_answer_does_not_wait_for_the_word_diff(
    mcp: Client, workspace: Path, vmark: RunningApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A one-word edit's word diff runs once the write has its answer, when no page shows the document (one that
    does hears of the new revision while the write saves, and settles it then); the change is pending at the next
    look all the same."""
    (workspace / "plan.md").write_text(PLAN, "utf-8")
    async with UIClient(vmark.data_dir) as page:  # the person opens the folder, and closes the page
        await page.attach("main")
        await page.call("ui.open_folder", path=str(workspace))
    tab = await open_tab(mcp, workspace / "plan.md")
    order: list[str] = []
    merge, write = DocReview.merge, Writer.write

    def merging(self: DocReview, *args: Any) -> Any:
        order.append("word diff")
        return merge(self, *args)

    async def writing(self: Writer, *args: Any) -> Any:
        answer = await write(self, *args)
        order.append("answer")
        return answer

    monkeypatch.setattr(DocReview, "merge", merging)
    monkeypatch.setattr(Writer, "write", writing)
    written = await _edit(mcp, tab, "short", "brief")
    doc = doc_of(vmark, tab)
    assert [(ONE[c.start : c.end], c.revisions) for c in vmark.app.review.pending(doc)] == [
        ("brief", (written["revision"],))
    ]
    assert order == ["answer", "word diff"]


async def test_a_long_rewrite_is_reviewed_after_its_answer_as_any_other(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    path = opened / "long.md"
    path.write_text(LONG, "utf-8")
    tab = await person_open(person, path)
    text = _far_apart(LONG, ("first part is short", "first bit is short"), 2999)
    written = await ok(mcp, "document", "write", tabId=tab, content=text)
    changes = await _changes(person, tab)
    assert [(text[c["from"] : c["to"]], c["old"], c["revision"]) for c in changes] == [
        ("bit", "part", written["revision"]),
        ("said", "says", written["revision"]),
    ]
    assert await _unreviewed(person, tab) == 1
    # The next rewrite meets them: the agent puts one back (undone), changes another word (a new change).
    again = text.replace("first bit", "first part").replace("Paragraph 7 says", "Paragraph 7 tells")
    second = await ok(mcp, "document", "write", tabId=tab, content=again)
    assert [(again[c["from"] : c["to"]], c["old"], c["revision"]) for c in await _changes(person, tab)] == [
        ("tells", "says", second["revision"]),
        ("said", "says", written["revision"]),
    ]
    assert await _unreviewed(person, tab) == 2
    await person.call("review.reject", tabId=tab, all=True)
    assert doc_of(vmark, tab).state.text == LONG
    assert await _unreviewed(person, tab) == 0


async def test_a_long_rewrite_leaving_nothing_to_review_is_not_in_the_backlog(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    vmark.app.settings.set("review_backlog_limit", 2)
    path = opened / "long.md"
    path.write_text(LONG, "utf-8")
    tab = await person_open(person, path)
    await ok(mcp, "document", "write", tabId=tab, content=_far_apart(LONG, ("short", "brief"), 2999))
    assert await _unreviewed(person, tab) == 1
    # Putting the old text back is a revision with nothing to judge: it leaves the backlog empty.
    await ok(mcp, "document", "write", tabId=tab, content=LONG)
    assert await _changes(person, tab) == []
    assert await _unreviewed(person, tab) == 0
    lengthy = _far_apart(LONG, ("long.", "lengthy."), 2998)
    await ok(mcp, "document", "write", tabId=tab, content=lengthy)
    await ok(mcp, "document", "write", tabId=tab, content=lengthy.replace("done", "finished"))
    assert [c["old"] for c in await _changes(person, tab)] == ["long", "done", "says"]
    full = await fail_code(mcp, "document", "write", tabId=tab, content=LONG)
    assert full["error"] == "REVIEW_BACKLOG_FULL"
    assert doc_of(vmark, tab).state.text == lengthy.replace("done", "finished")
    assert (await person.call("history.mark_reviewed", tabId=tab))["reviewed"] == 2
    assert await _unreviewed(person, tab) == 0


# --- the backlog -------------------------------------------------------------------------------------------
async def test_the_backlog_counts_revisions_with_changes_not_judged(
    mcp: Client, plan: Path, person: UIClient, vmark: RunningApp
) -> None:
    vmark.app.settings.set("review_backlog_limit", 2)
    tab = await person_open(person, plan)
    await _edit(mcp, tab, "short", "brief")
    await _edit(mcp, tab, "long", "lengthy")
    full = await fail_code(mcp, "document", "edit", tabId=tab, edits=[{"old": "done", "new": "finished"}])
    assert full["error"] == "REVIEW_BACKLOG_FULL"
    first, _second = await _changes(person, tab)
    await person.call("review.accept", tabId=tab, ids=[first["id"]])
    assert await _unreviewed(person, tab) == 1
    await _edit(mcp, tab, "done", "finished")  # room again
    assert await _unreviewed(person, tab) == 2
    assert (await person.call("history.mark_reviewed", tabId=tab))["reviewed"] == 2
    assert await _changes(person, tab) == []  # "Mark reviewed" accepts every change
    assert doc_of(vmark, tab).state.text == THREE


# --- other tools ------------------------------------------------------------------------------------------------
async def test_a_workflow_patch_is_reviewed_in_a_crlf_file(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    workflow = opened / ".github" / "workflows" / "ci.yml"
    original = "name: ci\r\non: push\r\njobs:\r\n  build:\r\n    runs-on: ubuntu-latest\r\n"
    workflow.write_bytes(original.encode())
    tab = await person_open(person, workflow)
    patches = [{"kind": "job.set", "jobId": "build", "path": "runs-on", "value": "ubuntu-24.04"}]
    applied = await ok(mcp, "workflow", "apply_patch", tabId=tab, patches=patches)
    [change] = await _changes(person, tab)
    shown = doc_of(vmark, tab).state.shown  # ranges are of the text as pages show it (line breaks "\n")
    assert (shown[change["from"] : change["to"]], change["old"], change["tool"]) == (
        "24.04",
        "latest",
        "workflow.apply_patch",
    )
    assert change["revision"] == applied["revision"]
    await person.call("review.reject", tabId=tab, all=True)
    assert doc_of(vmark, tab).state.text == original  # the file's line endings are kept


# --- outside changes ------------------------------------------------------------------------------------------------
async def test_a_file_changed_outside_meanwhile_supersedes_its_pending_changes(data_dir: Path, workspace: Path) -> None:
    path = workspace / "plan.md"
    path.write_text(PLAN, "utf-8")
    first = RunningApp(data_dir, test_hooks=True)
    await first.start()
    try:
        async with UIClient(data_dir) as person, make_client(data_dir) as agent:
            await person.attach("main")
            await person.call("ui.open_folder", path=str(workspace))
            tab = await person_open(person, path)
            await _edit(agent, tab, "short", "brief")
            assert len(await _changes(person, tab)) == 1
    finally:
        await first.stop()
    path.write_text(ONE.replace("# Plan", "# Plan, edited elsewhere"), "utf-8")
    second = RunningApp(data_dir, test_hooks=True)
    await second.start()
    try:
        async with UIClient(data_dir) as person:
            await person.attach("main")
            tab = await person_open(person, path)
            assert await _changes(person, tab) == []  # the ranges were of another text
            assert await _unreviewed(person, tab) == 0
            judged = await second.app.review.store.judged(str(path))
            assert list(judged.values()) == ["superseded"]
    finally:
        await second.stop()


async def test_an_outside_change_while_open_moves_untouched_changes(
    mcp: Client, plan: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab = await person_open(person, plan)
    await _three_changes(mcp, tab)
    doc = doc_of(vmark, tab)
    first = (await _changes(person, tab))[0]
    # Another program rewrites the first paragraph; the clean tab reloads it.
    plan.write_text("# Plan\n\nIntroduction.\n" + THREE[THREE.index("\nThe second") :], "utf-8")
    await wait_until(lambda: "Introduction" in doc.state.text, "the reload from disk")
    changes = await _changes(person, tab)
    assert _shown(doc.state.text, changes) == ["lengthy", "finished"]
    assert await vmark.app.review.store.judged(str(plan)) == {first["id"]: "superseded"}
    assert await _unreviewed(person, tab) == 2


async def test_the_list_by_file_path_opens_the_document(
    mcp: Client, plan: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab = await open_tab(mcp, plan)
    await _edit(mcp, tab, "short", "brief")
    listed = await person.call("review.list", filePath=str(plan))
    assert (listed["tabId"], listed["filePath"], listed["dirty"]) == (tab, str(plan), False)
    assert len(listed["changes"]) == 1


async def test_the_test_hook_switches_review_off_for_a_benchmarks_peer_run(
    mcp: Client, plan: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab = await person_open(person, plan)
    await person.call("test.fault", review=False)
    await _edit(mcp, tab, "short", "brief")
    assert await _changes(person, tab) == []
    assert await _unreviewed(person, tab) == 0
    await person.call("test.fault", review=True)
    await _edit(mcp, tab, "long", "lengthy")
    assert _shown(TWO, await _changes(person, tab)) == ["lengthy"]


async def test_a_selection_set_is_reviewed(mcp: Client, plan: Path, person: UIClient, vmark: RunningApp) -> None:
    tab = await person_open(person, plan)
    at = PLAN.index("short")
    await person.select(tab, at, at + 5)
    written = await ok(mcp, "selection", "set", content="brief")
    [change] = await _changes(person, tab)
    assert (change["from"], change["to"], change["old"], change["tool"], change["revision"]) == (
        at,
        at + 5,
        "short",
        "selection.set",
        written["revision"],
    )


async def test_changes_inside_a_table_and_a_list(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    path = opened / "structure.md"
    text = "# T\n\n| name | state |\n| --- | --- |\n| alpha | open |\n| beta | done |\n\n- first item\n- second item\n"
    path.write_text(text, "utf-8")
    tab = await person_open(person, path)
    await _edit(mcp, tab, "| beta | done |", "| beta | closed |")
    await _edit(mcp, tab, "- second item\n", "- second point\n- third item\n")
    changed = doc_of(vmark, tab).state.text
    changes = await _changes(person, tab)
    assert [(changed[c["from"] : c["to"]], c["old"]) for c in changes] == [
        ("closed", "done"),
        ("point\n- third ", ""),  # the fewest words: "item" stays, it ends the new line
    ]
    await person.call("review.reject", tabId=tab, ids=[changes[1]["id"]])
    assert doc_of(vmark, tab).state.text == text.replace("| beta | done |", "| beta | closed |")


async def test_pending_changes_follow_a_save_as(mcp: Client, plan: Path, person: UIClient, vmark: RunningApp) -> None:
    tab = await person_open(person, plan)
    await _three_changes(mcp, tab)
    before = await _changes(person, tab)
    moved = plan.parent / "moved.md"
    await person.call("ui.save_as", tabId=tab, path=str(moved))
    assert await _changes(person, tab) == before
    listed = await person.call("review.list", filePath=str(moved))
    assert [c["id"] for c in listed["changes"]] == [c["id"] for c in before]
    assert await _unreviewed(person, tab) == 3
    history_ = vmark.app.history
    assert (await history_.unreviewed(str(moved)), await history_.unreviewed(str(plan))) == (3, 0)  # the backlog moved
    await person.call("review.reject", tabId=tab, ids=[before[0]["id"]])
    assert doc_of(vmark, tab).state.text == THREE.replace("brief", "short")
    assert await vmark.app.review.store.judged(str(moved)) == {before[0]["id"]: "rejected"}
    assert await history_.unreviewed(str(moved)) == 2


# --- history ---------------------------------------------------------------------------------------------------
async def test_each_agent_revision_is_an_entry_after_the_text_before_it(
    mcp: Client, plan: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab = await person_open(person, plan)
    cid = (await person.call("comments.add", tabId=tab, quote="long", body="too long?"))["comment"]
    first = await ok(mcp, "document", "edit", tabId=tab, edits=[{"old": "long", "new": "lengthy"}], addresses=[cid])
    mine = first_text = doc_of(vmark, tab).state.text
    mine = mine.replace("# Plan", "# My plan")
    await person.edit(tab, mine)  # unsaved: the next agent revision's "before" is the person's text
    second = await _edit(mcp, tab, "done", "finished")
    snaps = await history(person, tab)
    assert [(s["kind"], s["content"], s["actor"]["kind"]) for s in snaps] == [
        ("disk", PLAN, "disk"),
        ("mcp", first_text, "agent"),
        ("edit", mine, "person"),
        ("mcp", mine.replace("done", "finished"), "agent"),
    ]
    assert [s["revision"] for s in (snaps[1], snaps[3])] == [first["revision"], second["revision"]]
    assert [a["comment"] for a in snaps[1]["addressed"]] == [cid]
    assert snaps[3]["addressed"] == []
    got = await person.call("history.get", tabId=tab, id=snaps[3]["id"])
    assert got["actor"] == {"kind": "agent", "principal": "anonymous", "tool": "document.edit"}


# --- races and sequences ------------------------------------------------------------------------------------------
async def test_a_rejection_aborts_an_agent_write_being_recorded(
    mcp: Client, plan: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab = await person_open(person, plan)
    await _edit(mcp, tab, "short", "brief")
    [change] = await _changes(person, tab)
    async with journal_gate(vmark) as gate:
        write = background(fail_code(mcp, "document", "edit", tabId=tab, edits=[{"old": "long", "new": "lengthy"}]))
        await gate.wait_entered()
        await person.call("review.reject", tabId=tab, ids=[change["id"]])
        gate.release.set()
        envelope = await write
    assert (envelope["error"], envelope["reason"]) == ("ABORTED", "edited")
    assert doc_of(vmark, tab).state.text == PLAN
    assert await _changes(person, tab) == []
    assert plan.read_bytes() == ONE.encode()  # the agent's first edit was saved; the rejection is not yet


async def test_any_sequence_of_agent_edits_rejected_gives_the_text_back_exactly(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    rng = random.Random(17)  # (seeds 1-12 were tried too)
    path = opened / "items.md"
    path.write_text("# Items\n\n" + "".join(f"- item{i} has alpha{i} and beta{i}.\n" for i in range(30)), "utf-8")
    tab = await person_open(person, path)
    doc = doc_of(vmark, tab)
    accepted_text = doc.state.text
    for step in range(40):
        text = doc.state.text
        old = rng.choice(sorted({w for w in re.findall(r"\w+", text) if text.count(w) == 1}))
        new = rng.choice(["", "zz", "new words", old.upper(), f"{old} and more", f"{old}!"])
        await ok(mcp, "document", "edit", tabId=tab, edits=[{"old": old, "new": new}], save=False)
        if step == 20:  # the person accepts what is there so far: rejecting later restores this text
            await person.call("review.accept", tabId=tab, all=True)
            accepted_text = doc.state.text
        changes = await _changes(person, tab)
        assert all(a["to"] <= b["from"] for a, b in pairwise(changes)), changes
        assert all(0 <= c["from"] <= c["to"] <= len(doc.state.shown) for c in changes)
    await person.call("review.reject", tabId=tab, all=True)
    assert doc.state.text == accepted_text
    assert await _changes(person, tab) == []
    assert await _unreviewed(person, tab) == 0


async def test_ranges_stay_ordered_and_inside_the_text_through_anyones_edits(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    rng = random.Random(5)
    path = opened / "items.md"
    path.write_text("# Items\n\n" + "".join(f"- item{i} has alpha{i} and beta{i}.\n" for i in range(30)), "utf-8")
    tab = await person_open(person, path)
    doc = doc_of(vmark, tab)
    for _ in range(60):
        text = doc.state.shown
        if rng.random() < 0.5:
            old = rng.choice(sorted({w for w in re.findall(r"\w+", text) if text.count(w) == 1}))
            await ok(mcp, "document", "edit", tabId=tab, edits=[{"old": old, "new": rng.choice(["", "q", f"{old}2"])}])
        else:
            start = rng.randrange(len(text))
            end = min(len(text), start + rng.choice([0, 1, 3, 12]))
            spans = [[start, end, rng.choice(["", "p", "pp "])]]
            await person.call("ui.edit", tabId=tab, baseRevision=doc.state.revision, changes=spans)
        changes = await _changes(person, tab)
        assert all(a["to"] <= b["from"] for a, b in pairwise(changes)), changes
        assert all(0 <= c["from"] <= c["to"] <= len(doc.state.shown) for c in changes)
        assert all(c["from"] < c["to"] or c["old"] for c in changes)  # a change is never empty both ways
    await person.call("review.reject", tabId=tab, all=True)
    assert await _changes(person, tab) == []
    assert await _unreviewed(person, tab) == 0


async def test_a_cjk_transform_is_reviewed_per_spot(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    path = opened / "cjk.md"
    source = "学习Python编程,很有趣!\n\n`代码,不变`\n"
    path.write_text(source, "utf-8")
    tab = await person_open(person, path)
    await ok(mcp, "document", "transform", tabId=tab, kind="cjk-spacing")
    text = doc_of(vmark, tab).state.text
    assert text == "学习 Python 编程,很有趣!\n\n`代码,不变`\n"
    changes = await _changes(person, tab)
    assert [(text[c["from"] : c["to"]], c["old"], c["tool"]) for c in changes] == [
        (" ", "", "document.transform"),
        (" ", "", "document.transform"),
    ]
    await person.call("review.reject", tabId=tab, ids=[changes[0]["id"]])
    assert doc_of(vmark, tab).state.text == "学习Python 编程,很有趣!\n\n`代码,不变`\n"


async def test_a_revision_undone_in_one_place_and_changed_again_in_another_still_waits(
    mcp: Client, plan: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab = await person_open(person, plan)
    edits = [{"old": "short", "new": "brief"}, {"old": "long", "new": "lengthy"}]
    both = await ok(mcp, "document", "edit", tabId=tab, edits=edits)
    # One edit changes "brief" again and puts "long" back: the first revision still has a change to judge.
    edits = [{"old": "brief", "new": "tiny"}, {"old": "lengthy", "new": "long"}]
    again = await ok(mcp, "document", "edit", tabId=tab, edits=edits)
    [change] = await _changes(person, tab)
    assert (change["old"], doc_of(vmark, tab).state.text[change["from"] : change["to"]]) == ("short", "tiny")
    assert vmark.app.review.pending(doc_of(vmark, tab))[0].revisions == (both["revision"], again["revision"])
    assert await _unreviewed(person, tab) == 2
    assert await vmark.app.history.unreviewed(str(plan)) == 2
