"""The history of a document: ``history.list / get / revert / mark_reviewed`` and the page's history sidebar."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import expect

from tests.conftest import fail_code, make_client, ok
from tests.contract.helpers import (
    another_page,
    background,
    history,
    journal_gate,
    person_open,
    wait_event,
)
from tests.ui.conftest import Pages
from tests.ui.helpers import (
    agent_write,
    doc_of,
    open_folder,
    open_from_tree,
    type_at_end,
    wait_doc_text,
    wait_editor_text,
)
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient, UIError

A = "# A\n\nalpha\n"
MINE = "# A\n\nmine\n"
AGENT = "# A\n\nfrom the agent\n"


async def _unreviewed(person: UIClient, tab: str) -> int:
    return int((await person.call("history.list", tabId=tab, content=False))["unreviewed"])


# --- the protocol ------------------------------------------------------------------------------------------
async def test_list_get_and_revert_as_the_persons_edit(vmark: RunningApp, person: UIClient, opened: Path) -> None:
    path = opened / "a.md"
    tab = await person_open(person, path)
    await person.edit(tab, MINE)
    saved = await person.call("ui.save", tabId=tab)
    token = vmark.app.principals.add("alice")
    async with make_client(vmark.data_dir, client_token=token) as agent:
        wrote = await agent_write(agent, tab, AGENT)
    listing = await person.call("history.list", tabId=tab, content=False)
    manual, ai = listing["snapshots"]
    assert listing["unreviewed"] == 1
    assert manual == {
        "id": manual["id"],
        "path": str(path),
        "kind": "manual",
        "revision": saved["revision"],
        "time": manual["time"],
        "principal": None,
        "addresses": [],
        "addressed": [],
        "label": "",
        "tool": None,
        "client": None,
        "actor": {"kind": "person"},
    }
    assert ai == {
        **manual,
        "id": ai["id"],
        "kind": "mcp",
        "revision": wrote["revision"],
        "time": ai["time"],
        "principal": "alice",
        "label": "(mcp)",
        "tool": "document.write",
        "actor": {"kind": "agent", "principal": "alice", "tool": "document.write"},
    }
    assert await person.call("history.get", tabId=tab, id=manual["id"]) == {**manual, "content": MINE}
    assert await person.call("history.get", tabId=tab, id=ai["id"]) == {**ai, "content": AGENT}

    async with another_page(vmark) as other:  # a second window on the same file
        other_tab = await person_open(other, path)
        reverted = await person.call("history.revert", tabId=tab, id=manual["id"])
        doc = doc_of(vmark, tab)
        assert (doc.state.text, doc.state.revision, doc.dirty) == (MINE, reverted["revision"], True)
        assert path.read_bytes() == AGENT.encode()  # a revert does not save
        # Every page gets the reverted text, the one that asked for it too (it did not type it).
        for page, shown in ((person, tab), (other, other_tab)):
            event = await wait_event(page, "doc", lambda p: p["revision"] == reverted["revision"])
            assert (event["tabIds"], event["origin"], event["dirty"]) == ([shown], "person", True)
            assert event["changes"] == {"base": wrote["revision"], "spans": [[5, 19, "mine"]]}  # AGENT -> MINE

    after = await person.call("history.list", tabId=tab, content=False)
    assert [(s["kind"], s["revision"]) for s in after["snapshots"]] == [
        ("manual", saved["revision"]),
        ("mcp", wrote["revision"]),
        ("revert", reverted["revision"]),
    ]
    assert after["unreviewed"] == 0  # reverting to a snapshot before it undid the AI revision
    await person.call("ui.save", tabId=tab)
    assert path.read_bytes() == MINE.encode()


async def test_a_revert_undoes_only_the_ai_revisions_after_its_snapshot(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    path = opened / "a.md"
    tab = await person_open(person, path)
    async with make_client(vmark.data_dir) as agent:
        first = await agent_write(agent, tab, "one\n")
        second = await agent_write(agent, tab, "two\n")
    disk, first_snap, second_snap = await history(person, tab)
    assert [(s["kind"], s["content"]) for s in (disk, first_snap, second_snap)] == [
        ("disk", A),
        ("mcp", "one\n"),
        ("mcp", "two\n"),
    ]
    assert await _unreviewed(person, tab) == 2
    # The snapshot of the current text: nothing changes, no revision, no snapshot, nothing reviewed.
    assert await person.call("history.revert", tabId=tab, id=second_snap["id"]) == {"revision": second["revision"]}
    assert doc_of(vmark, tab).state.revision == second["revision"]
    assert len(await history(person, tab)) == 3
    assert await _unreviewed(person, tab) == 2
    reverted = await person.call("history.revert", tabId=tab, id=first_snap["id"])
    assert (doc_of(vmark, tab).state.text, doc_of(vmark, tab).state.revision) == ("one\n", reverted["revision"])
    assert await _unreviewed(person, tab) == 1  # "two" was undone; "one" still waits for review
    assert path.read_bytes() == b"two\n"
    # The agent's change that the reverted text still holds is still to review, as the first revision's.
    [change] = (await person.call("review.list", tabId=tab))["changes"]
    assert (change["from"], change["to"], change["old"], change["revision"]) == (
        0,
        3,
        "# A\n\nalpha",
        first["revision"],
    )


async def test_get_and_revert_refuse_foreign_unknown_and_mistyped_ids(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    a_tab = await person_open(person, opened / "a.md")
    b_tab = await person_open(person, opened / "b.md")
    await person.edit(b_tab, "# B\n\nchanged\n")
    await person.call("ui.save", tabId=b_tab)
    [b_snap] = await history(person, b_tab)
    before = doc_of(vmark, a_tab).state
    foreign = f"no snapshot {b_snap['id']} in this document's history"
    mistyped = "argument 'id' must be an integer"
    cases = [(b_snap["id"], foreign), (987654, "no snapshot 987654 in this document's history")]
    cases += [(str(b_snap["id"]), mistyped), (True, mistyped), (None, mistyped)]
    for action in ("history.get", "history.revert"):
        for bad, message in cases:
            with pytest.raises(UIError) as info:
                await person.call(action, tabId=a_tab, id=bad)
            assert info.value.error == message, (action, bad)
    with pytest.raises(UIError) as listing:
        await person.call("history.list", tabId=a_tab, content="no")
    assert listing.value.error == "argument 'content' must be a boolean"
    assert doc_of(vmark, a_tab).state == before
    assert (opened / "a.md").read_bytes() == A.encode()
    assert await history(person, a_tab) == []


async def test_a_revert_aborts_an_agent_write_being_recorded(vmark: RunningApp, person: UIClient, opened: Path) -> None:
    path = opened / "a.md"
    tab = await person_open(person, path)
    await person.edit(tab, MINE)
    await person.call("ui.save", tabId=tab)
    [snap] = await history(person, tab)
    await person.edit(tab, "# A\n\nlater\n")
    async with make_client(vmark.data_dir) as agent:
        read = await ok(agent, "document", "read", tabId=tab)
        async with journal_gate(vmark) as gate:
            write = background(
                fail_code(agent, "document", "write", tabId=tab, content=AGENT, expected_revision=read["revision"])
            )
            await gate.wait_entered()
            reverted = await person.call("history.revert", tabId=tab, id=snap["id"])
            gate.release.set()
            envelope = await write
    assert (envelope["error"], envelope["reason"]) == ("ABORTED", "edited")
    doc = doc_of(vmark, tab)
    assert (doc.state.text, doc.state.revision) == (MINE, reverted["revision"])
    assert path.read_bytes() == MINE.encode()
    assert await _unreviewed(person, tab) == 0


# --- the page ------------------------------------------------------------------------------------------------
async def test_the_sidebar_shows_each_versions_changes_and_reverts_by_click(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    path = workspace / "a.md"
    page = await pages.open()
    await open_folder(page, workspace)
    tab = await open_from_tree(page, "a.md")
    await type_at_end(page, "mine")
    await wait_doc_text(vmark, tab, A + "mine")
    await page.click("#save-tab")
    await expect(page.locator(f".tab[data-tab-id='{tab}']")).to_have_attribute("data-dirty", "false")
    assert path.read_bytes() == (A + "mine").encode()
    agent_text = A + "from the agent\n"
    async with make_client(vmark.data_dir, client_token=vmark.app.principals.add("alice")) as agent:
        await agent_write(agent, tab, agent_text)
    await wait_editor_text(page, agent_text)

    await page.click("#history-toggle")
    items = page.locator("#history-list .snapshot")
    await expect(items.locator(".snapshot-kind")).to_have_text(["(mcp)", "manual"])  # newest first
    await expect(items.locator(".snapshot-who")).to_have_text(["alice · document.write", "you"])
    await expect(page.get_by_test_id("history-unreviewed")).to_have_text("1 AI revision to review")
    # The newest version is shown at once: what the agent's write changed, not "no differences".
    caption = page.locator("#history-selected")
    await expect(caption).to_have_text("What this version changed from the one before (alice · document.write):")
    diff = page.get_by_test_id("history-diff")
    await expect(diff).to_have_attribute("data-state", "changed")
    await expect(diff.locator(".diff-word.removed")).to_have_text(["mine"])
    await expect(diff.locator(".diff-word.added")).to_have_text(["from the agent"])
    await expect(page.locator("#history-revert")).to_be_disabled()  # it is the current text
    await items.nth(1).locator("button").click()  # the manual snapshot: the person's typing
    await expect(caption).to_have_text("The first version (you):")
    await expect(diff.locator(".diff-word.added")).to_have_text([A + "mine"])

    await page.click("#history-revert")
    await wait_editor_text(page, A + "mine")
    await wait_doc_text(vmark, tab, A + "mine")
    await expect(items.locator(".snapshot-kind")).to_have_text(["revert", "(mcp)", "manual"])
    await expect(items.nth(0).locator(".snapshot-who")).to_have_text("you (revert)")
    await expect(page.get_by_test_id("history-unreviewed")).to_have_text("All AI revisions reviewed")
    await items.nth(0).locator("button").click()
    await expect(diff.locator(".diff-word.removed")).to_have_text(["from the agent"])
    await expect(diff.locator(".diff-word.added")).to_have_text(["mine"])
    assert path.read_bytes() == agent_text.encode()  # reverting does not save
    await page.click("#save-tab")
    await expect(page.locator(f".tab[data-tab-id='{tab}']")).to_have_attribute("data-dirty", "false")
    assert path.read_bytes() == (A + "mine").encode()


async def test_mark_reviewed_lets_a_blocked_agent_write_again(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    vmark.app.settings.set("review_backlog_limit", 2)
    page = await pages.open()
    await open_folder(page, workspace)
    tab = await open_from_tree(page, "a.md")
    await page.click("#history-toggle")
    count = page.get_by_test_id("history-unreviewed")
    await expect(count).to_have_text("All AI revisions reviewed")
    async with make_client(vmark.data_dir) as agent:
        await agent_write(agent, tab, "one\n")
        two = await agent_write(agent, tab, "two\n")
        await expect(count).to_have_text("2 AI revisions to review")
        await expect(page.locator("#history-list .snapshot[data-kind=mcp]")).to_have_count(2)
        refused = await fail_code(
            agent, "document", "write", tabId=tab, content="three\n", expected_revision=two["revision"]
        )
        assert refused["error"] == "REVIEW_BACKLOG_FULL"
        await page.click("#history-mark-reviewed")
        await expect(count).to_have_text("All AI revisions reviewed")
        await expect(count).to_have_attribute("data-count", "0")
        await expect(page.locator("#history-mark-reviewed")).to_be_disabled()
        wrote = await ok(agent, "document", "write", tabId=tab, content="three\n", expected_revision=two["revision"])
        assert (wrote["applied"], wrote["saved"]) == (True, True)
    assert (workspace / "a.md").read_bytes() == b"three\n"
    await wait_editor_text(page, "three\n")
    await expect(count).to_have_text("1 AI revision to review")
