"""The grant store: what a grant binds, when it is used up, when it lapses, and what can never stand."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from vmark.browser.grants import (
    DECISION_LABELS,
    NEVER_STANDING,
    OPERATIONS,
    Decision,
    GrantRequest,
    GrantStore,
    Operation,
    SitePermission,
    key_chord,
)

_SITE = "https://shop.example"


def _req(operation: Operation = "click", **fields: Any) -> GrantRequest:
    """A request on tab b-1 of the shop for the "Add to cart" button; ``fields`` override."""
    return replace(GrantRequest("b-1", _SITE, operation, "button", "Add to cart"), **fields)


def test_operations_and_labels() -> None:
    assert OPERATIONS == (
        "read", "attach", "click", "type", "scroll", "key", "style",
        "navigate", "eval", "session", "record", "profile", "upload",
    )  # fmt: skip
    assert DECISION_LABELS == {"once": "Allow once", "site": "Allow on this site", "deny": "Deny"}
    assert frozenset({"eval", "session", "record", "profile"}) == NEVER_STANDING


def test_nothing_is_granted_by_default() -> None:
    store = GrantStore()
    assert [op for op in OPERATIONS if store.check(_req(op))] == []


def test_once_is_used_up_by_one_use() -> None:
    store = GrantStore()
    assert store.grant(_req(), "once") == "once"
    assert store.covers(_req())
    assert not store.standing(_req())
    assert store.check(_req())
    assert not store.check(_req())
    assert not store.covers(_req())


def test_each_once_answer_is_one_use() -> None:
    store = GrantStore()
    store.grant(_req(), "once")
    store.grant(_req(), "once")
    assert [store.check(_req()) for _ in range(3)] == [True, True, False]


def test_on_this_site_stands_until_the_tab_navigates() -> None:
    store = GrantStore()
    assert store.grant(_req(), "site") == "site"
    assert [store.check(_req()) for _ in range(3)] == [True, True, True]
    assert store.standing(_req())
    store.lapse_tab("b-1")
    assert not store.check(_req())


def test_a_standing_grant_spares_once_grants_and_revoking_drops_both() -> None:
    store = GrantStore()
    store.grant(_req(), "once")
    store.grant(_req(), "site")
    assert store.check(_req()) and store.check(_req())
    store.revoke(_SITE, "click")
    assert not store.check(_req())  # revoking drops the once-grant too


def test_deny_stores_nothing_and_leaves_earlier_grants() -> None:
    store = GrantStore()
    assert store.grant(_req(), "deny") is None
    assert not store.check(_req())
    store.grant(_req(), "once")
    store.grant(_req(), "deny")
    assert store.check(_req())


@pytest.mark.parametrize(
    ("granted", "asked"),
    [
        ({}, {"tab": "b-2"}),
        ({}, {"origin": "https://other.example"}),
        ({}, {"origin": "http://shop.example"}),
        ({}, {"role": "link"}),
        ({}, {"name": "Add to wishlist"}),
        ({}, {"name": "add to cart"}),
        ({}, {"role": None, "name": None}),
    ],
)
@pytest.mark.parametrize("decision", ["once", "site"])
def test_a_click_grant_binds_tab_origin_and_element(
    granted: dict[str, Any], asked: dict[str, Any], decision: Decision
) -> None:
    store = GrantStore()
    store.grant(_req("click", **granted), decision)
    assert not store.check(_req("click", **asked))
    assert store.check(_req("click"))


@pytest.mark.parametrize(
    ("operation", "granted", "same", "different"),
    [
        ("type", {"value": "42 Main St"}, {"value": "42 Main St"}, {"value": "42 Main St."}),
        ("type", {"value": "x"}, {"value": "x"}, {"value": "x", "name": "Search"}),
        ("key", {"value": "Enter"}, {"value": "Enter"}, {"value": "Ctrl+Enter"}),
        ("key", {"value": "Enter", "role": "textbox", "name": "Q"}, {"value": "Enter", "role": "textbox", "name": "Q"},
         {"value": "Enter"}),
        ("scroll", {"value": "600"}, {"value": "600"}, {"value": "601"}),
        ("scroll", {"role": "button", "name": "More"}, {"role": "button", "name": "More"}, {"role": "button"}),
        ("session", {"value": "save:work"}, {"value": "save:work"}, {"value": "save:home"}),
        ("session", {"value": "save:work"}, {"value": "save:work"}, {"value": "load:work"}),
        ("eval", {"value": "return 1"}, {"value": "return 1"}, {"value": "return 2"}),
        ("profile", {"value": "work"}, {"value": "work"}, {"value": "home"}),
    ],
)  # fmt: skip
def test_grants_bind_exactly_what_the_prompt_showed(
    operation: Operation, granted: dict[str, Any], same: dict[str, Any], different: dict[str, Any]
) -> None:
    store = GrantStore()
    store.grant(_req(operation, **granted), "once")
    assert not store.check(_req(operation, **different))
    assert store.check(_req(operation, **same))


@pytest.mark.parametrize("operation", ["read", "attach", "style", "navigate", "record"])
def test_operations_without_a_binding_ignore_element_and_value(operation: Operation) -> None:
    store = GrantStore()
    store.grant(_req(operation), "once")
    assert store.check(_req(operation, role="button", name="Anything", value="anything"))


def test_key_chords_are_canonical() -> None:
    assert key_chord("Enter") == "Enter"
    assert key_chord("Enter", {}) == "Enter"
    assert key_chord("a", {"shift": True, "ctrl": True}) == "Ctrl+Shift+a"
    assert key_chord("a", {"meta": True, "alt": True, "ctrl": False}) == "Alt+Meta+a"
    assert key_chord("Tab", {"shift": True}) != key_chord("Tab")


@pytest.mark.parametrize("operation", sorted(NEVER_STANDING))
def test_never_standing_operations_take_on_this_site_as_once(operation: Operation) -> None:
    store = GrantStore()
    assert store.grant(_req(operation, value="v"), "site") == "once"
    assert not store.standing(_req(operation, value="v"))
    assert store.list_site_permissions() == []
    assert [store.check(_req(operation, value="v")) for _ in range(2)] == [True, False]


@pytest.mark.parametrize("decision", ["once", "site"])
def test_uploads_are_never_granted(decision: Decision) -> None:
    store = GrantStore()
    assert store.grant(_req("upload"), decision) is None
    assert (store.covers(_req("upload")), store.standing(_req("upload")), store.check(_req("upload"))) == (
        False,
        False,
        False,
    )


def test_navigation_lapses_every_grant_of_that_tab_only() -> None:
    store = GrantStore()
    for operation in ("click", "read", "navigate", "attach"):
        store.grant(_req(operation), "site")
    store.grant(_req("type", value="hi"), "once")
    store.grant(_req("click", tab="b-2"), "site")
    store.grant(_req("eval", tab="b-2", value="return 1"), "once")
    store.lapse_tab("b-1")  # e.g. a fragment change or pushState
    assert [op for op in OPERATIONS if store.covers(_req(op))] == []
    assert not store.covers(_req("type", value="hi"))
    assert store.check(_req("click", tab="b-2"))
    assert store.check(_req("eval", tab="b-2", value="return 1"))


def test_site_permissions_list_and_revoke() -> None:
    store = GrantStore()
    store.grant(_req("navigate", tab="b-1"), "site")
    store.grant(_req("click", tab="b-1"), "site")
    store.grant(_req("click", tab="b-2"), "site")
    store.grant(_req("type", tab="b-1", value="hello"), "site")
    store.grant(_req("scroll", tab="b-1", value="300"), "once")  # once-grants are not site permissions
    store.grant(_req("click", tab="b-3", origin="https://news.example"), "site")
    assert store.list_site_permissions() == [
        SitePermission("b-1", _SITE, "click", "button", "Add to cart", None),
        SitePermission("b-1", _SITE, "navigate", None, None, None),
        SitePermission("b-1", _SITE, "type", "button", "Add to cart", "hello"),
        SitePermission("b-2", _SITE, "click", "button", "Add to cart", None),
        SitePermission("b-3", "https://news.example", "click", "button", "Add to cart", None),
    ]
    store.revoke(_SITE, "click")
    assert store.list_site_permissions() == [
        SitePermission("b-1", _SITE, "navigate", None, None, None),
        SitePermission("b-1", _SITE, "type", "button", "Add to cart", "hello"),
        SitePermission("b-3", "https://news.example", "click", "button", "Add to cart", None),
    ]
    assert not store.check(_req("click", tab="b-1"))
    assert not store.check(_req("click", tab="b-2"))
    assert store.check(_req("scroll", tab="b-1", value="300"))
