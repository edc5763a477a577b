"""``vmark principals``: the named client tokens (an agent's approvals and delegations are its principal's)."""

from __future__ import annotations

import argparse

from . import stores
from .commands import Subcommands, add_command, handled
from .output import print_json


def register(sub: Subcommands) -> None:
    pr_sub = add_command(sub, "principals", "named client tokens").add_subparsers(
        dest="principals_command", required=True
    )
    add = handled(pr_sub.add_parser("add"), _add)
    add.add_argument("name")
    add.add_argument("--json", action="store_true")
    handled(pr_sub.add_parser("list"), _list).add_argument("--json", action="store_true")
    handled(pr_sub.add_parser("remove"), _remove).add_argument("name")


def _add(args: argparse.Namespace) -> int:
    token = stores.principals().add(args.name)
    if args.json:
        print_json({"name": args.name, "token": token})
    else:
        print(f"{args.name}\t{token}")
    return 0


def _list(args: argparse.Namespace) -> int:
    items = stores.principals().list()
    if args.json:
        print_json(items)
    else:
        print("\n".join(p["name"] for p in items))
    return 0


def _remove(args: argparse.Namespace) -> int:
    stores.principals().remove(args.name)
    return 0
