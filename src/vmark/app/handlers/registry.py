"""The person's actions and the arguments each one takes, checked in one place before its handler runs.

Like the agents' tools (:func:`vmark.protocol.tools.check_request`), every action names the arguments checked
before it runs (:class:`PersonAction`; their types are the person protocol's, ``vmark.protocol.wire_types``);
:func:`check_person_request` checks them and answers one shape of refusal,
``argument 'NAME' must be ...``. A person's request is then held to its whole payload ``TypedDict``
(:func:`vmark.protocol.requests.payload_problem`): a key it does not have is refused, as is a value off its type.
A handler reads checked arguments; what it still checks is about their meaning (a range, a pair of arguments, a
lookup). The values of keys an action does not name are its handler's to check, in its own words (a page's
``ui.reply`` carries what the app asked for); the strict check only knows them as keys.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...protocol.errors import ArgumentError
from ...protocol.jsontypes import JSONObject
from ...protocol.requests import payload_keys, payload_problem, request_fields
from ...protocol.tools import FieldSpec

if TYPE_CHECKING:
    from ..context import RequestContext

Handler = Callable[["RequestContext", JSONObject], Awaitable[Mapping[str, object]]]

STR = FieldSpec("string", "")
OBJECT = FieldSpec("object", "")


@dataclass(frozen=True)
class Action:
    """A request's handler and the checks of its arguments, as :class:`FieldSpec`."""

    handler: Handler
    required: Mapping[str, FieldSpec | None] = field(default_factory=dict)
    optional: Mapping[str, FieldSpec] = field(default_factory=dict)
    #: a person's request: its kind in :data:`vmark.protocol.wire_types.REQUESTS`, whose payload ``TypedDict`` the
    #: whole payload is then held to (:func:`vmark.protocol.requests.payload_problem`), after the checks above
    kind: str | None = None
    #: of that payload's keys, those whose values the handler checks itself, with its own words
    own: frozenset[str] = frozenset()

    def check(self, args: JSONObject) -> JSONObject:
        for name, spec in self.required.items():
            if spec is None:
                if name not in args:
                    raise ArgumentError(f"argument {name!r} is required")
                continue
            _check(name, spec, args.get(name))
        for name, spec in self.optional.items():
            if args.get(name) is not None:
                _check(name, spec, args[name])
        if self.kind is not None:
            problem = payload_problem(self.kind, args, self.own)
            if problem is not None:
                raise ArgumentError(problem)
        return args


@dataclass(frozen=True)
class PersonAction:
    """A person's request: its handler and the payload keys checked before it runs. Each key's type, and whether
    it is required, is the request's payload ``TypedDict`` in :mod:`vmark.protocol.wire_types` (its one
    declaration; :func:`vmark.protocol.requests.request_fields`)."""

    handler: Handler
    checks: tuple[str, ...] = ()
    #: of ``checks``, texts whose lone surrogate the handler refuses itself (``INVALID_TEXT``)
    texts: tuple[str, ...] = ()
    #: of ``checks``, keys checked as strings here and whose value (one of a set) the handler refuses itself
    values: tuple[str, ...] = ()
    #: of ``checks``, keys whose items the handler checks itself, with its own words (the check here is of the
    #: outer type only: an array, an object)
    inner: tuple[str, ...] = ()

    def bind(self, kind: str) -> Action:
        required, optional = request_fields(kind, self.checks, frozenset(self.texts), frozenset(self.values))
        # A key the action does not check here is its handler's to check (in its own words), as are ``values``
        # and ``inner``: the strict check leaves their values to it, so its refusals keep their words.
        own = frozenset(payload_keys(kind)) - frozenset(self.checks) | frozenset(self.values) | frozenset(self.inner)
        return Action(self.handler, required, optional, kind, own)


def bind(actions: Mapping[str, PersonAction]) -> dict[str, Action]:
    """Each person action with its checks (a key its payload does not declare fails here, at import)."""
    return {kind: action.bind(kind) for kind, action in actions.items()}


def _check(name: str, spec: FieldSpec, value: Any) -> None:
    problem = spec.problem(value)
    if problem is not None:
        raise ArgumentError(f"argument {name!r} {problem}")


def check_person_request(actions: Mapping[str, Action], kind: str, args: JSONObject) -> tuple[Handler, JSONObject]:
    """The handler of ``kind`` and its checked arguments, else :class:`ArgumentError`."""
    action = actions.get(kind)
    if action is None:
        raise ArgumentError(f"unknown request type {kind!r}")
    return action.handler, action.check(args)
