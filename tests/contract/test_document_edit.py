"""``document.edit``: exact-match edits as one revision, the two edit errors, argument checks, views get the span.

The refusals ``edit`` shares with ``write`` (STALE, BUSY, JOURNAL_*, ABORTED, INVALID_TEXT,
REVIEW_BACKLOG_FULL, READ_ONLY, INVALID_TAB, ...) run in ``test_document_refusals.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import fail, fail_code, ok
from tests.contract.helpers import doc_of, history, journal, open_tab, raw_error, snapshot, wait_event
from vmark.app.server import RunningApp
from vmark.protocol.limits import MAX_DOCUMENT_EDITS
from vmark.testing.uiclient import UIClient

A_TEXT = "# A\n\nalpha\n"


def _edits(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"old": old, "new": new} for old, new in pairs]


@pytest.mark.legacy_protocol
async def test_edits_apply_in_order_as_one_revision_saved_and_journaled(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    before = await ok(mcp, "document", "read", tabId=tab)
    edits = _edits(("alpha", "beta gamma"), ("# A", "# Title"), ("gamma", "delta"))  # the third finds the first's text
    result = await ok(mcp, "document", "edit", tabId=tab, edits=edits, expected_revision=before["revision"])
    assert result == {
        "revision": result["revision"],
        "applied": True,
        "durable": True,
        "saved": True,
        "journaled": "yes",
    }
    assert result["revision"] != before["revision"]
    text = "# Title\n\nbeta delta\n"
    assert (opened / "a.md").read_bytes() == text.encode()
    read = await ok(mcp, "document", "read", tabId=tab)
    assert (read["content"], read["revision"], read["dirty"]) == (text, result["revision"], False)
    # One journal entry, keeping only the span it replaced (not the whole before-text).
    [entry] = await journal(vmark)
    assert (entry["tool"], entry["rev_before"], entry["rev_after"], entry["state"]) == (
        "document.edit",
        before["revision"],
        result["revision"],
        "recorded",
    )
    assert entry["before_text"] is None and json.loads(entry["before_patch"]) is not None
    # The page showing the document gets the one span, from the first change to the last.
    event = await wait_event(person, "doc", lambda p: p.get("revision") == result["revision"])
    # (the shortest span: the characters the edits share with what they replaced are not resent)
    assert event["changes"] == {"base": before["revision"], "spans": [[2, 9, "Title\n\nbeta delt"]]}
    assert "text" not in event
    assert [s["kind"] for s in await history(person, tab)][-1] == "mcp"


async def test_not_found_and_ambiguous_name_the_edit_and_change_nothing(
    mcp: Client, opened: Path, vmark: RunningApp
) -> None:
    (opened / "twice.md").write_text("one two one\naaa\n", "utf-8")
    tab = await open_tab(mcp, opened / "twice.md")
    doc = doc_of(vmark, tab)
    before = await snapshot(vmark, doc, opened / "twice.md")
    cases: list[tuple[list[dict[str, str]], dict[str, Any]]] = [
        (
            _edits(("three", "3")),
            {
                "error": "EDIT_NOT_FOUND",
                "message": "edits[0].old does not occur in the document; read it again and copy the text exactly",
                "index": 0,
                "count": 0,
            },
        ),
        (
            _edits(("two", "2"), ("two", "II")),  # the first edit took the only 'two'
            {
                "error": "EDIT_NOT_FOUND",
                "message": "edits[1].old does not occur in the document (as the edits before it left it);"
                " read it again and copy the text exactly",
                "index": 1,
                "count": 0,
            },
        ),
        (
            _edits(("two", "2"), ("one", "1")),
            {
                "error": "EDIT_AMBIGUOUS",
                "message": "edits[1].old occurs 2 times in the document; include enough of the text around it"
                " to make it unique",
                "index": 1,
                "count": 2,
            },
        ),
        (_edits(("aa", "b")), {"error": "EDIT_AMBIGUOUS", "index": 0, "count": 2}),  # overlapping matches count
        (_edits(("o", "0")), {"error": "EDIT_AMBIGUOUS", "index": 0, "count": 3}),
        (_edits(("ONE", "1")), {"error": "EDIT_NOT_FOUND", "index": 0, "count": 0}),  # exact: case matters
    ]
    for edits, expected in cases:
        envelope = await fail_code(mcp, "document", "edit", tabId=tab, edits=edits)
        assert {k: envelope[k] for k in expected} == expected, edits
        assert set(envelope) == {"error", "message", "index", "count"}
        assert await snapshot(vmark, doc, opened / "twice.md") == before
    assert await journal(vmark) == []


async def test_argument_errors_are_plain_strings_and_change_nothing(
    mcp: Client, opened: Path, vmark: RunningApp
) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    prefix = "document.edit: argument 'edits'"
    cases: list[tuple[Any, str]] = [
        ([], "document.edit: argument 'edits' is empty; give at least one {old, new}"),
        (
            _edits(("", "x")),
            "document.edit: edits[0].old is empty; to insert, include the text next to the insertion point"
            " in old and in new",
        ),
        ("alpha", f"{prefix} must be an array of objects"),
        ([["alpha", "beta"]], f"{prefix} must be an array of objects"),
        ([{"old": "alpha"}], f"{prefix} item 0 is missing 'new'; each item takes exactly 'old' and 'new'"),
        (
            [{"old": "alpha", "new": "b", "all": True}],
            f"{prefix} item 0 has 'all', which is not accepted; each item takes exactly 'old' and 'new'",
        ),
        ([{"old": "alpha", "new": 5}], f"{prefix} item 0: 'new' must be a string"),
        (
            _edits(*[("alpha", "beta")] * (MAX_DOCUMENT_EDITS + 1)),
            f"{prefix} takes at most {MAX_DOCUMENT_EDITS} items, got {MAX_DOCUMENT_EDITS + 1}",
        ),
    ]
    for edits, message in cases:
        assert await raw_error(mcp, "document", {"action": "edit", "tabId": tab, "edits": edits}) == message
    assert await fail(mcp, "document", "edit", tabId=tab) == "document.edit: missing required argument 'edits'"
    for edits in (_edits(("alpha\ud800", "b")), _edits(("alpha", "\udc00"))):
        envelope = await fail_code(mcp, "document", "edit", tabId=tab, edits=edits)
        assert envelope["error"] == "INVALID_TEXT"
    assert (opened / "a.md").read_text("utf-8") == A_TEXT
    assert await journal(vmark) == []


async def test_save_opt_out_and_untitled_are_answered_like_write(mcp: Client, opened: Path) -> None:
    tab = await open_tab(mcp, opened / "a.md")
    kept = await ok(mcp, "document", "edit", tabId=tab, edits=_edits(("alpha", "beta")), save=False)
    assert (kept["saved"], kept["save_skipped"]) == (False, "opt_out")
    assert (opened / "a.md").read_text("utf-8") == A_TEXT
    assert (await ok(mcp, "document", "read", tabId=tab))["dirty"] is True
    new = (await ok(mcp, "workspace", "new"))["tabId"]
    await ok(mcp, "document", "write", tabId=new, content="draft one\n")
    untitled = await ok(mcp, "document", "edit", edits=_edits(("one", "two")))  # the routed (new) tab
    assert untitled == {
        "revision": untitled["revision"],
        "applied": True,
        "durable": True,
        "saved": False,
        "save_skipped": "untitled",
    }
    assert (await ok(mcp, "document", "read", tabId=new))["content"] == "draft two\n"


async def test_a_wysiwyg_tab_keeps_every_byte_outside_the_edit(
    mcp: Client, opened: Path, person: UIClient, vmark: RunningApp
) -> None:
    # Markdown a WYSIWYG serializer would normalize: emphasis markers, a loose list, trailing spaces, a table.
    text = "Title\n=====\n\n* one  \n* two\n\n__bold__ and *em*\n\n|a|b|\n|-|-|\n|1|2|\n"
    (opened / "rich.md").write_text(text, "utf-8")
    tab = await open_tab(mcp, opened / "rich.md")
    await person.call("ui.switch_tab", tabId=tab)
    await person.call("ui.set_mode", tabId=tab, mode="wysiwyg")
    asked = len(person.events_named("editor"))
    result = await ok(mcp, "document", "edit", tabId=tab, edits=_edits(("two", "three")))
    expected = text.replace("* two", "* three")
    assert (opened / "rich.md").read_bytes() == expected.encode()
    assert doc_of(vmark, tab).state.text == expected
    assert len(person.events_named("editor")) == asked  # the editor only shows what the app holds
    event = await wait_event(person, "doc", lambda p: p.get("revision") == result["revision"])
    assert [span[2] for span in event["changes"]["spans"]] == ["hree"] and "text" not in event  # t(wo) -> t(hree)


async def test_crlf_and_workflow_documents(mcp: Client, opened: Path, person: UIClient, vmark: RunningApp) -> None:
    (opened / "crlf.md").write_bytes(b"one\r\ntwo\r\n")
    tab = await open_tab(mcp, opened / "crlf.md")
    result = await ok(mcp, "document", "edit", tabId=tab, edits=_edits(("two", "2\nlines")))
    assert (opened / "crlf.md").read_bytes() == b"one\r\n2\r\nlines\r\n"  # the file keeps its line breaks
    event = await wait_event(person, "doc", lambda p: p.get("revision") == result["revision"])
    # Pages show every line break as "\n": the span is of that text.
    assert event["changes"]["spans"] == [[4, 7, "2\nlines"]] and "text" not in event
    workflow = opened / ".github/workflows/ci.yml"
    tab = await open_tab(mcp, workflow)
    edited = await ok(mcp, "document", "edit", tabId=tab, edits=_edits(("name: ci", "name: ci # checked")))
    assert workflow.read_bytes() == b"name: ci # checked\non: push\njobs: {}\n"
    assert (await ok(mcp, "document", "read", tabId=tab))["revision"] == edited["revision"]
