"""``workflow.apply_patch``: IRPatch objects applied to workflow YAML, changing only the bytes they must.

Public API: :func:`apply_patches` and :class:`PatchError`.

Patch kinds (``kind`` plus these fields; any other field is refused):

=====================  ================================================================================
``workflow.set``       ``{path, value}``: set a field of the workflow (``name``, ``env.X``, ``on.push``)
``job.set``            ``{jobId, path, value}``: set a field of a job (``runs-on``, ``env.X``, ``if``)
``step.set``           ``{jobId, stepIndex, path, value}``: set a field of a step (``name``, ``run``)
``with.set``           ``{jobId, stepIndex, key, value}``: set an input in the step's ``with:``
``with.remove``        ``{jobId, stepIndex, key}``: remove an input from the step's ``with:``
``needs.add``          ``{jobId, ref}``: add a job id to the job's ``needs:`` (``ref`` is the original
                       VMark's name; ``needs`` and ``value`` are accepted for it)
``needs.remove``       ``{jobId, ref}``: remove a job id from the job's ``needs:`` (the same names)
``trigger.setFilters`` ``{event, filter, value: string[]}``: replace a trigger's filter list
                       (``branches``, ``paths``, ``tags``, ``types``, ...)
=====================  ================================================================================

Paths: a dotted string (``"env.CI"``, ``"permissions.contents"``) or a list of segments
(``["env", "A.B"]``). In the string form a backslash escapes the next character, so ``"env.A\\.B"``
is the key ``A.B`` of ``env`` and ``\\\\`` is a backslash. A segment that is a whole number indexes a
list (``"strategy.matrix.os.0"``); elsewhere it is a key. Missing mappings on the way are created.

Semantics:

- a list applies atomically: all patches or none (the text is only returned when every patch applied);
- a patch that changes nothing (the value is already there, the id is already in ``needs``, the key to
  remove is absent) leaves the text identical, so every patch is idempotent;
- ``needs.add`` writes ``needs: a`` for a single id and a list for more; ``needs.remove`` of the last id
  removes the ``needs:`` key; ``with.remove`` of the last input removes the ``with:`` key;
- ``trigger.setFilters`` turns ``on: push`` and ``on: [push, pull_request]`` into the mapping form
  (keeping every event listed) when it must add a filter;
- a value that carries an anchor keeps it when replaced (its aliases follow the new value), and an
  edit inside an anchored mapping shows through its aliases too (that is what YAML means); a path
  that runs *through* an alias, a scalar or a list where a mapping is needed is refused;
- ``needs.add`` refuses an id that is not a job of the workflow, and a job needing itself.

Rendering: a replaced value keeps the style of the node it replaces (its quotes, flow or block,
``[ a ]`` padding, a block list's dash column); a new one follows the document's habits
(indentation, quote, flow padding, flow or block lists) and its line breaks (CRLF stays CRLF). A
string that YAML 1.1 or 1.2 would read as something else (``on``, ``yes``, ``y``, ``1.10``, ``null``,
``2024-01-01``...) is quoted; keys only when YAML 1.2 would misread them (so ``on:`` stays bare).
Multi-line strings become literal block scalars (``|``/``|-``) in block context, double-quoted in
flow context. ``None`` is written as an empty value (``key:``) in a block mapping, ``null``
elsewhere. A UTF-8 BOM and the bytes of everything outside the change stay as they were.

Parsing: only the entries a patch touches are parsed (a top-level key, one job; see
:mod:`vmark.ghactions.document`), and what a patch wrote is parsed again before the text is handed
back. YAML that does not parse where a patch looks is refused (:class:`PatchError` with index None);
an error in a job no patch touches is not looked for.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vmark.ghactions import document
from vmark.ghactions import yamltree as yt
from vmark.ghactions.edit import Edit, Editor, Refusal, Slot, nested, scalar_values
from vmark.ghactions.render import Renderer

from ..protocol.jsontypes import JSONObject

Segment = str | int
Path = tuple[Segment, ...]


class PatchError(Exception):
    """A patch cannot be applied; ``index`` is its position in the list (None: the document itself)."""

    def __init__(self, index: int | None, reason: str) -> None:
        self.index = index
        self.reason = reason
        super().__init__(f"patch[{index}]: {reason}" if index is not None else reason)


# -- validated patches ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Op:
    """A validated patch: ``apply`` turns a document into one edit (None: nothing to change)."""

    kind: str
    fields: JSONObject


_FIELDS: dict[str, tuple[str, ...]] = {
    "workflow.set": ("path", "value"),
    "job.set": ("jobId", "path", "value"),
    "step.set": ("jobId", "stepIndex", "path", "value"),
    "with.set": ("jobId", "stepIndex", "key", "value"),
    "with.remove": ("jobId", "stepIndex", "key"),
    "needs.add": ("jobId", "ref"),
    "needs.remove": ("jobId", "ref"),
    "trigger.setFilters": ("event", "filter", "value"),
}


def _check_name(field: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise Refusal(f"field '{field}' must be a non-empty string")
    return value


def _check_index(field: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Refusal(f"field '{field}' must be an integer")
    return value


def _check_data(field: str, value: Any, depth: int = 0) -> Any:
    if depth > 64:
        raise Refusal(f"field '{field}' nests too deeply")
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise Refusal(f"field '{field}' must be JSON data (mapping keys are strings)")
        for item in value.values():
            _check_data(field, item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_data(field, item, depth + 1)
    elif value is not None and not isinstance(value, (str, int, float, bool)):
        raise Refusal(f"field '{field}' must be JSON data")
    return value


def _check_input(field: str, value: Any) -> Any:
    if value is None or not isinstance(value, (str, int, float, bool)):
        raise Refusal(f"field '{field}' must be a string, a number or a boolean")
    return value


def _check_strings(field: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise Refusal(f"field '{field}' must be a list of strings")
    return value


def parse_path(value: Any) -> Path:
    """A dotted path (``\\`` escapes the next character) or a list of segments, as a tuple."""
    if isinstance(value, list):
        if not value or not all(_is_segment(segment) for segment in value):
            raise Refusal("field 'path' must be a non-empty string or a non-empty list of keys and indices")
        return tuple(value)
    if not isinstance(value, str) or not value:
        raise Refusal("field 'path' must be a non-empty string or a non-empty list of keys and indices")
    segments: list[str] = []
    current: list[str] = []
    chars = iter(value)
    for ch in chars:
        if ch == "\\":
            escaped = next(chars, None)
            if escaped is None:
                raise Refusal(f"path '{value}' ends with a lone backslash")
            current.append(escaped)
        elif ch == ".":
            segments.append("".join(current))
            current = []
        else:
            current.append(ch)
    segments.append("".join(current))
    if "" in segments:
        raise Refusal(f"path '{value}' has an empty segment")
    return tuple(segments)


def _is_segment(value: Any) -> bool:
    return (isinstance(value, str) and value != "") or (isinstance(value, int) and not isinstance(value, bool))


_CHECKS: dict[str, Callable[[str, Any], Any]] = {
    "jobId": _check_name,
    "stepIndex": _check_index,
    "key": _check_name,
    "ref": _check_name,
    "event": _check_name,
    "filter": _check_name,
    "value": _check_data,
    "path": lambda _field, value: parse_path(value),
}


def _validate(raw: Any) -> _Op:
    if not isinstance(raw, dict):
        raise Refusal("a patch must be an object")
    if "kind" not in raw:
        raise Refusal("missing field 'kind'")
    kind = raw["kind"]
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise Refusal(f"unknown kind {_show(kind)}")
    given = dict(raw)
    del given["kind"]
    if kind.startswith("needs."):
        _alias_ref(given)
    wanted = _FIELDS[kind]
    for name in given:
        if name not in wanted:
            raise Refusal(f"unknown field '{name}' for kind '{kind}'")
    fields = {}
    for name in wanted:
        if name not in given:
            raise Refusal(f"missing field '{name}'")
        fields[name] = _CHECKS[name](name, given[name])
    if kind == "with.set":
        fields["value"] = _check_input("value", fields["value"])
    if kind == "trigger.setFilters":
        fields["value"] = _check_strings("value", fields["value"])
    return _Op(kind, fields)


#: the other names a needs.* patch may give its job id under (``ref`` is the original VMark's)
_REF_ALIASES = ("needs", "value")


def _alias_ref(given: JSONObject) -> None:
    named = [name for name in ("ref", *_REF_ALIASES) if name in given]
    if len(named) > 1:
        raise Refusal(f"give the job id once, as 'ref' (not as {' and '.join(repr(n) for n in named)})")
    if named and named[0] != "ref":
        given["ref"] = given.pop(named[0])


def _show(value: Any) -> str:
    return f"'{value}'" if isinstance(value, str) else repr(value)


# -- documents -----------------------------------------------------------------------------------------------------


@dataclass
class _Loc:
    """One step of a walk: entry ``index`` of ``parent``, shown to people as ``where``."""

    parent: yt.Mapping | yt.Sequence
    index: int
    where: str

    @property
    def node(self) -> yt.Node:
        """The entry's value (parsed on first use: a job only looked up is never parsed)."""
        if isinstance(self.parent, yt.Mapping):
            return self.parent.pairs[self.index].value
        return self.parent.items[self.index]


class _Document:
    """One version of the text, parsed (lazily unless ``full``), with the lookups and edits patches are made of."""

    def __init__(self, text: str, *, full: bool = False) -> None:
        self.source = yt.Source(text)
        self.full = full
        self.root = document.load_full(self.source) if full else document.load(self.source)
        self.editor = Editor(self.source, Renderer(self.source))

    # -- walking ---------------------------------------------------------------------------------------------

    def root_mapping(self) -> yt.Mapping:
        if not isinstance(self.root, yt.Mapping):
            raise Refusal("the workflow is not a mapping")
        return self.root

    def child(self, node: yt.Mapping | yt.Sequence, segment: Segment, where: str, shown: str) -> _Loc | None:
        """The entry ``segment`` of ``node`` (None when a mapping has no such key)."""
        if isinstance(node, yt.Mapping):
            pairs = node.find(str(segment))
            if len(pairs) > 1:
                raise Refusal(f"duplicate key '{segment}' at '{where or '<root>'}'")
            if not pairs:
                return None
            return _Loc(node, node.pairs.index(pairs[0]), _join(where, str(segment)))
        index = _as_index(segment)
        if index is None:
            raise Refusal(f"path '{shown}' runs through a list at '{where}'")
        if not 0 <= index < len(node.items):
            raise Refusal(f"path '{shown}': index {index} is out of range at '{where}' ({len(node.items)} items)")
        return _Loc(node, index, f"{where}[{index}]")

    def container(self, loc: _Loc, shown: str) -> yt.Mapping | yt.Sequence | None:
        """The collection at ``loc`` to walk into (None for a null value, which counts as empty)."""
        node = loc.node
        if isinstance(node, yt.Alias):
            raise Refusal(f"path '{shown}' runs through an alias at '{loc.where}'")
        if isinstance(node, (yt.Mapping, yt.Sequence)):
            return node
        if _is_null(node):
            return None
        raise Refusal(f"path '{shown}' runs through a scalar at '{loc.where}'")

    def locate(self, path: Path, shown: str) -> list[_Loc]:
        """The walk along ``path`` as far as it exists (shorter than ``path`` when something is missing)."""
        chain: list[_Loc] = []
        node: yt.Mapping | yt.Sequence | None = self.root_mapping()
        for depth, segment in enumerate(path):
            if node is None:
                break
            loc = self.child(node, segment, chain[-1].where if chain else "", shown)
            if loc is None:
                break
            chain.append(loc)
            if depth < len(path) - 1:
                node = self.container(loc, shown)
        return chain

    def slot(self, loc: _Loc) -> Slot:
        if isinstance(loc.parent, yt.Mapping):
            return self.editor.pair_slot(loc.parent, loc.parent.pairs[loc.index])
        return self.editor.item_slot(loc.parent, loc.index)

    # -- edits -----------------------------------------------------------------------------------------------

    def set(self, path: Path, value: Any, shown: str) -> Edit | None:
        """Set ``path`` (from the root) to ``value``, creating missing mappings on the way."""
        chain = self.locate(path, shown)
        if len(chain) == len(path):
            return self.editor.replace(self.slot(chain[-1]), value)
        rest = path[len(chain) :]
        if not chain:
            return self.editor.insert_pair(self.root_mapping(), str(rest[0]), nested(rest[1:], value))
        node = self.container(chain[-1], shown)
        if node is None:  # a null on the way becomes the mapping the path needs
            return self.editor.replace(self.slot(chain[-1]), nested(rest, value))
        assert isinstance(node, yt.Mapping)  # the walk only stops early at a missing key
        return self.editor.insert_pair(node, str(rest[0]), nested(rest[1:], value))

    def remove_key(self, chain: list[_Loc]) -> Edit:
        """Remove the pair at the end of ``chain``; a block mapping left empty becomes ``{}``."""
        last = chain[-1]
        parent = last.parent
        assert isinstance(parent, yt.Mapping)
        if len(parent.pairs) > 1 or parent.flow:
            return self.editor.remove_pair(parent, last.index)
        if len(chain) < 2:
            raise Refusal("cannot remove the only key of the workflow")
        edit = self.editor.replace(self.slot(chain[-2]), {})
        assert edit is not None
        return edit

    # -- scopes ----------------------------------------------------------------------------------------------

    def job_path(self, job_id: str) -> Path:
        jobs = self.locate(("jobs",), "jobs")
        node = jobs[0].node if jobs else None
        if isinstance(node, yt.Alias):
            raise Refusal(f"path 'jobs.{job_id}' runs through an alias at 'jobs'")
        if node is not None and not _is_null(node) and not isinstance(node, yt.Mapping):
            raise Refusal("'jobs' is not a mapping")
        if not isinstance(node, yt.Mapping) or self.child(node, job_id, "jobs", job_id) is None:
            raise Refusal(f"unknown job '{job_id}'")
        return ("jobs", job_id)

    def step_path(self, job_id: str, index: int) -> Path:
        job = self.job_path(job_id)
        chain = self.locate((*job, "steps"), "steps")
        steps = self.container(chain[-1], "steps") if len(chain) == 3 else None
        count = len(steps.items) if isinstance(steps, yt.Sequence) else 0
        if isinstance(steps, yt.Mapping):
            raise Refusal(f"'steps' of job '{job_id}' is not a list")
        if not 0 <= index < count:
            has = f"has {count} step{'s' if count != 1 else ''}" if count else "has no steps"
            raise Refusal(f"step index {index} out of range (job '{job_id}' {has})")
        return (*job, "steps", index)


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _as_index(segment: Segment) -> int | None:
    if isinstance(segment, int):
        return segment
    return int(segment) if segment.isdigit() else None


def _is_null(node: yt.Node) -> bool:
    return isinstance(node, yt.Scalar) and yt.construct(node) is None


def _show_path(value: Any) -> str:
    if isinstance(value, str):
        return value
    return ".".join(str(segment).replace("\\", "\\\\").replace(".", "\\.") for segment in value)


# -- the patch kinds -------------------------------------------------------------------------------------------------


def _workflow_set(doc: _Document, f: JSONObject, raw: JSONObject) -> Edit | None:
    return doc.set(f["path"], f["value"], _show_path(raw["path"]))


def _job_set(doc: _Document, f: JSONObject, raw: JSONObject) -> Edit | None:
    return doc.set((*doc.job_path(f["jobId"]), *f["path"]), f["value"], _show_path(raw["path"]))


def _step_set(doc: _Document, f: JSONObject, raw: JSONObject) -> Edit | None:
    step = doc.step_path(f["jobId"], f["stepIndex"])
    return doc.set((*step, *f["path"]), f["value"], _show_path(raw["path"]))


def _with_set(doc: _Document, f: JSONObject, raw: JSONObject) -> Edit | None:
    step = doc.step_path(f["jobId"], f["stepIndex"])
    return doc.set((*step, "with", f["key"]), f["value"], _show_path(["with", f["key"]]))


def _with_remove(doc: _Document, f: JSONObject, raw: JSONObject) -> Edit | None:
    path = (*doc.step_path(f["jobId"], f["stepIndex"]), "with", f["key"])
    shown = _show_path(["with", f["key"]])
    chain = doc.locate(path, shown)
    if len(chain) < len(path):
        return None  # no `with:`, a null one, or no such key: nothing to remove
    with_map = chain[-1].parent
    assert isinstance(with_map, yt.Mapping)
    if len(with_map.pairs) == 1:
        return doc.remove_key(chain[:-1])  # the last input: the `with:` key goes too
    return doc.remove_key(chain)


def _needs_add(doc: _Document, f: JSONObject, raw: JSONObject) -> Edit | None:
    job_id, need = f["jobId"], f["ref"]
    path = (*doc.job_path(job_id), "needs")
    if need == job_id:
        raise Refusal(f"job '{job_id}' cannot need itself")
    doc.job_path(need)
    chain = doc.locate(path, "needs")
    current = _needs_node(doc, chain, path)
    if current is None:
        return doc.set(path, need, "needs")
    if isinstance(current, yt.Scalar):
        existing = yt.construct(current)
        return None if existing == need else doc.set(path, [existing, need], "needs")
    values = scalar_values(current)
    assert values is not None
    return None if need in values else doc.editor.append_item(current, need)


def _needs_remove(doc: _Document, f: JSONObject, raw: JSONObject) -> Edit | None:
    job_id, need = f["jobId"], f["ref"]
    path = (*doc.job_path(job_id), "needs")
    chain = doc.locate(path, "needs")
    current = _needs_node(doc, chain, path)
    if current is None:
        return None
    values = [yt.construct(current)] if isinstance(current, yt.Scalar) else scalar_values(current)
    assert values is not None
    if need not in values:
        return None
    remaining = [value for value in values if value != need]
    if not remaining:
        return doc.remove_key(chain)
    if isinstance(current, yt.Sequence) and len(remaining) == len(values) - 1:
        return doc.editor.remove_item(current, values.index(need))
    return doc.set(path, remaining, "needs")


def _needs_node(doc: _Document, chain: list[_Loc], path: Path) -> yt.Scalar | yt.Sequence | None:
    """The job's ``needs:`` value (None when absent or null); refuses anything but ids."""
    if len(chain) < len(path):
        return None
    loc = chain[-1]
    node = loc.node
    if isinstance(node, yt.Alias):
        raise Refusal(f"'{loc.where}' is an alias; edit the anchored value instead")
    if _is_null(node):
        return None
    if isinstance(node, yt.Scalar) and isinstance(yt.construct(node), str):
        return node
    if isinstance(node, yt.Sequence) and all(isinstance(v, str) for v in scalar_values(node) or [None]):
        return node
    raise Refusal(f"'{loc.where}' is not a job id or a list of job ids")


def _trigger_filters(doc: _Document, f: JSONObject, raw: JSONObject) -> Edit | None:
    event, name, values = f["event"], f["filter"], f["value"]
    shown = _show_path(["on", event, name])
    chain = doc.locate(("on",), shown)
    node = chain[0].node if chain else None
    if isinstance(node, yt.Alias):
        raise Refusal(f"path '{shown}' runs through an alias at 'on'")
    events = _event_names(node) if node is not None and not _is_null(node) else None
    if events is None:  # the mapping form (or no `on:` yet)
        return doc.set(("on", event, name), values, shown)
    mapping: JSONObject = dict.fromkeys(events)
    mapping[event] = {name: values}
    return doc.set(("on",), mapping, shown)


def _event_names(node: yt.Node) -> list[str] | None:
    """The events of ``on: push`` / ``on: [push, pull_request]`` (None for the mapping form)."""
    if isinstance(node, yt.Scalar):
        return [str(yt.construct(node))]
    if isinstance(node, yt.Sequence):
        values = scalar_values(node)
        if values is None:
            raise Refusal("'on' lists something other than event names")
        return [str(value) for value in values]
    return None


_KINDS: dict[str, Callable[[_Document, JSONObject, JSONObject], Edit | None]] = {
    "workflow.set": _workflow_set,
    "job.set": _job_set,
    "step.set": _step_set,
    "with.set": _with_set,
    "with.remove": _with_remove,
    "needs.add": _needs_add,
    "needs.remove": _needs_remove,
    "trigger.setFilters": _trigger_filters,
}


# -- entry point ---------------------------------------------------------------------------------------------------


def _load(text: str, produced_by: int | None, *, full: bool = False) -> _Document:
    """The document of ``text``; ``produced_by`` is the patch that made it (None: the caller's text)."""
    try:
        return _Document(text, full=full)
    except yt.YamlSyntaxError as exc:
        raise _syntax_error(exc, produced_by) from exc


def _syntax_error(exc: yt.YamlSyntaxError, produced_by: int | None) -> PatchError:
    if produced_by is None:
        return PatchError(None, f"the workflow is not valid YAML: {exc}")
    return PatchError(produced_by, f"internal error: the patched text is not valid YAML ({exc})")


def _verify(doc: _Document, edit: Edit, new_text: str, index: int) -> None:
    """Parse what the edit wrote, so that a patch never hands back YAML that does not read.

    First the lines of the edit's scope (the entry that changed), then, when those do not read on
    their own (an alias of an anchor elsewhere, a scope in the middle of a flow collection...), the
    lines of the innermost top-level entry or job holding the edit, and at last the whole text.
    """
    source = yt.Source(new_text)
    old = doc.source
    delta = len(new_text) - len(old.text)
    regions = []
    if edit.scope is not None:
        start, end = min(edit.scope[0], edit.start), max(edit.scope[1], edit.end)
        regions.append((old.line_start(start), old.next_line(end)))
    entry = None if doc.full else document.region_around(doc.root, edit.start, edit.end)
    if entry is not None:
        regions.append(entry)
    for start, end in regions:
        with contextlib.suppress(yt.YamlSyntaxError):
            yt.parse(source, start, end + delta)
            return
    try:
        yt.parse(source)
    except yt.YamlSyntaxError as exc:
        raise _syntax_error(exc, index) from exc


def _apply(
    doc: _Document, op: _Op, raw: JSONObject, index: int, produced_by: int | None
) -> tuple[_Document, Edit | None]:
    """The edit of one patch, and the document it was made on: an entry that cannot be parsed alone
    means parsing everything, once."""
    try:
        try:
            return doc, _KINDS[op.kind](doc, op.fields, raw)
        except document.NeedsFullParse:
            full = _load(doc.source.text, produced_by, full=True)
            return full, _KINDS[op.kind](full, op.fields, raw)
    except Refusal as exc:
        raise PatchError(index, str(exc)) from exc


def apply_patches(text: str, patches: list[JSONObject]) -> str:
    """Apply ``patches`` (IRPatch objects) to the workflow ``text`` and return the new text.

    Only the text of the nodes that change is rewritten; every other byte stays as it was. Raises
    :class:`PatchError` (and returns nothing) when any patch is malformed or cannot be applied.
    """
    if not isinstance(patches, list):
        raise PatchError(None, "patches must be a list")
    ops = []
    for index, raw in enumerate(patches):
        try:
            ops.append(_validate(raw))
        except Refusal as exc:
            raise PatchError(index, str(exc)) from exc
    doc: _Document | None = _load(text, None)
    produced_by: int | None = None
    for index, (op, raw) in enumerate(zip(ops, patches, strict=True)):
        doc, edit = _apply(doc or _load(text, produced_by), op, raw, index, produced_by)
        new_text = text if edit is None else edit.apply(text)
        if edit is not None and new_text != text:
            _verify(doc, edit, new_text, index)
            text, produced_by, doc = new_text, index, None
    return text


__all__ = ["PatchError", "apply_patches", "parse_path"]
