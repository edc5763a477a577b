"""Fixtures: a real app in-process, ``vmark mcp --http`` as a process in front of it, principals' tokens."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.http.helpers import http_server
from vmark.app.server import RunningApp
from vmark.storage.principals import Principals


@pytest.fixture
async def http_url(vmark: RunningApp) -> AsyncIterator[str]:
    async with http_server(vmark.data_dir) as url:
        yield url


@pytest.fixture
def alice(data_dir: Path) -> str:
    return Principals(data_dir / "principals.json").add("alice")


@pytest.fixture
def bob(data_dir: Path) -> str:
    return Principals(data_dir / "principals.json").add("bob")
