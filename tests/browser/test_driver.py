"""The driver and the tab registry: popups, dialogs, the tab limit, closing, stopping cleanly."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from websockets.asyncio.server import ServerConnection, serve

from tests.browser.localsite import LocalSite, Policy
from vmark.browser.driver import BrowserDriver, DialogRecord, InvalidProfileName
from vmark.browser.lent import LentChromium
from vmark.browser.navigation import Navigator
from vmark.browser.tabs import BrowserTab, TabLimit, TabRegistry, TeardownFailed, UnknownTab
from vmark.protocol.limits import TAB_LIMIT
from vmark.testing.chromium import CHROMIUM

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent")


@pytest.fixture(scope="module")
async def driver(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[BrowserDriver]:
    driver = Policy().driver(tmp_path_factory.mktemp("profiles"))
    try:
        yield driver
    finally:
        await driver.stop()


@pytest.fixture
async def registry(driver: BrowserDriver) -> AsyncIterator[TabRegistry]:
    registry = TabRegistry(driver)
    yield registry
    for tab in registry.tabs():
        await registry.close(tab.id)


async def _loaded(driver: BrowserDriver, tab: BrowserTab, url: str) -> None:
    ticket = await Navigator(driver).navigate(tab, url)
    assert ticket.state == "loaded", ticket.result


async def _until(condition: Callable[[], bool], seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("condition not met in time")


async def test_popups_are_closed_and_recorded_on_the_opener(
    driver: BrowserDriver, registry: TabRegistry, local: LocalSite
) -> None:
    tab = await registry.open_ai_tab("sandbox")
    await _loaded(driver, tab, local.url("/popups"))
    before = len(local.hits)
    await tab.page.click("#open")
    await _until(lambda: tab.events.popups == [local.url("/page")])
    tab.events.popups.clear()
    await tab.page.click("#blank")
    await _until(lambda: tab.events.popups == [local.url("/page")])
    await _until(lambda: tab.page.context.pages == [tab.page])
    assert local.hits[before:] == []  # no popup request went out


async def test_dialogs_follow_the_policy(driver: BrowserDriver, registry: TabRegistry, local: LocalSite) -> None:
    tab = await registry.open_ai_tab("sandbox")
    await _loaded(driver, tab, local.url("/page?title=Dialogs"))
    answers = await tab.page.evaluate("[confirm('Delete?'), prompt('Name?', 'x'), alert('Hi') ?? 'alerted']")
    assert answers == [False, None, "alerted"]
    assert tab.events.dialogs == [
        DialogRecord("confirm", "Delete?", "dismiss"),
        DialogRecord("prompt", "Name?", "dismiss"),
        DialogRecord("alert", "Hi", "accept"),
    ]


async def test_the_ninth_ai_tab_is_refused_but_human_tabs_are_not(registry: TabRegistry) -> None:
    for _ in range(TAB_LIMIT):
        await registry.open_ai_tab("sandbox")
    with pytest.raises(TabLimit) as caught:
        await registry.open_ai_tab("sandbox")
    assert caught.value.code == "TAB_LIMIT"
    human = await registry.open_human_tab()
    assert (human.owner, human.posture, registry.ai_count(), len(registry)) == ("human", "shared", TAB_LIMIT, 9)


async def test_listing_and_close(driver: BrowserDriver, registry: TabRegistry, local: LocalSite) -> None:
    tab = await registry.open_ai_tab("sandbox")
    assert tab.id.startswith("btab-")
    await _loaded(driver, tab, local.url("/page?title=Listed&key=secret"))
    human = await registry.open_human_tab()
    assert await registry.listing() == [
        {
            "tabId": tab.id,
            "owner": "ai",
            "url": local.url("/page"),
            "title": "Listed",
            "generation": 1,
            "posture": "sandbox",
        },
        {"tabId": human.id, "owner": "human", "url": "about:blank", "title": "", "generation": 0, "posture": "shared"},
    ]
    await registry.close(tab.id)
    assert tab.page.is_closed()
    with pytest.raises(UnknownTab):
        registry.get(tab.id)
    with pytest.raises(UnknownTab):
        await registry.close(tab.id)


async def test_a_close_that_cannot_be_confirmed_still_removes_the_tab(registry: TabRegistry) -> None:
    tab = await registry.open_ai_tab("sandbox")
    real_close = tab.page.close

    async def stuck(**_: object) -> None:
        pass

    tab.page.close = stuck  # type: ignore[method-assign]
    with pytest.raises(TeardownFailed) as caught:
        await registry.close(tab.id)
    assert (caught.value.code, caught.value.tab_id, len(registry)) == ("TAB_TEARDOWN_FAILED", tab.id, 0)
    await real_close()


async def test_named_profiles(driver: BrowserDriver, registry: TabRegistry) -> None:
    tab = await registry.open_ai_tab("sandbox", "work.login-1")
    assert (tab.posture, tab.profile) == ("sandbox", "work.login-1")
    assert (driver.profile_root / "profiles" / "work.login-1").is_dir()
    for bad in ("", "../up", "a b", "x" * 65):
        with pytest.raises(InvalidProfileName):
            await registry.open_ai_tab("sandbox", bad)
    with pytest.raises(ValueError):
        await registry.open_ai_tab("shared", "work")


def _descendants(root: int) -> dict[int, str]:
    """Every live process under ``root``: pid -> command line."""
    parents: dict[int, int] = {}
    commands: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            commands[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z":
            parents[int(entry.name)] = int(fields[1])
    found: dict[int, str] = {}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in found:
                found[pid] = commands.get(pid, "")
                frontier.append(pid)
    return found


async def test_stop_ends_every_browser_process(tmp_path: Path, local: LocalSite) -> None:
    before = set(_descendants(os.getpid()))
    driver = Policy().driver(tmp_path)
    registry = TabRegistry(driver)
    await driver.stop()  # stopping what never started is fine
    tab = await registry.open_ai_tab("sandbox")
    await registry.open_ai_tab("sandbox", "p1")
    await registry.open_human_tab()
    await _loaded(driver, tab, local.url("/page"))
    ours = {pid: cmd for pid, cmd in _descendants(os.getpid()).items() if pid not in before}
    # three browsers (Debian's wrapper execs /usr/lib/chromium/chromium), each with its helpers
    assert sum("chromium" in cmd for cmd in ours.values()) >= 3
    await driver.stop()
    await driver.stop()
    # gone, not even left as zombies (a zombie keeps its /proc entry)
    await _until(lambda: not [pid for pid in ours if Path(f"/proc/{pid}").exists()])
    assert not driver.started


_WS_PROBE = """url => new Promise(resolve => {
  const ws = new WebSocket(url);
  ws.onopen = () => ws.send("ping");
  ws.onmessage = event => { resolve("echo:" + event.data); ws.close(); };
  ws.onclose = event => resolve("closed:" + event.code);
})"""


async def test_web_sockets_are_checked(driver: BrowserDriver, registry: TabRegistry, local: LocalSite) -> None:
    connections: list[str] = []

    async def echo(ws: ServerConnection) -> None:
        connections.append(ws.request.path if ws.request else "")
        async for message in ws:
            await ws.send(message)

    async with serve(echo, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        tab = await registry.open_ai_tab("sandbox")
        await _loaded(driver, tab, local.url("/page?title=Sockets"))
        assert await tab.page.evaluate(_WS_PROBE, f"ws://127.0.0.1:{port}/allowed") == "echo:ping"
        assert await tab.page.evaluate(_WS_PROBE, f"ws://localhost:{port}/refused") == "closed:1008"
    assert connections == ["/allowed"]


async def test_a_lent_chromium_outlives_its_borrowers(tmp_path: Path) -> None:
    """The test hook the browser modules' apps use (``lent_chromium``): each borrower makes its own contexts
    and closes them as it stops; the lender's Chromium serves the next one, and only the lender closes it."""
    lent = LentChromium()
    first, second = Policy().driver(tmp_path / "first"), Policy().driver(tmp_path / "second")
    first.lent = second.lent = lent
    try:
        one = await first.new_page("sandbox")
        browser = one.context.browser
        assert browser is not None
        await first.stop()
        assert browser.is_connected() and browser.contexts == [] and not first.started
        two = await second.new_page("sandbox")
        assert two.context.browser is browser and browser.contexts == [two.context]
        await second.stop()
        assert browser.is_connected() and browser.contexts == []
    finally:
        await lent.close()
    assert not browser.is_connected()
