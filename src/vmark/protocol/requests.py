"""The argument checks of the person's requests, from their one declaration: the payload ``TypedDict`` of
:data:`vmark.protocol.wire_types.REQUESTS` (the same one ``frontend/src/wire.gen.ts`` is generated from).

An action names the payload keys the app checks before its handler runs; each key's type and whether it is
required come from the ``TypedDict``, as :class:`~vmark.protocol.tools.FieldSpec` (so the refusals read as the
agents' do: ``argument 'NAME' must be ...``). A key it does not name is its handler's to check, with its own
refusal (a span of an edit, a workspace root, a setting's value).
"""

import functools
import types
import typing
from collections.abc import Mapping
from typing import Any

from . import wirecheck
from .tools import FieldSpec
from .wire_types import REQUESTS

#: a key of any JSON value that must be there (a setting's value: the settings table checks it)
Fields = tuple[Mapping[str, FieldSpec | None], Mapping[str, FieldSpec]]


@functools.cache
def request_fields(
    kind: str, names: tuple[str, ...], texts: frozenset[str] = frozenset(), values: frozenset[str] = frozenset()
) -> Fields:
    """``(required, optional)`` checks of the keys ``names`` of request ``kind``'s payload. ``texts`` are keys
    whose lone surrogate the handler refuses itself (``INVALID_TEXT``, not an argument error); ``values`` are
    keys checked here as strings only, their values (one of a set) by the handler with its own refusal."""
    hints, required_keys = _keys(REQUESTS[kind][0])
    required: dict[str, FieldSpec | None] = {}
    optional: dict[str, FieldSpec] = {}
    for name in names:
        if name not in hints:
            raise KeyError(f"{kind}: the payload has no key {name!r}")
        tp, nullable = _without_none(hints[name])
        spec = FieldSpec("string", "") if name in values else _spec(tp, text=name in texts)
        if name in required_keys and not nullable:
            required[name] = spec
        elif spec is not None:
            optional[name] = spec
    return required, optional


def _keys(payload: Any) -> tuple[dict[str, Any], frozenset[str]]:
    """The keys of a payload ``TypedDict`` (or of a union of them: the keys all share) and the required ones."""
    members = typing.get_args(payload) if typing.get_origin(payload) in (typing.Union, types.UnionType) else (payload,)
    each = [typing.get_type_hints(member) for member in members]
    shared = {key: tp for key, tp in each[0].items() if all(key in hints for hints in each[1:])}
    required = frozenset.intersection(*(frozenset(member.__required_keys__) for member in members))
    return shared, required


def _without_none(tp: Any) -> tuple[Any, bool]:
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        rest = tuple(a for a in args if a is not type(None))
        if len(rest) < len(args):
            return (rest[0] if len(rest) == 1 else typing.Union[rest]), True  # noqa: UP007
    return tp, False


def _spec(tp: Any, *, text: bool) -> FieldSpec | None:
    if tp is object:
        return None
    if tp is str:
        return FieldSpec("string", "", text=text)
    if tp is bool:
        return FieldSpec("boolean", "")
    if tp is int:
        return FieldSpec("integer", "")
    origin = typing.get_origin(tp)
    if origin is typing.Literal and all(isinstance(a, str) for a in typing.get_args(tp)):
        return FieldSpec("string", "", enum=typing.get_args(tp))
    if origin in (list, tuple):
        return FieldSpec("array", "")
    if origin is dict or (isinstance(tp, type) and typing.is_typeddict(tp)):
        return FieldSpec("object", "")
    if origin in (typing.Union, types.UnionType) and all(typing.is_typeddict(a) for a in typing.get_args(tp)):
        return FieldSpec("object", "")
    raise TypeError(f"no argument check for {tp!r}")


@functools.cache
def payload_keys(kind: str) -> dict[str, Any]:
    """Every key request ``kind``'s payload may hold, with its type (a union payload: any member's key, as the
    union of the members' types)."""
    payload = REQUESTS[kind][0]
    members = typing.get_args(payload) if typing.get_origin(payload) in (typing.Union, types.UnionType) else (payload,)
    keys: dict[str, list[Any]] = {}
    for member in members:
        for key, tp in typing.get_type_hints(member).items():
            keys.setdefault(key, []).append(tp)
    return {key: tps[0] if len(tps) == 1 else typing.Union[tuple(tps)] for key, tps in keys.items()}  # noqa: UP007


def payload_problem(kind: str, payload: Mapping[str, Any], own: frozenset[str]) -> str | None:
    """The strict check of a payload the per-action checks passed: the first key its ``TypedDict`` does not
    have, or the first key whose value strays from its declared type at any depth (a nested object's unknown
    key, a list item's shape); ``None`` when it conforms. ``own`` are the keys whose values the handler checks
    with its own words (they are only known keys here). A ``None`` for a key the payload may leave out counts
    as leaving it out, as in the per-action checks and the agents' tools."""
    keys = payload_keys(kind)
    for name, value in payload.items():
        if name not in keys:
            return f"{kind}: argument {name!r} is not accepted ({kind} takes: {', '.join(keys) or 'no arguments'})"
        if name in own or value is None:
            continue
        found = wirecheck.problems(value, keys[name], name)
        if found:
            return f"{kind}: argument {name!r} does not fit its type: {found[0]}"
    return None
