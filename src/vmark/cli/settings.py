"""``vmark settings get KEY | set KEY VALUE``: the data directory's settings (every package's keys:
:mod:`vmark.settings_keys`)."""

from __future__ import annotations

import argparse
import json

from . import stores
from .commands import Subcommands, add_command, handled


def register(sub: Subcommands) -> None:
    st_sub = add_command(sub, "settings", "read and change settings").add_subparsers(
        dest="settings_command", required=True
    )
    handled(st_sub.add_parser("get"), _get).add_argument("key")
    set_ = handled(st_sub.add_parser("set"), _set)
    set_.add_argument("key")
    set_.add_argument("value")


def _get(args: argparse.Namespace) -> int:
    print(json.dumps(stores.settings().get(args.key)))
    return 0


def _set(args: argparse.Namespace) -> int:
    from ..storage.settings import Settings

    stores.settings().set(args.key, Settings.parse_value(args.value))
    return 0
