"""``vmark comments``: review comments on a document, as the person (the app must run).

A document is named by its file (the canonical path, open in a tab or not: the app resolves links); a
thread by its comment id.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from .bridge import ask
from .commands import Subcommands, add_command, handled
from .output import print_json


def register(sub: Subcommands) -> None:
    cm_sub = add_command(sub, "comments", "review comments on a document, as the person").add_subparsers(
        dest="comments_command", required=True
    )
    add = handled(cm_sub.add_parser("add", help="comment on a quoted span of FILE; prints the new comment id"), _add)
    add.add_argument("file", type=Path)
    add.add_argument("--quote", required=True, help="the text the comment is about (it must occur in FILE)")
    add.add_argument("--body", required=True)
    add.add_argument("--json", action="store_true")
    lst = handled(cm_sub.add_parser("list", help="every thread of FILE, oldest first"), _list)
    lst.add_argument("file", type=Path)
    lst.add_argument("--json", action="store_true")
    reply = handled(cm_sub.add_parser("reply", help="answer a thread; prints the new reply id"), _reply)
    reply.add_argument("id")
    reply.add_argument("--body", required=True)
    for verb in ("resolve", "reopen", "delete"):
        handled(cm_sub.add_parser(verb, help=f"{verb} a thread"), _change_state).add_argument("id")


def _add(args: argparse.Namespace) -> int:
    payload = {"filePath": os.path.abspath(args.file), "quote": args.quote, "body": args.body}
    data = ask("comments.add", payload)
    if args.json:
        print_json(data)
    else:
        print(data["comment"])
    return 0


def _list(args: argparse.Namespace) -> int:
    data = ask("comments.threads", {"filePath": os.path.abspath(args.file)})
    if args.json:
        print_json(data)
    else:
        sys.stdout.write(_threads_text(data["threads"]))
    return 0


def _reply(args: argparse.Namespace) -> int:
    print(ask("comments.person_reply", {"commentId": args.id, "body": args.body})["reply"])
    return 0


def _change_state(args: argparse.Namespace) -> int:
    """``resolve``, ``reopen`` or ``delete``: the thread's id and its state after."""
    data = ask(f"comments.{args.comments_command}", {"commentId": args.id})
    print(f"{data['comment']}\t{data['state']}")
    return 0


def _threads_text(threads: list[dict[str, Any]]) -> str:
    """One block per thread: id, state (orphaned marked), quote, the first body, then each reply."""
    blocks = []
    for t in threads:
        state = f"{t['state']} (orphaned)" if t.get("orphaned") else t["state"]
        lines = [f"{t['comment']}\t{state}\t{t['author']}", f"  > {_one_line(t['quote'])}", f"  {_one_line(t['body'])}"]
        lines += [f"  - {r['id']} {r['author']}: {_one_line(r['body'])}" for r in t.get("replies", [])]
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


def _one_line(text: str) -> str:
    """Line breaks shown as ``\\n`` so each part of a thread stays on its line."""
    return text.replace("\r\n", "\n").replace("\n", "\\n")
