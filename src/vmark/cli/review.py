"""``vmark review``: the person's review of agent changes from the command line, against a running app.

The same model as the page's (``review.list / accept / reject`` over the bridge, the file named by its path:
the app opens it in a tab when none shows it). A rejection is the person's edit; the command saves the file
after it when the document had no unsaved text before (``--no-save`` leaves it unsaved), and leaves it unsaved
when it had some (the person's unsaved typing is not saved behind their back).
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from .bridge import ask
from .commands import Subcommands, add_command, handled
from .output import fail, print_json, print_listing


def register(sub: Subcommands) -> None:
    rv = add_command(sub, "review", "judge the agents' changes of a document, as the person")
    rv_sub = rv.add_subparsers(dest="review_command", required=True)
    lst = handled(rv_sub.add_parser("list", help="the pending changes of FILE, in text order"), _list)
    lst.add_argument("file")
    lst.add_argument("--json", action="store_true")
    for verb, what in (("accept", "keep the text of"), ("reject", "restore the old text of")):
        p = handled(rv_sub.add_parser(verb, help=f"{what} changes of FILE"), _judge)
        p.add_argument("file")
        p.add_argument("ids", nargs="*", metavar="CHANGE_ID")
        p.add_argument("--all", action="store_true", help="every pending change of FILE")
        p.add_argument("--json", action="store_true")
        if verb == "reject":
            p.add_argument("--no-save", action="store_true", help="leave the restored text unsaved")


def _list(args: argparse.Namespace) -> int:
    listing = ask("review.list", {"filePath": os.path.abspath(args.file)})
    print_listing(args.json, listing, (_row(c) for c in listing["changes"]))
    return 0


def _judge(args: argparse.Namespace) -> int:
    """``accept`` or ``reject`` the changes named (or ``--all``); a rejection saves the file after it when
    it had no unsaved text before."""
    if bool(args.ids) == bool(args.all):
        return fail("give CHANGE_ID... or --all (not both)", 2)
    file_path = os.path.abspath(args.file)
    listing = ask("review.list", {"filePath": file_path})
    which: dict[str, Any] = {"all": True} if args.all else {"ids": list(args.ids)}
    data = ask(f"review.{args.review_command}", {"filePath": file_path, **which})
    if args.review_command == "reject":
        save = bool(data["rejected"]) and not listing["dirty"] and not args.no_save
        if save:
            ask("ui.save", {"tabId": listing["tabId"]})
        data["saved"] = save
    if args.json:
        print_json(data)
    else:
        print(_summary(args.review_command, data, file_path))
    return 0


def _row(change: dict[str, Any]) -> tuple[str, ...]:
    """One change: id, range, who, then the old and the new text (JSON strings: one line each)."""
    who = f"{change.get('agent') or change['principal']} ({change['tool']})"
    texts = f"{json.dumps(change['old'], ensure_ascii=False)} -> {json.dumps(change['new'], ensure_ascii=False)}"
    return change["id"], f"{change['from']}-{change['to']}", who, texts


def _summary(command: str, data: dict[str, Any], file_path: str) -> str:
    if command == "accept":
        text = f"accepted {data['accepted']}"
    else:
        text = f"rejected {data['rejected']}"
        if data["rejected"]:
            text += f"; saved {file_path}" if data["saved"] else f"; {file_path} is not saved"
    return f"{text}; {data['unreviewed']} AI revisions unreviewed"
