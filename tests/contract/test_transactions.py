"""The one transaction path: every change of a document's text goes through ``Session.apply``.

An observer and a follower added to the session see each change exactly once, with its origin, its
spans (of the text as pages show it) and who sent it; a write aborted while it is being recorded never
reaches ``apply``; and no module but the session assigns a document's state.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import vmark
from tests.conftest import fail_code, make_client, ok
from tests.contract.helpers import background, disk_checked, doc_of, journal_gate, person_open, wait_until
from vmark.app.server import RunningApp
from vmark.core.changes import Span
from vmark.core.transaction import Transaction
from vmark.testing.uiclient import UIClient


@dataclass
class Seen:
    """What an observer and a follower of the session saw: ``(origin, shown spans or None, tool)``."""

    observed: list[Transaction] = field(default_factory=list)
    followed: list[Transaction] = field(default_factory=list)

    def observe(self, tx: Transaction) -> None:
        assert tx.doc.state is tx.state  # observers see the document in its new state
        self.observed.append(tx)

    async def follow(self, tx: Transaction) -> None:
        self.followed.append(tx)

    def take(self) -> list[tuple[str, tuple[Span, ...] | None, str | None]]:
        """The changes seen since the last ``take``; each observer and follower saw each one once."""
        assert [id(t) for t in self.observed] == [id(t) for t in self.followed]
        seen = [(t.origin, t.change.shown if t.change is not None else None, t.tool) for t in self.observed]
        self.observed.clear()
        self.followed.clear()
        return seen


@pytest.fixture
def seen(vmark: RunningApp) -> Seen:
    watcher = Seen()
    vmark.app.session.observers.append(watcher.observe)
    vmark.app.session.followers.append(watcher.follow)
    return watcher


async def test_every_origin_reaches_the_observers_once_with_its_spans(
    vmark: RunningApp, person: UIClient, opened: Path, seen: Seen
) -> None:
    path = opened / "a.md"  # "# A\n\nalpha\n"
    tab = await person_open(person, path)
    doc = doc_of(vmark, tab)

    # The person types: the page's spans, from the page that typed them.
    await person.call("ui.edit", tabId=tab, baseRevision=doc.state.revision, changes=[[5, 10, "beta"]])
    [typed] = seen.observed
    assert typed.actor.connection is not None and typed.doc is doc
    assert seen.take() == [("person", (Span(5, 10, "beta"),), None)]

    # An agent writes: the span that differs, with the tool and the agent's principal.
    async with make_client(vmark.data_dir) as mcp:
        wrote = await ok(mcp, "document", "write", tabId=tab, content="# A\n\ngamma\n", save=False)
        [written] = seen.observed
        assert written.state.revision == wrote["revision"]
        assert written.actor.connection not in (None, typed.actor.connection)
        assert seen.take() == [("agent", (Span(5, 8, "gamm"),), "document.write")]
        await ok(mcp, "document", "edit", tabId=tab, edits=[{"old": "gamma", "new": "delta"}], save=False)
        assert seen.take() == [("agent", (Span(5, 9, "delt"),), "document.edit")]
        # Writing the same text again is still a change (a fresh revision), of no span.
        await ok(mcp, "document", "write", tabId=tab, content="# A\n\ndelta\n", save=False)
        assert seen.take() == [("agent", (), "document.write")]

    # The person restores a snapshot: a revert, taken as the person's edit by the pages.
    await person.call("ui.save", tabId=tab)
    await person.call("ui.edit", tabId=tab, baseRevision=doc.state.revision, changes=[[0, 0, "x"]])
    seen.take()
    [snap] = (await person.call("history.list", tabId=tab, content=False))["snapshots"][-1:]
    await person.call("history.revert", tabId=tab, id=snap["id"])
    assert seen.take() == [("revert", (Span(0, 1, ""),), None)]
    assert [s["kind"] for s in (await person.call("history.list", tabId=tab, content=False))["snapshots"]][-1] == (
        "revert"
    )

    # Another program changes the file: a clean document is read again, as a whole text.
    await person.call("ui.save", tabId=tab)
    path.write_text("# A\n\nfrom another program\n", "utf-8")
    await wait_until(lambda: bool(seen.observed), "the reload from disk")
    await disk_checked(vmark)  # and nothing more comes of it
    assert seen.take() == [("disk", None, None)]
    assert doc.state.text == "# A\n\nfrom another program\n" and not doc.dirty

    # A dirty one becomes divergent (no change); "keep the disk's version" reads it again.
    await person.call("ui.edit", tabId=tab, baseRevision=doc.state.revision, changes=[[0, 0, "y"]])
    seen.take()
    path.write_text("# A\n\nchanged again outside\n", "utf-8")
    await wait_until(lambda: doc.divergent, "the divergence")
    assert seen.take() == []
    await person.call("ui.resolve_divergence", tabId=tab, keep="disk")
    assert seen.take() == [("disk", None, None)]
    assert doc.state.text == "# A\n\nchanged again outside\n"


async def test_a_write_aborted_while_it_is_recorded_never_reaches_apply(
    vmark: RunningApp, person: UIClient, opened: Path, seen: Seen
) -> None:
    tab = await person_open(person, opened / "a.md")
    doc = doc_of(vmark, tab)
    async with make_client(vmark.data_dir) as mcp, journal_gate(vmark) as gate:
        write = background(fail_code(mcp, "document", "write", tabId=tab, content="# agent\n"))
        await gate.wait_entered()
        await person.call("ui.edit", tabId=tab, baseRevision=doc.state.revision, changes=[[0, 0, "!"]])
        gate.release.set()
        envelope = await write
    assert (envelope["error"], envelope["reason"]) == ("ABORTED", "edited")
    assert seen.take() == [("person", (Span(0, 0, "!"),), None)]  # only the person's edit was applied
    assert doc.state.text == "!# A\n\nalpha\n"


def test_only_the_session_assigns_a_documents_state() -> None:
    """``doc.state = ...`` (on any name or attribute called ``doc``) appears in ``Session.apply`` only."""
    package = Path(vmark.__file__).parent
    assignments: list[str] = []
    for source in sorted(package.rglob("*.py")):
        tree = ast.parse(source.read_text("utf-8"))
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else []
            if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            for target in targets:
                for item in target.elts if isinstance(target, ast.Tuple) else [target]:
                    if isinstance(item, ast.Attribute) and item.attr == "state" and _names_a_doc(item.value):
                        assignments.append(f"{source.relative_to(package)}:{node.lineno}")
    assert len(assignments) == 1 and assignments[0].startswith("app/state.py:"), assignments


def _names_a_doc(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "doc") or (isinstance(node, ast.Attribute) and node.attr == "doc")
