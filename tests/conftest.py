"""Shared fixtures: a real app in-process, the official MCP client, the person's client."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from mcp import Client

from tests import cputime, schedule
from vmark.app.server import RunningApp
from vmark.browser.lent import LentChromium
from vmark.mcp.bridge_client import BridgeClient
from vmark.mcp.server import build_server
from vmark.storage.settings import Settings
from vmark.testing.chromium import EXTRA_ARGS_ENV, TEST_ARGS
from vmark.testing.uiclient import UIClient

# Hypothesis's two timing checks are off everywhere: a 200 ms deadline per example and a too-slow data
# health check measure wall time, so a pause of the process on the shared machine (another job holding both
# cores for ~300 ms) failed a property test that had passed, "Unreliable test timings"
# (tests/unit/test_review_model.py, once in ten runs under load). No timing assertions in tests; a slow test is
# pytest-timeout's. CI also replays the same examples every run (a failure there is reproducible, never a new
# random draw); locally hypothesis explores as usual.
hypothesis_settings.register_profile("vmark", deadline=None, suppress_health_check=[HealthCheck.too_slow])
hypothesis_settings.register_profile(
    "ci", parent=hypothesis_settings.get_profile("vmark"), derandomize=True, print_blob=True
)
hypothesis_settings.load_profile("ci" if os.environ.get("CI") else "vmark")

# The embedded browser reaches nothing but this machine in tests (apps started as processes inherit it).
os.environ["VMARK_BROWSER_LOOPBACK_ONLY"] = "1"
# ... and launches Chromium with the tests' flags added to the product's (so do apps started as processes).
os.environ[EXTRA_ARGS_ENV] = shlex.join(TEST_ARGS)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


WORKSPACE_FILES = {
    "a.md": "# A\n\nalpha\n",
    "b.md": "# B\n\nbeta\n",
    "notes/c.md": "# C\n",
    "readme.txt": "plain text\n",
    ".github/workflows/ci.yml": "name: ci\non: push\njobs: {}\n",
    "image.png": "\x89PNG",
}


def make_workspace(tmp: Path) -> Path:
    """``tmp/ws`` with :data:`WORKSPACE_FILES` (a module's shared app uses it as the ``workspace`` fixture does)."""
    root = tmp / "ws"
    for name, text in WORKSPACE_FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    return root


def make_data_dir(tmp: Path, readable: Path | None = None) -> Path:
    """``tmp/data``, set up as the ``data_dir`` fixture's (``readable``: the always-readable tree, ``tmp`` unless
    a shared app opens other tests' folders)."""
    directory = tmp / "data"
    directory.mkdir()
    # The test tree lives outside $HOME: make it an always-readable location.
    settings = Settings(directory / "settings.json")
    settings.set("readable_roots", [str(readable or tmp)])
    # The tests written before WYSIWYG became the default expect a file to open in source mode; the tests of
    # the default itself (tests/ui/test_default_mode.py, test_links.py) make their own data directory.
    settings.set("editor.default_mode", "source")
    return directory


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_workspace(tmp_path)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return make_data_dir(tmp_path)


@contextlib.asynccontextmanager
async def running_app(data_dir: Path, chromium: LentChromium | None = None) -> AsyncIterator[RunningApp]:
    """A real app in-process, with test hooks, for the time of the block (its browser borrowing ``chromium``)."""
    running = RunningApp(data_dir, test_hooks=True)
    running.app.browser.driver.lent = chromium
    await running.start()
    try:
        yield running
    finally:
        await running.stop()


@pytest.fixture
async def vmark(data_dir: Path) -> AsyncIterator[RunningApp]:
    async with running_app(data_dir) as running:
        yield running


@pytest.fixture
async def person(vmark: RunningApp) -> AsyncIterator[UIClient]:
    """The person, with a page attached to window ``main``."""
    async with UIClient(vmark.data_dir) as client:
        await client.attach("main")
        yield client


@pytest.fixture
async def opened(person: UIClient, workspace: Path) -> Path:
    """``workspace`` opened as the workspace of ``main`` by the person."""
    await person.call("ui.open_folder", path=str(workspace))
    return workspace


def make_client(data_dir: Path, mode: str = "auto", client_token: str | None = None) -> Client:
    bridge = BridgeClient(data_dir, client_token, autostart=False)
    return Client(build_server(bridge), mode=mode)  # type: ignore[arg-type]


#: the MCP client's connect modes, by test id
PROTOCOLS = {"auto": "protocol-current", "legacy": "protocol-legacy"}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test of the ``mcp`` client runs on the current protocol version; the smoke subset marked
    ``legacy_protocol`` (each tool's main path, the listing, the errors' forms) on the legacy one too."""
    definitions = metafunc._arg2fixturedefs.get("mcp", ())
    if definitions and definitions[-1].params is None:  # a module's own ``mcp`` fixture chooses for itself
        modes = ["auto", "legacy"] if metafunc.definition.get_closest_marker("legacy_protocol") else ["auto"]
        metafunc.parametrize("mcp", modes, indirect=True, ids=[PROTOCOLS[mode] for mode in modes])


@pytest.fixture
async def mcp(vmark: RunningApp, request: pytest.FixtureRequest) -> AsyncIterator[Client]:
    """The official MCP client, in memory, on the current protocol version (and the legacy one for the tests
    marked ``legacy_protocol``)."""
    async with make_client(vmark.data_dir, request.param) as client:
        yield client


async def call(client: Client, tool: str, action: str, **args: Any) -> types.CallToolResult:
    return await client.call_tool(tool, {"action": action, **args})


async def ok(client: Client, tool: str, action: str, **args: Any) -> dict[str, Any]:
    """Call and expect success; return ``structuredContent`` (checked against the text)."""
    result = await call(client, tool, action, **args)
    text = result.content[0].text  # type: ignore[union-attr]
    assert not result.is_error, text
    assert json.loads(text) == result.structured_content
    return dict(result.structured_content)


async def fail(client: Client, tool: str, action: str, **args: Any) -> dict[str, Any] | str:
    """Call and expect an error: the envelope (a domain error) or the plain string."""
    result = await call(client, tool, action, **args)
    assert result.is_error, result.content
    text = result.content[0].text  # type: ignore[union-attr]
    if result.structured_content is not None:
        assert json.loads(text) == result.structured_content
        return dict(result.structured_content)
    return text


async def fail_code(client: Client, tool: str, action: str, **args: Any) -> dict[str, Any]:
    envelope = await fail(client, tool, action, **args)
    assert isinstance(envelope, dict), envelope
    return envelope


# --- the workers' schedule (tests/schedule.py): under --dist loadscope, the longest modules first ----------------


def pytest_configure(config: pytest.Config) -> None:
    cputime.register(config)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    if schedule.scheduled(node.config):
        node.workerinput[schedule.WORKER_FLAG] = True


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    return schedule.make_scheduler(config, log) if schedule.scheduled(config) else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if schedule.ordered(config):
        schedule.order_items(items)
