"""``vmark comments``: the person's side of review comments from the command line, against a running app."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import make_client, ok
from tests.contract.helpers import person_open
from tests.ui.test_protocol import vmark_cli
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient

TEXT = "# Review\n\nalpha beta gamma\n"


async def _threads(person: UIClient, path: Path) -> list[dict[str, Any]]:
    return list((await person.call("comments.threads", filePath=str(path)))["threads"])


def _listing(thread: dict[str, Any]) -> str:
    """What ``vmark comments list`` prints for one thread."""
    lines = [
        f"{thread['comment']}\t{thread['state']}\t{thread['author']}",
        f"  > {thread['quote']}",
        f"  {thread['body']}",
        *(f"  - {r['id']} {r['author']}: {r['body']}" for r in thread["replies"]),
    ]
    return "\n".join(lines) + "\n"


async def test_add_and_list_a_file_that_no_tab_shows(vmark: RunningApp, person: UIClient, workspace: Path) -> None:
    path = workspace / "review.md"
    path.write_text(TEXT, "utf-8")
    code, out, err = await vmark_cli(vmark.data_dir, "comments", "add", str(path), "--quote", "beta", "--body", "Why?")
    assert (code, err) == (0, "")
    (first,) = await _threads(person, path)
    assert out == f"{first['comment']}\n"
    at = TEXT.index("beta")
    assert first == {
        "comment": first["comment"],
        "state": "open",
        "commentGen": first["commentGen"],
        "quote": "beta",
        "body": "Why?",
        "author": "person",
        "created": first["created"],
        "anchor": {"from": at, "to": at + 4},
        "orphaned": False,
        "replies": [],
    }

    code, out, err = await vmark_cli(
        vmark.data_dir, "comments", "add", str(path), "--quote", "gamma", "--body", "two\nlines", "--json"
    )
    assert (code, err) == (0, "")
    first_again, second = await _threads(person, path)
    assert first_again == first
    assert json.loads(out) == {"comment": second["comment"], "commentGen": second["commentGen"]}
    assert (second["quote"], second["body"], second["state"]) == ("gamma", "two\nlines", "open")

    code, out, err = await vmark_cli(vmark.data_dir, "comments", "list", str(path))
    assert (code, err) == (0, "")
    # Oldest first; a line break of a body is shown as "\n" so each part stays on its line.
    assert out == _listing(first) + "\n" + _listing(second).replace("two\nlines", "two\\nlines")
    code, out, err = await vmark_cli(vmark.data_dir, "comments", "list", str(path), "--json")
    assert (code, err) == (0, "")
    assert json.loads(out) == await person.call("comments.threads", filePath=str(path))


async def test_reply_resolve_reopen_and_delete_with_an_agents_reply(
    vmark: RunningApp, person: UIClient, workspace: Path
) -> None:
    path = workspace / "review.md"
    path.write_text(TEXT, "utf-8")
    code, out, _ = await vmark_cli(vmark.data_dir, "comments", "add", str(path), "--quote", "alpha", "--body", "Rename")
    assert code == 0
    comment = out.strip()
    tab = await person_open(person, path)
    async with make_client(vmark.data_dir, client_token=vmark.app.principals.add("alice")) as agent:
        (listed,) = (await ok(agent, "comments", "list", tabId=tab))["threads"]
        await ok(
            agent,
            "comments",
            "reply",
            tabId=tab,
            commentId=comment,
            body="Done",
            expectedCommentGen=listed["commentGen"],
        )

    code, out, err = await vmark_cli(vmark.data_dir, "comments", "reply", comment, "--body", "Thanks")
    assert (code, err) == (0, "")
    (thread,) = await _threads(person, path)
    agent_reply, own_reply = thread["replies"]
    assert out == f"{own_reply['id']}\n"
    assert [(r["author"], r["body"]) for r in thread["replies"]] == [("alice", "Done"), ("person", "Thanks")]
    code, out, _ = await vmark_cli(vmark.data_dir, "comments", "list", str(path))
    assert (code, out) == (0, _listing(thread))
    assert f"  - {agent_reply['id']} alice: Done\n" in out

    for verb, state in (("resolve", "resolved"), ("reopen", "reopened"), ("delete", "deleted")):
        assert await vmark_cli(vmark.data_dir, "comments", verb, comment) == (0, f"{comment}\t{state}\n", "")
        if verb != "delete":
            assert [t["state"] for t in await _threads(person, path)] == [state]
    assert await _threads(person, path) == []
    assert await vmark_cli(vmark.data_dir, "comments", "list", str(path)) == (0, "", "")


async def test_refusals_exit_non_zero_and_say_why(
    vmark: RunningApp, person: UIClient, workspace: Path, tmp_path: Path
) -> None:
    path = workspace / "review.md"
    path.write_text(TEXT, "utf-8")
    refused = await vmark_cli(vmark.data_dir, "comments", "add", str(path), "--quote", "delta", "--body", "x")
    assert refused == (1, "", "vmark: quote does not occur in the document's text\n")
    assert await _threads(person, path) == []
    assert await vmark_cli(vmark.data_dir, "comments", "resolve", "no-such-comment") == (
        1,
        "",
        "vmark: INVALID_COMMENT: 'no-such-comment' is not a comment of this document\n",
    )
    missing = workspace / "missing.md"
    assert await vmark_cli(vmark.data_dir, "comments", "list", str(missing)) == (
        1,
        "",
        f"vmark: INVALID_PATH: cannot open '{missing}': No such file or directory\n",
    )

    nothing = tmp_path / "no-app"
    nothing.mkdir()
    for args in (("list", str(path)), ("add", str(path), "--quote", "beta", "--body", "x"), ("delete", "c1")):
        assert await vmark_cli(nothing, "comments", *args) == (1, "", f"vmark: no VMark app is running for {nothing}\n")
    code, out, err = await vmark_cli(vmark.data_dir, "comments", "add", str(path), "--quote", "beta")
    assert (code, out) == (2, "")
    assert "--body" in err
