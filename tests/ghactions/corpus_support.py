"""Patches generated from real workflows, and the independent checks the corpus test makes of them.

Nothing here uses vmark's own YAML tree: the expected data comes from ruamel.yaml's safe loader and
a plain-Python model of each patch kind, and the allowed span of a change from ruamel's composed
nodes.
"""

from __future__ import annotations

import copy
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from tests.corpora import CORPORA

WORKFLOWS = CORPORA / "workflows"


def workflow_files() -> list[Path]:
    if not WORKFLOWS.is_dir():
        return []
    return sorted(p for p in WORKFLOWS.iterdir() if p.suffix in (".yml", ".yaml"))


def loader() -> YAML:
    return YAML(typ="safe", pure=True)


def load(text: str) -> Any:
    return loader().load(text)


def compose(text: str) -> tuple[Node, Any]:
    """The composed root node and its data (one parse)."""
    yaml = loader()
    node = yaml.compose(text)
    return node, yaml.constructor.construct_document(node)


# -- the model: what each patch kind does to plain data -------------------------------------------------------------


def _set(data: dict[str, Any], path: list[Any], value: Any) -> None:
    node: Any = data
    for segment in path[:-1]:
        key = segment if isinstance(node, list) else str(segment)
        if isinstance(node, dict) and node.get(key) is None:
            node[key] = {}
        node = node[key]
    node[path[-1] if isinstance(node, list) else str(path[-1])] = copy.deepcopy(value)


def expected(data: Any, patch: dict[str, Any]) -> Any:
    """``data`` after ``patch``, computed on Python data."""
    data = copy.deepcopy(data)
    kind = patch["kind"]
    job = data["jobs"][patch["jobId"]] if "jobId" in patch else None
    if kind == "workflow.set":
        _set(data, patch["path"], patch["value"])
    elif kind == "job.set":
        _set(data, ["jobs", patch["jobId"], *patch["path"]], patch["value"])
    elif kind == "step.set":
        _set(data, ["jobs", patch["jobId"], "steps", patch["stepIndex"], *patch["path"]], patch["value"])
    elif kind == "with.set":
        _set(data, ["jobs", patch["jobId"], "steps", patch["stepIndex"], "with", patch["key"]], patch["value"])
    elif kind == "with.remove":
        step = job["steps"][patch["stepIndex"]]
        step["with"].pop(patch["key"])
        if not step["with"]:
            del step["with"]
    elif kind == "needs.add":
        needs = job.get("needs")
        job["needs"] = patch["needs"] if needs is None else [*_as_list(needs), patch["needs"]]
    elif kind == "needs.remove":
        remaining = [need for need in _as_list(job["needs"]) if need != patch["needs"]]
        if remaining:
            job["needs"] = remaining
        else:
            del job["needs"]
    elif kind == "trigger.setFilters":
        on = data.get("on")
        if isinstance(on, str):
            on = {on: None}
        elif isinstance(on, list):
            on = dict.fromkeys(on)
        data["on"] = on = on or {}
        if on.get(patch["event"]) is None:
            on[patch["event"]] = {}
        on[patch["event"]][patch["filter"]] = list(patch["value"])
    return data


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


# -- generating patches from a real workflow --------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    patch: dict[str, Any]
    #: the path (from the root) of the entry the patch changes: see :func:`allowed_span`
    scope: tuple[Any, ...]


NAMES = ["Renamed by the corpus test", "on", "yes: no # not a comment", "multi\nline\n", "'quoted' \"both\""]


def generate(name: str, data: Any, *, variants: int = 1) -> list[Case]:
    """Patches of every kind that apply to this workflow, built from its real jobs and steps.

    One or two of each kind per file; which job, which step and which variant (replace or insert,
    which value) changes from file to file, so that the corpus as a whole covers them all. With
    ``variants=n``, the cases of n consecutive choices together (duplicates dropped).
    """
    pick = zlib.crc32(name.encode())
    cases: dict[str, Case] = {}
    for n in range(variants):
        for case in _cases(data, pick + n):
            cases.setdefault(repr(case.patch), case)
    return list(cases.values())


def _cases(data: Any, pick: int) -> list[Case]:
    cases = [_workflow_case(pick), _trigger_case(data.get("on"), pick)]
    jobs = data.get("jobs") if isinstance(data.get("jobs"), dict) else {}
    ids = [job_id for job_id, job in jobs.items() if isinstance(job, dict)]
    if not ids:
        return cases
    job_id = ids[pick % len(ids)]
    cases.append(_job_case(job_id, pick))
    cases += _step_cases(job_id, jobs[job_id], pick)
    cases += _needs_cases(jobs, ids, pick)
    return cases


def _workflow_case(pick: int) -> Case:
    if pick % 2:
        return Case({"kind": "workflow.set", "path": ["name"], "value": NAMES[pick % len(NAMES)]}, ("name",))
    return Case({"kind": "workflow.set", "path": ["env", "VMARK_CORPUS"], "value": "1"}, ("env", "VMARK_CORPUS"))


def _job_case(job_id: str, pick: int) -> Case:
    path, value = (["timeout-minutes"], 17) if pick % 2 else (["env", "VMARK"], "no")
    return Case({"kind": "job.set", "jobId": job_id, "path": path, "value": value}, ("jobs", job_id, *path))


def _trigger_case(on: Any, pick: int) -> Case:
    """setFilters on one of the workflow's events (or on pull_request, which it may not have yet)."""
    if isinstance(on, str):
        events = [on]
    elif isinstance(on, list):
        events = [e for e in on if isinstance(e, str)]
    elif isinstance(on, dict):
        events = [e for e, v in on.items() if isinstance(e, str) and (v is None or isinstance(v, dict))]
    else:
        events = []
    event = [*events, "pull_request"][pick % (len(events) + 1)]
    return Case({"kind": "trigger.setFilters", "event": event, "filter": "branches", "value": ["main", "releases/**"]},
                ("on", event, "branches"))


def _needs_cases(jobs: dict[str, Any], ids: list[str], pick: int) -> list[Case]:
    """needs.add on one job, needs.remove on the first job that has needs."""
    cases = []
    job_id = ids[(pick + 1) % len(ids)]
    needs = _as_list(jobs[job_id].get("needs")) if jobs[job_id].get("needs") is not None else []
    candidates = [other for other in ids if other != job_id and other not in needs]
    if candidates:
        cases.append(Case({"kind": "needs.add", "jobId": job_id, "needs": candidates[pick % len(candidates)]},
                          ("jobs", job_id, "needs")))
    with_needs = [other for other in ids if jobs[other].get("needs")]
    if with_needs:
        job_id = with_needs[pick % len(with_needs)]
        need = _as_list(jobs[job_id]["needs"])[0]
        cases.append(Case({"kind": "needs.remove", "jobId": job_id, "needs": need}, ("jobs", job_id, "needs")))
    return cases


def _step_cases(job_id: str, job: dict[str, Any], pick: int) -> list[Case]:
    steps = job.get("steps")
    if not isinstance(steps, list) or not steps:
        return []
    index = pick % len(steps)
    path, value = (["name"], "Renamed step") if pick % 2 else (["if"], "${{ always() }}")
    cases = [Case({"kind": "step.set", "jobId": job_id, "stepIndex": index, "path": path, "value": value},
                  ("jobs", job_id, "steps", index, *path))]
    uses = [n for n, step in enumerate(steps) if isinstance(step, dict) and "uses" in step]
    if not uses:
        return cases
    n = uses[pick % len(uses)]
    where = ("jobs", job_id, "steps", n)
    inputs = steps[n].get("with")
    if isinstance(inputs, dict) and inputs:
        key = list(inputs)[pick % len(inputs)]
        cases.append(Case({"kind": "with.set", "jobId": job_id, "stepIndex": n, "key": key, "value": "changed"},
                          (*where, "with", key)))
        cases.append(Case({"kind": "with.remove", "jobId": job_id, "stepIndex": n, "key": key}, where))
    if not inputs or pick % 2:
        cases.append(Case({"kind": "with.set", "jobId": job_id, "stepIndex": n, "key": "vmark-input", "value": "x: y"},
                          (*where, "with", "vmark-input")))
    return cases


# -- the allowed span of a change --------------------------------------------------------------------------------------


def _child(node: Node, segment: Any) -> tuple[Node, Node] | None:
    """(key node or the item itself, value node) of ``segment`` in ``node``."""
    if isinstance(node, MappingNode):
        for key, value in node.value:
            if isinstance(key, ScalarNode) and key.value == str(segment):
                return key, value
        return None
    if isinstance(node, SequenceNode) and isinstance(segment, int) and 0 <= segment < len(node.value):
        item = node.value[segment]
        return item, item
    return None


def allowed_span(text: str, root: Node, scope: tuple[Any, ...]) -> tuple[int, int]:
    """The text of the node a patch with this scope may change: whole lines of the deepest existing
    entry along ``scope`` (the root when the scope is empty)."""
    start, end = 0, len(text)
    node = root
    for segment in scope:
        found = _child(node, segment)
        if found is None:
            break
        key, node = found
        start, end = key.start_mark.index, max(node.end_mark.index, key.end_mark.index)
    line_start = max(text.rfind("\n", 0, start) + 1, 0)
    line_end = text.find("\n", end)
    return line_start, len(text) if line_end < 0 else line_end + 1


def _longest(agrees: Any, limit: int) -> int:
    """The largest n <= limit for which agrees(n) holds (agrees is monotone), by bisection."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if agrees(middle):
            low = middle
        else:
            high = middle - 1
    return low


def _common_prefix(a: str, b: str) -> int:
    return _longest(lambda n: a[:n] == b[:n], min(len(a), len(b)))


def _common_suffix(a: str, b: str) -> int:
    return _longest(lambda n: a[len(a) - n :] == b[len(b) - n :], min(len(a), len(b)))


def change_within(old: str, new: str, lo: int, hi: int) -> tuple[bool, str]:
    """Whether ``new`` is ``old`` with one contiguous region of ``old[lo:hi]`` replaced.

    Everything before the region is the common prefix and everything after it the common suffix. A
    pure insertion or deletion can often sit at several places (removing "  a\n" from "  b\n  a\n"
    can be read as removing "a\n  "), so any reading that fits inside ``[lo, hi]`` counts.
    """
    prefix, suffix = _common_prefix(old, new), _common_suffix(old, new)
    if old == new:
        return True, "unchanged"
    if len(old) != len(new) and min(len(old), len(new)) <= min(prefix + suffix, len(old), len(new)):
        shorter, size = min(len(old), len(new)), abs(len(old) - len(new))
        first, last = max(shorter - suffix, lo), min(prefix, hi - (size if len(old) > len(new) else 0))
        where = f"a {size}-character change placeable at [{shorter - suffix}, {prefix}], allowed [{lo}, {hi}]"
        return first <= last, where
    suffix = min(suffix, min(len(old), len(new)) - prefix)
    start, end = prefix, len(old) - suffix
    return lo <= start and end <= hi, f"changed [{start}, {end}), allowed [{lo}, {hi}]"
