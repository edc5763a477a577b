"""Review comments in the page: a comment on the selection, the thread sidebar with the replies of the
person and of agents, resolve / reopen / delete by click, anchors highlighted in both editor modes,
orphaned threads, and the history entries that name the comments a revision addressed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp import Client
from playwright.async_api import Page, expect

from tests.conftest import make_client, ok
from tests.contract.helpers import wait_until
from tests.ui.conftest import Pages
from tests.ui.helpers import open_folder, open_from_tree, wait_doc_text, wait_editor_text
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient

TEXT = "# Review\n\nalpha beta gamma\n"
#: where "beta" starts on line 3 of TEXT
BETA = len("alpha ")


async def _open(pages: Pages, workspace: Path, text: str = TEXT) -> tuple[Page, str]:
    (workspace / "review.md").write_bytes(text.encode())
    page = await pages.open()
    await open_folder(page, workspace)
    return page, await open_from_tree(page, "review.md")


async def _select_in_source(page: Page, start: int, length: int) -> None:
    """Select ``length`` characters from column ``start`` of line 3 with the keyboard."""
    await page.click(".cm-content")
    await page.keyboard.press("Control+Home")
    for _ in range(2):
        await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Home")
    for _ in range(start):
        await page.keyboard.press("ArrowRight")
    for _ in range(length):
        await page.keyboard.press("Shift+ArrowRight")


async def _comment(page: Page, quote: str, body: str) -> None:
    """Click "Comment" on the selection, check the quote the dialog shows, write the body and submit."""
    await page.click("#comment-add")
    dialog = page.get_by_test_id("comment-dialog")
    await expect(dialog).to_be_visible()
    await expect(page.locator("#comment-quote")).to_have_text(quote)
    await page.fill("#comment-body", body)
    await page.click("#comment-submit")
    await expect(dialog).to_be_hidden()


async def _threads(vmark: RunningApp, path: Path) -> list[dict[str, Any]]:
    async with UIClient(vmark.data_dir) as observer:
        return list((await observer.call("comments.threads", filePath=str(path.resolve())))["threads"])


async def _highlighted(page: Page, selector: str) -> str:
    """The text of every highlighted anchor, in document order (a highlight may be split in spans)."""
    return "".join(await page.locator(selector).all_inner_texts())


async def _wait_highlighted(page: Page, selector: str, expected: str) -> None:
    async def shows() -> bool:
        return await _highlighted(page, selector) == expected

    try:
        await wait_until(shows, f"{selector} to highlight {expected!r}")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; it highlights {await _highlighted(page, selector)!r}") from None


async def _agent_addresses(agent: Client, tab: str, comment: str, reply: str) -> None:
    """An agent's answer: a reply, then the thread marked addressed (each against the thread's latest gen)."""
    (thread,) = (await ok(agent, "comments", "list", tabId=tab))["threads"]
    await ok(
        agent, "comments", "reply", tabId=tab, commentId=comment, body=reply, expectedCommentGen=thread["commentGen"]
    )
    (thread,) = (await ok(agent, "comments", "list", tabId=tab))["threads"]
    await ok(agent, "comments", "mark_addressed", tabId=tab, commentId=comment, expectedCommentGen=thread["commentGen"])


async def test_a_comment_on_the_selection_shows_its_thread_and_anchor(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, _ = await _open(pages, workspace)
    await _select_in_source(page, BETA, 4)
    await _comment(page, "beta", "Why beta?")
    (thread,) = await _threads(vmark, workspace / "review.md")
    at = TEXT.index("beta")
    assert (thread["quote"], thread["body"], thread["author"], thread["state"]) == (
        "beta",
        "Why beta?",
        "person",
        "open",
    )
    assert thread["anchor"] == {"from": at, "to": at + 4}

    await page.click("#comments-toggle")
    item = page.locator(f"#comments-list .thread[data-comment-id='{thread['comment']}']")
    await expect(item).to_have_attribute("data-state", "open")
    await expect(item.locator(".thread-quote")).to_have_text("beta")
    await expect(item.locator(".thread-body")).to_have_text("Why beta?")
    await expect(item.locator(".thread-author")).to_have_text("you")
    await expect(page.locator("#comments-orphaned-section")).to_be_hidden()
    await _wait_highlighted(page, ".cm-comment-anchor", "beta")
    await expect(page.locator(".cm-comment-anchor").first).to_have_attribute("data-comment-id", thread["comment"])

    # The person's own reply, from the reply box.
    await item.locator(".reply-input").fill("Or delta?")
    await item.locator(".reply-send").click()
    await expect(item.locator(".reply .reply-body")).to_have_text(["Or delta?"])
    await expect(item.locator(".reply .reply-author")).to_have_text(["you"])


async def test_nothing_selected_asks_for_a_selection(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page, _ = await _open(pages, workspace)
    await page.click(".cm-content")
    await page.click("#comment-add")
    await expect(page.get_by_test_id("notifications")).to_contain_text("Select the text to comment on first")
    await expect(page.get_by_test_id("comment-dialog")).to_be_hidden()
    assert await _threads(vmark, workspace / "review.md") == []


async def test_an_agents_reply_and_the_persons_resolve_reopen_delete(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, tab = await _open(pages, workspace)
    await _select_in_source(page, BETA, 4)
    await _comment(page, "beta", "Why beta?")
    (thread,) = await _threads(vmark, workspace / "review.md")
    comment = thread["comment"]
    await page.click("#comments-toggle")
    await page.click("#history-toggle")
    item = page.locator(f"#comments-list .thread[data-comment-id='{comment}']")
    await expect(item).to_have_attribute("data-state", "open")
    await item.locator(".reply-input").fill("Half typed")  # the agent's answer must not wipe it

    written = TEXT.replace("gamma", "delta")
    async with make_client(vmark.data_dir, client_token=vmark.app.principals.add("alice")) as agent:
        await _agent_addresses(agent, tab, comment, "Renamed gamma")
        read = await ok(agent, "document", "read", tabId=tab)
        await ok(
            agent,
            "document",
            "write",
            tabId=tab,
            content=written,
            expected_revision=read["revision"],
            addresses=[comment],
        )
    await wait_editor_text(page, written)
    await expect(item).to_have_attribute("data-state", "addressed")
    await expect(item.locator(".reply")).to_have_count(1)
    await expect(item.locator(".reply")).to_have_attribute("data-author", "alice")
    await expect(item.locator(".reply .reply-author")).to_have_text("alice")
    await expect(item.locator(".reply .reply-body")).to_have_text("Renamed gamma")
    await expect(item.locator(".reply-input")).to_have_value("Half typed")
    await expect(item.locator(".reply-input")).to_be_focused()
    # The history names the comment the agent's revision addressed.
    snapshot = page.locator("#history-list .snapshot").first
    await expect(snapshot.locator(".addressed")).to_have_text("“beta” (addressed)")
    await expect(snapshot.locator(".addressed")).to_have_attribute("data-comment-id", comment)

    await item.locator(".thread-resolve").click()
    await expect(item).to_have_attribute("data-state", "resolved")
    await expect(snapshot.locator(".addressed")).to_have_text("“beta” (resolved)")
    await expect(item.locator(".reply-form")).to_have_count(0)
    await expect(page.locator(".cm-comment-anchor")).to_have_count(0)  # a resolved thread is no longer marked
    await item.locator(".thread-reopen").click()
    await expect(item).to_have_attribute("data-state", "reopened")
    await _wait_highlighted(page, ".cm-comment-anchor", "beta")
    page.once("dialog", lambda dialog: dialog.accept())
    await item.locator(".thread-delete").click()
    await expect(page.locator("#comments-list .thread")).to_have_count(0)
    await expect(page.locator(".cm-comment-anchor")).to_have_count(0)
    assert await _threads(vmark, workspace / "review.md") == []
    await expect(snapshot.locator(".addressed")).to_have_text("deleted comment")
    await expect(snapshot.locator(".addressed")).to_have_attribute("data-state", "deleted")


async def test_delete_asks_first(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    page, _ = await _open(pages, workspace)
    await _select_in_source(page, BETA, 4)
    await _comment(page, "beta", "Why beta?")
    await page.click("#comments-toggle")
    page.once("dialog", lambda dialog: dialog.dismiss())
    await page.locator("#comments-list .thread-delete").click()
    await expect(page.locator("#comments-list .thread")).to_have_count(1)
    assert [t["state"] for t in await _threads(vmark, workspace / "review.md")] == ["open"]


async def test_anchors_in_wysiwyg_mode_and_a_comment_made_there(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, _ = await _open(pages, workspace)
    await _select_in_source(page, BETA, 4)
    await _comment(page, "beta", "Why beta?")
    await _wait_highlighted(page, ".cm-comment-anchor", "beta")
    await page.click("#mode-toggle")
    await page.wait_for_selector(".ProseMirror")
    await _wait_highlighted(page, ".pm-comment-anchor", "beta")

    await page.click(".ProseMirror p")
    await page.keyboard.press("End")
    for _ in range(5):
        await page.keyboard.press("Shift+ArrowLeft")
    await _comment(page, "gamma", "And gamma?")
    first, second = await _threads(vmark, workspace / "review.md")
    at = TEXT.index("gamma")
    assert (second["quote"], second["body"], second["anchor"]) == ("gamma", "And gamma?", {"from": at, "to": at + 5})
    await _wait_highlighted(page, ".pm-comment-anchor", "betagamma")
    ids = [await m.get_attribute("data-comment-id") for m in await page.locator(".pm-comment-anchor").all()]
    assert ids == [first["comment"], second["comment"]]
    # Clicking a highlight shows its thread in the sidebar.
    await page.locator(".pm-comment-anchor").nth(1).click()
    await expect(page.get_by_test_id("comments")).to_be_visible()
    await expect(page.locator("#comments-list .thread.focused")).to_have_attribute("data-comment-id", second["comment"])


async def test_a_thread_whose_quote_was_removed_is_listed_as_orphaned(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, tab = await _open(pages, workspace)
    await _select_in_source(page, BETA, 4)
    await _comment(page, "beta", "Why beta?")
    await page.click("#comments-toggle")
    await expect(page.locator("#comments-list .thread")).to_have_count(1)
    await _select_in_source(page, BETA, 5)  # "beta " goes
    await page.keyboard.press("Backspace")
    await wait_doc_text(vmark, tab, "# Review\n\nalpha gamma\n")
    orphan = page.locator("#comments-orphaned .thread")
    await expect(orphan).to_have_count(1)
    await expect(orphan).to_have_attribute("data-orphaned", "true")
    await expect(orphan.locator(".thread-quote")).to_have_text("beta")
    await expect(page.locator("#comments-orphaned-section")).to_be_visible()
    await expect(page.locator("#comments-list .thread")).to_have_count(0)
    await expect(page.locator(".cm-comment-anchor")).to_have_count(0)
    (thread,) = await _threads(vmark, workspace / "review.md")
    assert (thread["orphaned"], thread["anchor"]) == (True, None)


#: the text before the first highlighted anchor on its editor line
BEFORE_ANCHOR = """(() => {
  const mark = document.querySelector('.cm-comment-anchor');
  const range = document.createRange();
  range.setStart(mark.closest('.cm-line'), 0);
  range.setEndBefore(mark);
  return range.toString();
})()"""


async def test_anchors_count_code_points_and_crlf_line_breaks(pages: Pages, vmark: RunningApp, workspace: Path) -> None:
    """The app counts code points of a text whose line breaks may be CRLF; the editor shows UTF-16 and "\\n"."""
    text = "# 😀 Review\r\n\r\nbeta 😀 beta gamma\r\n"
    page, _ = await _open(pages, workspace, text)
    await _select_in_source(page, len("beta 😀 "), 4)  # the second "beta" (an arrow key steps over the emoji)
    await _comment(page, "beta", "This one")
    (thread,) = await _threads(vmark, workspace / "review.md")
    at = text.index("😀 beta") + 2  # code points, "\r" included: as Python counts
    assert thread["anchor"] == {"from": at, "to": at + 4}
    await _wait_highlighted(page, ".cm-comment-anchor", "beta")
    assert await page.evaluate(BEFORE_ANCHOR) == "beta 😀 "


async def test_the_sidebar_follows_the_tab_and_comments_made_elsewhere(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, _ = await _open(pages, workspace)
    await page.click("#comments-toggle")
    await expect(page.get_by_test_id("comments-list").locator(".thread")).to_have_count(0)
    # A comment from the command line (or any other client) shows at once: the app's `comments` event.
    async with UIClient(vmark.data_dir) as other:
        await other.call("comments.add", filePath=str(workspace / "review.md"), quote="gamma", body="From the CLI")
        await other.call("comments.add", filePath=str(workspace / "a.md"), quote="alpha", body="On a.md")
    await expect(page.locator("#comments-list .thread-body")).to_have_text(["From the CLI"])
    await _wait_highlighted(page, ".cm-comment-anchor", "gamma")
    await open_from_tree(page, "a.md")
    await expect(page.locator("#comments-list .thread-body")).to_have_text(["On a.md"])
    await _wait_highlighted(page, ".cm-comment-anchor", "alpha")
    await page.locator(".tab .title", has_text="review").click()
    await expect(page.locator("#comments-list .thread-body")).to_have_text(["From the CLI"])
    await _wait_highlighted(page, ".cm-comment-anchor", "gamma")


async def test_a_quote_with_markdown_is_highlighted_in_wysiwyg_by_its_text(
    pages: Pages, vmark: RunningApp, workspace: Path
) -> None:
    page, _ = await _open(
        pages, workspace, "# Review\n\nalpha **beta** gamma\n\n- [link text](https://example.org) end\n"
    )
    async with UIClient(vmark.data_dir) as other:
        for quote in ("**beta**", "[link text](https://example.org)"):
            await other.call("comments.add", filePath=str(workspace / "review.md"), quote=quote, body="x")
    await _wait_highlighted(page, ".cm-comment-anchor", "**beta**[link text](https://example.org)")
    await page.click("#mode-toggle")
    await page.wait_for_selector(".ProseMirror")
    await _wait_highlighted(page, ".pm-comment-anchor", "betalink text")
