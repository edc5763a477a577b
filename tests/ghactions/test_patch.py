"""apply_patches: every patch kind, every GitHub form, exact bytes; every refusal, exact message."""

from __future__ import annotations

from typing import Any

import pytest

from vmark.ghactions import document
from vmark.ghactions.patch import PatchError, apply_patches, parse_path

BASE = """\
# CI workflow
name: CI
on:
  push:
    branches: [ main ]   # trunk only
  pull_request:

env:
  A: 1

jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - run: make lint

  build:
    needs: lint
    runs-on: ubuntu-latest  # the usual
    steps:
      - uses: actions/checkout@v4 # pinned
        with:
          fetch-depth: 0
          ref: 'v1'

      - name: Test
        run: |
          make
          make test
"""


def with_set(key: str, value: Any, step: int = 0, job: str = "build") -> dict[str, Any]:
    return {"kind": "with.set", "jobId": job, "stepIndex": step, "key": key, "value": value}


def wf_set(path: Any, value: Any) -> dict[str, Any]:
    return {"kind": "workflow.set", "path": path, "value": value}


def job_set(job: str, path: Any, value: Any) -> dict[str, Any]:
    return {"kind": "job.set", "jobId": job, "path": path, "value": value}


def step_set(job: str, step: int, path: Any, value: Any) -> dict[str, Any]:
    return {"kind": "step.set", "jobId": job, "stepIndex": step, "path": path, "value": value}


def needs(kind: str, job: str, need: str) -> dict[str, Any]:
    return {"kind": f"needs.{kind}", "jobId": job, "needs": need}


def filters(event: str, name: str, value: list[str]) -> dict[str, Any]:
    return {"kind": "trigger.setFilters", "event": event, "filter": name, "value": value}


#: (patch, old text, new text): the patch replaces exactly that text of BASE (old must occur once)
BASE_CASES: dict[str, tuple[dict[str, Any], str, str]] = {
    # workflow.set
    "name": (wf_set("name", "Release"), "name: CI\n", "name: Release\n"),
    "env number": (wf_set("env.A", 2), "  A: 1\n", "  A: 2\n"),
    "env number to string keeps it a string": (wf_set("env.A", "2"), "  A: 1\n", "  A: '2'\n"),
    "env new key": (wf_set("env.B", "hello"), "  A: 1\n", "  A: 1\n  B: hello\n"),
    "env yaml-1.1 boolean": (wf_set("env.B", "on"), "  A: 1\n", "  A: 1\n  B: 'on'\n"),
    "env y": (wf_set("env.B", "y"), "  A: 1\n", "  A: 1\n  B: 'y'\n"),
    "env true string": (wf_set("env.B", "true"), "  A: 1\n", "  A: 1\n  B: 'true'\n"),
    "env boolean": (wf_set("env.B", False), "  A: 1\n", "  A: 1\n  B: false\n"),
    "env null": (wf_set("env.A", None), "  A: 1\n", "  A:\n"),
    "env version string": (wf_set("env.B", "3.10"), "  A: 1\n", "  A: 1\n  B: '3.10'\n"),
    "env empty string": (wf_set("env.B", ""), "  A: 1\n", "  A: 1\n  B: ''\n"),
    "env needs quotes": (wf_set("env.B", "a: b #c"), "  A: 1\n", "  A: 1\n  B: 'a: b #c'\n"),
    "env single quote inside": (wf_set("env.B", "it's: x"), "  A: 1\n", "  A: 1\n  B: 'it''s: x'\n"),
    "env expression": (wf_set("env.B", "${{ github.sha }}"), "  A: 1\n", "  A: 1\n  B: ${{ github.sha }}\n"),
    "env escaped dot": (wf_set("env.A\\.B", "x"), "  A: 1\n", "  A: 1\n  A.B: x\n"),
    "env list path": (wf_set(["env", "C.D"], "x"), "  A: 1\n", "  A: 1\n  C.D: x\n"),
    "env list value": (wf_set("env.L", ["a", "b"]), "  A: 1\n", "  A: 1\n  L: [ a, b ]\n"),
    "env multi-line": (wf_set("env.M", "one\ntwo\n"), "  A: 1\n", "  A: 1\n  M: |\n    one\n    two\n"),
    "env multi-line no final newline": (wf_set("env.M", "one\ntwo"), "  A: 1\n", "  A: 1\n  M: |-\n    one\n    two\n"),
    "env control character": (wf_set("env.B", "a\tb\x01"), "  A: 1\n", '  A: 1\n  B: "a\\tb\\x01"\n'),
    "new top-level mapping": (
        wf_set("permissions.contents", "read"),
        "          make test\n",
        "          make test\npermissions:\n  contents: read\n",
    ),
    "top-level mapping value": (
        wf_set("concurrency", {"group": "ci", "cancel-in-progress": True}),
        "          make test\n",
        "          make test\nconcurrency:\n  group: ci\n  cancel-in-progress: true\n",
    ),
    "replace a block mapping by a scalar": (wf_set("env", "x"), "env:\n  A: 1\n", "env: x\n"),
    "replace a block mapping by a block mapping": (
        wf_set("env", {"B": 2, "C": [1]}),
        "env:\n  A: 1\n",
        "env:\n  B: 2\n  C: [ 1 ]\n",
    ),
    # job.set
    "job field": (job_set("build", "runs-on", "macos-latest"), "runs-on: ubuntu-latest  # the usual",
                  "runs-on: macos-latest  # the usual"),
    "job new field after a block scalar": (
        job_set("build", "timeout-minutes", 5),
        "          make test\n",
        "          make test\n    timeout-minutes: 5\n",
    ),
    "job new env mapping": (
        job_set("lint", "env.X", "1"),
        "      - run: make lint\n",
        "      - run: make lint\n    env:\n      X: '1'\n",
    ),
    "job steps list": (
        job_set("lint", "steps", [{"uses": "a/b@v1", "with": {"x": 1}}, {"run": "echo hi\necho bye\n"}]),
        "      - run: make lint\n",
        "      - uses: a/b@v1\n        with:\n          x: 1\n      - run: |\n          echo hi\n          echo bye\n",
    ),
    "job field through a list index": (job_set("lint", "steps.0.run", "make check"), "run: make lint",
                                       "run: make check"),
    # step.set
    "step new field": (
        step_set("build", 0, "name", "Checkout"),
        "          ref: 'v1'\n",
        "          ref: 'v1'\n        name: Checkout\n",
    ),
    "step block scalar to plain": (
        step_set("build", 1, "run", "make all"),
        "        run: |\n          make\n          make test\n",
        "        run: make all\n",
    ),
    "step plain to block scalar": (
        step_set("lint", 0, "run", "make\nmake lint\n"),
        "      - run: make lint\n",
        "      - run: |\n          make\n          make lint\n",
    ),
    "step if expression": (
        step_set("build", 1, "if", "${{ always() }}"),
        "          make test\n",
        "          make test\n        if: ${{ always() }}\n",
    ),
    # with.set / with.remove
    "with existing": (with_set("fetch-depth", 1), "fetch-depth: 0", "fetch-depth: 1"),
    "with keeps quoting": (with_set("ref", "v2"), "ref: 'v1'", "ref: 'v2'"),
    "with new key": (with_set("token", "abc"), "          ref: 'v1'\n", "          ref: 'v1'\n          token: abc\n"),
    "with created": (
        with_set("x", "1", step=1),
        "          make test\n",
        "          make test\n        with:\n          x: '1'\n",
    ),
    "with created on a step of one line": (
        with_set("x", True, step=0, job="lint"),
        "      - run: make lint\n",
        "      - run: make lint\n        with:\n          x: true\n",
    ),
    "with remove": ({"kind": "with.remove", "jobId": "build", "stepIndex": 0, "key": "ref"}, "          ref: 'v1'\n",
                    ""),
    # needs
    "needs added to a job without needs": (needs("add", "lint", "build"), "      - run: make lint\n",
                                           "      - run: make lint\n    needs: build\n"),
    "needs remove the only one": (needs("remove", "build", "lint"), "    needs: lint\n", ""),
    # trigger.setFilters
    "filters replace a flow list": (filters("push", "branches", ["main", "dev"]), "branches: [ main ]   # trunk only",
                                    "branches: [ main, dev ]   # trunk only"),
    "filters on a null event": (filters("pull_request", "paths", ["src/**"]), "  pull_request:\n",
                                "  pull_request:\n    paths: [ src/** ]\n"),
    "filters new kind next to a list": (filters("push", "tags", ["v*"]), "branches: [ main ]   # trunk only\n",
                                        "branches: [ main ]   # trunk only\n    tags: [ v* ]\n"),
    "filters new event": (filters("workflow_dispatch", "types", ["x"]), "  pull_request:\n",
                          "  pull_request:\n  workflow_dispatch:\n    types: [ x ]\n"),
    "filters empty list": (filters("push", "branches", []), "[ main ]", "[]"),
}

def expect(old: str, new: str, base: str = BASE) -> str:
    assert base.count(old) == 1, f"{old!r} must occur once"
    return base.replace(old, new)


def variants(text: str) -> dict[str, tuple[str, Any]]:
    """The same text with LF, with CRLF, with a BOM, and both: each with how to convert an expectation."""
    return {
        "lf": (text, lambda s: s),
        "crlf": (text.replace("\n", "\r\n"), lambda s: s.replace("\n", "\r\n")),
        "bom": ("\ufeff" + text, lambda s: "\ufeff" + s),
        "bom-crlf": ("\ufeff" + text.replace("\n", "\r\n"), lambda s: "\ufeff" + s.replace("\n", "\r\n")),
    }


@pytest.mark.parametrize("variant", ["lf", "crlf", "bom", "bom-crlf"])
@pytest.mark.parametrize("case", list(BASE_CASES), ids=list(BASE_CASES))
def test_patch_changes_exactly_the_node(case: str, variant: str) -> None:
    patch, old, new = BASE_CASES[case]
    text, convert = variants(BASE)[variant]
    result = apply_patches(text, [patch])
    assert result == convert(expect(old, new))
    assert apply_patches(result, [patch]) == result  # idempotent


@pytest.mark.parametrize("case", list(BASE_CASES), ids=list(BASE_CASES))
def test_full_parse_gives_the_same_bytes(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path (only the touched entries parsed) and a full parse write the same text."""
    patch, _old, _new = BASE_CASES[case]
    fast = apply_patches(BASE, [patch])
    monkeypatch.setattr(document, "load", document.load_full)
    assert apply_patches(BASE, [patch]) == fast


NOOPS = {
    "same value": wf_set("env.A", 1),
    "same value other spelling": with_set("ref", "v1"),
    "same float": with_set("fetch-depth", 0.0),
    "with remove absent key": {"kind": "with.remove", "jobId": "build", "stepIndex": 0, "key": "nope"},
    "with remove without with": {"kind": "with.remove", "jobId": "build", "stepIndex": 1, "key": "x"},
    "needs add present": needs("add", "build", "lint"),
    "needs remove absent": needs("remove", "lint", "build"),
    "needs remove not listed": needs("remove", "build", "other"),
    "filters same": filters("push", "branches", ["main"]),
}


@pytest.mark.parametrize("patch", list(NOOPS.values()), ids=list(NOOPS))
def test_a_patch_that_changes_nothing_returns_the_identical_text(patch: dict[str, Any]) -> None:
    assert apply_patches(BASE, [patch]) is BASE or apply_patches(BASE, [patch]) == BASE


def test_with_remove_of_the_last_key_removes_with() -> None:
    text = apply_patches(BASE, [
        {"kind": "with.remove", "jobId": "build", "stepIndex": 0, "key": "ref"},
        {"kind": "with.remove", "jobId": "build", "stepIndex": 0, "key": "fetch-depth"},
    ])
    assert text == expect("        with:\n          fetch-depth: 0\n          ref: 'v1'\n", "")


def test_patches_apply_in_order() -> None:
    text = apply_patches(BASE, [with_set("a", 1, step=1), with_set("b", 2, step=1), wf_set("name", "X")])
    created = "          make test\n        with:\n          a: 1\n          b: 2\n"
    assert text == expect("          make test\n", created, expect("name: CI\n", "name: X\n"))


# -- the forms GitHub accepts -----------------------------------------------------------------------------------------

FORMS: dict[str, tuple[str, list[dict[str, Any]], str]] = {
    "on scalar, same event": ("on: push\njobs: {}\n", [filters("push", "branches", ["main"])],
                              "on:\n  push:\n    branches: [main]\njobs: {}\n"),
    "on scalar, other event": ("on: push\njobs: {}\n", [filters("pull_request", "types", ["opened"])],
                               "on:\n  push:\n  pull_request:\n    types: [opened]\njobs: {}\n"),
    "on flow list": ("on: [push, pull_request]  # both\njobs: {}\n", [filters("push", "branches", ["main"])],
                     "on:  # both\n  push:\n    branches: [main]\n  pull_request:\njobs: {}\n"),
    "on flow mapping": ("on: {push: {branches: [a]}}\n", [filters("push", "branches", ["a", "b"])],
                        "on: {push: {branches: [a, b]}}\n"),
    "on flow mapping, new filter": ("on: {push: {branches: [a]}}\n", [filters("push", "tags", ["v1"])],
                                    "on: {push: {branches: [a], tags: [v1]}}\n"),
    "on flow mapping, new event": ("on: {push: {branches: [a]}}\n", [filters("release", "types", ["published"])],
                                   "on: {push: {branches: [a]}, release: {types: [published]}}\n"),
    "on flow mapping, null event": ("on: {push: null, pull_request: {}}\n", [filters("push", "tags", ["v*"])],
                                    "on: {push: {tags: [v*]}, pull_request: {}}\n"),
    "on flow mapping, empty event": ("on: {push: {}}\n", [filters("push", "tags", ["v*"])],
                                     "on: {push: {tags: [v*]}}\n"),
    "on block list filter keeps block style": (
        "on:\n  push:\n    branches:\n      - main\n",
        [filters("push", "branches", ["main", "dev"])],
        "on:\n  push:\n    branches:\n      - main\n      - dev\n",
    ),
    "on indentless block list": (
        "on:\n  push:\n    branches:\n    - main\n",
        [filters("push", "branches", ["dev"])],
        "on:\n  push:\n    branches:\n    - dev\n",
    ),
    "on missing": ("name: x\njobs: {}\n", [filters("push", "branches", ["main"])],
                   "name: x\njobs: {}\non:\n  push:\n    branches: [main]\n"),
    "quoted on key": ("'on':\n  push:\n", [filters("push", "branches", ["main"])],
                      "'on':\n  push:\n    branches: [main]\n"),
    "needs scalar to list": ("jobs:\n  a: {}\n  c: {}\n  b:\n    needs: a\n", [needs("add", "b", "c")],
                             "jobs:\n  a: {}\n  c: {}\n  b:\n    needs: [a, c]\n"),
    "needs flow list append": ("jobs:\n  a: {}\n  c: {}\n  b:\n    needs: [ a ]\n", [needs("add", "b", "c")],
                               "jobs:\n  a: {}\n  c: {}\n  b:\n    needs: [ a, c ]\n"),
    "needs flow list remove first": ("jobs:\n  a: {}\n  c: {}\n  b:\n    needs: [a, c]\n", [needs("remove", "b", "a")],
                                     "jobs:\n  a: {}\n  c: {}\n  b:\n    needs: [c]\n"),
    "needs flow list remove last": ("jobs:\n  a: {}\n  c: {}\n  b:\n    needs: [a, c]\n", [needs("remove", "b", "c")],
                                    "jobs:\n  a: {}\n  c: {}\n  b:\n    needs: [a]\n"),
    "needs block list append": (
        "jobs:\n  a: {}\n  c: {}\n  b:\n    needs:\n      - a  # first\n    runs-on: x\n",
        [needs("add", "b", "c")],
        "jobs:\n  a: {}\n  c: {}\n  b:\n    needs:\n      - a  # first\n      - c\n    runs-on: x\n",
    ),
    "needs block list remove": (
        "jobs:\n  a: {}\n  c: {}\n  b:\n    needs:\n      - a\n      - c\n    runs-on: x\n",
        [needs("remove", "b", "a")],
        "jobs:\n  a: {}\n  c: {}\n  b:\n    needs:\n      - c\n    runs-on: x\n",
    ),
    "needs remove the last of a list": (
        "jobs:\n  a: {}\n  b:\n    needs: [a]\n    runs-on: x\n",
        [needs("remove", "b", "a")],
        "jobs:\n  a: {}\n  b:\n    runs-on: x\n",
    ),
    "needs on a flow job": ("jobs:\n  a: {}\n  b: {runs-on: x}\n", [needs("add", "b", "a")],
                            "jobs:\n  a: {}\n  b: {runs-on: x, needs: a}\n"),
    "needs on an empty job": ("jobs:\n  a: {}\n  b: {}\n", [needs("add", "b", "a")],
                              "jobs:\n  a: {}\n  b: {needs: a}\n"),
    "needs on a null job": ("jobs:\n  a: {}\n  b:\n", [needs("add", "b", "a")], "jobs:\n  a: {}\n  b:\n    needs: a\n"),
    "with on a flow step": (
        "jobs:\n  a:\n    steps:\n      - {uses: x/y@v1}\n",
        [with_set("k", "v", job="a")],
        "jobs:\n  a:\n    steps:\n      - {uses: x/y@v1, with: {k: v}}\n",
    ),
    "with empty flow mapping": (
        "jobs:\n  a:\n    steps:\n      - uses: x/y@v1\n        with: {}\n",
        [with_set("k", "v", job="a")],
        "jobs:\n  a:\n    steps:\n      - uses: x/y@v1\n        with: {k: v}\n",
    ),
    "with null": (
        "jobs:\n  a:\n    steps:\n      - uses: x/y@v1\n        with:  # inputs\n",
        [with_set("k", "v", job="a")],
        "jobs:\n  a:\n    steps:\n      - uses: x/y@v1\n        with:  # inputs\n          k: v\n",
    ),
    "with remove from a flow mapping": (
        "jobs:\n  a:\n    steps:\n      - uses: x/y@v1\n        with: {a: 1, b: 2}\n",
        [{"kind": "with.remove", "jobId": "a", "stepIndex": 0, "key": "a"}],
        "jobs:\n  a:\n    steps:\n      - uses: x/y@v1\n        with: {b: 2}\n",
    ),
    "with remove the only flow key removes with": (
        "jobs:\n  a:\n    steps:\n      - uses: x/y@v1\n        with: {a: 1}\n        id: s\n",
        [{"kind": "with.remove", "jobId": "a", "stepIndex": 0, "key": "a"}],
        "jobs:\n  a:\n    steps:\n      - uses: x/y@v1\n        id: s\n",
    ),
    "with first key of a step": (
        "jobs:\n  a:\n    steps:\n      - with:\n          a: 1\n        uses: x/y@v1\n",
        [{"kind": "with.remove", "jobId": "a", "stepIndex": 0, "key": "a"}],
        "jobs:\n  a:\n    steps:\n      - uses: x/y@v1\n",
    ),
    "indentless steps": (
        "jobs:\n  a:\n    steps:\n    - uses: x/y@v1\n    - run: echo\n",
        [with_set("k", "v", step=0, job="a")],
        "jobs:\n  a:\n    steps:\n    - uses: x/y@v1\n      with:\n        k: v\n    - run: echo\n",
    ),
    "four-space indentation": (
        "jobs:\n    a:\n        steps:\n            - uses: x/y@v1\n",
        [with_set("k", "v", job="a")],
        "jobs:\n    a:\n        steps:\n            - uses: x/y@v1\n              with:\n                  k: v\n",
    ),
    "document start and trailing comments": (
        "---\n# top\nname: x\njobs: {}\n# the end\n",
        [wf_set("env.A", "1")],
        "---\n# top\nname: x\njobs: {}\n# the end\nenv:\n  A: '1'\n",
    ),
    "no final line break": ("name: x\njobs: {}", [wf_set("env.A", "1")], "name: x\njobs: {}\nenv:\n  A: '1'"),
    "no final line break after a block scalar": (
        "jobs:\n  a:\n    steps:\n      - run: |\n          echo",
        [job_set("a", "timeout-minutes", 3)],
        "jobs:\n  a:\n    steps:\n      - run: |-\n          echo\n    timeout-minutes: 3",
    ),
    "keep chomping keeps its blank lines": (
        "jobs:\n  a:\n    steps:\n      - run: |+\n          echo\n\n\n  b: {}\n",
        [job_set("a", "timeout-minutes", 3)],
        "jobs:\n  a:\n    steps:\n      - run: |+\n          echo\n\n\n    timeout-minutes: 3\n  b: {}\n",
    ),
    "clip chomping does not need its blank lines": (
        "jobs:\n  a:\n    steps:\n      - run: |\n          echo\n\n  b: {}\n",
        [job_set("a", "timeout-minutes", 3)],
        "jobs:\n  a:\n    steps:\n      - run: |\n          echo\n    timeout-minutes: 3\n\n  b: {}\n",
    ),
    "multi-line string with a leading space": (
        "env:\n  A: 1\n", [wf_set("env.M", " lead\nx")], 'env:\n  A: 1\n  M: " lead\\nx"\n'
    ),
    "multi-line string in a flow mapping": ("env: {A: 1}\n", [wf_set("env.M", "a\nb")], 'env: {A: 1, M: "a\\nb"}\n'),
    "remove the last line of a text without a final line break": (
        "jobs:\n  a: {}\n  b:\n    runs-on: x\n    needs: a",
        [needs("remove", "b", "a")],
        "jobs:\n  a: {}\n  b:\n    runs-on: x\n",
    ),
    "double quotes are the document's habit": (
        'name: "x"\nenv:\n  A: "1"\n',
        [wf_set("env.B", "on")],
        'name: "x"\nenv:\n  A: "1"\n  B: "on"\n',
    ),
    "replace a quoted scalar keeps its quotes": ('env:\n  A: "1"\n', [wf_set("env.A", "2")], 'env:\n  A: "2"\n'),
    "replace a number by a string": ("env:\n  A: 1\n", [wf_set("env.A", "1")], "env:\n  A: '1'\n"),
    "comment after the key stays": ("env:  # vars\n  A: 1\n", [wf_set("env", "x")], "env: x  # vars\n"),
    "block value replaced keeps the lines above it": (
        "env:\n  # vars\n  A: 1\n",
        [wf_set("env", {"B": 2})],
        "env:\n  # vars\n  B: 2\n",
    ),
    "empty flow mapping stays flow": (
        "env: {}  # none yet\n",
        [wf_set("env", {"B": 2})],
        "env: {B: 2}  # none yet\n",
    ),
    "inline scalar with comment becomes a block": (
        "env: none  # none yet\n",
        [wf_set("env", {"B": 2})],
        "env:  # none yet\n  B: 2\n",
    ),
    "comment lines after the last entry stay with it": (
        "env:\n  A: 1\n  # B: 2\nname: x\n",
        [wf_set("env.C", 3)],
        "env:\n  A: 1\n  # B: 2\n  C: 3\nname: x\n",
    ),
    "tabs and unicode in values": ("name: x\n", [wf_set("name", "déjà vu ✓")], "name: déjà vu ✓\n"),
    "flow mapping keeps its padding": ("env: { A: 1 }\n", [wf_set("env.B", 2)], "env: { A: 1, B: 2 }\n"),
    "flow list keeps its separator": ("env:\n  L: [a,b]\n", [wf_set("env.L", ["a", "b", "c"])],
                                      "env:\n  L: [a, b, c]\n"),
}


@pytest.mark.parametrize("case", list(FORMS), ids=list(FORMS))
def test_github_forms(case: str) -> None:
    text, patches, want = FORMS[case]
    result = apply_patches(text, patches)
    assert result == want
    assert apply_patches(result, patches) == result


@pytest.mark.parametrize("case", list(FORMS), ids=list(FORMS))
def test_github_forms_with_crlf(case: str) -> None:
    text, patches, want = FORMS[case]
    assert apply_patches(text.replace("\n", "\r\n"), patches) == want.replace("\n", "\r\n")


# -- anchors and aliases ----------------------------------------------------------------------------------------------

ANCHORED = """\
on: push
env: &env
  A: 1
jobs:
  a:
    env: *env
    runs-on: &os ubuntu-latest
    steps:
      - &checkout
        uses: actions/checkout@v4
  b:
    runs-on: *os
    steps:
      - *checkout
      - run: echo
"""


def test_a_patch_next_to_an_alias_preserves_it() -> None:
    result = apply_patches(ANCHORED, [step_set("b", 1, "name", "Echo"), job_set("b", "timeout-minutes", 5)])
    added = "      - run: echo\n        name: Echo\n    timeout-minutes: 5\n"
    assert result == ANCHORED.replace("      - run: echo\n", added)


def test_replacing_an_alias_replaces_only_the_alias() -> None:
    result = apply_patches(ANCHORED, [job_set("b", "runs-on", "macos-latest")])
    assert result == ANCHORED.replace("    runs-on: *os\n", "    runs-on: macos-latest\n")


def test_replacing_an_anchored_value_keeps_the_anchor() -> None:
    result = apply_patches(ANCHORED, [job_set("a", "runs-on", "windows-latest")])
    assert result == ANCHORED.replace("&os ubuntu-latest", "&os windows-latest")


def test_editing_inside_an_anchored_mapping() -> None:
    result = apply_patches(ANCHORED, [wf_set("env.B", 2)])
    assert result == ANCHORED.replace("  A: 1\n", "  A: 1\n  B: 2\n")


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        (job_set("a", "env.B", 2), "patch[0]: path 'env.B' runs through an alias at 'jobs.a.env'"),
        (with_set("k", "v", job="b"), "patch[0]: path 'with.k' runs through an alias at 'jobs.b.steps[0]'"),
        (step_set("b", 0, "name", "x"), "patch[0]: path 'name' runs through an alias at 'jobs.b.steps[0]'"),
    ],
)
def test_a_path_through_an_alias_is_refused(patch: dict[str, Any], message: str) -> None:
    with pytest.raises(PatchError) as caught:
        apply_patches(ANCHORED, [patch])
    assert str(caught.value) == message


def test_needs_through_an_alias_is_refused() -> None:
    text = "x: &deps [a]\njobs:\n  a: {}\n  c: {}\n  b:\n    needs: *deps\n"
    with pytest.raises(PatchError) as caught:
        apply_patches(text, [needs("add", "b", "c")])
    assert str(caught.value) == "patch[0]: 'jobs.b.needs' is an alias; edit the anchored value instead"


def test_trigger_through_an_alias_is_refused() -> None:
    text = "x: &on {push: {}}\non: *on\n"
    with pytest.raises(PatchError) as caught:
        apply_patches(text, [filters("push", "branches", ["a"])])
    assert str(caught.value) == "patch[0]: path 'on.push.branches' runs through an alias at 'on'"


# -- refusals ---------------------------------------------------------------------------------------------------------

REFUSALS: dict[str, tuple[list[Any], str]] = {
    "unknown kind": ([{"kind": "job.delete"}], "patch[0]: unknown kind 'job.delete'"),
    "kind not a string": ([{"kind": 3}], "patch[0]: unknown kind 3"),
    "missing kind": ([{"path": "name"}], "patch[0]: missing field 'kind'"),
    "not an object": ([wf_set("name", "x"), "name"], "patch[1]: a patch must be an object"),
    "missing field": ([{"kind": "job.set", "path": "x", "value": 1}], "patch[0]: missing field 'jobId'"),
    "missing value": ([{"kind": "workflow.set", "path": "x"}], "patch[0]: missing field 'value'"),
    "unknown field": ([{"kind": "job.set", "job": "a", "jobId": "a", "path": "x", "value": 1}],
                      "patch[0]: unknown field 'job' for kind 'job.set'"),
    "jobId not a string": ([job_set(1, "x", 1)], "patch[0]: field 'jobId' must be a non-empty string"),  # type: ignore[arg-type]
    "jobId empty": ([job_set("", "x", 1)], "patch[0]: field 'jobId' must be a non-empty string"),
    "stepIndex a string": ([step_set("build", "0", "x", 1)],  # type: ignore[arg-type]
                           "patch[0]: field 'stepIndex' must be an integer"),
    "stepIndex a boolean": ([step_set("build", True, "x", 1)], "patch[0]: field 'stepIndex' must be an integer"),
    "path empty": ([wf_set("", 1)],
                   "patch[0]: field 'path' must be a non-empty string or a non-empty list of keys and indices"),
    "path not a string": ([wf_set(5, 1)],
                          "patch[0]: field 'path' must be a non-empty string or a non-empty list of keys and indices"),
    "path empty segment": ([wf_set("env..A", 1)], "patch[0]: path 'env..A' has an empty segment"),
    "path lone backslash": ([wf_set("env\\", 1)], "patch[0]: path 'env\\' ends with a lone backslash"),
    "value not JSON": ([wf_set("name", object())], "patch[0]: field 'value' must be JSON data"),
    "value with a non-string key": ([wf_set("env", {1: "x"})],
                                    "patch[0]: field 'value' must be JSON data (mapping keys are strings)"),
    "with value a list": ([with_set("k", ["a"])], "patch[0]: field 'value' must be a string, a number or a boolean"),
    "with value null": ([with_set("k", None)], "patch[0]: field 'value' must be a string, a number or a boolean"),
    "filter value a string": ([filters("push", "branches", "main")],  # type: ignore[arg-type]
                              "patch[0]: field 'value' must be a list of strings"),
    "filter value numbers": ([filters("push", "branches", [1])],  # type: ignore[list-item]
                             "patch[0]: field 'value' must be a list of strings"),
    "needs both names": ([{"kind": "needs.add", "jobId": "build", "needs": "a", "value": "b"}],
                         "patch[0]: give the job id once, as 'ref' (not as 'needs' and 'value')"),
    "unknown job": ([wf_set("name", "x"), wf_set("env.B", 1), job_set("deploy", "x", 1)],
                    "patch[2]: unknown job 'deploy'"),
    "unknown job in needs": ([needs("add", "build", "deploy")], "patch[0]: unknown job 'deploy'"),
    "needs itself": ([needs("add", "build", "build")], "patch[0]: job 'build' cannot need itself"),
    "step index out of range": ([step_set("build", 2, "name", "x")],
                                "patch[0]: step index 2 out of range (job 'build' has 2 steps)"),
    "negative step index": ([with_set("k", 1, step=-1)],
                            "patch[0]: step index -1 out of range (job 'build' has 2 steps)"),
    "one step": ([step_set("lint", 1, "name", "x")], "patch[0]: step index 1 out of range (job 'lint' has 1 step)"),
    "through a scalar": ([wf_set("name.first", "x")], "patch[0]: path 'name.first' runs through a scalar at 'name'"),
    "through a scalar in a job": ([job_set("build", "runs-on.x", 1)],
                                  "patch[0]: path 'runs-on.x' runs through a scalar at 'jobs.build.runs-on'"),
    "through a list": ([job_set("build", "steps.name", "x")],
                       "patch[0]: path 'steps.name' runs through a list at 'jobs.build.steps'"),
    "list index out of range": (
        [job_set("build", "steps.7.name", "x")],
        "patch[0]: path 'steps.7.name': index 7 is out of range at 'jobs.build.steps' (2 items)",
    ),
    "step path through a scalar": ([step_set("build", 1, "run.x", 1)],
                              "patch[0]: path 'run.x' runs through a scalar at 'jobs.build.steps[1].run'"),
    "needs a mapping": ([job_set("build", "needs", {"a": 1}), needs("add", "build", "lint")],
                        "patch[1]: 'jobs.build.needs' is not a job id or a list of job ids"),
    "on a list of mappings": ([wf_set("on", [{"push": None}]), filters("push", "branches", ["a"])],
                              "patch[1]: 'on' lists something other than event names"),
}


@pytest.mark.parametrize("case", list(REFUSALS), ids=list(REFUSALS))
def test_refusals(case: str) -> None:
    patches, message = REFUSALS[case]
    with pytest.raises(PatchError) as caught:
        apply_patches(BASE, patches)
    assert str(caught.value) == message
    assert caught.value.index == int(message[6 : message.index("]")])


def test_patches_must_be_a_list() -> None:
    with pytest.raises(PatchError) as caught:
        apply_patches(BASE, {"kind": "workflow.set"})  # type: ignore[arg-type]
    assert str(caught.value) == "patches must be a list"
    assert caught.value.index is None


def test_malformed_yaml_is_refused() -> None:
    with pytest.raises(PatchError) as caught:
        apply_patches("on: [push\njobs:\n  a: {}\n", [wf_set("name", "x")])
    assert caught.value.index is None
    assert str(caught.value).startswith("the workflow is not valid YAML: ")
    assert "(line 2, column" in str(caught.value) or "(line 3, column" in str(caught.value)


def test_malformed_yaml_inside_the_edited_job_is_refused() -> None:
    text = "jobs:\n  a:\n    runs-on: x\n   steps: []\n"
    with pytest.raises(PatchError) as caught:
        apply_patches(text, [job_set("a", "runs-on", "y")])
    assert caught.value.index is None
    assert str(caught.value).startswith("the workflow is not valid YAML: ")


@pytest.mark.parametrize("text", ["- a\n- b\n", "just text\n", ""])
def test_a_workflow_must_be_a_mapping(text: str) -> None:
    with pytest.raises(PatchError) as caught:
        apply_patches(text, [wf_set("name", "x")])
    assert str(caught.value) == "patch[0]: the workflow is not a mapping"


def test_several_documents_are_refused() -> None:
    with pytest.raises(PatchError) as caught:
        apply_patches("name: a\n---\nname: b\n", [wf_set("name", "x")])
    assert str(caught.value).startswith("the workflow is not valid YAML: expected a single YAML document")


def test_duplicate_keys_on_the_path_are_refused() -> None:
    with pytest.raises(PatchError) as caught:
        apply_patches("env:\n  A: 1\nenv:\n  B: 2\n", [wf_set("env.C", 3)])
    assert str(caught.value) == "patch[0]: duplicate key 'env' at '<root>'"


def test_all_or_nothing() -> None:
    patches = [wf_set("name", "changed"), job_set("nope", "x", 1)]
    with pytest.raises(PatchError) as caught:
        apply_patches(BASE, patches)
    assert caught.value.index == 1


def test_shape_errors_are_found_before_anything_applies() -> None:
    with pytest.raises(PatchError) as caught:
        apply_patches("not: [valid\n", [wf_set("name", "x"), {"kind": "nope"}])
    assert str(caught.value) == "patch[1]: unknown kind 'nope'"


@pytest.mark.parametrize(
    ("path", "segments"),
    [
        ("env.X", ("env", "X")),
        ("a\\.b.c", ("a.b", "c")),
        ("a\\\\.b", ("a\\", "b")),
        (["env", "A.B"], ("env", "A.B")),
        (["steps", 0, "name"], ("steps", 0, "name")),
    ],
)
def test_parse_path(path: Any, segments: tuple[Any, ...]) -> None:
    assert parse_path(path) == segments


# -- quoting: every reader gets the string that was meant --------------------------------------------------------

LOOKS_LIKE_SOMETHING_ELSE = ["on", "off", "On", "OFF", "yes", "no", "Yes", "NO", "y", "n", "Y", "N", "true", "false",
                             "True", "FALSE", "null", "Null", "~", "", "1", "-1", "1.5", "1e3", "0x1F", "0o17", "1_000",
                             "12:30", ".inf", ".NaN", "2024-01-01", "2024-01-01T10:00:00Z", "@v1", "*x", "&y", "!t",
                             "- a", "a: b", "a #b", "#c", "'q'", '"q"', "[a]", "{a: 1}", "|", ">", "%x", "`x`",
                             " lead", "trail ", "x\ty"]
PLAIN = ["main", "v1", "ubuntu-latest", "${{ matrix.os }}", "actions/checkout@v4", "a#b", "a:b", "déjà", "1.2.3",
         "release/**", "yes-please", "node_modules"]


def _read_back(text: str, version: tuple[int, int]) -> Any:
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.version = version
    return yaml.load(text)["jobs"]["build"]["steps"][0]["with"]["v"]


@pytest.mark.parametrize("value", LOOKS_LIKE_SOMETHING_ELSE)
def test_strings_that_look_like_something_else_are_quoted(value: str) -> None:
    text = apply_patches(BASE, [with_set("v", value)])
    line = next(line for line in text.splitlines() if line.startswith("          v:"))
    assert line[len("          v: ")] in "'\"", line
    assert _read_back(text, (1, 2)) == value
    assert _read_back(text, (1, 1)) == value


@pytest.mark.parametrize("value", PLAIN)
def test_ordinary_strings_stay_plain(value: str) -> None:
    text = apply_patches(BASE, [with_set("v", value)])
    assert f"          v: {value}\n" in text
    assert _read_back(text, (1, 2)) == value
    assert _read_back(text, (1, 1)) == value


@pytest.mark.parametrize("value", [True, False, 0, 7, -3, 2.5, 1e20])
def test_numbers_and_booleans_stay_what_they_are(value: Any) -> None:
    text = apply_patches(BASE, [with_set("v", value)])
    read = _read_back(text, (1, 2))
    assert read == value and type(read) is type(value)


def test_a_rendering_bug_is_caught_not_handed_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """The safety net: what a patch wrote is parsed again before the text is returned."""
    from vmark.ghactions.render import Rendered, Renderer

    monkeypatch.setattr(Renderer, "mapping_value", lambda *_args, **_kwargs: Rendered("[broken"))
    with pytest.raises(PatchError) as caught:
        apply_patches(BASE, [wf_set("env.A", 5)])
    assert caught.value.index == 0
    assert str(caught.value).startswith("patch[0]: internal error: the patched text is not valid YAML (")


def test_only_the_touched_entries_are_parsed() -> None:
    """A broken job elsewhere does not stop a patch (only what a patch touches is parsed)."""
    text = "jobs:\n  a:\n    runs-on: x\n  b:\n    runs-on: y\n   steps: []\n"
    assert apply_patches(text, [job_set("a", "runs-on", "z")]) == text.replace("runs-on: x", "runs-on: z")
