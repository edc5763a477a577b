"""Fault injection for tests (enabled only with ``VMARK_TEST_HOOKS=1``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class EditorFaults:
    #: ``after_apply``: the editor fails after the write changed the document;
    #: ``during_apply``: it fails half-way, leaving the document possibly changed.
    fail: str | None = None

    def take(self) -> str | None:
        fail, self.fail = self.fail, None
        return fail
