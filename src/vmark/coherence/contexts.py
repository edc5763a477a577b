"""Contexts: named views of the canon, one JSON file each in ``.vmark/contexts/``.

``<id>.json`` = ``{"name", "parent", "enforcement", "include", "exclude"}``. A context sees what
its parent sees, minus ``exclude``, plus ``include`` (only valid, unsuperseded claims can be
seen). The implicit ``default`` context sees every valid, unsuperseded claim. A broken file is
listed with its errors, never raised: the person fixes it, the projection goes on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vmark.protocol import wire_types
from vmark.protocol.limits import MAX_CONTEXT_FILE_BYTES

from .claims import Claim, default_visible

DEFAULT_CONTEXT = "default"
ENFORCEMENTS = ("greenhouse", "enforcing")
CONTEXT_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
_FIELDS = ("name", "parent", "enforcement", "include", "exclude")


def is_context_id(text: str) -> bool:
    return CONTEXT_ID.fullmatch(text) is not None


def validate_context(data: Any) -> list[str]:
    """What is wrong with the shape of one context's JSON (empty: nothing)."""
    if not isinstance(data, dict):
        return ["a context must be a JSON object"]
    errors = [f"unknown field {key!r}" for key in sorted(data) if key not in _FIELDS]
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        errors.append("field 'name' must be a non-empty string")
    parent = data.get("parent")
    if parent is not None and not (isinstance(parent, str) and is_context_id(parent)):
        errors.append("field 'parent' must be a context id or null")
    if data.get("enforcement") not in ENFORCEMENTS:
        errors.append(f"field 'enforcement' must be one of {', '.join(ENFORCEMENTS)}")
    for key in ("include", "exclude"):
        ids = data.get(key, [])
        if not isinstance(ids, list) or not all(isinstance(item, str) for item in ids):
            errors.append(f"field {key!r} must be a list of claim ids")
    return errors


@dataclass
class _Context:
    id: str
    name: str
    parent: str
    enforcement: str
    include: list[str]
    exclude: list[str]
    errors: list[str]


def load_contexts(contexts_dir: Path, claims: Iterable[Claim]) -> list[wire_types.Context]:
    """The ``coherence`` -> ``contexts`` rows: ``default`` first, then the files by id."""
    claims = list(claims)
    base = default_visible(claims)
    # what include/exclude may name, and what include can add
    known = {claim.claim for claim in claims}
    contexts = {context.id: context for context in _read_all(contexts_dir)}
    default_errors: list[str] = []
    if DEFAULT_CONTEXT in contexts:
        del contexts[DEFAULT_CONTEXT]
        default_errors.append(f"{DEFAULT_CONTEXT}.json is ignored: the default context is implicit")
    cycles = _cycles(contexts)
    for context in contexts.values():
        _check_relations(context, contexts, cycles, known)
    visible: dict[str, set[str]] = {DEFAULT_CONTEXT: base}
    rows = [_row(DEFAULT_CONTEXT, DEFAULT_CONTEXT, None, "greenhouse", base, default_errors)]
    for context_id in sorted(contexts):
        context = contexts[context_id]
        seen = _visible(context, contexts, cycles, base, visible)
        rows.append(_row(context.id, context.name, context.parent, context.enforcement, seen, context.errors))
    return rows


def _row(
    context_id: str, name: str, parent: str | None, enforcement: str, seen: set[str], errors: list[str]
) -> wire_types.Context:
    return {
        "id": context_id,
        "name": name,
        "parent": parent,
        "enforcement": enforcement,
        "visibleClaims": len(seen),
        "errors": errors,
    }


def _read_all(contexts_dir: Path) -> list[_Context]:
    try:
        files = sorted(contexts_dir.glob("*.json"))
    except OSError:
        return []
    return [_read(path) for path in files if is_context_id(path.stem)]


def _read(path: Path) -> _Context:
    context = _Context(path.stem, path.stem, DEFAULT_CONTEXT, "greenhouse", [], [], [])
    try:
        if path.stat().st_size > MAX_CONTEXT_FILE_BYTES:
            context.errors.append(f"file is larger than {MAX_CONTEXT_FILE_BYTES} bytes")
            return context
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        context.errors.append(f"cannot read file: {exc.__class__.__name__}")
        return context
    except ValueError as exc:
        context.errors.append(f"not valid JSON: {exc}")
        return context
    context.errors.extend(validate_context(data))
    if not isinstance(data, dict):
        return context
    # keep every field that is well-formed, so one typo does not blank the whole context
    name, parent, enforcement = data.get("name"), data.get("parent"), data.get("enforcement")
    if isinstance(name, str) and name.strip():
        context.name = name
    if isinstance(parent, str) and is_context_id(parent):
        context.parent = parent
    if enforcement in ENFORCEMENTS:
        context.enforcement = str(enforcement)
    context.include = _ids(data, "include")
    context.exclude = _ids(data, "exclude")
    return context


def _ids(data: Mapping[str, Any], key: str) -> list[str]:
    ids = data.get(key, [])
    return [item for item in ids if isinstance(item, str)] if isinstance(ids, list) else []


def _check_relations(
    context: _Context, contexts: Mapping[str, _Context], cycles: Mapping[str, list[str]], known: set[str]
) -> None:
    if context.parent != DEFAULT_CONTEXT and context.parent not in contexts:
        context.errors.append(f"unknown parent {context.parent!r}")
    if context.id in cycles:
        context.errors.append("parent cycle: " + " -> ".join(cycles[context.id]))
    for key, ids in (("include", context.include), ("exclude", context.exclude)):
        context.errors.extend(f"unknown claim {claim_id!r} in {key}" for claim_id in ids if claim_id not in known)


def _cycles(contexts: Mapping[str, _Context]) -> dict[str, list[str]]:
    """context id -> its parent chain back to itself, for every context on a parent cycle."""
    cycles: dict[str, list[str]] = {}
    walked: set[str] = set()
    for start in contexts:
        # each context has one parent: follow the chain until it leaves the files, meets a
        # chain walked before, or meets itself (a new cycle)
        chain: list[str] = []
        position: dict[str, int] = {}
        node = start
        while node in contexts and node not in walked and node not in position:
            position[node] = len(chain)
            chain.append(node)
            node = contexts[node].parent
        if node in position:
            loop = chain[position[node] :]
            for i, member in enumerate(loop):
                cycles[member] = [*loop[i:], *loop[:i], member]
        walked.update(chain)
    return cycles


def _visible(
    context: _Context,
    contexts: Mapping[str, _Context],
    cycles: Mapping[str, list[str]],
    base: set[str],
    visible: dict[str, set[str]],
) -> set[str]:
    """visible(parent) - exclude + include; a missing or looping parent counts as ``default``."""
    # walk up to a context already resolved or one that inherits from default, then back down
    # (iterative: a long parent chain must not hit the recursion limit)
    chain: list[_Context] = []
    node = context
    while node.id not in visible:
        chain.append(node)
        if node.parent not in contexts or node.id in cycles:
            break
        node = contexts[node.parent]
    for node in reversed(chain):
        inherits_default = node.parent not in contexts or node.id in cycles
        parent_seen = base if inherits_default else visible[node.parent]
        visible[node.id] = (parent_seen - set(node.exclude)) | (set(node.include) & base)
    return visible[context.id]
