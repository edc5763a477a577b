"""A strict check of values against the person protocol's TypedDicts (``vmark.protocol.wire_types``).

What it knows: ``TypedDict`` (required and ``NotRequired`` keys; an unknown key is an error), ``Literal``,
``list[X]``, ``tuple[X, Y]`` (a JSON array of that length: a list, or a tuple as the app builds its answers before
they are sent), ``dict[str, X]``, unions and ``X | None``, the JSON
scalars (``bool`` is not an ``int``; an ``int`` is a ``float``) and ``object`` (any JSON value). Anything else
is refused loudly (:class:`UnsupportedType`), so a shape never passes because the checker skipped it.
"""

from __future__ import annotations

import functools
import types
import typing
from typing import Any

from . import wire_types


class UnsupportedType(TypeError):
    """The shape uses a type this checker does not know."""


def problems(value: Any, tp: Any, where: str = "$") -> list[str]:
    """Every way ``value`` differs from ``tp``, each as ``path: what``; empty when it conforms."""
    if tp is object:
        return []
    if tp is None or tp is type(None):
        return [] if value is None else [f"{where}: {value!r} is not null"]
    if tp is bool:
        return [] if isinstance(value, bool) else [f"{where}: {value!r} is not a boolean"]
    if tp is int:
        return [] if isinstance(value, int) and not isinstance(value, bool) else [f"{where}: {value!r} is not an int"]
    if tp is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return [] if ok else [f"{where}: {value!r} is not a number"]
    if tp is str:
        return [] if isinstance(value, str) else [f"{where}: {value!r} is not a string"]
    if isinstance(tp, type) and typing.is_typeddict(tp):
        return _typeddict(value, tp, where)
    return _generic(value, tp, where)


def _typeddict(value: Any, tp: type, where: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{where}: {value!r} is not an object ({tp.__name__})"]
    hints, required = _shape(tp)
    found = [f"{where}: missing key {key!r} ({tp.__name__})" for key in sorted(required - value.keys())]
    found += [f"{where}: unknown key {key!r} ({tp.__name__})" for key in sorted(value.keys() - hints.keys())]
    for key, inner in hints.items():
        if key in value:
            found += problems(value[key], inner, f"{where}.{key}")
    return found


@functools.cache
def _shape(tp: type) -> tuple[dict[str, Any], frozenset[str]]:
    """A ``TypedDict``'s keys with their types, and its required keys (resolved once: the app checks every
    request with them)."""
    return typing.get_type_hints(tp), typing.cast(frozenset[str], tp.__required_keys__)  # type: ignore[attr-defined]


def _generic(value: Any, tp: Any, where: str) -> list[str]:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        same = any(value == a and type(value) is type(a) for a in args)
        return [] if same else [f"{where}: {value!r} is not one of {list(args)!r}"]
    if origin in (typing.Union, types.UnionType):
        each = [problems(value, a, "") for a in args]
        if any(not p for p in each):
            return []
        return [
            f"{where}: {value!r} matches none of {tp}: " + "; ".join(p.removeprefix(": ") for ps in each for p in ps)
        ]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: {value!r} is not a list"]
        return [p for i, item in enumerate(value) for p in problems(item, args[0], f"{where}[{i}]")]
    if origin is tuple and args and args[-1] is not Ellipsis:
        if not isinstance(value, list | tuple) or len(value) != len(args):
            return [f"{where}: {value!r} is not an array of {len(args)}"]
        return [
            p
            for i, (item, inner) in enumerate(zip(value, args, strict=True))
            for p in problems(item, inner, f"{where}[{i}]")
        ]
    if origin is dict and args and args[0] is str:
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            return [f"{where}: {value!r} is not an object"]
        return [p for k, item in value.items() for p in problems(item, args[1], f"{where}[{k!r}]")]
    raise UnsupportedType(f"{where}: cannot check against {tp!r}")


def request_problems(kind: str, payload: Any) -> list[str]:
    """A request the page may send, checked by its payload."""
    if kind in wire_types.REQUESTS:
        return problems(payload, wire_types.REQUESTS[kind][0], f"{kind} payload")
    return [f"{kind}: not a request of wire_types"]


def result_problems(kind: str, data: Any) -> list[str]:
    """The app's answer to a request."""
    if kind in wire_types.REQUESTS:
        return problems(data, wire_types.REQUESTS[kind][1], f"{kind} result")
    return [f"{kind}: not a request of wire_types"]


def event_problems(frame: Any) -> list[str]:
    """A pushed event frame: its envelope, its name and its payload."""
    if not isinstance(frame, dict) or frame.get("type") != "event":
        return [f"{frame!r} is not an event frame"]
    name, asks = frame.get("event"), "requestId" in frame
    shapes = wire_types.REQUEST_EVENTS if asks else wire_types.EVENTS
    unknown = sorted(frame.keys() - {"type", "event", "payload", "requestId"})
    if unknown:
        return [f"event {name!r}: unknown frame keys {unknown}"]
    if asks and not isinstance(frame["requestId"], str):
        return [f"event {name!r}: requestId {frame['requestId']!r} is not a string"]
    if not isinstance(name, str) or name not in shapes:
        kind = "request event" if asks else "event"
        return [f"{name!r} is not a{'' if asks else 'n'} {kind} of wire_types"]
    return problems(frame.get("payload"), shapes[name], f"event {name!r}")
