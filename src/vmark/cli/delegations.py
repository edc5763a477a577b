"""``vmark delegations``: let an AI client (a principal) resolve coherence edges, for a while.

Works on the data directory's ``delegations.json`` directly (no running app needed); a running app reads
it on every check.
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING

from . import stores
from .commands import Subcommands, add_command, handled
from .output import print_listing

if TYPE_CHECKING:
    from ..protocol.wire_types import Delegation


def register(sub: Subcommands) -> None:
    de = add_command(sub, "delegations", "let an AI client resolve coherence edges, for a while")
    de_sub = de.add_subparsers(dest="delegations_command", required=True)
    gr = handled(de_sub.add_parser("grant", help="grant a delegation; prints its id"), _grant)
    gr.add_argument("--principal", required=True, help="the client token's name (vmark principals list)")
    gr.add_argument("--scope", required=True, help="accept-newer, waive, or both comma-separated")
    gr.add_argument("--expires", default="7d", help="lifetime: 30m, 12h, 7d (default), 2w; never forever")
    gr.add_argument("--workspace", help="only this workspace (default: every workspace)")
    handled(de_sub.add_parser("list"), _list).add_argument("--json", action="store_true")
    handled(de_sub.add_parser("revoke"), _revoke).add_argument("id")


def _grant(args: argparse.Namespace) -> int:
    from ..storage.delegations import parse_duration

    scope = [s.strip() for s in args.scope.split(",") if s.strip()]
    seconds = parse_duration(args.expires)
    grant = stores.delegations().grant(args.principal, scope, seconds=seconds, workspace=args.workspace)
    print(grant.id)
    return 0


def _revoke(args: argparse.Namespace) -> int:
    stores.delegations().revoke(args.id)
    return 0


def _list(args: argparse.Namespace) -> int:
    now = time.time()
    rows = [g.describe(now) for g in stores.delegations().list()]
    print_listing(args.json, rows, (_row(row) for row in rows))
    return 0


def _row(row: Delegation) -> tuple[object, ...]:
    until = time.strftime("%Y-%m-%d %H:%M", time.localtime(row["expires"]))
    where = row["workspace"] or "every workspace"
    return row["id"], row["principal"], ",".join(row["scope"]), f"{row['state']} (until {until})", where
