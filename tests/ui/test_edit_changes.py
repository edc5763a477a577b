"""``ui.edit`` with change sets, without a browser: spans on a base revision, every refusal, CRLF files,
astral characters, a stale base answered with the changes since, and the ``doc`` events the other pages get."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_client
from tests.contract.helpers import another_page, person_open, wait_event
from tests.ui.helpers import agent_write, doc_of
from vmark.app.server import RunningApp
from vmark.core.changes import wire
from vmark.protocol.limits import CHANGE_LOG_ENTRIES
from vmark.testing.uiclient import UIClient, UIError

A = "# A\n\nalpha\n"


async def _base(person: UIClient, tab: str) -> str:
    return str((await person.call("ui.read", tabId=tab))["revision"])


async def _edit(person: UIClient, tab: str, base: str, changes: Any) -> dict[str, Any]:
    return dict(await person.call("ui.edit", tabId=tab, baseRevision=base, changes=changes))


async def test_spans_on_the_current_revision_apply_and_reach_the_other_window(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    tab = await person_open(person, opened / "a.md")
    async with another_page(vmark) as other:
        other_tab = await person_open(other, opened / "a.md")
        base = await _base(person, tab)
        spans = [[2, 3, "Title"], [5, 5, "new "], [10, 11, "\nmore\n"]]
        answer = await _edit(person, tab, base, spans)
        assert answer == {"applied": True, "revision": doc_of(vmark, tab).state.revision}
        assert answer["revision"] != base
        assert doc_of(vmark, tab).state.text == "# Title\n\nnew alpha\nmore\n"
        event = await wait_event(other, "doc", lambda p: p["revision"] == answer["revision"])
        assert event == {
            "tabIds": [other_tab],
            "revision": answer["revision"],
            "changes": {"base": base, "spans": spans},
            "origin": "person",
            "dirty": True,
        }
        await person.call("ui.state")
        assert person.events_named("doc") == []  # the page that typed gets nothing back
        assert await _edit(person, tab, answer["revision"], []) == {"applied": True, "revision": answer["revision"]}


REFUSALS: list[tuple[dict[str, Any], str]] = [
    ({"changes": [[0, 0, "x"]], "text": "both"}, "ui.edit takes either text or changes"),
    ({}, "ui.edit takes either text or changes"),
    ({"changes": [[0, 0, "x"]], "baseRevision": None}, "changes need the baseRevision they were made on"),
    ({"changes": [[0, 0, "x"]], "baseRevision": 7}, "argument 'baseRevision' must be a string"),
    ({"changes": "0,0,x"}, "changes must be a list of [from, to, insert] spans"),
    ({"changes": [[0, 0]]}, "changes[0] must be [from, to, insert]"),
    ({"changes": [{"from": 0, "to": 0, "insert": "x"}]}, "changes[0] must be [from, to, insert]"),
    ({"changes": [[0, "1", "x"]]}, "changes[0] must be [from, to, insert] with integer offsets and a string"),
    ({"changes": [[0, 1.5, "x"]]}, "changes[0] must be [from, to, insert] with integer offsets and a string"),
    ({"changes": [[False, 1, "x"]]}, "changes[0] must be [from, to, insert] with integer offsets and a string"),
    ({"changes": [[0, 1, 5]]}, "changes[0] must be [from, to, insert] with integer offsets and a string"),
    ({"changes": [[3, 2, "x"]]}, "changes[0] 3..2 is not a span (0 <= from <= to)"),
    ({"changes": [[-1, 0, "x"]]}, "changes[0] -1..0 is not a span (0 <= from <= to)"),
    ({"changes": [[0, 12, "x"]]}, "changes[0] ends at 12, past the end of the text (11)"),
    ({"changes": [[0, 0, "a"], [11, 12, ""]]}, "changes[1] ends at 12, past the end of the text (11)"),
    ({"changes": [[0, 4, ""], [3, 5, "x"]]}, "changes[1] starts at 3, before the previous span ends (4)"),
    ({"changes": [[5, 6, ""], [1, 2, "x"]]}, "changes[1] starts at 1, before the previous span ends (6)"),
    ({"changes": [[0, 0, "ok"], [1, 1, "lone \ud83d"]]}, "changes[1] inserts a lone UTF-16 surrogate"),
    ({"text": "lone \udc00"}, "text holds a lone UTF-16 surrogate"),
]


@pytest.mark.parametrize(("args", "message"), REFUSALS)
async def test_a_malformed_edit_is_a_plain_argument_error_and_changes_nothing(
    vmark: RunningApp, person: UIClient, opened: Path, args: dict[str, Any], message: str
) -> None:
    tab = await person_open(person, opened / "a.md")
    before = doc_of(vmark, tab).state
    payload = {"baseRevision": before.revision, **args}
    if payload["baseRevision"] is None:
        del payload["baseRevision"]
    with pytest.raises(UIError) as info:
        await person.call("ui.edit", tabId=tab, **payload)
    assert info.value.error == message
    assert doc_of(vmark, tab).state is before
    await person.call("ui.state")
    assert person.events_named("doc") == []


async def test_a_crlf_file_gets_the_spans_at_its_own_offsets_and_keeps_its_line_endings(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    (opened / "w.md").write_bytes(b"# W\r\n\r\nalpha\r\nbeta\r\n")
    tab = await person_open(person, opened / "w.md")
    read = await person.call("ui.read", tabId=tab)
    assert read["text"] == "# W\r\n\r\nalpha\r\nbeta\r\n"  # the page shows it with "\n" (tabsync's shownText)
    async with another_page(vmark) as other:
        await person_open(other, opened / "w.md")
        spans = [[2, 3, "Doc"], [10, 10, " one\ntwo"], [11, 15, "BETA"]]
        answer = await _edit(person, tab, read["revision"], spans)
        doc = doc_of(vmark, tab)
        assert doc.state.text == "# Doc\r\n\r\nalpha one\r\ntwo\r\nBETA\r\n"
        assert doc.state.change is not None and wire(doc.state.change.spans or ()) == [
            (2, 3, "Doc"),
            (12, 12, " one\r\ntwo"),
            (14, 18, "BETA"),
        ]
        event = await wait_event(other, "doc", lambda p: p["revision"] == answer["revision"])
        assert event["changes"] == {"base": read["revision"], "spans": spans}  # offsets of the shown text
    await person.call("ui.save", tabId=tab)
    assert (opened / "w.md").read_bytes() == b"# Doc\r\n\r\nalpha one\r\ntwo\r\nBETA\r\n"


async def test_offsets_count_code_points_around_astral_characters(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    (opened / "e.md").write_text("😀 a 𝄞 b\n", "utf-8")
    tab = await person_open(person, opened / "e.md")
    base = await _base(person, tab)
    # Code points: 😀=0, ' '=1, a=2, ' '=3, 𝄞=4, ' '=5, b=6
    answer = await _edit(person, tab, base, [[2, 3, "A🎉"], [4, 5, ""], [7, 7, "!"]])
    assert answer["applied"] is True
    assert doc_of(vmark, tab).state.text == "😀 A🎉  b!\n"
    await person.call("ui.save", tabId=tab)
    assert (opened / "e.md").read_bytes() == "😀 A🎉  b!\n".encode()


async def test_a_stale_base_changes_nothing_and_answers_the_changes_since(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    tab = await person_open(person, opened / "a.md")
    base = await _base(person, tab)
    first = await _edit(person, tab, base, [[0, 0, "> "]])
    async with make_client(vmark.data_dir) as agent:
        wrote = await agent_write(agent, tab, "> # A\n\nalpha\nby the agent\n")
    current = doc_of(vmark, tab).state
    assert current.revision == wrote["revision"]
    # Composed: the first edit and the agent's write, against `base`.
    stale = await _edit(person, tab, base, [[11, 11, "typed"]])
    since_base = [[0, 0, "> "], [11, 11, "by the agent\n"]]
    assert stale == {"applied": False, "revision": current.revision, "changes": since_base}
    assert doc_of(vmark, tab).state is current
    one_behind = await _edit(person, tab, first["revision"], [[0, 0, "x"]])
    assert one_behind == {"applied": False, "revision": current.revision, "changes": [[13, 13, "by the agent\n"]]}
    # Rebased (the page maps its span over theirs: 11 -> 13), it applies.
    rebased = await _edit(person, tab, current.revision, [[13, 13, "typed "]])
    assert rebased["applied"] is True
    assert doc_of(vmark, tab).state.text == "> # A\n\nalpha\ntyped by the agent\n"


async def test_a_base_the_app_no_longer_knows_is_answered_with_the_text(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    tab = await person_open(person, opened / "a.md")
    base = await _base(person, tab)
    revision = base
    for _ in range(CHANGE_LOG_ENTRIES + 1):
        revision = str((await _edit(person, tab, revision, [[0, 0, "x"]]))["revision"])
    text = "x" * (CHANGE_LOG_ENTRIES + 1) + A
    assert await _edit(person, tab, base, [[0, 0, "y"]]) == {"applied": False, "revision": revision, "text": text}
    assert await _edit(person, tab, "rev-neverWas", [[0, 0, "y"]]) == {
        "applied": False,
        "revision": revision,
        "text": text,
    }
    # The full-text form is answered with the text, as before.
    assert await person.call("ui.edit", tabId=tab, text="stale\n", baseRevision=base) == {
        "applied": False,
        "revision": revision,
        "text": text,
    }
    assert doc_of(vmark, tab).state.revision == revision


async def test_the_full_text_form_still_applies_and_pushes_its_one_span(
    vmark: RunningApp, person: UIClient, opened: Path
) -> None:
    tab = await person_open(person, opened / "a.md")
    async with another_page(vmark) as other:
        await person_open(other, opened / "a.md")
        base = await _base(person, tab)
        revision = await person.edit(tab, "# A\n\nalpha and more\n")
        event = await wait_event(other, "doc", lambda p: p["revision"] == revision)
        assert event["changes"] == {"base": base, "spans": [[10, 10, " and more"]]}
        assert "text" not in event


async def test_a_disk_change_is_pushed_as_the_whole_text(vmark: RunningApp, person: UIClient, opened: Path) -> None:
    """A reload from disk is no recorded change: pages get the text (and diff it once)."""
    tab = await person_open(person, opened / "a.md")
    (opened / "a.md").write_text("changed on disk\n", "utf-8")
    pushed = await wait_event(person, "doc", lambda p: p.get("text") == "changed on disk\n")
    assert (pushed["tabIds"], pushed["origin"], "changes" in pushed) == ([tab], "disk", False)
    base = pushed["revision"]
    stale = await _edit(person, tab, "rev-" + "0" * 8, [[0, 0, "x"]])
    assert stale == {"applied": False, "revision": base, "text": "changed on disk\n"}


async def test_comment_anchors_follow_every_span_of_an_edit(vmark: RunningApp, person: UIClient, opened: Path) -> None:
    (opened / "c.md").write_text("two two two four five\n", "utf-8")
    tab = await person_open(person, opened / "c.md")
    ids = {}
    for name, quote, at in (("middle two", "two", 4), ("four", "four", 12), ("five", "five", 17)):
        ids[name] = (await person.call("comments.add", tabId=tab, quote=quote, body="?", at=at))["comment"]
    base = await _base(person, tab)
    await _edit(person, tab, base, [[0, 0, "abcd"], [12, 16, ""], [21, 21, "!"]])
    assert doc_of(vmark, tab).state.text == "abcdtwo two two  five!\n"
    threads = {t["comment"]: t for t in (await person.call("comments.threads", tabId=tab))["threads"]}
    anchors = {name: threads[ids[name]]["anchor"] for name in ids}
    # The middle "two" moves by the insert before it (one diff over the whole edit would find the first "two").
    assert anchors == {"middle two": {"from": 8, "to": 11}, "four": None, "five": {"from": 17, "to": 21}}
