"""The ``comments`` tool through the official MCP client, the person's comment actions, and ``addresses``.

Every refusal is checked to change nothing: the thread as the person sees it, the journal, the document.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

import vmark.app.turns as turns
from tests.conftest import call, fail, fail_code, ok
from tests.contract.helpers import (
    another_page,
    background,
    doc_of,
    journal,
    journal_gate,
    open_tab,
    person_open,
    raw_error,
    snapshot,
    wait_event,
    wait_until,
)
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient, UIError

PAGE_BOUND = 32 * 1024
ID = r"[0-9A-Za-z]{10}"
LATER_PART_KEYS = {"comment", "state", "commentGen", "continued", "repliesFrom", "repliesTotal", "replies"}


# --- helpers --------------------------------------------------------------------------------------------
async def _comment(person: UIClient, tab: str, quote: str, body: str = "please fix", **args: Any) -> dict[str, Any]:
    return dict(await person.call("comments.add", tabId=tab, quote=quote, body=body, **args))


async def _threads(person: UIClient, tab: str) -> list[dict[str, Any]]:
    return list((await person.call("comments.threads", tabId=tab))["threads"])


async def _thread(person: UIClient, tab: str, comment: str) -> dict[str, Any]:
    return next(t for t in await _threads(person, tab) if t["comment"] == comment)


async def _list_raw(client: Client, **args: Any) -> tuple[dict[str, Any], int]:
    """One page and the byte size of its JSON text as the client received it."""
    result = await call(client, "comments", "list", **args)
    text: str = result.content[0].text  # type: ignore[union-attr]
    assert not result.is_error, text
    assert json.loads(text) == result.structured_content
    return dict(result.structured_content or {}), len(text.encode("utf-8"))


async def _all_pages(client: Client, tab: str) -> list[dict[str, Any]]:
    pages: list[dict[str, Any]] = []
    cursor = None
    while True:
        page, size = await _list_raw(client, tabId=tab, **({"cursor": cursor} if cursor else {}))
        assert size <= PAGE_BOUND, size
        pages.append(page)
        cursor = page.get("nextCursor")
        if cursor is None:
            return pages


async def _refused(
    client: Client, person: UIClient, vmark: RunningApp, tab: str, code: str, action: str, **args: Any
) -> dict[str, Any]:
    """Call, expect envelope ``code``, and check that no thread, journal entry or text changed."""
    doc = doc_of(vmark, tab)
    threads, text = await _threads(person, tab), doc.state.text
    entries = await journal(vmark)
    envelope = await fail_code(client, "comments", action, tabId=tab, **args)
    assert envelope["error"] == code, envelope
    assert isinstance(envelope["message"], str) and envelope["message"]
    assert await _threads(person, tab) == threads
    assert await journal(vmark) == entries
    assert doc.state.text == text
    return envelope


def _assert_pages(pages: list[dict[str, Any]], expected: list[tuple[str, list[str]]]) -> None:
    """The pages put together give every thread once, in order, with all its replies in order."""
    seen: list[tuple[str, list[str]]] = []
    for page in pages:
        for part in page["threads"]:
            if part.get("continued"):
                assert set(part) == LATER_PART_KEYS, part
                assert seen[-1][0] == part["comment"]
                assert part["repliesFrom"] == len(seen[-1][1])
                seen[-1][1].extend(r["id"] for r in part["replies"])
            else:
                if "repliesFrom" in part:
                    assert part["repliesFrom"] == 0
                seen.append((part["comment"], [r["id"] for r in part["replies"]]))
            if "repliesTotal" in part:
                assert part["repliesTotal"] == len(dict(expected)[part["comment"]])
    assert seen == expected


# --- list, reply, mark_addressed ----------------------------------------------------------------------------
@pytest.mark.legacy_protocol
async def test_list_reply_and_mark_addressed(mcp: Client, opened: Path, person: UIClient, vmark: RunningApp) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    empty = await ok(mcp, "comments", "list", tabId=tab)
    assert empty == {"doc": str(opened / "a.md"), "generation": empty["generation"], "threads": []}
    added = await _comment(person, tab, "alpha", "Say more about alpha", at=3)
    assert set(added) == {"comment", "commentGen"}
    assert added["comment"].startswith("c-") and len(added["comment"]) == 12
    event = await wait_event(person, "comments")
    assert event == {"doc": str(opened / "a.md"), "filePath": str(opened / "a.md")}

    page = await ok(mcp, "comments", "list", tabId=tab)
    thread = page["threads"][0]
    assert page == {"doc": str(opened / "a.md"), "generation": page["generation"], "threads": [thread]}
    assert page["generation"] != empty["generation"]
    assert thread == {
        "comment": added["comment"],
        "state": "open",
        "commentGen": added["commentGen"],
        "quote": "alpha",
        "body": "Say more about alpha",
        "author": "person",
        "created": thread["created"],
        "anchor": {"from": 5, "to": 10},
        "orphaned": False,
        "replies": [],
    }
    # The focused tab is the default.
    await ok(mcp, "workspace", "switch_tab", tabId=tab)
    assert (await ok(mcp, "comments", "list"))["threads"] == [thread]

    reply = await ok(
        mcp,
        "comments",
        "reply",
        tabId=tab,
        commentId=added["comment"],
        body="Done.",
        expectedCommentGen=thread["commentGen"],
    )
    assert set(reply) == {"reply", "commentGen", "durable"} and reply["durable"] is True
    assert reply["reply"].startswith("r-") and reply["commentGen"] != thread["commentGen"]
    # The same call again gets the first result and adds nothing.
    again = await ok(
        mcp,
        "comments",
        "reply",
        tabId=tab,
        commentId=added["comment"],
        body="Done.",
        expectedCommentGen=thread["commentGen"],
    )
    assert again == reply
    listed = (await ok(mcp, "comments", "list", tabId=tab))["threads"][0]
    assert [(r["id"], r["body"]) for r in listed["replies"]] == [(reply["reply"], "Done.")]
    assert listed["replies"][0]["author"].startswith("anonymous (conn-")
    assert listed["commentGen"] == reply["commentGen"]
    # The same basis with another body is a different call: stale.
    await _refused(
        mcp, person, vmark, tab, "STALE_COMMENT", "reply",
        commentId=added["comment"], body="Other.", expectedCommentGen=thread["commentGen"],
    )  # fmt: skip

    marked = await ok(
        mcp, "comments", "mark_addressed", tabId=tab, commentId=added["comment"], expectedCommentGen=reply["commentGen"]
    )
    assert marked == {
        "comment": added["comment"],
        "state": "addressed",
        "commentGen": marked["commentGen"],
        "durable": True,
    }
    assert marked["commentGen"] != reply["commentGen"]
    repeat = await ok(
        mcp, "comments", "mark_addressed", tabId=tab, commentId=added["comment"], expectedCommentGen=reply["commentGen"]
    )
    assert repeat == marked
    # Already addressed, at its current generation: nothing changes, nothing is recorded.
    current = await ok(
        mcp,
        "comments",
        "mark_addressed",
        tabId=tab,
        commentId=added["comment"],
        expectedCommentGen=marked["commentGen"],
    )
    assert current == {"comment": added["comment"], "state": "addressed", "commentGen": marked["commentGen"]}
    entries = await journal(vmark)
    assert [(e["tool"], json.loads(e["addresses"])) for e in entries] == [
        ("comments.reply", [added["comment"]]),
        ("comments.mark_addressed", [added["comment"]]),
    ]
    doc = doc_of(vmark, tab)
    assert {e["rev_before"] for e in entries} == {e["rev_after"] for e in entries} == {doc.state.revision}
    assert (opened / "a.md").read_text("utf-8") == "# A\n\nalpha\n"  # the text never changes


async def test_refusals_change_nothing(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    other = await open_tab(mcp, opened / "b.md")
    mine = await _comment(person, tab, "alpha")
    foreign = await _comment(person, other, "beta")
    cid, gen = mine["comment"], mine["commentGen"]

    def reply(code: str, **args: Any) -> Any:
        fields = {"commentId": cid, "body": "ok", "expectedCommentGen": gen, **args}
        return _refused(mcp, person, vmark, tab, code, "reply", **fields)

    for bad in ("nope", "c-short", "c-0000000000", foreign["comment"]):
        await reply("INVALID_COMMENT", commentId=bad)
        await _refused(
            mcp, person, vmark, tab, "INVALID_COMMENT", "mark_addressed", commentId=bad, expectedCommentGen=gen
        )
    await reply("STALE_COMMENT", expectedCommentGen="cg-0000000000")
    await reply("COMMENT_LIMIT", body="x" * (16 * 1024 + 1))
    await reply("COMMENT_LIMIT", body="€" * 5462)  # 16,386 bytes in 5,462 characters
    await ok(mcp, "comments", "reply", tabId=tab, commentId=cid, body="€" * 5461 + "x", expectedCommentGen=gen)
    gen = (await _thread(person, tab, cid))["commentGen"]
    for body in ("\ud800", "a\udfffb"):
        await reply("INVALID_TEXT", body=body)

    # Journal refusals.
    await person.call("test.fault", journal="unavailable")
    await reply("JOURNAL_UNAVAILABLE")
    await person.call("test.fault", journal="transient:1000")
    pending = await ok(mcp, "comments", "reply", tabId=tab, commentId=cid, body="pending", expectedCommentGen=gen)
    assert pending["durable"] is False
    gen = pending["commentGen"]
    await reply("JOURNAL_DEGRADED")
    await person.call("test.fault", journal="none")
    await wait_until(lambda: not vmark.app.journal.pending_docs, "the pending entry to be saved")

    # A write being recorded in this tab holds the document's turn: WRITE_BUSY after waiting (3 s in production).
    monkeypatch.setattr(turns, "WRITE_QUEUE_WAIT_SECONDS", 0.2)
    async with journal_gate(vmark) as gate:
        first = background(ok(mcp, "document", "write", tabId=tab, content="# A\n\nalpha\n\nmore\n"))
        await gate.wait_entered()
        message = await fail(mcp, "comments", "reply", tabId=tab, commentId=cid, body="b", expectedCommentGen=gen)
        assert isinstance(message, str) and message.startswith("WRITE_BUSY"), message
        gate.release.set()
        await first
    # ... and JOURNAL_BUSY from a tab of the same document in another window.
    async with another_page(vmark) as second:
        twin = await person_open(second, opened / "a.md")
        async with journal_gate(vmark) as gate:
            first = background(ok(mcp, "document", "write", tabId=tab, content="# A\n\nalpha\n"))
            await gate.wait_entered()
            await _refused(
                mcp, person, vmark, twin, "JOURNAL_BUSY", "reply", commentId=cid, body="b", expectedCommentGen=gen
            )
            gate.release.set()
            await first

    # Resolved: not allowed (at the current generation); deleted: stale.
    resolved = await person.call("comments.resolve", commentId=cid)
    assert resolved == {"comment": cid, "state": "resolved", "commentGen": resolved["commentGen"]}
    await reply("COMMENT_NOT_ALLOWED", expectedCommentGen=resolved["commentGen"])
    await _refused(
        mcp, person, vmark, tab, "COMMENT_NOT_ALLOWED", "mark_addressed", commentId=cid,
        expectedCommentGen=resolved["commentGen"],
    )  # fmt: skip
    reopened = await person.call("comments.reopen", commentId=cid)
    assert reopened["state"] == "reopened"
    deleted = await person.call("comments.delete", commentId=cid)
    assert deleted == {"comment": cid, "state": "deleted", "commentGen": deleted["commentGen"]}
    assert await _threads(person, tab) == []
    envelope = await fail_code(
        mcp, "comments", "reply", tabId=tab, commentId=cid, body="b", expectedCommentGen=deleted["commentGen"]
    )
    assert envelope["error"] == "STALE_COMMENT"
    # Resolving, reopening or deleting is no tool action: refused before the app.
    for action in ("resolve", "reopen", "delete"):
        assert action in await raw_error(mcp, "comments", {"action": action, "commentId": foreign["comment"]})
    assert (await _thread(person, other, foreign["comment"]))["state"] == "open"


async def test_reply_limit_at_200(mcp: Client, opened: Path, person: UIClient, vmark: RunningApp) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    cid = (await _comment(person, tab, "alpha"))["comment"]
    for i in range(199):
        await person.call("comments.person_reply", commentId=cid, body=f"r{i}")
    gen = (await _thread(person, tab, cid))["commentGen"]
    last = await ok(mcp, "comments", "reply", tabId=tab, commentId=cid, body="200th", expectedCommentGen=gen)
    await _refused(
        mcp, person, vmark, tab, "COMMENT_LIMIT", "reply", commentId=cid, body="201st",
        expectedCommentGen=last["commentGen"],
    )  # fmt: skip
    with pytest.raises(UIError) as refused:
        await person.call("comments.person_reply", commentId=cid, body="201st")
    assert refused.value.error["error"] == "COMMENT_LIMIT"
    # A full thread can still be marked addressed.
    marked = await ok(
        mcp, "comments", "mark_addressed", tabId=tab, commentId=cid, expectedCommentGen=last["commentGen"]
    )
    assert marked["state"] == "addressed"
    assert len((await _thread(person, tab, cid))["replies"]) == 200


# --- pages ------------------------------------------------------------------------------------------------------
async def test_pages_split_threads_of_0_1_199_and_200_replies(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    expected: list[tuple[str, list[str]]] = []
    for count in (0, 1, 199, 200, 1):
        cid = (await _comment(person, tab, "alpha", f"thread with {count} replies"))["comment"]
        replies = []
        for i in range(count):
            replies.append(
                (await person.call("comments.person_reply", commentId=cid, body=f"{i:03} " + "ü" * 300))["reply"]
            )
        expected.append((cid, replies))
    pages = await _all_pages(mcp, tab)
    _assert_pages(pages, expected)
    assert len(pages) >= 4
    generations = {p["generation"] for p in pages}
    assert len(generations) == 1
    # Threads that fit a page are whole: no split fields.
    parts = [part for page in pages for part in page["threads"]]
    whole = [p for p in parts if p["comment"] in (expected[0][0], expected[1][0], expected[4][0])]
    assert all("repliesFrom" not in p and "continued" not in p for p in whole)
    first_parts = [p for p in parts if p["comment"] == expected[3][0] and not p.get("continued")]
    assert len(first_parts) == 1 and first_parts[0]["repliesTotal"] == 200
    assert first_parts[0]["body"] == "thread with 200 replies"


async def test_heavily_escaped_bodies_arrive_as_base64(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    escaped = "".join(chr(1 + i % 31) for i in range(16 * 1024))  # every one JSON-escaped as \u00XX: ~96 KiB
    plain = "x" * (16 * 1024)  # 16 KiB as JSON text fits a page
    cid = (await _comment(person, tab, "alpha", escaped))["comment"]
    replies = [
        (await person.call("comments.person_reply", commentId=cid, body=body))["reply"]
        for body in (escaped, plain, "short")
    ]
    other = (await _comment(person, tab, "alpha", plain))["comment"]
    pages = await _all_pages(mcp, tab)
    _assert_pages(pages, [(cid, replies), (other, [])])
    parts = [part for page in pages for part in page["threads"]]
    first = next(p for p in parts if p["comment"] == cid and not p.get("continued"))
    assert "body" not in first
    assert base64.b64decode(first["bodyBase64"]).decode("utf-8") == escaped
    by_id = {r["id"]: r for p in parts for r in p["replies"]}
    assert "body" not in by_id[replies[0]]
    assert base64.b64decode(by_id[replies[0]]["bodyBase64"]).decode("utf-8") == escaped
    assert by_id[replies[1]]["body"] == plain and "bodyBase64" not in by_id[replies[1]]
    assert by_id[replies[2]]["body"] == "short"
    assert next(p for p in parts if p["comment"] == other)["body"] == plain


async def test_cursors_are_bound_to_the_document_and_live_threads(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab_a = await open_tab(mcp, opened / "a.md")
    tab_b = await open_tab(mcp, opened / "b.md")
    for tab, quote in ((tab_a, "alpha"), (tab_b, "beta")):
        for _ in range(3):
            await _comment(person, tab, quote, "z" * 15_000)
    first_a = await ok(mcp, "comments", "list", tabId=tab_a)
    first_b = await ok(mcp, "comments", "list", tabId=tab_b)
    assert first_a["nextCursor"] and first_b["nextCursor"]
    await _refused(mcp, person, vmark, tab_a, "STALE_COMMENT", "list", cursor=first_b["nextCursor"])
    await _refused(mcp, person, vmark, tab_b, "STALE_COMMENT", "list", cursor=first_a["nextCursor"])
    for junk in ("", "cc-", "cc-!!!", "nope", first_a["nextCursor"][:-2]):
        await _refused(mcp, person, vmark, tab_a, "STALE_COMMENT", "list", cursor=junk)
    second = await ok(mcp, "comments", "list", tabId=tab_a, cursor=first_a["nextCursor"])
    assert second["threads"][0]["comment"] not in [t["comment"] for t in first_a["threads"]]
    await person.call("comments.delete", commentId=second["threads"][0]["comment"])
    await _refused(mcp, person, vmark, tab_a, "STALE_COMMENT", "list", cursor=first_a["nextCursor"])


# --- anchors follow the text -------------------------------------------------------------------------------------
async def test_anchors_follow_edits_and_orphans_stay_listed(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    cid = (await _comment(person, tab, "alpha"))["comment"]
    await ok(mcp, "document", "write", tabId=tab, content="# A\n\nintro\n\nalpha\n")
    thread = await _thread(person, tab, cid)
    assert (thread["anchor"], thread["orphaned"]) == ({"from": 12, "to": 17}, False)
    await person.edit(tab, "# A\n\nnothing left\n")
    orphan = (await ok(mcp, "comments", "list", tabId=tab))["threads"][0]
    assert (orphan["comment"], orphan["anchor"], orphan["orphaned"]) == (cid, None, True)
    await person.edit(tab, "alpha again\n")
    back = await _thread(person, tab, cid)
    assert (back["anchor"], back["orphaned"]) == ({"from": 0, "to": 5}, False)


# --- the person's side ----------------------------------------------------------------------------------------------
async def test_person_actions_by_file_path(opened: Path, person: UIClient, vmark: RunningApp) -> None:
    path = str(opened / "notes" / "c.md")  # open in no tab
    added = await person.call("comments.add", filePath=path, quote="C", body="why C?")
    listed = await person.call("comments.threads", filePath=path)
    assert listed["doc"] == path
    assert [(t["comment"], t["anchor"], t["author"]) for t in listed["threads"]] == [
        (added["comment"], {"from": 2, "to": 3}, "person")
    ]
    reply = await person.call("comments.person_reply", commentId=added["comment"], body="because")
    assert reply["reply"].startswith("r-") and reply["commentGen"] != added["commentGen"]
    for args, needle in (
        ({"filePath": path, "quote": "absent", "body": "b"}, "does not occur"),
        ({"filePath": path, "quote": "", "body": "b"}, "empty"),
        ({"filePath": path, "quote": "C" * 1025, "body": "b"}, "longer"),
        ({"quote": "C", "body": "b"}, "tabId or filePath"),
        ({"filePath": path, "quote": "C", "body": "b", "at": -1}, "at"),
    ):
        with pytest.raises(UIError) as refused:
            await person.call("comments.add", **args)
        assert isinstance(refused.value.error, str) and needle in refused.value.error, refused.value.error
    with pytest.raises(UIError) as limit:
        await person.call("comments.add", filePath=path, quote="C", body="b" * (16 * 1024 + 1))
    assert limit.value.error["error"] == "COMMENT_LIMIT"
    with pytest.raises(UIError) as unknown:
        await person.call("comments.resolve", commentId="c-0000000000")
    assert unknown.value.error["error"] == "INVALID_COMMENT"
    assert len((await person.call("comments.threads", filePath=path))["threads"]) == 1


async def test_threads_survive_a_restart_and_a_save_as(data_dir: Path, workspace: Path) -> None:
    first = RunningApp(data_dir, test_hooks=True)
    await first.start()
    try:
        async with UIClient(data_dir) as person:
            await person.attach("main")
            tab = await person_open(person, workspace / "a.md")
            cid = (await _comment(person, tab, "alpha", "keep me"))["comment"]
            await person.call("comments.person_reply", commentId=cid, body="kept")
    finally:
        await first.stop()
    second = RunningApp(data_dir, test_hooks=True)
    await second.start()
    try:
        async with UIClient(data_dir) as person:
            await person.attach("main")
            tab = await person_open(person, workspace / "a.md")
            thread = await _thread(person, tab, cid)
            assert (thread["body"], [r["body"] for r in thread["replies"]]) == ("keep me", ["kept"])
            assert thread["anchor"] == {"from": 5, "to": 10}
            moved = workspace / "moved.md"
            await person.call("ui.save_as", tabId=tab, path=str(moved))
            assert [t["comment"] for t in await _threads(person, tab)] == [cid]
            assert [t["comment"] for t in (await person.call("comments.threads", filePath=str(moved)))["threads"]] == [
                cid
            ]
            assert (await person.call("comments.threads", filePath=str(workspace / "a.md")))["threads"] == []
    finally:
        await second.stop()
    third = RunningApp(data_dir, test_hooks=True)
    await third.start()
    try:
        async with UIClient(data_dir) as person:
            await person.attach("main")
            listed = await person.call("comments.threads", filePath=str(workspace / "moved.md"))
            assert [t["comment"] for t in listed["threads"]] == [cid]
    finally:
        await third.stop()


async def test_an_untitled_documents_threads_move_with_its_save_as(
    opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab = (await person.call("ui.new"))["tabId"]
    await person.edit(tab, "draft text\n")
    cid = (await _comment(person, tab, "draft", "name it"))["comment"]
    key = doc_of(vmark, tab).key
    assert (await person.call("comments.threads", tabId=tab))["doc"] == key
    target = opened / "draft.md"
    person.events.clear()
    await person.call("ui.save_as", tabId=tab, path=str(target))
    assert await wait_event(person, "comments") == {"doc": str(target), "filePath": str(target)}
    listed = await person.call("comments.threads", filePath=str(target))
    assert (listed["doc"], [t["comment"] for t in listed["threads"]]) == (str(target), [cid])
    assert await _threads(person, tab) == listed["threads"]


# --- addresses ----------------------------------------------------------------------------------------------
async def test_addresses_on_writes(mcp: Client, opened: Path, person: UIClient, vmark: RunningApp) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    other = await open_tab(mcp, opened / "b.md")
    answered = (await _comment(person, tab, "alpha", "answer me"))["comment"]
    resolved = (await _comment(person, tab, "alpha", "resolved"))["comment"]
    deleted = (await _comment(person, tab, "alpha", "deleted"))["comment"]
    foreign = (await _comment(person, other, "beta"))["comment"]
    await person.call("comments.resolve", commentId=resolved)
    await person.call("comments.delete", commentId=deleted)
    doc = doc_of(vmark, tab)
    threads = await _threads(person, tab)
    for addresses in (
        ["c-0000000000"],
        [deleted],
        [resolved],
        [foreign],
        [answered, foreign],
        [answered, answered],
        [answered] + [f"c-{i:010}" for i in range(64)],
    ):
        before = await snapshot(vmark, doc, opened / "a.md")
        envelope = await fail_code(
            mcp, "document", "write", tabId=tab, content="# changed\n\nalpha\n", addresses=addresses
        )
        assert envelope["error"] == "INVALID_ADDRESSES", (addresses, envelope)
        assert await snapshot(vmark, doc, opened / "a.md") == before
        assert await _threads(person, tab) == threads
    written = await ok(mcp, "document", "write", tabId=tab, content="# changed\n\nalpha\n", addresses=[answered])
    # The link changes no thread (only the anchors follow the new text).
    assert [{**t, "anchor": None} for t in await _threads(person, tab)] == [{**t, "anchor": None} for t in threads]
    entry = (await journal(vmark))[-1]
    assert (entry["rev_after"], json.loads(entry["addresses"])) == (written["revision"], [answered])
    snaps = (await person.call("history.list", tabId=tab, content=False))["snapshots"]
    linked = [s for s in snaps if s["revision"] == written["revision"]]
    assert [s["addressed"] for s in linked] == [[{"comment": answered, "quote": "alpha", "state": "open"}]]
    assert all(s["addressed"] == [] for s in snaps if s["revision"] != written["revision"])
    # A comment deleted later shows in the history as a deleted comment.
    await person.call("comments.delete", commentId=answered)
    snaps = (await person.call("history.list", tabId=tab, content=False))["snapshots"]
    linked = [s for s in snaps if s["revision"] == written["revision"]]
    assert [s["addressed"] for s in linked] == [[{"comment": answered, "quote": "alpha", "state": "deleted"}]]
