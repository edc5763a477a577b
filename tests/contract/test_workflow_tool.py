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


@pytest.mark.legacy_protocol
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
    monkeypatch.setattr("vmark.app.turns.COMPOSITION_GRACE_SECONDS", 0.0)
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


# --- the original VMark's field names, one kind at a time -----------------------------------------------
ORIGINAL_FIELDS: list[tuple[dict[str, object], str, str]] = [
    ({"kind": "workflow.set", "path": "name", "value": "build-and-test"}, "name: ci", "name: build-and-test"),
    (
        {"kind": "job.set", "jobId": "test", "path": "runs-on", "value": "macos-latest"},
        "    needs: build\n    runs-on: ubuntu-latest",
        "    needs: build\n    runs-on: macos-latest",
    ),
    (
        {"kind": "step.set", "jobId": "test", "stepIndex": 0, "path": "run", "value": "make check"},
        "      - run: make test",
        "      - run: make check",
    ),
    (
        {"kind": "with.set", "jobId": "build", "stepIndex": 1, "key": "python-version", "value": "3.13"},
        'python-version: "3.11"',
        'python-version: "3.13"',
    ),
    (
        {"kind": "with.remove", "jobId": "build", "stepIndex": 1, "key": "python-version"},
        '\n        with:\n          python-version: "3.11"   # keep quoted',
        "",
    ),
    ({"kind": "needs.add", "jobId": "test", "ref": "lint"}, "    needs: build\n", "    needs: [ build, lint ]\n"),
    ({"kind": "needs.remove", "jobId": "test", "ref": "build"}, "    needs: build\n", ""),
    (
        {"kind": "trigger.setFilters", "event": "push", "filter": "branches", "value": ["main", "release/*"]},
        "branches: [ main ]",
        "branches: [ main, release/* ]",
    ),
]

LINT_JOB = "  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make lint\n"


@pytest.mark.parametrize(("patch", "old", "new"), ORIGINAL_FIELDS, ids=[str(p["kind"]) for p, _, _ in ORIGINAL_FIELDS])
async def test_every_kind_takes_the_original_field_names(
    mcp: Client, vmark: RunningApp, workflow_file: Path, patch: dict[str, object], old: str, new: str
) -> None:
    base = WORKFLOW + LINT_JOB
    workflow_file.write_bytes(base.encode())
    tab = await open_tab(mcp, workflow_file)
    out = await ok(mcp, "workflow", "apply_patch", tabId=tab, patches=[patch])
    assert out["applied"] is True, out
    assert base.count(old) == 1
    assert doc_of(vmark, tab).state.text == base.replace(old, new)


async def test_needs_takes_ref_needs_or_value_but_only_one(mcp: Client, vmark: RunningApp, workflow_file: Path) -> None:
    workflow_file.write_bytes((WORKFLOW + LINT_JOB).encode())
    tab = await open_tab(mcp, workflow_file)
    for name in ("ref", "needs", "value"):
        await ok(
            mcp, "workflow", "apply_patch", tabId=tab, patches=[{"kind": "needs.add", "jobId": "test", name: "lint"}]
        )
        assert "    needs: [ build, lint ]\n" in doc_of(vmark, tab).state.text, name
        await ok(
            mcp, "workflow", "apply_patch", tabId=tab, patches=[{"kind": "needs.remove", "jobId": "test", name: "lint"}]
        )
        assert "    needs: [ build ]\n" in doc_of(vmark, tab).state.text, name  # the list stays a list
    both = {"kind": "needs.add", "jobId": "test", "ref": "lint", "needs": "lint"}
    err = await fail_code(mcp, "workflow", "apply_patch", tabId=tab, patches=[both])
    assert (err["error"], err["index"]) == ("INVALID_PATCH", 0)
    assert err["message"] == "patch[0]: give the job id once, as 'ref' (not as 'ref' and 'needs')"
    missing = await fail_code(
        mcp, "workflow", "apply_patch", tabId=tab, patches=[{"kind": "needs.add", "jobId": "test"}]
    )
    assert missing["message"] == "patch[0]: missing field 'ref'"


async def test_the_schema_and_description_give_ref_first(mcp: Client) -> None:
    tool = next(t for t in (await mcp.list_tools()).tools if t.name == "workflow")
    assert "needs.add / needs.remove {jobId, ref}" in (tool.description or "")
    item = tool.input_schema["properties"]["patches"]["items"]
    names = list(item["properties"])
    assert names.index("ref") < names.index("needs")
    assert item["properties"]["kind"]["enum"] == [
        "workflow.set",
        "job.set",
        "step.set",
        "with.set",
        "with.remove",
        "needs.add",
        "needs.remove",
        "trigger.setFilters",
    ]
