"""The data directory's stores, as a command opens them (each reads its file when asked, so a running app
and the command line share them).

Each store's modules are imported when it is opened: every ``vmark`` process imports this module (the command
families do), and the settings' keys (:mod:`vmark.settings_keys`: the CJK rules, the coherence checker, export)
are the costliest import of a command that needs them, so only such a command pays for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..storage.delegations import Delegations
    from ..storage.principals import Principals
    from ..storage.settings import Settings


def settings() -> Settings:
    from .. import settings_keys  # noqa: F401  (registers every package's settings)
    from ..storage.datadir import data_dir
    from ..storage.settings import Settings

    return Settings(data_dir() / "settings.json")


def principals() -> Principals:
    from ..storage.datadir import data_dir
    from ..storage.principals import Principals

    return Principals(data_dir() / "principals.json")


def delegations() -> Delegations:
    from ..storage.datadir import data_dir
    from ..storage.delegations import Delegations

    return Delegations(data_dir() / "delegations.json")
