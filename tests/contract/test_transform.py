"""``document.transform`` (CJK formatting) through the official MCP client."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import fail, fail_code, ok
from tests.contract.helpers import doc_of, journal, open_tab, snapshot
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient

SOURCE = "学习Python编程,很有趣!\n\n`代码,不变`\n"


async def _tab(mcp: Client, opened: Path, text: str = SOURCE) -> str:
    (opened / "cjk.md").write_text(text, "utf-8")
    return await open_tab(mcp, opened / "cjk.md")


@pytest.mark.legacy_protocol
async def test_each_kind_applies_its_rules(mcp: Client, vmark: RunningApp, opened: Path) -> None:
    tab = await _tab(mcp, opened)
    spaced = await ok(mcp, "document", "transform", tabId=tab, kind="cjk-spacing")
    assert set(spaced) == {"revision", "applied", "durable"} and spaced["applied"] is True
    assert doc_of(vmark, tab).state.text == "学习 Python 编程,很有趣!\n\n`代码,不变`\n"
    punct = await ok(mcp, "document", "transform", tabId=tab, kind="cjk-punctuation")
    assert punct["applied"] is True
    assert doc_of(vmark, tab).state.text == "学习 Python 编程，很有趣！\n\n`代码,不变`\n"
    entries = [e for e in await journal(vmark) if e["tool"] == "document.transform"]
    assert [e["rev_after"] for e in entries] == [spaced["revision"], punct["revision"]]
    assert (opened / "cjk.md").read_text("utf-8") == SOURCE  # a transform does not save


async def test_cjk_format_follows_settings_and_no_op_keeps_revision(
    mcp: Client, vmark: RunningApp, opened: Path
) -> None:
    tab = await _tab(mcp, opened, "学习Python编程！！！\n")
    vmark.app.settings.set("cjk.spacing", False)
    out = await ok(mcp, "document", "transform", tabId=tab, kind="cjk-format")
    assert out["applied"] is True
    assert doc_of(vmark, tab).state.text == "学习Python编程！\n"
    count = len(await journal(vmark))
    again = await ok(mcp, "document", "transform", tabId=tab, kind="cjk-format")
    assert again == {"revision": out["revision"], "applied": False, "durable": True}
    assert len(await journal(vmark)) == count


async def test_refusals_change_nothing(
    mcp: Client, vmark: RunningApp, person: UIClient, opened: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("vmark.app.turns.COMPOSITION_GRACE_SECONDS", 0.0)
    tab = await _tab(mcp, opened)
    doc = doc_of(vmark, tab)
    read = await ok(mcp, "document", "read", tabId=tab)
    before = await snapshot(vmark, doc, opened / "cjk.md")
    await person.call("ui.composition", tabId=tab, state="start")
    assert (await fail_code(mcp, "document", "transform", tabId=tab, kind="cjk-format"))["error"] == "BUSY"
    await person.call("ui.composition", tabId=tab, state="end")
    await person.edit(tab, SOURCE + "x")
    after_edit = await snapshot(vmark, doc, opened / "cjk.md")
    stale = await fail_code(
        mcp, "document", "transform", tabId=tab, kind="cjk-format", expected_revision=read["revision"]
    )
    assert stale["error"] == "STALE" and stale["current_revision"] == doc.state.revision
    assert (await fail_code(mcp, "document", "transform", tabId=tab, kind="cjk-format", addresses=["c-x"]))[
        "error"
    ] == "INVALID_ADDRESSES"
    await person.call("test.fault", journal="unavailable")
    assert (await fail_code(mcp, "document", "transform", tabId=tab, kind="cjk-format"))["error"] == (
        "JOURNAL_UNAVAILABLE"
    )
    await person.call("test.fault", journal="none")
    assert await snapshot(vmark, doc, opened / "cjk.md") == after_edit != before
    assert "must be one of" in str(await fail(mcp, "document", "transform", tabId=tab, kind="cjk-magic"))
    workflow = await open_tab(mcp, opened / ".github" / "workflows" / "ci.yml")
    assert "Markdown tabs" in str(await fail(mcp, "document", "transform", tabId=workflow, kind="cjk-format"))
