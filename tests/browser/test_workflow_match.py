"""How a workflow step finds its element again (a recording replayed on a page that changed a little)."""

from __future__ import annotations

from typing import Any

import pytest

from vmark.browser.run_steps import match
from vmark.browser.workflow import parse

SOURCE = "---\nsite: s\n---\naction: click \"{name}\" ({role})\n"


def step(role: str, name: str) -> Any:
    return parse(SOURCE.format(role=role, name=name)).steps[0]


def nodes(*pairs: tuple[str, str]) -> list[dict[str, Any]]:
    return [{"role": r, "name": n, "ref": f"e{i}"} for i, (r, n) in enumerate(pairs, 1)]


@pytest.mark.parametrize(
    ("page", "role", "name", "found"),
    [
        (nodes(("button", "Sign in")), "button", "Sign in", ("button", "Sign in")),
        (nodes(("button", "Sign  In")), "button", "sign in", ("button", "Sign  In")),  # case and spacing
        (nodes(("searchbox", "Email")), "textbox", "Email", ("searchbox", "Email")),  # the field family
        (nodes(("link", "Sign in")), "button", "Sign in", None),  # another role is another element
        (nodes(("button", "Save"), ("button", "save")), "button", "SAVE", None),  # never by document order
        (nodes(("button", "x" * 200)), "button", "x" * 230, ("button", "x" * 230)),  # a name the snapshot cut
        (nodes(("button", "X" * 200)), "button", "x" * 230, ("button", "X" * 200)),
        (nodes(("button", "Sign up")), "button", "Sign in", None),
    ],
)
def test_a_step_finds_its_element(page: list[dict[str, Any]], role: str, name: str, found: Any) -> None:
    assert match(page, step(role, name)) == found
