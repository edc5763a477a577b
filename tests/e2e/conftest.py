"""Fixtures for the end-to-end tests: an isolated world and the apps started in it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import WORKSPACE_FILES
from tests.e2e.helpers import AppProcess, Home, kill_apps_of
from vmark.storage.settings import Settings


@pytest.fixture
def world(tmp_path: Path) -> Iterator[Home]:
    """``$HOME``, a data directory whose readable roots include the tmp tree, and a workspace.

    Whatever happens in the test, no app of this data directory outlives it.
    """
    home = Home(root=tmp_path, home=tmp_path / "home", data=tmp_path / "data", workspace=tmp_path / "ws")
    home.home.mkdir()
    for name, text in WORKSPACE_FILES.items():
        path = home.workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    Settings(home.data / "settings.json").set("readable_roots", [str(tmp_path)])
    try:
        yield home
    finally:
        kill_apps_of(home.data)


StartApp = Callable[..., AppProcess]


@pytest.fixture
def start_app(world: Home) -> Iterator[StartApp]:
    """Start ``vmark app --headless`` in ``world``; every one is killed at the end of the test."""
    started: list[AppProcess] = []

    def start(
        folder: Path | None = None, port: int | None = None, env: dict[str, str] | None = None, data: Path | None = None
    ) -> AppProcess:
        app = AppProcess(world.env() if env is None else env, world.data if data is None else data, folder, port)
        started.append(app)
        return app

    try:
        yield start
    finally:
        for app in started:
            app.kill()
