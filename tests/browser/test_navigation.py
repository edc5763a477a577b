"""Navigation tickets against a local site: loaded, superseded, timeouts, refusals, redirects."""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import AsyncIterator, Callable
from urllib.parse import quote

import pytest

from tests.browser.localsite import CROSS_SITE_HOST, LocalSite, Policy
from vmark.browser.driver import BrowserDriver
from vmark.browser.navigation import (
    InvalidTimeout,
    NavigationTimeout,
    Navigator,
    TargetRefused,
    UnknownNavigation,
    validate_timeout,
)
from vmark.browser.tabs import BrowserTab, TabRegistry
from vmark.testing.chromium import CHROMIUM

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent")


@pytest.fixture(scope="module")
def policy() -> Policy:
    return Policy()


@pytest.fixture(scope="module")
async def driver(policy: Policy, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[BrowserDriver]:
    driver = policy.driver(tmp_path_factory.mktemp("profiles"))
    try:
        yield driver
    finally:
        await driver.stop()


@pytest.fixture(scope="module")
async def navigator(driver: BrowserDriver) -> AsyncIterator[Navigator]:
    navigator = Navigator(driver)
    yield navigator
    await navigator.aclose()


@pytest.fixture
async def tab(driver: BrowserDriver, policy: Policy) -> AsyncIterator[BrowserTab]:
    policy.reset()
    registry = TabRegistry(driver)
    tab = await registry.open_ai_tab("sandbox")
    try:
        yield tab
    finally:
        policy.reset()
        await registry.close(tab.id)


async def test_navigate_loads_and_counts_generations(tab: BrowserTab, navigator: Navigator, local: LocalSite) -> None:
    ticket = await navigator.navigate(tab, local.url("/page?title=Hello&token=s3cret"), 5000)
    assert ticket.id.startswith("nav-")
    assert ticket.state == "loaded"
    assert ticket.result == {
        "navigationId": ticket.id,
        "status": "loaded",
        "url": local.url("/page"),
        "title": "Hello",
        "generation": 1,
        "httpStatus": 200,
    }
    await tab.page.click("#frag")  # a fragment change: same document, still a navigation
    await tab.page.evaluate("history.pushState({}, '', '/pushed?x=1')")
    assert tab.generation == 3
    assert tab.url == local.url("/pushed")
    assert (await navigator.wait(tab, None, 100)) is ticket


async def test_http_error_is_loaded_and_gates_are_reported(
    tab: BrowserTab, navigator: Navigator, local: LocalSite
) -> None:
    missing = await navigator.navigate(tab, local.url("/gone?status=404&title=Missing"))
    assert (missing.state, missing.result["httpStatus"], missing.result["title"]) == ("loaded", 404, "Missing")
    assert "gate" not in missing.result
    login = await navigator.navigate(tab, local.url("/login"))
    assert login.result["gate"]["kind"] == "login"
    assert login.result["gate"]["hint"].startswith("The site wants a sign-in")


async def test_timeout_carries_the_ticket_and_a_later_wait_gets_the_result(
    tab: BrowserTab, navigator: Navigator, local: LocalSite
) -> None:
    with pytest.raises(NavigationTimeout) as caught:
        await navigator.navigate(tab, local.url("/slow?ms=1500&title=Slow"), 200)
    ticket = caught.value.ticket
    assert ticket.state == "pending"
    assert ticket.pending_result() == {"navigationId": ticket.id, "status": "pending", "url": local.url("/slow")}
    assert (await navigator.wait(tab, ticket.id, 9000)) is ticket
    assert (ticket.state, ticket.result["title"]) == ("loaded", "Slow")


async def test_a_newer_navigation_supersedes_a_pending_one(
    tab: BrowserTab, navigator: Navigator, local: LocalSite
) -> None:
    with pytest.raises(NavigationTimeout) as caught:
        await navigator.navigate(tab, local.url("/slow?ms=3000"), 100)
    older = caught.value.ticket
    newer = await navigator.navigate(tab, local.url("/page?title=Newer"))
    assert (newer.state, newer.result["title"]) == ("loaded", "Newer")
    assert (await navigator.wait(tab, older.id, 100)) is older
    assert older.result == {
        "navigationId": older.id,
        "status": "superseded",
        "url": local.url("/slow"),
        "supersededBy": newer.id,
    }
    assert tab.url == local.url("/page")
    with pytest.raises(UnknownNavigation):
        await navigator.wait(tab, "nav-unknown", 100)


async def test_a_private_target_is_refused_before_anything_navigates(
    tab: BrowserTab, navigator: Navigator, local: LocalSite, policy: Policy
) -> None:
    policy.allow_private = False
    before = len(local.hits)
    with pytest.raises(TargetRefused) as caught:
        await navigator.navigate(tab, local.url("/page?title=Never"))
    assert caught.value.verdict.reason == "loopback"
    assert (local.hits[before:], tab.page.url, tab.generation) == ([], "about:blank", 0)
    with pytest.raises(UnknownNavigation):
        await navigator.wait(tab, None, 100)


async def test_a_redirect_to_a_refused_target_fails_without_reaching_it(
    tab: BrowserTab, navigator: Navigator, local: LocalSite
) -> None:
    port = local.base.rsplit(":", 1)[1]
    target = f"http://localhost:{port}/page?title=Private&secret=1"
    redirect = local.url("/redirect?to=") + target.replace("&", "%26")
    ticket = await navigator.navigate(tab, redirect)
    assert ticket.state == "failed"
    assert ticket.result == {
        "navigationId": ticket.id,
        "status": "failed",
        "url": local.url("/redirect"),
        "error": f"refused (localhost): http://localhost:{port}/page: localhost names this computer",
    }
    assert [hit for hit in local.hits if "Private" in hit and not hit.startswith("/redirect")] == []


async def test_a_chain_of_redirects_is_checked_at_every_hop(
    tab: BrowserTab, navigator: Navigator, local: LocalSite
) -> None:
    port = local.base.rsplit(":", 1)[1]
    second = local.url(f"/redirect?to=http://localhost:{port}/page%3Ftitle%3DDeep")
    ticket = await navigator.navigate(tab, local.url("/redirect?to=") + second.replace("?", "%3F").replace("=", "%3D"))
    assert (ticket.state, ticket.result["error"].split(":")[0]) == ("failed", "refused (localhost)")
    assert [hit for hit in local.hits if "Deep" in hit and not hit.startswith("/redirect")] == []
    allowed = await navigator.navigate(tab, local.url("/redirect?to=/page%3Ftitle%3DArrived"))
    assert (allowed.state, allowed.result["url"], allowed.result["title"]) == ("loaded", local.url("/page"), "Arrived")


async def test_a_name_resolving_to_a_private_address_is_refused_at_connection(
    tab: BrowserTab, navigator: Navigator, local: LocalSite, policy: Policy
) -> None:
    policy.allow_private, policy.rebinding = False, True  # the name looked public when checked
    port = local.base.rsplit(":", 1)[1]
    before = len(local.hits)
    ticket = await navigator.navigate(tab, f"http://localhost:{port}/page?title=Rebound")
    assert ticket.result == {
        "navigationId": ticket.id,
        "status": "failed",
        "url": f"http://localhost:{port}/page",
        "error": f"refused (loopback): http://localhost:{port}/page:"
        " localhost resolved to 127.0.0.1 is a loopback address",
    }
    assert local.hits[before:] == []


async def test_redirects_in_a_cross_site_frame_are_refused_too(
    tab: BrowserTab, navigator: Navigator, local: LocalSite, driver: BrowserDriver
) -> None:
    port = local.base.rsplit(":", 1)[1]
    inner = f"http://{CROSS_SITE_HOST}:{port}/image?src=/redirect%3Fto%3Dhttp://localhost:{port}/framed.png"
    ticket = await navigator.navigate(tab, local.url("/frame?src=") + quote(inner, safe=""))
    assert ticket.state == "loaded"
    await _until(lambda: any(r.url.endswith("/framed.png") for r in driver.guard.refusals))
    assert [hit for hit in local.hits if hit.startswith("/image")] != []  # the frame itself loaded
    assert "/framed.png" not in local.hits


async def test_a_refused_subresource_redirect_is_recorded(
    tab: BrowserTab, navigator: Navigator, local: LocalSite
) -> None:
    port = local.base.rsplit(":", 1)[1]
    src = f"/redirect?to=http://localhost:{port}/pixel.png"
    ticket = await navigator.navigate(tab, local.url("/image?src=") + src.replace("?", "%3F").replace("=", "%3D"))
    assert ticket.state == "loaded"
    assert [(r.url, r.reason, r.document) for r in tab.events.refusals] == [
        (f"http://localhost:{port}/pixel.png", "localhost", False)
    ]
    assert "/pixel.png" not in local.hits


async def _until(condition: Callable[[], bool], seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("condition not met in time")


def test_timeouts_are_validated() -> None:
    assert (validate_timeout(1), validate_timeout(9000)) == (1, 9000)
    for bad in (0, 9001, True, 1.5, "100"):
        with pytest.raises(InvalidTimeout):
            validate_timeout(bad)


async def test_a_network_error_fails_the_ticket(tab: BrowserTab, navigator: Navigator) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    ticket = await navigator.navigate(tab, f"http://127.0.0.1:{port}/page?q=1")
    assert ticket.result == {
        "navigationId": ticket.id,
        "status": "failed",
        "url": f"http://127.0.0.1:{port}/page",
        "error": f"could not connect to 127.0.0.1:{port} (ConnectionRefusedError)",
    }
