"""The pages' push (vmark.app.page_push), against a real Session: which pages get which event, and what in it.

Three windows, each with a page (``main`` has two); each test changes the session as a handler would and lets the
loop run the push (a few turns, no timing), then reads what every page was sent.
"""

from __future__ import annotations

import asyncio
from typing import Any

from vmark.app.connection import Connection
from vmark.app.page_push import PageEvents, PagePush
from vmark.app.state import Session
from vmark.core.actor import Actor
from vmark.core.changes import splice_state
from vmark.core.document import DocState
from vmark.core.model import Document
from vmark.core.spans import Span
from vmark.core.transaction import Transaction


class _Page:
    """A page: what it was sent, by event name."""

    def __init__(self, session: Session, window: str) -> None:
        self.sent: list[dict[str, Any]] = []
        #: the events of the last :meth:`take`
        self.taken: list[dict[str, Any]] = []
        self.conn = Connection("person", None, self._send)
        self.conn.window = window
        session.pages.setdefault(window, []).append(self.conn)

    async def _send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def named(self, event: str) -> list[dict[str, Any]]:
        """The payloads of the last take's ``event`` events."""
        return [m["payload"] for m in self.taken if m["event"] == event]

    def take(self) -> list[str]:
        """The names of the events sent since the last take."""
        self.taken, self.sent = self.sent, []
        return [m["event"] for m in self.taken]


class _Review:
    """The review's side: a count per document, and the documents told after their ``doc`` event."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.after: list[str] = []
        #: the documents whose next ``doc`` event is followed by a ``review`` event
        self.following: set[str] = set()

    def count(self, doc: Document) -> int:
        return self.counts.get(doc.key, 0)

    def follows(self, doc: Document) -> bool:
        return doc.key in self.following

    async def after_doc_push(self, doc: Document) -> None:
        self.after.append(doc.key)


class _World:
    def __init__(self) -> None:
        self.session = session = Session()
        self.review = _Review()
        self.push = PagePush(session, PageEvents(session.pages), self.review)
        self.push.follow()
        self.main = session.windows["main"]
        self.one, self.two = session.new_window(), session.new_window()
        self.a = _doc("/ws/a.md", "# A\n\nalpha\n")
        self.tab_a = session.add_tab(self.main, self.a, activate=True)
        self.tab_b = session.add_tab(self.one, _doc("/ws/b.md", "# B\n"), activate=True)
        self.page, self.beside = _Page(session, "main"), _Page(session, "main")
        self.page_one, self.page_two = _Page(session, self.one.label), _Page(session, self.two.label)
        self.pages = [self.page, self.beside, self.page_one, self.page_two]

    async def pushed(self) -> dict[str, list[str]]:
        """Let the push run; the events each page got since the last call, by window (``main`` twice)."""
        self.session.changed()
        for _ in range(5):
            await asyncio.sleep(0)
        return {
            "main": self.page.take(),
            "main (beside)": self.beside.take(),
            "doc-1": self.page_one.take(),
            "doc-2": self.page_two.take(),
        }


def _doc(path: str, text: str) -> Document:
    return Document.load(path, "markdown", path, text, None)


def _edit(doc: Document, start: int, end: int, insert: str) -> DocState:
    return splice_state(doc.state, (Span(start, end, insert),), "\n")


NOTHING: dict[str, list[str]] = {"main": [], "main (beside)": [], "doc-1": [], "doc-2": []}
EVERY_STATE = {window: ["state"] for window in NOTHING}


async def test_every_page_gets_its_window_state_once_then_only_what_changed() -> None:
    world = _World()
    assert await world.pushed() == EVERY_STATE
    assert await world.pushed() == NOTHING  # nothing changed: nothing sent

    world.session.windows["doc-1"].tabs[0].pinned = True
    assert await world.pushed() == {**NOTHING, "doc-1": ["state"]}


async def test_an_agent_write_reaches_the_pages_of_its_window_only() -> None:
    world = _World()
    await world.pushed()
    before = world.a.state.revision
    after = _edit(world.a, 4, 9, "omega")
    agent = Actor("agent", "laptop", "conn-agent")
    await world.session.apply(Transaction(world.a, after, "agent", agent, "document.write"))

    sent = await world.pushed()
    assert sent == {**NOTHING, "main": ["doc", "state"], "main (beside)": ["doc", "state"]}
    [doc] = world.page.named("doc")
    assert doc == {
        "tabIds": [world.tab_a.id],
        "revision": after.revision,
        "origin": "agent",
        "dirty": True,
        "changes": {"base": before, "spans": [(4, 9, "omega")]},  # JSON arrays on the wire
    }
    assert world.review.after == [world.a.key]  # told after the doc event
    [state] = world.page.named("state")
    [tab] = state["windows"][0]["tabs"]
    assert (tab["id"], tab["revision"], tab["dirty"]) == (world.tab_a.id, after.revision, True)


async def test_a_page_does_not_get_its_own_keystrokes_back_and_a_revert_shows_as_the_person() -> None:
    world = _World()
    tab_in_two = world.session.add_tab(world.two, world.a, activate=True)  # the same document in doc-2
    await world.pushed()
    base = world.a.state.revision
    typed = _edit(world.a, 0, 0, "x")
    await world.session.apply(Transaction(world.a, typed, "person", world.page.conn.actor))
    assert await world.pushed() == {
        "main": ["state"],
        "main (beside)": ["doc", "state"],
        "doc-1": [],
        "doc-2": ["doc", "state"],
    }
    [doc] = world.page_two.named("doc")
    assert (doc["tabIds"], doc["origin"], doc["changes"]) == (
        [tab_in_two.id],
        "person",
        {"base": base, "spans": [(0, 0, "x")]},
    )
    await world.session.apply(Transaction(world.a, DocState("restored\n"), "revert", world.page.conn.actor))
    sent = await world.pushed()
    # a revert is the person's, yet not typed by a page: every page showing the document gets it
    assert sent == {"main": ["doc", "state"], "main (beside)": ["doc", "state"], "doc-1": [], "doc-2": ["doc", "state"]}
    [doc] = world.page_two.named("doc")
    # a state the recent changes cannot tell as spans goes whole
    assert (doc["tabIds"], doc["origin"], doc.get("changes"), doc["text"]) == (
        [tab_in_two.id],
        "person",
        None,
        "restored\n",
    )


async def test_what_other_windows_show_is_their_workspaces_and_the_agents() -> None:
    world = _World()
    await world.pushed()
    world.session.open_workspace(world.two, "/elsewhere")  # the start screens list the other windows' folders
    assert await world.pushed() == EVERY_STATE
    agent = Connection("agent", "laptop", world.page._send, client_name="claude-code")
    world.session.agent_joined(agent)
    assert await world.pushed() == EVERY_STATE

    [state] = world.page_one.named("state")
    wsi = world.two.workspaces[0]
    assert [w["label"] for w in state["windows"]] == ["doc-1"]
    assert state["views"]["doc-2"] == {"workspaces": [{"id": wsi.id, "root": "/elsewhere"}], "tabs": {}}
    assert state["views"]["main"] == {"workspaces": [], "tabs": {}}
    assert list(state["views"]["doc-1"]["tabs"]) == [world.tab_b.id]
    assert state["agents"] == [
        {"connectionId": agent.id, "principal": "laptop", "name": "claude-code", "label": "claude-code (laptop)"}
    ]


async def test_review_counts_are_in_the_state_and_ui_state_has_every_window() -> None:
    world = _World()
    await world.pushed()
    world.review.counts[world.a.key] = 2
    world.session.changed()
    assert await world.pushed() == {**NOTHING, "main": ["state"], "main (beside)": ["state"]}
    [state] = world.page.named("state")
    assert state["windows"][0]["tabs"][0]["reviewCount"] == 2
    assert state["views"]["main"]["tabs"][world.tab_a.id]["reviewCount"] == 2

    full = world.push.page_state()
    assert [w["label"] for w in full["windows"]] == ["main", "doc-1", "doc-2"]
    assert list(full["views"]["doc-1"]["tabs"]) == [world.tab_b.id]
    assert full["windows"][0]["tabs"][0]["reviewCount"] == 2


async def test_a_page_attaching_gets_the_state_and_a_document_opened_or_moved_is_not_pushed() -> None:
    world = _World()
    await world.pushed()
    late = _Page(world.session, "doc-2")
    assert (await world.pushed())["doc-2"] == []  # the page already there: nothing new for it
    assert late.take() == ["state"]

    world.a.state = _edit(world.a, 0, 0, "y")  # as if applied: a tab opening now shows the text as it is
    world.session.add_tab(world.two, world.a, activate=False)
    world.session.rekey(world.a, "/ws/moved.md", "markdown")
    sent = await world.pushed()
    assert [name for names in sent.values() for name in names if name == "doc"] == []
    assert world.review.after == []
    assert late.take() == ["state"]  # doc-2 shows another tab now

    world.session.pages["doc-2"].remove(late.conn)  # it left; attached again, it is sent the state again
    await world.pushed()
    world.session.pages["doc-2"].append(late.conn)
    await world.pushed()
    assert late.take() == ["state"]


async def test_the_last_tab_closed_forgets_the_document() -> None:
    world = _World()
    await world.pushed()
    world.session.remove_tab(world.main, world.tab_a)
    sent = await world.pushed()
    assert sent == {**NOTHING, "main": ["state"], "main (beside)": ["state"]}
    assert world.push._pushed.get(world.a.key) is None and world.push._latest.get(world.a.key) is None


async def test_a_change_of_the_agents_browser_tabs_reaches_every_page_once() -> None:
    world = _World()
    await world.pushed()
    world.push.browser_changed()
    world.push.browser_changed()  # coalesced with the first: one event
    assert await world.pushed() == {window: ["browser_tabs"] for window in NOTHING}
    assert world.page.named("browser_tabs") == [{}]
    assert await world.pushed() == NOTHING
