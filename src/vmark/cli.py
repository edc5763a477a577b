"""The ``vmark`` command line."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from . import cli_coherence, cli_export, cli_review, settings_keys  # noqa: F401  (settings_keys: every setting)
from .core.errors import parse_wire_error
from .mcp.discovery import lock_is_held, read_bridge
from .storage.datadir import data_dir
from .storage.principals import PrincipalError, Principals
from .storage.settings import Settings, SettingsError


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="vmark", description="A Markdown workspace shared by you and AI agents")
    sub = p.add_subparsers(dest="command", required=True)

    app = sub.add_parser("app", help="run the app (UI + bridge)")
    app.add_argument("folder", nargs="?", help="workspace folder to open (default: the last one, if it is still there)")
    app.add_argument("--no-reopen", action="store_true", help="without FOLDER: start with no workspace")
    app.add_argument("--headless", action="store_true", help="do not open the UI in a browser")
    app.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")

    mcp = sub.add_parser("mcp", help="run the MCP server (stdio, or Streamable HTTP), or install it into a client")
    mcp.add_argument("--http", action="store_true", help="serve MCP Streamable HTTP on 127.0.0.1 (prints the URL)")
    mcp.add_argument("--port", type=int, default=0, help="with --http: the port (default: a free one)")
    mcp_sub = mcp.add_subparsers(dest="mcp_command")
    inst = mcp_sub.add_parser("install", help="write a client's MCP config")
    inst.add_argument("client", choices=["claude-code", "claude-desktop", "cursor", "print"])
    inst.add_argument("--config", type=Path, help="config file to write (default: the client's own)")
    inst.add_argument("--name", help="principal name for the new client token (default: the client)")
    inst.add_argument("--http", action="store_true", help="the URL form, for `vmark mcp --http --port N`")
    inst.add_argument("--port", type=int, help="with --http: the port `vmark mcp --http` serves on")

    pr = sub.add_parser("principals", help="named client tokens")
    pr_sub = pr.add_subparsers(dest="principals_command", required=True)
    add = pr_sub.add_parser("add")
    add.add_argument("name")
    add.add_argument("--json", action="store_true")
    lst = pr_sub.add_parser("list")
    lst.add_argument("--json", action="store_true")
    rm = pr_sub.add_parser("remove")
    rm.add_argument("name")

    sub.add_parser("stop", help="stop the app of this data directory")
    doctor = sub.add_parser("doctor", help="check what VMark needs on this machine, and say how to fix it")
    doctor.add_argument("--json", action="store_true")
    sub.add_parser("url", help="print the UI address of the running app")

    st = sub.add_parser("settings", help="read and change settings")
    st_sub = st.add_subparsers(dest="settings_command", required=True)
    get = st_sub.add_parser("get")
    get.add_argument("key")
    set_ = st_sub.add_parser("set")
    set_.add_argument("key")
    set_.add_argument("value")

    ap = sub.add_parser("approvals", help="answer the app's approval prompts")
    ap_sub = ap.add_subparsers(dest="approvals_command", required=True)
    alst = ap_sub.add_parser("list")
    alst.add_argument("--json", action="store_true")
    for verb in ("allow", "deny"):
        v = ap_sub.add_parser(verb)
        v.add_argument("id")
        if verb == "allow":
            v.add_argument("--site", action="store_true", help="a browser prompt: Allow on this site (else once)")
    _comments_parser(sub)
    cli_review.add_parser(sub)
    cli_coherence.add_parsers(sub)
    cli_export.add_parser(sub)
    return p


def _comments_parser(sub: Any) -> None:
    cm = sub.add_parser("comments", help="review comments on a document, as the person")
    cm_sub = cm.add_subparsers(dest="comments_command", required=True)
    add = cm_sub.add_parser("add", help="comment on a quoted span of FILE; prints the new comment id")
    add.add_argument("file", type=Path)
    add.add_argument("--quote", required=True, help="the text the comment is about (it must occur in FILE)")
    add.add_argument("--body", required=True)
    add.add_argument("--json", action="store_true")
    lst = cm_sub.add_parser("list", help="every thread of FILE, oldest first")
    lst.add_argument("file", type=Path)
    lst.add_argument("--json", action="store_true")
    reply = cm_sub.add_parser("reply", help="answer a thread; prints the new reply id")
    reply.add_argument("id")
    reply.add_argument("--body", required=True)
    for verb in ("resolve", "reopen", "delete"):
        cm_sub.add_parser(verb, help=f"{verb} a thread").add_argument("id")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    handler = {
        "app": _cmd_app,
        "mcp": _cmd_mcp,
        "principals": _cmd_principals,
        "stop": _cmd_stop,
        "doctor": _cmd_doctor,
        "url": _cmd_url,
        "settings": _cmd_settings,
        "approvals": _cmd_approvals,
        "comments": _cmd_comments,
        "review": lambda a: cli_review.cmd_review(a, _person_request, _error_text),
        "coherence": cli_coherence.cmd_coherence,
        "delegations": cli_coherence.cmd_delegations,
        "export": cli_export.cmd_export,
    }[args.command]
    try:
        return handler(args)
    except (PrincipalError, SettingsError, ValueError) as exc:
        print(f"vmark: {exc}", file=sys.stderr)
        return 2


def _cmd_app(args: argparse.Namespace) -> int:
    from .app.server import AlreadyRunning, PortUnavailable, serve_forever

    if args.folder is not None and not os.path.isdir(args.folder):
        print(f"vmark: {args.folder!r} is not a folder", file=sys.stderr)
        return 2
    try:
        reopen = args.folder is None and not args.no_reopen
        serving = serve_forever(data_dir(), args.folder, args.port, open_browser=not args.headless, reopen_last=reopen)
        asyncio.run(serving)
    except (AlreadyRunning, PortUnavailable) as exc:
        print(f"vmark: {exc}", file=sys.stderr)
        return 1
    return 0


def _cmd_mcp(args: argparse.Namespace) -> int:
    if args.mcp_command == "install":
        return _cmd_mcp_install(args)
    if args.http:
        return _cmd_mcp_http(args)
    if args.port:
        print("vmark: --port goes with --http", file=sys.stderr)
        return 2
    from .mcp.bridge_client import BridgeClient

    bridge = BridgeClient(data_dir(), os.environ.get("VMARK_MCP_TOKEN") or None)
    bridge.start_early()  # the app boots on the other core while the MCP SDK (over a second) imports
    from .mcp.server import run_stdio

    asyncio.run(run_stdio(bridge))
    return 0


def _cmd_mcp_http(args: argparse.Namespace) -> int:
    from .mcp.bridge_client import BridgeClient

    BridgeClient(data_dir()).start_early()  # the app boots while the MCP SDK and uvicorn import
    from .mcp.http import bind, serve_http

    try:
        sock = bind(args.port)
    except OSError as exc:
        print(f"vmark: cannot listen on 127.0.0.1:{args.port}: {exc.strerror}", file=sys.stderr)
        return 1
    principals = Principals(data_dir() / "principals.json")
    asyncio.run(serve_http(data_dir(), sock, principals.authenticate))
    return 0


def _http_url(port: int) -> str:
    from .mcp.http import url_of

    return url_of(port)


def _cmd_mcp_install(args: argparse.Namespace) -> int:
    from .cli_mcp_install import (
        check_url_client,
        default_config_path,
        http_server_entry,
        merged_config,
        server_entry,
        write_config,
    )

    if args.http and not args.port:
        print("vmark: --http needs --port N: the port `vmark mcp --http --port N` will serve on", file=sys.stderr)
        return 2
    if not args.http and args.port is not None:
        print("vmark: --port goes with --http", file=sys.stderr)
        return 2
    path = None if args.client == "print" else args.config or default_config_path(args.client)
    config = merged_config(path, {})  # refuse a broken config before a token is registered
    if args.http:
        try:
            check_url_client(args.client)  # before a token is registered
        except ValueError as exc:
            print(f"vmark: {exc}", file=sys.stderr)
            return 2
    principals = Principals(data_dir() / "principals.json")
    base = args.name or args.client
    existing = {p["name"] for p in principals.list()}
    name, n = base, 1
    while name in existing:
        n += 1
        name = f"{base}-{n}"
    token = principals.add(name)
    config["mcpServers"]["vmark"] = (
        http_server_entry(args.client, token, _http_url(args.port))
        if args.http
        else server_entry(args.client, token)
    )
    if path is None:
        print(json.dumps(config, indent=2))
        return 0
    write_config(path, config)
    print(f"wrote the vmark server to {path} (principal {name!r})")
    return 0


def _cmd_principals(args: argparse.Namespace) -> int:
    principals = Principals(data_dir() / "principals.json")
    if args.principals_command == "add":
        token = principals.add(args.name)
        if args.json:
            print(json.dumps({"name": args.name, "token": token}))
        else:
            print(f"{args.name}\t{token}")
    elif args.principals_command == "list":
        items = principals.list()
        print(json.dumps(items) if args.json else "\n".join(p["name"] for p in items))
    else:
        principals.remove(args.name)
    return 0


def _cmd_stop(args: argparse.Namespace) -> int:
    directory = data_dir()
    info = read_bridge(directory)
    if info is None:
        print("vmark: no app is running", file=sys.stderr)
        return 1
    os.kill(info.pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while lock_is_held(directory) and time.monotonic() < deadline:
        time.sleep(0.05)
    if lock_is_held(directory):
        print("vmark: the app did not stop within 10 s", file=sys.stderr)
        return 1
    return 0


def _cmd_doctor(args: argparse.Namespace) -> int:
    from .doctor import exit_code, render_json, render_text, run_checks

    checks = run_checks(data_dir())
    sys.stdout.write(render_json(checks) + "\n" if args.json else render_text(checks))
    return exit_code(checks)


def _cmd_url(args: argparse.Namespace) -> int:
    info = read_bridge(data_dir())
    if info is None:
        print("vmark: no app is running", file=sys.stderr)
        return 1
    if not info.ui_token:
        print("vmark: the running app serves no UI (it is older than the UI)", file=sys.stderr)
        return 1
    print(info.ui_url)
    return 0


def _cmd_settings(args: argparse.Namespace) -> int:
    settings = Settings(data_dir() / "settings.json")
    if args.settings_command == "get":
        print(json.dumps(settings.get(args.key)))
    else:
        settings.set(args.key, Settings.parse_value(args.value))
    return 0


def _person_request(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    from .mcp.bridge_client import BridgeClient, BridgeUnavailable

    async def go() -> dict[str, Any]:
        client = BridgeClient(data_dir(), role="person", autostart=False)
        try:
            return await client.request(kind, payload)
        finally:
            await client.close()

    try:
        return asyncio.run(go())
    except (BridgeUnavailable, ConnectionError) as exc:
        # No app (or it went away): a runtime failure (exit 1), not a usage error (exit 2).
        return {"success": False, "error": str(exc)}


def _cmd_approvals(args: argparse.Namespace) -> int:
    if args.approvals_command == "list":
        response = _person_request("approvals.list", {})
    else:
        payload: dict[str, Any] = {"id": args.id, "allow": args.approvals_command == "allow"}
        if getattr(args, "site", False):
            payload["decision"] = "site"
        response = _person_request("approvals.answer", payload)
    if not response.get("success"):
        print(f"vmark: {response.get('error')}", file=sys.stderr)
        return 1
    data = response["data"]
    if args.approvals_command != "list":
        print(json.dumps(data["approval"]))
        return 0
    items = data["approvals"]
    if args.json:
        print(json.dumps(items))
    else:
        for a in items:
            who = a.get("agent") or a["requester"]
            print(f"{a['id']}\t{a['kind']}\t{a['state']}\t{who}\t{a['subject']}\texpires {a['expires']}")
    return 0


def _cmd_comments(args: argparse.Namespace) -> int:
    command = args.comments_command
    if command in ("add", "list"):
        # The canonical path names the document, open in a tab or not; the app resolves links.
        file_path = os.path.abspath(args.file)
        if command == "add":
            payload = {"filePath": file_path, "quote": args.quote, "body": args.body}
            response = _person_request("comments.add", payload)
        else:
            response = _person_request("comments.threads", {"filePath": file_path})
    elif command == "reply":
        response = _person_request("comments.person_reply", {"commentId": args.id, "body": args.body})
    else:
        response = _person_request(f"comments.{command}", {"commentId": args.id})
    if not response.get("success"):
        print(f"vmark: {_error_text(response.get('error'))}", file=sys.stderr)
        return 1
    data = response["data"]
    if command == "add":
        print(json.dumps(data) if args.json else data["comment"])
    elif command == "list":
        if args.json:
            print(json.dumps(data))
        else:
            sys.stdout.write(_threads_text(data["threads"]))
    elif command == "reply":
        print(data["reply"])
    else:
        print(f"{data['comment']}\t{data['state']}")
    return 0


def _error_text(error: Any) -> str:
    """A refusal as one line: ``CODE: message`` for an envelope, the plain string otherwise."""
    parsed = parse_wire_error(str(error))
    if isinstance(parsed, dict):
        message = parsed.get("message")
        return f"{parsed['error']}: {message}" if message else str(parsed["error"])
    return parsed


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
