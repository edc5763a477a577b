"""The workflow text of ``browser.workflow_run``: a small line-oriented grammar, parsed and bound.

A front-matter block between ``---`` lines names the ``site`` (required), the declared ``inputs``
(``inputs: [a, b]``) and an optional ``trigger``; then one step per non-empty line, optionally
numbered (``1.`` / ``1)``) or bulleted (``-`` / ``*``)::

    action: click "<name>" (<role>)
    action: type "<literal>" into "<name>" (<role>)
    action: type {input} into "<name>" (<role>)
    action: navigate to <url>
    extract: <what>
    goal: / confirm: / api: <text>
    anything else: prose

``{name}`` references in a value (a typed literal, a navigation URL) are filled from the inputs by
:func:`bind`; a reference to an input that is not declared is a parse error. Pure: no I/O.
An error names the line it is about (:class:`WorkflowError`), never an input's value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal

from ..protocol.limits import (
    MAX_WORKFLOW_INPUT_BYTES,
    MAX_WORKFLOW_INPUTS,
    MAX_WORKFLOW_SOURCE_BYTES,
    MAX_WORKFLOW_STEPS,
)

StepKind = Literal["click", "type", "navigate", "extract", "goal", "confirm", "api", "prose"]
#: the steps that change something on the page (the registry of completed writes counts these)
WRITE_KINDS: frozenset[StepKind] = frozenset({"click", "type", "navigate"})
#: the steps the app performs; every other one pauses the run for the agent
APP_KINDS: frozenset[StepKind] = WRITE_KINDS | {"extract"}

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_QUOTED = r'"((?:[^"\\]|\\.)*)"'
_TARGET = rf"{_QUOTED}\s*\(\s*([A-Za-z][A-Za-z0-9_-]*)\s*\)"
_REFERENCE = re.compile(r"\{(" + _NAME + r")\}")
_MARKER = re.compile(r"^(?:\d+[.)]|[-*])\s+")
_KEYWORD = re.compile(r"^(action|extract|goal|confirm|api)\s*:\s*(.*)$", re.IGNORECASE)
_CLICK = re.compile(rf"^click\s+{_TARGET}$", re.IGNORECASE)
_TYPE_LITERAL = re.compile(rf"^type\s+{_QUOTED}\s+into\s+{_TARGET}$", re.IGNORECASE)
_TYPE_INPUT = re.compile(rf"^type\s+\{{({_NAME})\}}\s+into\s+{_TARGET}$", re.IGNORECASE)
_NAVIGATE = re.compile(r"^navigate\s+to\s+(\S.*)$", re.IGNORECASE)
_FRONT_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)\s*:\s*(.*)$")
_INPUT_LIST = re.compile(r"^\[(.*)\]$")
_ESCAPE = re.compile(r"\\(.)")
_FENCE = "---"
_KEYWORD_KINDS: dict[str, StepKind] = {"extract": "extract", "goal": "goal", "confirm": "confirm", "api": "api"}


class WorkflowError(ValueError):
    """The source is not a workflow (``line``: the 1-based line at fault), or the inputs do not fit it."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line is not None else message)
        self.message = message
        self.line = line


@dataclass(frozen=True)
class Step:
    index: int
    line: int
    kind: StepKind
    #: the step as written, without its number or bullet
    text: str
    role: str | None = None
    name: str | None = None
    #: what a type step types or a navigate step opens: ``{input}`` references unfilled until bound
    value: str | None = None
    #: the input a ``type {input} into ...`` step types
    input: str | None = None
    write: bool = False


@dataclass(frozen=True)
class Workflow:
    site: str
    inputs: tuple[str, ...]
    trigger: str | None
    steps: tuple[Step, ...]
    source: str


def parse(source: str) -> Workflow:
    """The workflow written in ``source``, or :class:`WorkflowError`."""
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > MAX_WORKFLOW_SOURCE_BYTES:
        raise WorkflowError(f"the source is {size} bytes; at most {MAX_WORKFLOW_SOURCE_BYTES} are accepted")
    lines = source.splitlines()
    front, body_start = _front_matter(lines)
    site = front.get("site")
    if not site:
        raise WorkflowError("the front matter needs a site (site: <name>)", front.lines.get("site", front.start))
    inputs = _inputs(front.get("inputs"), front.lines.get("inputs", front.start))
    steps: list[Step] = []
    for number, raw in enumerate(lines[body_start:], start=body_start + 1):
        text = _MARKER.sub("", raw.strip(), count=1).strip()
        if not text:
            continue
        if len(steps) == MAX_WORKFLOW_STEPS:
            raise WorkflowError(f"more than {MAX_WORKFLOW_STEPS} steps", number)
        step = _step(len(steps), number, text)
        _check_references(step, inputs)
        steps.append(step)
    return Workflow(site, inputs, front.get("trigger") or None, tuple(steps), source)


def bind(workflow: Workflow, inputs: Mapping[str, object]) -> tuple[Step, ...]:
    """The steps with every ``{name}`` filled from ``inputs``: each declared input exactly once given,
    as a string of at most :data:`MAX_WORKFLOW_INPUT_BYTES` bytes, and nothing undeclared."""
    if len(inputs) > MAX_WORKFLOW_INPUTS:
        raise WorkflowError(f"{len(inputs)} inputs given; at most {MAX_WORKFLOW_INPUTS} are accepted")
    undeclared = sorted(name for name in inputs if name not in workflow.inputs)
    if undeclared:
        raise WorkflowError(f"inputs not declared in the workflow's front matter: {', '.join(undeclared)}")
    missing = [name for name in workflow.inputs if name not in inputs]
    if missing:
        raise WorkflowError(f"declared inputs not given: {', '.join(missing)}")
    values: dict[str, str] = {}
    for name, value in inputs.items():
        if not isinstance(value, str):
            raise WorkflowError(f"input {name} must be a string")
        size = len(value.encode("utf-8", "surrogatepass"))
        if size > MAX_WORKFLOW_INPUT_BYTES:
            raise WorkflowError(f"input {name} is {size} bytes; at most {MAX_WORKFLOW_INPUT_BYTES} are accepted")
        values[name] = value
    return tuple(
        replace(step, value=_REFERENCE.sub(lambda m: values[m.group(1)], step.value))
        if step.value is not None
        else step
        for step in workflow.steps
    )


class _Front(dict[str, str]):
    """The front matter's values, and the line each came from."""

    def __init__(self, start: int) -> None:
        super().__init__()
        #: the line of the opening ---
        self.start = start
        self.lines: dict[str, int] = {}


def _front_matter(lines: list[str]) -> tuple[_Front, int]:
    """The front matter and the index of the first line after it."""
    start = next((i for i, line in enumerate(lines) if line.strip()), None)
    if start is None:
        raise WorkflowError("the source is empty: a workflow starts with front matter between --- lines", 1)
    if lines[start].strip() != _FENCE:
        raise WorkflowError("a workflow starts with front matter between --- lines (site: is required)", start + 1)
    front = _Front(start + 1)
    for i in range(start + 1, len(lines)):
        line = lines[i].strip()
        if line == _FENCE:
            return front, i + 1
        if not line:
            continue
        matched = _FRONT_KEY.match(line)
        if matched is None:
            raise WorkflowError("front matter lines look like key: value", i + 1)
        key, value = matched.group(1).lower(), matched.group(2).strip()
        if key not in ("site", "inputs", "trigger"):
            raise WorkflowError(f"unknown front matter key {key!r} (site, inputs, trigger)", i + 1)
        if key in front:
            raise WorkflowError(f"{key} is given twice", i + 1)
        front[key] = value
        front.lines[key] = i + 1
    raise WorkflowError("the front matter is not closed by a --- line", start + 1)


def _inputs(declared: str | None, line: int) -> tuple[str, ...]:
    if declared is None:
        return ()
    listed = _INPUT_LIST.match(declared)
    if listed is None:
        raise WorkflowError("inputs are listed in brackets: inputs: [a, b]", line)
    names = [name.strip() for name in listed.group(1).split(",")] if listed.group(1).strip() else []
    for name in names:
        if not re.fullmatch(_NAME, name):
            raise WorkflowError(f"{name[:40]!r} is not an input name (letters, digits, _)", line)
    if len(set(names)) != len(names):
        raise WorkflowError("an input is declared twice", line)
    if len(names) > MAX_WORKFLOW_INPUTS:
        raise WorkflowError(f"{len(names)} inputs declared; at most {MAX_WORKFLOW_INPUTS} are accepted", line)
    return tuple(names)


def _step(index: int, line: int, text: str) -> Step:
    keyword = _KEYWORD.match(text)
    if keyword is None:
        return Step(index, line, "prose", text)
    kind, rest = keyword.group(1).lower(), keyword.group(2).strip()
    if kind == "action":
        return _action(index, line, text, rest)
    return Step(index, line, _KEYWORD_KINDS[kind], text)


def _action(index: int, line: int, text: str, rest: str) -> Step:
    if matched := _CLICK.match(rest):
        return Step(index, line, "click", text, matched.group(2), _unquote(matched.group(1)), write=True)
    if matched := _TYPE_INPUT.match(rest):
        name = matched.group(1)
        role, target = matched.group(3), _unquote(matched.group(2))
        return Step(index, line, "type", text, role, target, "{" + name + "}", name, write=True)
    if matched := _TYPE_LITERAL.match(rest):
        role, target = matched.group(3), _unquote(matched.group(2))
        return Step(index, line, "type", text, role, target, _unquote(matched.group(1)), write=True)
    if matched := _NAVIGATE.match(rest):
        return Step(index, line, "navigate", text, value=matched.group(1).strip(), write=True)
    raise WorkflowError(
        'an action is click "<name>" (<role>), type "<text>" into "<name>" (<role>), type {input} into'
        ' "<name>" (<role>) or navigate to <url>',
        line,
    )


def _unquote(quoted: str) -> str:
    return _ESCAPE.sub(r"\1", quoted)


def _check_references(step: Step, inputs: tuple[str, ...]) -> None:
    for name in _REFERENCE.findall(step.value or ""):
        if name not in inputs:
            raise WorkflowError(f"{{{name}}} is not a declared input (inputs: [{', '.join(inputs)}])", step.line)
