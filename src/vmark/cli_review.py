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
import sys
from collections.abc import Callable
from typing import Any

#: ``_person_request`` and ``_error_text`` of :mod:`vmark.cli` (given, so this module does not import it back)
Request = Callable[[str, dict[str, Any]], dict[str, Any]]
ErrorText = Callable[[Any], str]


def add_parser(sub: Any) -> None:
    rv = sub.add_parser("review", help="judge the agents' changes of a document, as the person")
    rv_sub = rv.add_subparsers(dest="review_command", required=True)
    lst = rv_sub.add_parser("list", help="the pending changes of FILE, in text order")
    lst.add_argument("file")
    lst.add_argument("--json", action="store_true")
    for verb, what in (("accept", "keep the text of"), ("reject", "restore the old text of")):
        p = rv_sub.add_parser(verb, help=f"{what} changes of FILE")
        p.add_argument("file")
        p.add_argument("ids", nargs="*", metavar="CHANGE_ID")
        p.add_argument("--all", action="store_true", help="every pending change of FILE")
        p.add_argument("--json", action="store_true")
        if verb == "reject":
            p.add_argument("--no-save", action="store_true", help="leave the restored text unsaved")


def cmd_review(args: argparse.Namespace, request: Request, error_text: ErrorText) -> int:
    file_path = os.path.abspath(args.file)
    if args.review_command != "list" and bool(args.ids) == bool(args.all):
        print("vmark: give CHANGE_ID... or --all (not both)", file=sys.stderr)
        return 2
    listed = request("review.list", {"filePath": file_path})
    if not listed.get("success"):
        return _refused(listed, error_text)
    listing = listed["data"]
    if args.review_command == "list":
        if args.json:
            print(json.dumps(listing))
        else:
            sys.stdout.write("".join(_line(c) for c in listing["changes"]))
        return 0
    which: dict[str, Any] = {"all": True} if args.all else {"ids": list(args.ids)}
    response = request(f"review.{args.review_command}", {"filePath": file_path, **which})
    if not response.get("success"):
        return _refused(response, error_text)
    data = dict(response["data"])
    if args.review_command == "reject":
        saved = False
        if data["rejected"] and not listing["dirty"] and not args.no_save:
            save = request("ui.save", {"tabId": listing["tabId"]})
            if not save.get("success"):
                return _refused(save, error_text)
            saved = True
        data["saved"] = saved
    if args.json:
        print(json.dumps(data))
    else:
        print(_summary(args.review_command, data, file_path))
    return 0


def _line(change: dict[str, Any]) -> str:
    """One change: id, range, who, then the old and the new text (JSON strings: one line each)."""
    who = f"{change.get('agent') or change['principal']} ({change['tool']})"
    texts = f"{json.dumps(change['old'], ensure_ascii=False)} -> {json.dumps(change['new'], ensure_ascii=False)}"
    return f"{change['id']}\t{change['from']}-{change['to']}\t{who}\t{texts}\n"


def _summary(command: str, data: dict[str, Any], file_path: str) -> str:
    if command == "accept":
        text = f"accepted {data['accepted']}"
    else:
        text = f"rejected {data['rejected']}"
        if data["rejected"]:
            text += f"; saved {file_path}" if data["saved"] else f"; {file_path} is not saved"
    return f"{text}; {data['unreviewed']} AI revisions unreviewed"


def _refused(response: dict[str, Any], error_text: ErrorText) -> int:
    print(f"vmark: {error_text(response.get('error'))}", file=sys.stderr)
    return 1
