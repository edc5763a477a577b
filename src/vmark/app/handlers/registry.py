"""The person's actions and the arguments each one takes, checked in one place before its handler runs.

Like the agents' tools (:func:`vmark.protocol.tools.check_request`), every action declares its arguments
(:class:`PersonAction`); :func:`check_person_request` checks them and answers one shape of refusal,
``argument 'NAME' must be ...``. A handler reads checked arguments; what it still checks is about their
meaning (a range, a pair of arguments, a lookup), not their type. Arguments an action does not declare are
passed on unchecked: a page's ``ui.reply`` carries what the app asked for.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...protocol.errors import ArgumentError
from ...protocol.tools import FieldSpec

if TYPE_CHECKING:
    from ..context import RequestContext

Handler = Callable[["RequestContext", dict[str, Any]], Awaitable[Any]]

STR = FieldSpec("string", "")
#: a text the handler checks itself (a lone surrogate is its refusal, not an argument error)
TEXT = FieldSpec("string", "", text=True)
BOOL = FieldSpec("boolean", "")
INT = FieldSpec("integer", "")
OBJECT = FieldSpec("object", "")
ARRAY = FieldSpec("array", "")
#: any JSON value (a setting's value: the settings table checks it)
ANY = None


def one_of(*values: str) -> FieldSpec:
    return FieldSpec("string", "", enum=values)


@dataclass(frozen=True)
class PersonAction:
    handler: Handler
    required: Mapping[str, FieldSpec | None] = field(default_factory=dict)
    optional: Mapping[str, FieldSpec] = field(default_factory=dict)

    def check(self, args: dict[str, Any]) -> dict[str, Any]:
        for name, spec in self.required.items():
            if spec is None:
                if name not in args:
                    raise ArgumentError(f"argument {name!r} is required")
                continue
            _check(name, spec, args.get(name))
        for name, spec in self.optional.items():
            if args.get(name) is not None:
                _check(name, spec, args[name])
        return args


def _check(name: str, spec: FieldSpec, value: Any) -> None:
    problem = spec.problem(value)
    if problem is not None:
        raise ArgumentError(f"argument {name!r} {problem}")


def check_person_request(
    actions: Mapping[str, PersonAction], kind: str, args: dict[str, Any]
) -> tuple[Handler, dict[str, Any]]:
    """The handler of ``kind`` and its checked arguments, else :class:`ArgumentError`."""
    action = actions.get(kind)
    if action is None:
        raise ArgumentError(f"unknown request type {kind!r}")
    return action.handler, action.check(args)


#: the tab an action is about (every family's ``tabId``)
TAB = {"tabId": STR}
