"""``workflow.apply_patch`` and ``workflow.validate`` through the official MCP client."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import fail, fail_code, ok
from tests.contract.helpers import doc_of, journal, open_tab, snapshot
from vmark.app.server import RunningApp
from vmark.ghactions.actionlint import find_actionlint
from vmark.testing.uiclient import UIClient

WORKFLOW = """\
# CI for the project
name: ci
on:
  push:
    branches: [ main ]   # only main
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v5
      - uses: actions/setup-python@v6
        with:
          python-version: "3.11"   # keep quoted
  test:
    needs: build
    runs-on: ubuntu-latest
    steps:
      - run: make test
"""


@pytest.fixture
def workflow_file(opened: Path) -> Path:
    path = opened / ".github" / "workflows" / "ci.yml"
    path.write_bytes(WORKFLOW.replace("\n", "\r\n").encode())  # CRLF must survive
    return path


async def test_apply_patch_changes_only_the_node(mcp: Client, vmark: RunningApp, workflow_file: Path) -> None:
    tab = await open_tab(mcp, workflow_file)
    read = await ok(mcp, "document", "read", tabId=tab)
    assert read["kind"] == "yaml-workflow"
    patches = [{"kind": "with.set", "jobId": "build", "stepIndex": 1, "key": "python-version", "value": "3.12"}]
    out = await ok(mcp, "workflow", "apply_patch", tabId=tab, patches=patches, expected_revision=read["revision"])
    assert set(out) == {"revision", "applied", "durable"}
    assert (out["applied"], out["durable"]) == (True, True)
    expected = WORKFLOW.replace('python-version: "3.11"', 'python-version: "3.12"').replace("\n", "\r\n")
    assert doc_of(vmark, tab).state.text == expected
    assert (await ok(mcp, "document", "read", tabId=tab))["dirty"] is True  # apply_patch does not save
    assert workflow_file.read_bytes() == WORKFLOW.replace("\n", "\r\n").encode()
    entries = [e for e in await journal(vmark) if e["tool"] == "workflow.apply_patch"]
    assert [(e["rev_before"], e["rev_after"]) for e in entries] == [(read["revision"], out["revision"])]
    # The same patch again changes nothing: not journaled, the revision stays.
    again = await ok(mcp, "workflow", "apply_patch", tabId=tab, patches=patches)
    assert again == {"revision": out["revision"], "applied": False, "durable": True}
    assert len([e for e in await journal(vmark) if e["tool"] == "workflow.apply_patch"]) == 1


async def test_patch_list_is_atomic_and_names_the_index(mcp: Client, vmark: RunningApp, workflow_file: Path) -> None:
    tab = await open_tab(mcp, workflow_file)
    doc = doc_of(vmark, tab)
    before = await snapshot(vmark, doc, workflow_file)
    patches = [
        {"kind": "job.set", "jobId": "test", "path": "timeout-minutes", "value": 5},
        {"kind": "job.set", "jobId": "deploy", "path": "runs-on", "value": "x"},
    ]
    err = await fail_code(mcp, "workflow", "apply_patch", tabId=tab, patches=patches)
    assert err["error"] == "INVALID_PATCH" and err["index"] == 1
    assert err["message"].startswith("patch[1]: ") and "deploy" in err["message"]
    assert await snapshot(vmark, doc, workflow_file) == before
    unknown = await fail_code(mcp, "workflow", "apply_patch", tabId=tab, patches=[{"kind": "job.explode"}])
    assert unknown["error"] == "INVALID_PATCH" and unknown["message"].startswith("patch[0]: ")
    not_object = await fail_code(mcp, "workflow", "apply_patch", tabId=tab, patches=["x"])
    assert not_object["error"] == "INVALID_PATCH"
    assert await snapshot(vmark, doc, workflow_file) == before
    assert await fail(mcp, "workflow", "apply_patch", tabId=tab) == (
        "workflow.apply_patch: missing required argument 'patches'"
    )
    assert await fail(mcp, "workflow", "apply_patch", tabId=tab, patches={"kind": "x"}) == (
        "workflow.apply_patch: argument 'patches' must be an array"
    )


async def test_refusals(
    mcp: Client,
    vmark: RunningApp,
    person: UIClient,
    workflow_file: Path,
    opened: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("vmark.app.writes.COMPOSITION_GRACE_SECONDS", 0.0)
    md = await open_tab(mcp, opened / "a.md")
    for action, args in (("apply_patch", {"patches": []}), ("validate", {})):
        err = await fail_code(mcp, "workflow", action, tabId=md, **args)
        assert err["error"] == "NOT_WORKFLOW"
    tab = await open_tab(mcp, workflow_file)
    read = await ok(mcp, "document", "read", tabId=tab)
    await person.edit(tab, read["content"] + "# person\r\n")
    stale = await fail_code(mcp, "workflow", "apply_patch", tabId=tab, patches=[], expected_revision=read["revision"])
    assert stale["error"] == "STALE" and stale["current_revision"] == doc_of(vmark, tab).state.revision
    await person.call("ui.composition", tabId=tab, state="start")
    busy = await fail_code(
        mcp, "workflow", "apply_patch", tabId=tab, patches=[{"kind": "workflow.set", "path": "name", "value": "x"}]
    )
    assert busy["error"] == "BUSY"
    await person.call("ui.composition", tabId=tab, state="end")
    bad = await fail_code(mcp, "workflow", "apply_patch", tabId=tab, patches=[], addresses=["c-nope"])
    assert bad["error"] == "INVALID_ADDRESSES"


async def test_validate_reports_actionlint(mcp: Client, vmark: RunningApp, workflow_file: Path) -> None:
    tab = await open_tab(mcp, workflow_file)
    clean = await ok(mcp, "workflow", "validate", tabId=tab)
    if find_actionlint() is None:
        assert clean == {"ok": True, "diagnostics": [], "binaryAvailable": False}
        return
    assert clean == {"ok": True, "diagnostics": [], "binaryAvailable": True}
    # Unsaved edits are what gets validated.
    await ok(
        mcp,
        "workflow",
        "apply_patch",
        tabId=tab,
        patches=[{"kind": "job.set", "jobId": "test", "path": "runs-on", "value": "ubuntu-latst"}],
    )
    text = (await ok(mcp, "document", "read", tabId=tab))["content"]
    broken_text = text.replace("needs: build", "needs: nosuchjob")
    await ok(mcp, "document", "write", tabId=tab, content=broken_text, save=False)
    broken = await ok(mcp, "workflow", "validate", tabId=tab)
    assert broken["ok"] is False and broken["binaryAvailable"] is True
    assert {d["severity"] for d in broken["diagnostics"]} == {"error"}
    messages = " ".join(d["message"] for d in broken["diagnostics"])
    assert "nosuchjob" in messages and "ubuntu-latst" in messages
    assert all(isinstance(d["line"], int) and isinstance(d["col"], int) for d in broken["diagnostics"])
