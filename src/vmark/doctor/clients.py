"""The client configurations ``vmark mcp install`` writes: each must parse, and its vmark entry must
launch a ``vmark`` that exists, with a token the data directory still knows.

A config file that does not parse, a command that is gone, or a token of a removed principal keeps
that client from reaching VMark: needed. An entry that starts another installation's ``vmark`` works
but is not this one (a checkout's venv after a ``pipx install``, say): advisory.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

from vmark.cli_mcp_install import URL_CLIENTS
from vmark.doctor.report import Check
from vmark.storage.principals import Principals

SERVER_NAME = "vmark"


def check_client(client: str, path: Path, ours: list[str], data_dir: Path) -> Check:
    """``ours``: the command line this vmark installs (``vmark_command()``); ``data_dir``: the data
    directory the entry's token belongs to when the entry names no ``VMARK_HOME`` of its own."""
    name = f"client {client}"
    fix = f"vmark mcp install {client}"
    if not path.exists():
        return Check(name, True, True, f"not configured (no {path})")
    try:
        entry = _entry(path)
    except ValueError as exc:
        return Check(name, True, False, str(exc), f"fix or remove {path}, then {fix}")
    if entry is None:
        return Check(name, True, True, f"not configured ({path} has no {SERVER_NAME} server)")
    if not isinstance(entry, dict):
        return Check(name, True, False, f"{path}: mcpServers.{SERVER_NAME} is not an object", fix)
    if "command" not in entry and isinstance(entry.get("url"), str):
        return _check_url_entry(name, path, entry, data_dir, _url_fix(client, entry["url"], fix))
    given = entry.get("env")
    env: dict[str, Any] = given if isinstance(given, dict) else {}
    launch = _launch(entry)
    if launch is None:
        return Check(name, True, False, f"{path}: mcpServers.{SERVER_NAME} has no command line", fix)
    command = launch[0]
    if not os.path.isfile(command):
        return Check(name, True, False, f"{path}: its command {command} does not exist", fix)
    if not os.access(command, os.X_OK):
        return Check(name, True, False, f"{path}: its command {command} is not executable", fix)
    home = Path(env["VMARK_HOME"]) if isinstance(env.get("VMARK_HOME"), str) else data_dir
    token = env.get("VMARK_MCP_TOKEN")
    principal = _principal(token, home)
    if principal == "":
        return Check(name, True, False, f"{path}: its token is no principal's of {home}", fix)
    as_who = f" as {principal!r}" if principal else ""
    if _canonical(launch) != _canonical(ours):
        return Check(
            name,
            False,
            False,
            f"{path}: runs another vmark ({' '.join(launch)}), not this one ({' '.join(ours)})",
            fix,
        )
    return Check(name, True, True, f"{path}: {' '.join(launch)}{as_who}")


def _check_url_entry(name: str, path: Path, entry: dict[str, Any], data_dir: Path, fix: str) -> Check:
    """The URL form (``vmark mcp --http``): its token, in the query or an ``Authorization`` header, must
    be a principal's. The address is shown without its query, so the token stays out of the report."""
    url = urlsplit(entry["url"])
    shown = urlunsplit((url.scheme, url.netloc, url.path, "", ""))
    headers = entry.get("headers")
    bearer = str(headers.get("Authorization", "")) if isinstance(headers, dict) else ""
    token = parse_qs(url.query).get("token", [None])[0] or bearer.removeprefix("Bearer ").strip() or None
    principal = _principal(token, data_dir)
    if principal == "":
        return Check(name, True, False, f"{path}: the token of {shown} is no principal's of {data_dir}", fix)
    as_who = f" as {principal!r}" if principal else ""
    return Check(name, True, True, f"{path}: the HTTP server at {shown}{as_who}")


def _url_fix(client: str, url: str, fix: str) -> str:
    """A client that takes a URL gets its URL form written again (``--http`` on the port it names)."""
    port = urlsplit(url).port
    return f"{fix} --http --port {port}" if client in URL_CLIENTS and port is not None else fix


def _principal(token: object, home: Path) -> str | None:
    """The principal ``token`` names in ``home`` (None: no token given; "": a token nobody holds)."""
    if not isinstance(token, str):
        return None
    return Principals(home / "principals.json").authenticate(token) or ""


def _entry(path: Path) -> Any:
    """The config's ``mcpServers.vmark`` (None when it has none); ValueError when the file is unusable."""
    try:
        config = json.loads(path.read_text("utf-8") or "{}")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} cannot be read ({exc})") from exc
    except ValueError as exc:
        raise ValueError(f"{path} is not valid JSON ({exc})") from exc
    if not isinstance(config, dict):
        raise ValueError(f"{path} does not hold a JSON object")
    servers = config.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise ValueError(f"{path}: mcpServers is not an object")
    return servers.get(SERVER_NAME)


def _launch(entry: dict[str, Any]) -> list[str] | None:
    command, args = entry.get("command"), entry.get("args", [])
    if not isinstance(command, str) or not command or not isinstance(args, list):
        return None
    if not all(isinstance(a, str) for a in args):
        return None
    return [command, *args]


def _canonical(argv: list[str]) -> list[str]:
    return [os.path.realpath(argv[0]), *argv[1:]]
