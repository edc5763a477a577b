"""The strict check of a person's request (``vmark.protocol.requests.payload_problem``), as ``App`` binds it.

It runs after an action's own checks and refuses what they let through: a key the payload's ``TypedDict`` does
not have (at any request), a value off its declared type. The values a handler checks itself (the keys its
action does not name, ``values``, ``inner``) are left to the handler, so its refusals keep their words.
"""

from __future__ import annotations

from typing import Any

import pytest

from vmark.app.handlers import person
from vmark.app.handlers.registry import check_person_request
from vmark.protocol.errors import ArgumentError
from vmark.protocol.requests import payload_keys, payload_problem
from vmark.protocol.wire_types import REQUESTS


def _refusal(kind: str, payload: dict[str, Any]) -> str:
    with pytest.raises(ArgumentError) as refused:
        check_person_request(person.ACTIONS, kind, payload)
    return str(refused.value)


@pytest.mark.parametrize(
    ("kind", "payload", "message"),
    [
        (
            "ui.edit",
            {"tabId": "t1", "baseRevision": "r", "changes": [[0, 0, "x"]], "chnages": []},
            "ui.edit: argument 'chnages' is not accepted (ui.edit takes: tabId, baseRevision, text, changes)",
        ),
        ("ui.state", {"window": "main"}, "ui.state: argument 'window' is not accepted (ui.state takes: no arguments)"),
        (
            "ui.save",
            {"tabId": "t1", "force": True},
            "ui.save: argument 'force' is not accepted (ui.save takes: tabId)",
        ),
        (
            # a union payload takes any member's keys
            "browser.input",
            {"tabId": "b1", "kind": "key", "key": "a", "repeat": True},
            "browser.input: argument 'repeat' is not accepted (browser.input takes: tabId, kind, x, y, width, height,"
            " button, clickCount, dx, dy, key, modifiers, text, paste)",
        ),
    ],
)
def test_an_unknown_key_is_a_plain_argument_error(kind: str, payload: dict[str, Any], message: str) -> None:
    assert _refusal(kind, payload) == message


def test_the_actions_own_checks_refuse_first() -> None:
    # both wrong: the existing check's words, as before
    assert _refusal("ui.edit", {"tabId": 5, "bogus": 1}) == "argument 'tabId' must be a string"
    assert _refusal("ui.save", {"bogus": 1}) == "argument 'tabId' must be a string"


def test_a_value_off_its_declared_type_is_named_at_its_depth() -> None:
    # ``ids`` items are the review handler's to check; the declaration's own check reads the same value this way
    assert payload_problem("review.accept", {"tabId": "t1", "ids": ["c1", 2]}, frozenset()) == (
        "review.accept: argument 'ids' does not fit its type: ids[1]: 2 is not a string"
    )
    key = {"tabId": "b1", "kind": "key", "key": "a", "modifiers": {"hyper": True}}
    assert payload_problem("browser.input", key, frozenset()) == (
        "browser.input: argument 'modifiers' does not fit its type: modifiers: unknown key 'hyper' (KeyModifiers)"
    )


def test_values_a_handler_checks_itself_are_left_to_it() -> None:
    actions = person.ACTIONS
    assert actions["ui.edit"].own >= {"changes"}
    assert actions["review.accept"].own >= {"ids"}
    assert {"tabId", "baseRevision", "text"}.isdisjoint(actions["ui.edit"].own)
    # the span check's words, not the strict check's
    assert payload_problem("ui.edit", {"tabId": "t1", "changes": [["x"]]}, actions["ui.edit"].own) is None
    assert payload_problem("review.accept", {"tabId": "t1", "ids": [1]}, actions["review.accept"].own) is None


def test_none_counts_as_leaving_a_key_out() -> None:
    # as in the actions' checks and the agents' tools
    assert payload_problem("ui.close", {"tabId": "t1", "force": None}, frozenset()) is None


def test_every_person_action_is_held_to_its_payload() -> None:
    for kind, action in person.ACTIONS.items():
        assert action.kind == kind
        assert action.own <= frozenset(payload_keys(kind)), kind
    assert set(person.ACTIONS) == set(REQUESTS)
