"""``vmark approvals``: the app's pending approval prompts, answered as the person (the app must run)."""

from __future__ import annotations

import argparse
from typing import Any

from .bridge import ask
from .commands import Subcommands, add_command, handled
from .output import print_json, print_listing


def register(sub: Subcommands) -> None:
    ap_sub = add_command(sub, "approvals", "answer the app's approval prompts").add_subparsers(
        dest="approvals_command", required=True
    )
    handled(ap_sub.add_parser("list"), _list).add_argument("--json", action="store_true")
    allow = handled(ap_sub.add_parser("allow"), _answer)
    allow.add_argument("id")
    allow.add_argument("--site", action="store_true", help="a browser prompt: Allow on this site (else once)")
    handled(ap_sub.add_parser("deny"), _answer).add_argument("id")


def _list(args: argparse.Namespace) -> int:
    items = ask("approvals.list", {})["approvals"]
    rows = (
        (a["id"], a["kind"], a["state"], a.get("agent") or a["requester"], a["subject"], f"expires {a['expires']}")
        for a in items
    )
    print_listing(args.json, items, rows)
    return 0


def _answer(args: argparse.Namespace) -> int:
    payload: dict[str, Any] = {"id": args.id, "allow": args.approvals_command == "allow"}
    if getattr(args, "site", False):
        payload["decision"] = "site"
    print_json(ask("approvals.answer", payload)["approval"])
    return 0
