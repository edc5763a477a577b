"""Every real workflow of ../shared/corpora/workflows, patched with every kind built from its own jobs and steps.

For each patch: (a) the patched text reads back as the expected data (ruamel.yaml's safe loader on the
original, the patch applied to that data by a plain-Python model), (b) everything outside one region of
the node the patch changes is byte-identical, (c) applying the patch again changes nothing.

(b) and (c) are checked for every patch of every file. (a) is checked for all of a file's patches
applied together as one list, and, to keep the run short, for one single patch per file (a different
one on each file); set VMARK_CORPUS_FULL=1 to check (a) for every single patch too, with six
variants of every kind per file (other jobs, steps, events, values; slow). Files are
checked in worker processes (fork) when there are several CPUs.
"""

from __future__ import annotations

import multiprocessing
import os
import zlib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml.error import YAMLError

from tests.corpora import needs
from tests.ghactions.corpus_support import (
    Case,
    allowed_span,
    change_within,
    compose,
    expected,
    generate,
    load,
    workflow_files,
)
from vmark.ghactions.patch import PatchError, apply_patches

FILES = workflow_files()
FULL = os.environ.get("VMARK_CORPUS_FULL") == "1"
SINGLE_TREE_CHECKS = 1
FULL_VARIANTS = 6

# the first test checks every file (the module fixture): minutes on a loaded machine
pytestmark = [needs("workflows", found=bool(FILES)), pytest.mark.timeout(900)]


def _check_case(name: str, text: str, root: Any, data: Any, case: Case, tree: bool) -> list[str]:
    problems: list[str] = []
    try:
        new = apply_patches(text, [case.patch])
    except PatchError as exc:
        return [f"{name}: {case.patch}: refused: {exc}"]
    lo, hi = allowed_span(text, root, case.scope)
    inside, where = change_within(text, new, lo, hi)
    if not inside:
        problems.append(f"{name}: {case.patch}: bytes outside the changed node differ: {where}")
    if apply_patches(new, [case.patch]) != new:
        problems.append(f"{name}: {case.patch}: applying it again changed the text")
    if tree and load(new) != expected(data, case.patch):
        problems.append(f"{name}: {case.patch}: the patched text does not read back as expected")
    return problems


def _check_all_at_once(name: str, text: str, data: Any, cases: list[Case]) -> list[str]:
    patches = [case.patch for case in cases]
    try:
        new = apply_patches(text, patches)
    except PatchError as exc:
        return [f"{name}: all {len(patches)} patches together: refused: {exc}"]
    want = data
    for patch in patches:
        want = expected(want, patch)
    if load(new) != want:
        return [f"{name}: all {len(patches)} patches together: the result does not read back as expected"]
    return []


def check_file(path: Path) -> list[str] | str:
    """The problems found in one workflow (a string: why it is left out)."""
    text = path.read_bytes().decode("utf-8")
    try:
        root, data = compose(text)
    except YAMLError as exc:  # none in the corpus; only a file that is not YAML may be left out
        return f"not valid YAML for ruamel.yaml: {exc}"
    cases = generate(path.name, data, variants=FULL_VARIANTS if FULL else 1)
    if not {"workflow.set", "trigger.setFilters"} <= {case.patch["kind"] for case in cases}:  # pragma: no cover
        return [f"{path.name}: no patches generated"]
    sampled = {(zlib.crc32(path.name.encode()) + n) % len(cases) for n in range(SINGLE_TREE_CHECKS)}
    problems = _check_all_at_once(path.name, text, data, cases)
    for n, case in enumerate(cases):
        problems += _check_case(path.name, text, root, data, case, tree=FULL or n in sampled)
    return problems


@pytest.fixture(scope="module")
def results(request: pytest.FixtureRequest) -> dict[str, list[str] | str]:
    """Every selected file checked, in worker processes where the platform forks cheaply."""
    wanted = {item.callspec.params["path"] for item in request.session.items
              if item.originalname == "test_corpus_workflow" and hasattr(item, "callspec")}
    paths = [path for path in FILES if path in wanted]
    workers = min(os.cpu_count() or 1, 4, len(paths))
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return {path.name: check_file(path) for path in paths}
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        return dict(zip([path.name for path in paths], pool.map(check_file, paths, chunksize=4), strict=True))


@pytest.mark.parametrize("path", FILES, ids=[path.name for path in FILES])
def test_corpus_workflow(path: Path, results: dict[str, list[str] | str]) -> None:
    outcome = results[path.name]
    if isinstance(outcome, str):
        pytest.skip(outcome)
    assert not outcome, "\n".join(outcome)


def test_the_corpus_covers_every_patch_kind() -> None:
    kinds: set[str] = set()
    for path in FILES:
        kinds |= {case.patch["kind"] for case in generate(path.name, load(path.read_bytes().decode("utf-8")))}
        if len(kinds) == 8:
            break
    assert kinds == {"workflow.set", "job.set", "step.set", "with.set", "with.remove", "needs.add", "needs.remove",
                     "trigger.setFilters"}
