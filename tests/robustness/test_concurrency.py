"""Many agents racing conditional writes on one document.

Every client loops ``read -> write(content = what it read + its own token,
expected_revision = the revision it read)`` on its own bridge connection. Afterwards:
exactly one winner per revision that anybody tried to write against, every loser got
a documented refusal, the winners form one chain from the initial revision to the
final one (nothing was lost: the final text is the initial text plus every winning
token in the order of success), the journal holds exactly that chain, and the file
on disk is the last winner's content byte for byte.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import random
from collections import Counter
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vmark.app.server import RunningApp
from vmark.core.document import content_hash
from vmark.mcp.bridge_client import BridgeClient
from vmark.storage.settings import Settings
from vmark.testing.uiclient import UIClient

from .helpers import NO_BACKLOG_LIMIT, Answer, agent_call, agent_ok, agents, seeded_rng

#: what a loser of a conditional race may be told (reference, Errors table)
LOSER_CODES = frozenset({"STALE", "JOURNAL_BUSY", "WRITE_BUSY"})
WIN_KEYS = {"revision", "applied", "durable", "saved", "journaled"}
MAX_JITTER_SECONDS = 0.004
_file_numbers = itertools.count(1)


@dataclass(frozen=True)
class Attempt:
    client: int
    tab: str
    base: str
    base_text: str
    token: str
    answer: Answer

    @property
    def content(self) -> str:
        return self.base_text + self.token


@dataclass(frozen=True)
class Race:
    path: Path
    initial_text: str
    initial_revision: str
    tabs: list[str]
    attempts: list[Attempt]


@dataclass(frozen=True)
class Link:
    """One step of the chain of successful writes."""

    attempt: Attempt
    before_revision: str
    before_text: str


# --- setting up a race ------------------------------------------------------------------------


async def open_tabs(stack: AsyncExitStack, data_dir: Path, path: Path, windows: int) -> list[str]:
    """The person opens ``path`` in ``windows`` windows: one tab each, all sharing one document.

    Each window gets its own page (a page attaches to one window), kept open for the race.
    """
    tabs = []
    for _ in range(windows):
        page = await stack.enter_async_context(UIClient(data_dir))
        await page.attach()
        tabs.append((await page.call("ui.open", path=str(path)))["tabId"])
    return tabs


@dataclass(frozen=True)
class Plan:
    clients: int
    rounds: int
    windows: int
    initial: str = "# Race\n"
    payload: str = "x"
    lockstep: bool = False


async def client_loop(
    client: BridgeClient, index: int, tab: str, plan: Plan, rng: random.Random, barrier: asyncio.Barrier | None
) -> list[Attempt]:
    """``plan.rounds`` times: read, then write on top of what was read, conditionally.

    With a ``barrier`` every client reads before anybody writes, and the next round starts
    when every write of this one was answered: each round has one contended revision.
    Without, clients run free with a small random pause (to vary the interleaving).
    """
    attempts = []
    for round_ in range(plan.rounds):
        if barrier is None:
            await asyncio.sleep(rng.random() * MAX_JITTER_SECONDS)
        doc = await agent_ok(client, "document", "read", tabId=tab)
        token = f"[c{index:02d}r{round_:03d}:{plan.payload}]\n"
        if barrier is not None:
            await barrier.wait()
        answer = await agent_call(
            client, "document", "write", tabId=tab, content=doc["content"] + token, expected_revision=doc["revision"]
        )
        attempts.append(Attempt(index, tab, doc["revision"], doc["content"], token, answer))
        if barrier is not None:
            await barrier.wait()
    return attempts


async def run_race(vmark: RunningApp, folder: Path, plan: Plan, rng: random.Random) -> Race:
    path = folder / f"race-{next(_file_numbers)}.md"
    path.write_bytes(plan.initial.encode("utf-8"))
    async with AsyncExitStack() as stack:
        tabs = await open_tabs(stack, vmark.data_dir, path, plan.windows)
        conns = await stack.enter_async_context(agents(vmark.data_dir, plan.clients))
        start = await agent_ok(conns[0], "document", "read", tabId=tabs[0])
        barrier = asyncio.Barrier(plan.clients) if plan.lockstep else None
        loops = [
            client_loop(c, i, tabs[i % plan.windows], plan, random.Random(rng.random()), barrier)
            for i, c in enumerate(conns)
        ]
        results = await asyncio.gather(*loops)
    assert start["content"] == plan.initial
    return Race(path, plan.initial, start["revision"], tabs, [a for r in results for a in r])


# --- the properties -------------------------------------------------------------------------------


def check_answers(race: Race) -> Counter[str]:
    """Winners answered exactly so; every loser got a documented refusal. Returns the refusal counts."""
    codes: Counter[str] = Counter()
    for attempt in race.attempts:
        answer = attempt.answer
        if answer.ok:
            assert set(answer.data) == WIN_KEYS, answer.data
            assert answer.data["applied"] is True and answer.data["durable"] is True
            assert answer.data["saved"] is True and answer.data["journaled"] == "yes"
            continue
        assert answer.code in LOSER_CODES, answer.error
        codes[str(answer.code)] += 1
        if answer.code == "STALE":
            assert isinstance(answer.error, dict)
            assert set(answer.error) == {"error", "message", "current_revision"}
            assert answer.error["current_revision"] != attempt.base
    return codes


def winner_chain(race: Race) -> list[Link]:
    """Follow the winners from the initial revision: one winner per base revision, none left over."""
    winners: dict[str, Attempt] = {}
    for attempt in race.attempts:
        if attempt.answer.ok:
            assert attempt.base not in winners, f"two writes won against {attempt.base}"
            winners[attempt.base] = attempt
    assert {a.base for a in race.attempts} == set(winners), "a contended revision has no winner"
    chain: list[Link] = []
    revision, text = race.initial_revision, race.initial_text
    while revision in winners:
        attempt = winners[revision]
        # No lost update: the winner wrote on top of exactly the text of its base revision.
        assert attempt.base_text == text
        chain.append(Link(attempt, revision, text))
        revision, text = attempt.answer.data["revision"], attempt.content
    assert len(chain) == len(winners), "a winner is not on the chain from the initial revision"
    return chain


def check_stale_points_forward(race: Race, chain: list[Link]) -> None:
    """A STALE loser was told a revision that came after the one it read."""
    order = {race.initial_revision: 0} | {link.attempt.answer.data["revision"]: i + 1 for i, link in enumerate(chain)}
    for attempt in race.attempts:
        if attempt.answer.code == "STALE":
            assert isinstance(attempt.answer.error, dict)
            assert order[attempt.answer.error["current_revision"]] > order[attempt.base]


def check_journal(entries: list[dict[str, Any]], chain: list[Link], real_path: str) -> None:
    """One recorded entry per winner, in the order of success, chained by revision and hash."""
    assert len(entries) == len(chain)
    for entry, link in zip(entries, chain, strict=True):
        attempt = link.attempt
        assert entry["state"] == "recorded" and entry["tool"] == "document.write"
        assert (entry["doc"], entry["file"], entry["tab"]) == (real_path, real_path, attempt.tab)
        assert (entry["rev_before"], entry["rev_after"]) == (link.before_revision, attempt.answer.data["revision"])
        assert entry["hash_before"] == content_hash(link.before_text)
        assert entry["hash_after"] == content_hash(attempt.content)
        assert entry["before_text"] == link.before_text.encode("utf-8")
    for earlier, later in itertools.pairwise(entries):
        assert earlier["rev_after"] == later["rev_before"]
        assert earlier["hash_after"] == later["hash_before"]


async def check_race(vmark: RunningApp, race: Race) -> Counter[str]:
    codes = check_answers(race)
    chain = winner_chain(race)
    check_stale_points_forward(race, chain)
    final_text = race.initial_text + "".join(link.attempt.token for link in chain)
    final_revision = chain[-1].attempt.answer.data["revision"]
    async with agents(vmark.data_dir, 1) as (reader,):
        final = await agent_ok(reader, "document", "read", tabId=race.tabs[-1])
    assert (final["content"], final["revision"], final["dirty"]) == (final_text, final_revision, False)
    assert race.path.read_bytes() == final_text.encode("utf-8")
    real_path = os.path.realpath(race.path)
    check_journal(await vmark.app.journal.entries(real_path), chain, real_path)
    assert sum(codes.values()) + len(chain) == len(race.attempts)
    return codes


# --- the tests --------------------------------------------------------------------------------------


@pytest.fixture
def no_backlog_limit(vmark: RunningApp) -> None:
    """Races make far more than 50 AI revisions of one document."""
    Settings(vmark.data_dir / "settings.json").set("review_backlog_limit", NO_BACKLOG_LIMIT)


@pytest.mark.parametrize("windows", [1, 4], ids=["one-tab", "four-windows"])
async def test_sixteen_clients_in_lockstep(
    vmark: RunningApp, workspace: Path, no_backlog_limit: None, windows: int
) -> None:
    """All 16 read one revision, then all 16 write against it: one winner and 15 refusals per round."""
    plan = Plan(clients=16, rounds=5, windows=windows, lockstep=True)
    race = await run_race(vmark, workspace, plan, random.Random(0))
    codes = await check_race(vmark, race)
    assert sum(codes.values()) == 15 * plan.rounds
    if windows == 1:
        # One tab: the writers queue on the document's lock; JOURNAL_BUSY is for other tabs only.
        assert codes["STALE"] + codes["WRITE_BUSY"] == 15 * plan.rounds


@pytest.mark.parametrize("windows", [1, 4], ids=["one-tab", "four-windows"])
async def test_sixteen_clients_running_free(
    vmark: RunningApp, workspace: Path, no_backlog_limit: None, windows: int
) -> None:
    race = await run_race(vmark, workspace, Plan(clients=16, rounds=8, windows=windows), seeded_rng("race"))
    codes = await check_race(vmark, race)
    print(f"{len(race.attempts) - sum(codes.values())} of {len(race.attempts)} writes won; refused: {dict(codes)}")
    if windows == 1:
        assert "JOURNAL_BUSY" not in codes


_text = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\r\x00"), max_size=40)


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    plan=st.builds(
        Plan,
        clients=st.integers(2, 16),
        rounds=st.integers(1, 4),
        windows=st.integers(1, 3),
        initial=_text,
        payload=_text,
        lockstep=st.booleans(),
    ),
    rng=st.randoms(use_true_random=False),
)
async def test_racing_writers_property(
    vmark: RunningApp, workspace: Path, no_backlog_limit: None, plan: Plan, rng: random.Random
) -> None:
    race = await run_race(vmark, workspace, plan, rng)
    codes = await check_race(vmark, race)
    if plan.lockstep:
        assert sum(codes.values()) == (plan.clients - 1) * plan.rounds
