"""The Coherence panel in the page: the tracking switch, the breakdown of a stale edge grouped by its
derived document (accept newer, revise with the source's change, waive with a required reason),
delegations granted and revoked, claims added / established / invalidated, and contexts with their
errors. An agent (the official MCP client) makes the edges: it reads a.md and writes b.md."""

from __future__ import annotations

import re
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from playwright.async_api import Locator, Page, expect

from tests.conftest import make_client
from tests.contract.helpers import disk_checked
from tests.contract.test_coherence_tool import derive, ledger_records
from tests.ui.conftest import Pages
from tests.ui.helpers import open_folder, open_from_tree, type_at_end, wait_doc_text, wait_editor_text
from vmark.app.server import RunningApp

IDENTITY = re.compile(r"^---\nvmark: \{id: [0-9a-f-]{36}\}\n---\n# A\n\nalpha\n$")


async def _panel(pages: Pages, workspace: Path) -> Page:
    """A page with ``workspace`` open and the Coherence panel shown."""
    page = await pages.open()
    await open_folder(page, workspace)
    await page.click("#coherence-toggle")
    await expect(page.get_by_test_id("coherence")).to_be_visible()
    await expect(page.locator("#coherence-root")).to_have_text(str(workspace.resolve()))
    return page


async def _tracked(pages: Pages, workspace: Path) -> Page:
    page = await _panel(pages, workspace)
    await page.get_by_role("button", name="Track provenance in this workspace").click()
    await expect(page.get_by_test_id("coherence-off")).to_be_hidden()
    return page


async def _stale(pages: Pages, vmark: RunningApp, workspace: Path) -> tuple[Page, Locator]:
    """Tracking on, an agent derives b.md from a.md, a.md moves on disk: the edge in the panel."""
    page = await _tracked(pages, workspace)
    async with make_client(vmark.data_dir) as agent:
        await derive(agent, workspace)
    with (workspace / "a.md").open("a") as upstream:
        upstream.write("\nalpha moved\n")
    await page.click("#coherence-refresh")
    item = page.locator(".coherence-group[data-downstream='b.md'] .coherence-item")
    await expect(item).to_have_count(1)
    return page, item


def _kinds(workspace: Path, kind: str) -> list[dict[str, Any]]:
    return [r for r in ledger_records(workspace) if r["kind"] == kind]


async def test_tracking_is_switched_on_from_the_panel(pages: Pages, workspace: Path) -> None:
    page = await _panel(pages, workspace)
    off = page.get_by_test_id("coherence-off")
    await expect(off).to_contain_text("Provenance is not tracked here.")
    assert not (workspace / ".vmark").exists()
    await page.get_by_role("button", name="Track provenance in this workspace").click()
    await expect(off).to_be_hidden()
    assert (workspace / ".vmark" / "ledger").is_dir()
    assert (workspace / "a.md").read_text() == "# A\n\nalpha\n"  # switching tracking on rewrites no file
    counters = page.get_by_test_id("coherence-counters")
    await expect(counters.locator("[data-counter='objects']")).to_have_text("5 documents tracked")
    await expect(counters.locator("[data-counter='open']")).to_have_text("Nothing to resolve")
    await expect(counters.locator("[data-counter='quarantined']")).to_have_text("Ledger intact")
    await expect(page.locator(".coherence-empty")).to_have_text(
        "Nothing to resolve: every derived document is up to date."
    )
    await expect(page.get_by_test_id("coherence-duplicates")).to_be_hidden()


async def test_identities_are_added_when_the_person_asks(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page = await _tracked(pages, workspace)
    # a.md open with unsaved typing: left alone (it gets its identity when saved), and no banner.
    tab = await open_from_tree(page, "a.md")
    await type_at_end(page, "typed")
    await wait_doc_text(vmark, tab, "# A\n\nalpha\ntyped")
    await page.get_by_role("button", name="Add identities").click()
    await expect(page.locator(".toast").last).to_have_text(
        "Added an id to 3 files; 1 file left for their next save (unsaved changes or changed meanwhile)"
    )
    assert (workspace / "a.md").read_text() == "# A\n\nalpha\n"
    assert re.fullmatch(r"---\nvmark: \{id: [0-9a-f-]{36}\}\n---\n# B\n\nbeta\n", (workspace / "b.md").read_text())
    await disk_checked(vmark)
    await expect(page.locator("#divergence")).to_be_hidden()
    await expect(page.locator(".tab.active .dirty-marker")).to_have_text("●")
    await page.get_by_role("button", name="Add identities").click()
    await expect(page.locator(".toast").last).to_have_text(
        "Added an id to 0 files; 1 file left for their next save (unsaved changes or changed meanwhile)"
    )


async def test_a_stale_edge_is_grouped_under_its_downstream_and_accepted(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, item = await _stale(pages, vmark, workspace)
    group = page.locator(".coherence-group")
    await expect(group).to_have_count(1)
    await expect(group.locator("h3")).to_have_text("b.md")
    await expect(item).to_have_attribute("data-state", "version-stale")
    await expect(item.locator(".coherence-upstream")).to_have_text("a.md")
    await expect(item.locator(".coherence-state")).to_have_text("Upstream changed")
    txf_id = await item.get_attribute("data-txf")
    (txf,) = [r for r in _kinds(workspace, "txf") if r["id"] == txf_id]
    assert txf["body"]["tool"] == "document.write"
    pinned = txf["body"]["inputs"][0]["rev"]
    rev = item.locator(".coherence-rev")
    await expect(rev).to_have_attribute("title", pinned)
    await expect(rev).to_have_text(pinned.removeprefix("rev1:")[:10])
    await expect(page.locator("[data-counter='open']")).to_have_text("1 thing to resolve")

    await item.get_by_role("button", name="Accept newer").click()
    await expect(item).to_have_count(0)
    await expect(page.locator(".coherence-empty")).to_be_visible()
    await expect(page.locator("[data-counter='open']")).to_have_text("Nothing to resolve")
    (ratify,) = _kinds(workspace, "ratify")
    assert ratify["body"]["by"] == {"kind": "person", "principal": None}
    assert (ratify["body"]["txf"], ratify["body"]["input"], ratify["body"]["grant"]) == (txf_id, 0, None)


async def test_a_waiver_needs_a_reason(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    _, item = await _stale(pages, vmark, workspace)
    await item.get_by_role("button", name="Waive").click()
    form = item.locator(".coherence-waive-form")
    await form.get_by_role("button", name="Waive").click()
    await expect(form.get_by_role("alert")).to_have_text("A waiver needs a reason.")
    await expect(form.get_by_label("Reason (required)")).to_be_focused()
    assert _kinds(workspace, "waive") == []
    await expect(item).to_have_attribute("data-state", "version-stale")

    await form.get_by_label("Reason (required)").fill("the typo fix changes nothing")
    await form.get_by_label("Waiver expires").select_option(label="7 days")
    before = time.time()
    await form.get_by_role("button", name="Waive").click()
    await expect(item).to_have_attribute("data-state", "waived")
    await expect(item.locator(".coherence-state")).to_have_text("Waived")
    await expect(item.locator(".coherence-waive-form")).to_have_count(0)
    (waive,) = _kinds(workspace, "waive")
    body = waive["body"]
    assert (body["reason"], body["by"], body["grant"]) == (
        "the typo fix changes nothing",
        {"kind": "person", "principal": None},
        None,
    )
    expires = datetime.fromisoformat(body["expires"].replace("Z", "+00:00")).timestamp()
    assert before + 7 * 86400 - 5 < expires < time.time() + 7 * 86400 + 5


async def test_revise_opens_the_downstream_and_shows_the_sources_change(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, item = await _stale(pages, vmark, workspace)
    # Another document is shown first: "Revise" switches to the derived one.
    await page.click("button.file[data-path='notes/c.md']")
    await expect(page.locator(".tab.active .title")).to_have_text("c")
    await item.get_by_role("button", name="Revise").click()
    await expect(page.locator(".tab.active .title")).to_have_text("b")
    await wait_editor_text(page, "# B\n\nfrom alpha\n")  # the agent's text (the file adds its identity)
    change = item.get_by_test_id("coherence-change")
    await expect(change.locator(".hint").first).to_have_text("What changed in a.md since the pinned revision:")
    await expect(change.locator(".diff-line.added")).to_have_text(["", "alpha moved"])
    await expect(change.locator(".diff-line.removed")).to_have_count(0)
    await expect(change.locator(".diff-line.same").last).to_have_text("alpha")
    await change.get_by_role("button", name="Hide changes").click()
    await expect(change).to_have_count(0)


async def test_a_delegation_is_granted_and_revoked(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    vmark.app.principals.add("alice")
    page = await _tracked(pages, workspace)
    await page.get_by_role("tab", name="Delegations").click()
    view = page.locator("#coherence-view-delegations")
    await expect(view.get_by_label("Agent (principal)")).to_have_value("alice")
    await expect(view.get_by_label("Expires after")).to_have_value("7d")
    # No scope chosen: nothing is asked of the app.
    await view.get_by_role("button", name="Grant").click()
    await expect(view.get_by_role("alert")).to_have_text("Choose at least one thing it may do.")
    assert vmark.app.coherence.delegations.list() == []

    await view.get_by_label("Accept newer").check()
    await view.get_by_label("Only in this workspace").check()
    await view.get_by_label("Expires after").select_option("30d")
    await view.get_by_role("button", name="Grant").click()
    grant = view.locator(".coherence-grant[data-principal='alice']")
    await expect(grant).to_have_attribute("data-state", "live")
    (made,) = [g.describe(time.time()) for g in vmark.app.coherence.delegations.list()]
    assert (made["principal"], made["scope"], made["workspace"], made["state"]) == (
        "alice",
        ["accept-newer"],
        str(workspace.resolve()),
        "live",
    )
    assert made["expires"] - made["created"] == 30 * 86400
    await expect(grant).to_have_attribute("data-grant-id", made["id"])
    await expect(grant).to_contain_text(f"Accept newer · {workspace.resolve()}")

    await grant.get_by_role("button", name="Revoke").click()
    await expect(grant).to_have_attribute("data-state", "revoked")
    await expect(grant.get_by_role("button", name="Revoke")).to_have_count(0)
    (revoked,) = [g.describe(time.time()) for g in vmark.app.coherence.delegations.list()]
    assert (revoked["id"], revoked["state"]) == (made["id"], "revoked")


async def test_a_click_in_progress_outlasts_a_background_refresh(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    """The pointer pressed on Revoke, the panel refreshes (an app event): the list waits for the release, so the
    click lands on the button that was pressed (redrawn under it, the press and the release would meet different
    buttons and make no click: ci40)."""
    vmark.app.principals.add("alice")
    page = await _tracked(pages, workspace)
    await page.get_by_role("tab", name="Delegations").click()
    view = page.locator("#coherence-view-delegations")
    await expect(view.get_by_label("Agent (principal)")).to_have_value("alice")
    await view.get_by_label("Waive").check()
    await view.get_by_role("button", name="Grant").click()
    grant = view.locator(".coherence-grant[data-principal='alice']")
    await expect(grant).to_have_attribute("data-state", "live")
    box = await grant.get_by_role("button", name="Revoke").bounding_box()
    assert box is not None
    await page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    await page.mouse.down()
    vmark.app.coherence.changed()
    await expect(page.get_by_test_id("coherence-grants")).to_have_attribute("data-redraw-waits", "")
    await page.mouse.up()
    await expect(grant).to_have_attribute("data-state", "revoked")
    await expect(page.get_by_test_id("coherence-grants")).not_to_have_attribute("data-redraw-waits", "")
    assert [g.describe(time.time())["state"] for g in vmark.app.coherence.delegations.list()] == ["revoked"]


async def test_claims_are_added_established_and_invalidated(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page = await _tracked(pages, workspace)
    await page.get_by_role("tab", name="Claims").click()
    view = page.locator("#coherence-view-claims")
    # The view lists the claims once its request answers; the list's first rendering moves the form down a line,
    # so a click before it can land where the button was (ci35: the claim was never added).
    await expect(view.get_by_test_id("coherence-claims")).to_have_attribute("data-count", "0")
    await view.get_by_label("Statement").fill("Elena is tall")
    await view.get_by_role("button", name="Add claim").click()
    claim = view.locator(".coherence-claim")
    await expect(claim).to_have_attribute("data-maturity", "draft")
    await expect(claim.locator(".coherence-statement")).to_have_text("Elena is tall")
    kernel = vmark.app.coherence.kernel(str(workspace))
    (row,) = kernel.claims()
    assert (row["statement"], row["maturity"], row["invalidAt"], row["visible"]) == (
        "Elena is tall",
        "draft",
        None,
        True,
    )

    await claim.get_by_role("button", name="Establish").click()
    await expect(claim).to_have_attribute("data-maturity", "established")
    await expect(claim.get_by_role("button", name="Establish")).to_have_count(0)
    assert [r["maturity"] for r in kernel.claims()] == ["established"]

    await claim.get_by_role("button", name="Invalidate now").click()
    await expect(claim).to_have_attribute("data-visible", "false")
    (row,) = kernel.claims()
    assert (row["claim"], row["maturity"], row["visible"]) == (row["claim"], "established", False)
    await expect(claim.locator(".coherence-invalid-at")).to_have_text(f"invalid from {row['invalidAt']}")

    # A replacement supersedes it: both are listed, only the replacement is visible.
    await claim.get_by_role("button", name="Supersede").click()
    await claim.get_by_label("Replacement statement").fill("Elena is very tall")
    await claim.get_by_role("button", name="Add replacement").click()
    await expect(view.locator(".coherence-claim")).to_have_count(2)
    rows = kernel.claims()
    replacement = next(r for r in rows if r["claim"] != row["claim"])
    assert (replacement["statement"], replacement["maturity"], replacement["visible"]) == (
        "Elena is very tall",
        "established",
        True,
    )
    await expect(view.locator(f".coherence-claim[data-claim='{replacement['claim']}']")).to_have_attribute(
        "data-visible", "true"
    )


async def test_contexts_show_their_errors_and_are_saved(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page = await _tracked(pages, workspace)
    (workspace / ".vmark" / "contexts").mkdir(exist_ok=True)
    (workspace / ".vmark" / "contexts" / "orphan.json").write_text(
        '{"name": "Orphan", "parent": "nowhere", "enforcement": "greenhouse"}\n'
    )
    kernel = vmark.app.coherence.kernel(str(workspace))
    made = kernel.add_claim("Elena is tall", "established")
    await page.get_by_role("tab", name="Contexts").click()
    view = page.locator("#coherence-view-contexts")
    orphan = view.locator(".coherence-context[data-context-id='orphan']")
    await expect(orphan.locator(".coherence-context-errors li")).to_have_text(["unknown parent 'nowhere'"])
    await expect(view.locator(".coherence-context[data-context-id='default']")).to_have_attribute("data-errors", "0")

    await view.get_by_label("Id (letters, digits, . _ -)").fill("room")
    await view.get_by_label("Name", exact=True).fill("Draft room")
    await view.get_by_label("Enforcement").select_option("enforcing")
    await view.locator("input[data-list='exclude']").check()
    await view.get_by_role("button", name="Save context").click()
    room = view.locator(".coherence-context[data-context-id='room']")
    await expect(room).to_contain_text("parent default · 0 visible claims")
    await expect(room.locator(".coherence-enforcement")).to_have_text("enforcing")
    assert [c for c in kernel.contexts() if c["id"] == "room"] == [
        {
            "id": "room",
            "name": "Draft room",
            "parent": "default",
            "enforcement": "enforcing",
            "visibleClaims": 0,
            "errors": [],
        }
    ]
    assert made["claim"] in (workspace / ".vmark" / "contexts" / "room.json").read_text()

    # A refusal of the app shows as a toast.
    await view.get_by_label("Id (letters, digits, . _ -)").fill("default")
    await view.get_by_role("button", name="Save context").click()
    await expect(page.locator(".toast.error")).to_have_text(
        ["a context id is 1-64 of A-Z a-z 0-9 . _ - (and not 'default')"]
    )

    page.once("dialog", lambda dialog: dialog.accept())
    await orphan.get_by_role("button", name="Delete").click()
    await expect(orphan).to_have_count(0)
    assert not (workspace / ".vmark" / "contexts" / "orphan.json").exists()


async def test_untracked_claims_and_contexts_ask_for_tracking_first(pages: Pages, workspace: Path) -> None:
    page = await _panel(pages, workspace)
    await page.get_by_role("tab", name="Claims").click()
    await expect(page.locator("#coherence-view-claims")).to_contain_text(
        "Provenance is not tracked in this workspace: switch it on in Breakdown first."
    )
    await expect(page.locator("#coherence-claim-form")).to_be_hidden()
    await page.get_by_role("button", name="Coherence", exact=True).click()
    await expect(page.get_by_test_id("coherence")).to_be_hidden()
    assert not (workspace / ".vmark").exists()


async def test_a_copied_file_is_a_duplicate_id_warning(pages: Pages, workspace: Path) -> None:
    page = await _tracked(pages, workspace)
    await page.get_by_role("button", name="Add identities").click()
    await expect(page.locator(".toast").last).to_have_text("Added an id to 4 files")
    assert IDENTITY.match((workspace / "a.md").read_text()), (workspace / "a.md").read_text()
    (workspace / "a-copy.md").write_text((workspace / "a.md").read_text())
    await page.click("#coherence-refresh")
    warning = page.get_by_test_id("coherence-duplicates")
    await expect(warning).to_be_visible()
    object_id = (workspace / "a.md").read_text().split("id: ", 1)[1].split("}", 1)[0]
    await expect(warning.locator(".coherence-duplicate")).to_have_text([f"{object_id}: a-copy.md, a.md"])
    # Never fixed by itself: both files keep the id.
    assert object_id in (workspace / "a-copy.md").read_text()


async def test_without_a_workspace_the_panel_says_why(pages: Pages) -> None:
    page = await pages.open()
    await page.click("#coherence-toggle")
    await expect(page.locator("#coherence-message")).to_have_text(
        "Coherence unavailable: name the workspace: workspaceRoot (the window has no workspace open)"
    )
    await expect(page.get_by_role("tab", name="Breakdown")).to_be_hidden()
