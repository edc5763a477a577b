"""The data directory's stores, as a command opens them (each reads its file when asked, so a running app
and the command line share them)."""

from __future__ import annotations

from .. import settings_keys  # noqa: F401  (registers every package's settings)
from ..storage.datadir import data_dir
from ..storage.delegations import Delegations
from ..storage.principals import Principals
from ..storage.settings import Settings


def settings() -> Settings:
    return Settings(data_dir() / "settings.json")


def principals() -> Principals:
    return Principals(data_dir() / "principals.json")


def delegations() -> Delegations:
    return Delegations(data_dir() / "delegations.json")
