"""``vmark coherence``: the person's coherence commands on a workspace folder.

They work on the workspace's files directly (no running app needed); a running app sees every change
at its next call, because it re-reads the ledger when a ledger file changed.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING, Any

from . import stores
from .commands import Subcommands, add_command, handled
from .output import print_table

if TYPE_CHECKING:
    from ..coherence.kernel import Kernel


def register(sub: Subcommands) -> None:
    co = add_command(sub, "coherence", "the coherence layer of a workspace, as the person")
    co_sub = co.add_subparsers(dest="coherence_command", required=True)
    handled(co_sub.add_parser("init", help="switch provenance tracking on for FOLDER"), _init).add_argument("folder")
    for name, text in (("status", "kernel counters"), ("edges", "the breakdown"), ("claims", "canon claims"),
                       ("contexts", "contexts")):
        p = handled(co_sub.add_parser(name, help=text), _reading)
        p.add_argument("folder")
        p.add_argument("--json", action="store_true")
        if name == "edges":
            p.add_argument("--all", action="store_true", help="fresh edges too")
    _register_resolve(co_sub)
    _register_claims(co_sub)
    _register_contexts(co_sub)


def _register_resolve(co_sub: Subcommands) -> None:
    res = handled(co_sub.add_parser("resolve", help="accept the newer upstream, or waive, for one edge"), _resolve)
    res.add_argument("folder")
    res.add_argument("txf")
    res.add_argument("input", type=int)
    how = res.add_mutually_exclusive_group(required=True)
    how.add_argument("--accept-newer", action="store_true")
    how.add_argument("--waive", metavar="REASON")
    res.add_argument("--expires", help="a waiver's lifetime (30m, 12h, 7d, 2w); default: never")


def _register_claims(co_sub: Subcommands) -> None:
    add = handled(co_sub.add_parser("claim-add", help="add a canon claim; prints its id"), _claim_add)
    add.add_argument("folder")
    add.add_argument("statement")
    add.add_argument("--established", action="store_true", help="maturity established (default draft)")
    add.add_argument("--supersedes", metavar="CLAIM")
    upd = handled(co_sub.add_parser("claim-set", help="change a claim (a new version)"), _claim_set)
    upd.add_argument("folder")
    upd.add_argument("claim")
    upd.add_argument("--statement")
    upd.add_argument("--maturity", choices=["draft", "established"])
    upd.add_argument("--invalid-at", metavar="TIME", help="RFC 3339 time the claim stops being valid")


def _register_contexts(co_sub: Subcommands) -> None:
    ctx = handled(co_sub.add_parser("context-set", help="create or replace a context"), _context_set)
    ctx.add_argument("folder")
    ctx.add_argument("id")
    ctx.add_argument("--name", required=True)
    ctx.add_argument("--parent", default=None)
    ctx.add_argument("--enforcing", action="store_true", help="enforcement enforcing (default greenhouse)")
    ctx.add_argument("--include", default="", help="claim ids to show, comma-separated")
    ctx.add_argument("--exclude", default="", help="claim ids to hide, comma-separated")
    rm = handled(co_sub.add_parser("context-delete", help="delete a context"), _context_delete)
    rm.add_argument("folder")
    rm.add_argument("id")


def _kernel(folder: str) -> Kernel:
    from ..coherence.checker import checker_from_settings
    from ..coherence.kernel import Kernel
    from ..storage.datadir import data_dir, installation_writer
    from ..storage.settings import SETTINGS

    if not os.path.isdir(folder):
        raise ValueError(f"{folder!r} is not a folder")
    settings = stores.settings()
    values = {key: settings.get(key) for key in SETTINGS if key.startswith("coherence.")}
    return Kernel(os.path.abspath(folder), installation_writer(data_dir()), checker=checker_from_settings(values))


def _init(args: argparse.Namespace) -> int:
    from .progress import progress_bar

    kernel = _kernel(args.folder)
    with progress_bar():
        status = kernel.init()
    print(f"tracking {kernel.root}: {status['objects']} objects, {status['open_items']} open items")
    return 0


def _resolve(args: argparse.Namespace) -> int:
    import time

    from ..coherence.kernel import PERSON
    from ..storage.delegations import parse_duration

    kernel = _kernel(args.folder)
    resolution = "accept-newer" if args.accept_newer else "waive"
    expires = None
    if args.expires:
        moment = time.time() + parse_duration(args.expires)
        expires = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))
    result = kernel.resolve(args.txf, args.input, resolution, by=PERSON, reason=args.waive, expires=expires)
    print(f"{result['txf']}#{result['input']}\t{result['state']}\t{result['entry']}")
    return 0


def _claim_add(args: argparse.Namespace) -> int:
    kernel = _kernel(args.folder)
    made = kernel.add_claim(args.statement, "established" if args.established else "draft", args.supersedes)
    print(made["claim"])
    return 0


def _claim_set(args: argparse.Namespace) -> int:
    kernel = _kernel(args.folder)
    changes = {"statement": args.statement, "maturity": args.maturity, "invalidAt": args.invalid_at}
    kernel.update_claim(args.claim, {k: v for k, v in changes.items() if v is not None})
    return 0


def _context_set(args: argparse.Namespace) -> int:
    kernel = _kernel(args.folder)
    data = {
        "name": args.name,
        "parent": args.parent,
        "enforcement": "enforcing" if args.enforcing else "greenhouse",
        "include": [c for c in args.include.split(",") if c],
        "exclude": [c for c in args.exclude.split(",") if c],
    }
    kernel.save_context(args.id, data)
    return 0


def _context_delete(args: argparse.Namespace) -> int:
    _kernel(args.folder).delete_context(args.id)
    return 0


def _reading(args: argparse.Namespace) -> int:
    """``status``, ``edges``, ``claims``, ``contexts``: JSON (``status`` always; indented without ``--json``),
    else a table."""
    from .progress import progress_bar

    command = args.coherence_command
    kernel = _kernel(args.folder)
    with progress_bar():  # edges may read many changed files and run checks: seconds on a big tree
        data: Any = {
            "status": kernel.status,
            "edges": lambda: kernel.edges(include_fresh=args.all),
            "claims": kernel.claims,
            "contexts": kernel.contexts,
        }[command]()
    if args.json or command == "status":
        print(json.dumps(data, indent=None if args.json else 2))
    else:
        print_table(_ROWS[command](row) for row in data)
    return 0


def _edge_row(row: dict[str, Any]) -> tuple[object, ...]:
    return row["state"], f"{row['downstream_path']} <- {row['upstream_path']}", f"{row['txf']} {row['input']}"


def _claim_row(row: dict[str, Any]) -> tuple[object, ...]:
    seen = "" if row["visible"] else " (hidden)"
    return row["claim"], f"{row['maturity']}{seen}", row["statement"]


def _context_row(row: dict[str, Any]) -> tuple[object, ...]:
    return row["id"], row["enforcement"], f"{row['visibleClaims']} claims", "; ".join(row["errors"])


_ROWS = {"edges": _edge_row, "claims": _claim_row, "contexts": _context_row}
