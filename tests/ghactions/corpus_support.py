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

REPO = Path(__file__).resolve().parents[2]
CORPORA = REPO.parent / "shared" / "corpora"
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


JOBS_PER_FILE = 2
NAMES = ["Renamed by the corpus test", "on", "yes: no # not a comment", "multi\nline\n", "'quoted' \"both\""]


def generate(name: str, data: Any) -> list[Case]:
    """Patches of every kind that apply to this workflow, built from its real jobs and steps."""
    pick = zlib.crc32(name.encode())
    cases = [
        Case({"kind": "workflow.set", "path": ["name"], "value": NAMES[pick % len(NAMES)]}, ("name",)),
        Case({"kind": "workflow.set", "path": ["env", "VMARK_CORPUS"], "value": "1"}, ("env", "VMARK_CORPUS")),
    ]
    cases += _trigger_cases(data.get("on"))
    jobs = data.get("jobs") if isinstance(data.get("jobs"), dict) else {}
    ids = list(jobs)
    # two jobs per file (a different pair on each file), to keep the run short on files with dozens of jobs
    chosen = {ids[(pick + n) % len(ids)] for n in range(JOBS_PER_FILE)} if ids else set()
    for n, job_id in enumerate(ids):
        job = jobs[job_id]
        if not isinstance(job, dict) or job_id not in chosen:
            continue
        if n == pick % len(ids):
            cases.append(Case({"kind": "job.set", "jobId": job_id, "path": ["timeout-minutes"], "value": 17},
                              ("jobs", job_id, "timeout-minutes")))
            cases.append(Case({"kind": "job.set", "jobId": job_id, "path": ["env", "VMARK"], "value": "no"},
                              ("jobs", job_id, "env", "VMARK")))
        cases += _needs_cases(job_id, job, ids)
        cases += _step_cases(job_id, job, pick)
    cases += _needs_cases_anywhere(jobs, ids, chosen)
    return cases


def _needs_cases_anywhere(jobs: dict[str, Any], ids: list[str], chosen: set[str]) -> list[Case]:
    """needs.remove on the first job that has needs, when the chosen jobs have none."""
    for job_id in ids:
        job = jobs[job_id]
        if job_id not in chosen and isinstance(job, dict) and job.get("needs"):
            return [case for case in _needs_cases(job_id, job, ids) if case.patch["kind"] == "needs.remove"]
    return []


def _trigger_cases(on: Any) -> list[Case]:
    if isinstance(on, str):
        events = [on]
    elif isinstance(on, list):
        events = [e for e in on if isinstance(e, str)]
    elif isinstance(on, dict):
        events = [e for e, v in on.items() if v is None or isinstance(v, dict)]
    else:
        events = []
    cases = [Case({"kind": "trigger.setFilters", "event": event, "filter": "branches",
                   "value": ["main", "releases/**"]}, ("on", event, "branches")) for event in events[:2]]
    cases.append(Case({"kind": "trigger.setFilters", "event": "pull_request", "filter": "paths-ignore",
                       "value": ["docs/**"]}, ("on", "pull_request", "paths-ignore")))
    return cases


def _needs_cases(job_id: str, job: dict[str, Any], ids: list[str]) -> list[Case]:
    needs = _as_list(job.get("needs")) if job.get("needs") is not None else []
    scope = ("jobs", job_id, "needs")
    cases = [Case({"kind": "needs.remove", "jobId": job_id, "needs": needs[0]}, scope)] if needs else []
    candidates = [other for other in ids if other != job_id and other not in needs]
    if candidates:
        cases.append(Case({"kind": "needs.add", "jobId": job_id, "needs": candidates[-1]}, scope))
    return cases


def _step_cases(job_id: str, job: dict[str, Any], pick: int) -> list[Case]:
    steps = job.get("steps")
    if not isinstance(steps, list) or not steps:
        return []
    index = pick % len(steps)
    scope = ("jobs", job_id, "steps", index)
    cases = [
        Case({"kind": "step.set", "jobId": job_id, "stepIndex": index, "path": ["name"], "value": "Renamed step"},
             (*scope, "name")),
        Case({"kind": "step.set", "jobId": job_id, "stepIndex": index, "path": ["if"], "value": "${{ always() }}"},
             (*scope, "if")),
    ]
    for n, step in enumerate(steps):
        if not isinstance(step, dict) or "uses" not in step:
            continue
        where = ("jobs", job_id, "steps", n)
        cases.append(Case({"kind": "with.set", "jobId": job_id, "stepIndex": n, "key": "vmark-input",
                           "value": "x: y"}, (*where, "with", "vmark-input")))
        inputs = step.get("with")
        if isinstance(inputs, dict) and inputs:
            key = list(inputs)[-1]
            cases.append(Case({"kind": "with.set", "jobId": job_id, "stepIndex": n, "key": key, "value": "changed"},
                              (*where, "with", key)))
            cases.append(Case({"kind": "with.remove", "jobId": job_id, "stepIndex": n, "key": key}, where))
        break
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
