"""JSON Schema (2020-12) from the protocol's typed definitions: ``TypedDict``, ``Literal``, ``list[X]``,
``tuple[X, Y]``, ``dict[str, X]``, unions and ``X | None``, the JSON scalars and ``object`` (any JSON value; so is
``Any``, the values of a :data:`~vmark.protocol.jsontypes.JSONObject`).

The same vocabulary as :mod:`vmark.protocol.wirecheck`; anything else is refused loudly (:class:`TypeError`), so a
definition never turns into a schema that quietly accepts everything. A ``TypedDict`` becomes an object with its
required keys and typed properties, open to keys it does not name: a result may grow a field without breaking
a client that validates against an older schema (MCP clients do, on every call).
"""

from __future__ import annotations

import types
import typing
from typing import Any


def json_schema(tp: Any) -> dict[str, Any]:
    """The JSON Schema of the values of ``tp``."""
    if tp is object or tp is Any:  # any JSON value (``Any`` only as a :data:`~.jsontypes.JSONObject`'s values)
        return {}
    if tp is None or tp is type(None):
        return {"type": "null"}
    scalar = _SCALARS.get(tp)
    if scalar is not None:
        return dict(scalar)
    if isinstance(tp, type) and typing.is_typeddict(tp):
        return _typeddict(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [json_schema(arg) for arg in args]}
    if origin is list:
        return {"type": "array", "items": json_schema(args[0])}
    if origin is tuple and args and args[-1] is not Ellipsis:
        items = [json_schema(arg) for arg in args]
        return {"type": "array", "prefixItems": items, "minItems": len(items), "maxItems": len(items)}
    if origin is dict and args and args[0] is str:
        return {"type": "object", "additionalProperties": json_schema(args[1])}
    raise TypeError(f"no JSON Schema for {tp!r}")


_SCALARS: dict[Any, dict[str, str]] = {
    bool: {"type": "boolean"},
    int: {"type": "integer"},
    float: {"type": "number"},
    str: {"type": "string"},
}


def _typeddict(tp: type) -> dict[str, Any]:
    hints = typing.get_type_hints(tp)
    required = typing.cast(frozenset[str], tp.__required_keys__)  # type: ignore[attr-defined]
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {key: json_schema(inner) for key, inner in hints.items()},
    }
    if required:
        schema["required"] = [key for key in hints if key in required]
    return schema
