"""The case table: exact outputs, fixed points, and the Markdown structure kept intact."""

from __future__ import annotations

import pytest

from vmark.text.transform import transform

from .cases import CASES, Case
from .oracle import skeleton

IDS = [case.name for case in CASES]


def test_the_table_is_large_and_names_are_unique() -> None:
    assert len(CASES) >= 150
    assert len(set(IDS)) == len(IDS)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_output_is_exact(case: Case) -> None:
    assert transform(case.source, case.kind, case.rules) == case.expected


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_output_is_a_fixed_point(case: Case) -> None:
    once = transform(case.source, case.kind, case.rules)
    assert transform(once, case.kind, case.rules) == once


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_structure_and_protected_content_survive(case: Case) -> None:
    assert skeleton(transform(case.source, case.kind, case.rules)) == skeleton(case.source)
