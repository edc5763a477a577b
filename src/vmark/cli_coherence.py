"""``vmark coherence`` and ``vmark delegations``: the person's coherence commands.

They work on the workspace's files directly (no running app needed); a running app sees every change
at its next call, because it re-reads the ledger when a ledger file changed and delegations on every
check.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

from .coherence.checker import checker_from_settings
from .coherence.kernel import PERSON, Kernel
from .storage.datadir import data_dir, installation_writer
from .storage.delegations import Delegations, parse_duration
from .storage.settings import SETTINGS, Settings


def add_parsers(sub: Any) -> None:
    co = sub.add_parser("coherence", help="the coherence layer of a workspace, as the person")
    co_sub = co.add_subparsers(dest="coherence_command", required=True)
    co_sub.add_parser("init", help="switch provenance tracking on for FOLDER").add_argument("folder")
    for name, text in (("status", "kernel counters"), ("edges", "the breakdown"), ("claims", "canon claims"),
                       ("contexts", "contexts")):
        p = co_sub.add_parser(name, help=text)
        p.add_argument("folder")
        p.add_argument("--json", action="store_true")
        if name == "edges":
            p.add_argument("--all", action="store_true", help="fresh edges too")
    res = co_sub.add_parser("resolve", help="accept the newer upstream, or waive, for one edge")
    res.add_argument("folder")
    res.add_argument("txf")
    res.add_argument("input", type=int)
    how = res.add_mutually_exclusive_group(required=True)
    how.add_argument("--accept-newer", action="store_true")
    how.add_argument("--waive", metavar="REASON")
    res.add_argument("--expires", help="a waiver's lifetime (30m, 12h, 7d, 2w); default: never")
    add = co_sub.add_parser("claim-add", help="add a canon claim; prints its id")
    add.add_argument("folder")
    add.add_argument("statement")
    add.add_argument("--established", action="store_true", help="maturity established (default draft)")
    add.add_argument("--supersedes", metavar="CLAIM")
    upd = co_sub.add_parser("claim-set", help="change a claim (a new version)")
    upd.add_argument("folder")
    upd.add_argument("claim")
    upd.add_argument("--statement")
    upd.add_argument("--maturity", choices=["draft", "established"])
    upd.add_argument("--invalid-at", metavar="TIME", help="RFC 3339 time the claim stops being valid")
    ctx = co_sub.add_parser("context-set", help="create or replace a context")
    ctx.add_argument("folder")
    ctx.add_argument("id")
    ctx.add_argument("--name", required=True)
    ctx.add_argument("--parent", default=None)
    ctx.add_argument("--enforcing", action="store_true", help="enforcement enforcing (default greenhouse)")
    ctx.add_argument("--include", default="", help="claim ids to show, comma-separated")
    ctx.add_argument("--exclude", default="", help="claim ids to hide, comma-separated")
    rm = co_sub.add_parser("context-delete", help="delete a context")
    rm.add_argument("folder")
    rm.add_argument("id")

    de = sub.add_parser("delegations", help="let an AI client resolve coherence edges, for a while")
    de_sub = de.add_subparsers(dest="delegations_command", required=True)
    gr = de_sub.add_parser("grant", help="grant a delegation; prints its id")
    gr.add_argument("--principal", required=True, help="the client token's name (vmark principals list)")
    gr.add_argument("--scope", required=True, help="accept-newer, waive, or both comma-separated")
    gr.add_argument("--expires", default="7d", help="lifetime: 30m, 12h, 7d (default), 2w; never forever")
    gr.add_argument("--workspace", help="only this workspace (default: every workspace)")
    ls = de_sub.add_parser("list")
    ls.add_argument("--json", action="store_true")
    de_sub.add_parser("revoke").add_argument("id")


def _kernel(folder: str) -> Kernel:
    if not os.path.isdir(folder):
        raise ValueError(f"{folder!r} is not a folder")
    settings = Settings(data_dir() / "settings.json")
    values = {key: settings.get(key) for key in SETTINGS if key.startswith("coherence.")}
    return Kernel(os.path.abspath(folder), installation_writer(data_dir()), checker=checker_from_settings(values))


def cmd_coherence(args: argparse.Namespace) -> int:
    command = args.coherence_command
    kernel = _kernel(args.folder)
    if command == "init":
        status = kernel.init()
        print(f"tracking {kernel.root}: {status['objects']} objects, {status['open_items']} open items")
        return 0
    if command == "resolve":
        resolution = "accept-newer" if args.accept_newer else "waive"
        expires = None
        if args.expires:
            moment = time.time() + parse_duration(args.expires)
            expires = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))
        result = kernel.resolve(args.txf, args.input, resolution, by=PERSON, reason=args.waive, expires=expires)
        print(f"{result['txf']}#{result['input']}\t{result['state']}\t{result['entry']}")
        return 0
    if command == "claim-add":
        made = kernel.add_claim(args.statement, "established" if args.established else "draft", args.supersedes)
        print(made["claim"])
        return 0
    if command == "claim-set":
        changes = {"statement": args.statement, "maturity": args.maturity, "invalidAt": args.invalid_at}
        kernel.update_claim(args.claim, {k: v for k, v in changes.items() if v is not None})
        return 0
    if command == "context-set":
        data = {
            "name": args.name,
            "parent": args.parent,
            "enforcement": "enforcing" if args.enforcing else "greenhouse",
            "include": [c for c in args.include.split(",") if c],
            "exclude": [c for c in args.exclude.split(",") if c],
        }
        kernel.save_context(args.id, data)
        return 0
    if command == "context-delete":
        kernel.delete_context(args.id)
        return 0
    return _print_reading(command, kernel, args)


def _print_reading(command: str, kernel: Kernel, args: argparse.Namespace) -> int:
    data: Any = {
        "status": kernel.status,
        "edges": lambda: kernel.edges(include_fresh=args.all),
        "claims": kernel.claims,
        "contexts": kernel.contexts,
    }[command]()
    if args.json or command == "status":
        print(json.dumps(data, indent=None if args.json else 2))
        return 0
    for row in data:
        if command == "edges":
            print(f"{row['state']}\t{row['downstream_path']} <- {row['upstream_path']}\t{row['txf']} {row['input']}")
        elif command == "claims":
            seen = "" if row["visible"] else " (hidden)"
            print(f"{row['claim']}\t{row['maturity']}{seen}\t{row['statement']}")
        else:
            errors = "; ".join(row["errors"])
            print(f"{row['id']}\t{row['enforcement']}\t{row['visibleClaims']} claims\t{errors}")
    return 0


def cmd_delegations(args: argparse.Namespace) -> int:
    store = Delegations(data_dir() / "delegations.json")
    command = args.delegations_command
    if command == "grant":
        scope = [s.strip() for s in args.scope.split(",") if s.strip()]
        grant = store.grant(args.principal, scope, seconds=parse_duration(args.expires), workspace=args.workspace)
        print(grant.id)
        return 0
    if command == "revoke":
        store.revoke(args.id)
        return 0
    now = time.time()
    rows = [g.describe(now) for g in store.list()]
    if args.json:
        print(json.dumps(rows))
        return 0
    for row in rows:
        until = time.strftime("%Y-%m-%d %H:%M", time.localtime(row["expires"]))
        where = row["workspace"] or "every workspace"
        print(f"{row['id']}\t{row['principal']}\t{','.join(row['scope'])}\t{row['state']} (until {until})\t{where}")
    return 0

