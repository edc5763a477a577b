"""The client configurations ``vmark mcp install`` writes: each must parse, and its vmark entry must
launch a ``vmark`` that exists, with a token the data directory still knows.

A config file that does not parse, a command that is gone, or a token of a removed principal keeps
that client from reaching VMark: needed. So does a token in a file other users may read (they could
act as that principal). An entry that starts another installation's ``vmark`` works but is not this
one (a checkout's venv after a ``pipx install``, say): advisory.

The URL form (``vmark mcp install CLIENT --http --port N``) must name ``http://127.0.0.1:N/mcp`` or
``localhost`` (the server binds loopback only), and its port is probed: ``vmark mcp --http`` there
passes, nothing there is advisory (the client cannot connect until it is started), another program
there is needed (``vmark mcp --http`` cannot listen on that port).
"""

from __future__ import annotations

import json
import os
import shlex
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, parse_qs, urlsplit, urlunsplit

from vmark.doctor import http_port
from vmark.doctor.http_port import Listener, Probe, free_port
from vmark.doctor.report import Check
from vmark.mcp.discovery import read_bridge
from vmark.mcp.http_endpoint import CLIENT_HOSTS, MCP_PATH
from vmark.storage.client_configs import URL_CLIENTS
from vmark.storage.principals import Principals

SERVER_NAME = "vmark"
#: what listens on a port (:func:`vmark.doctor.http_port.probe`)
ProbePort = Callable[[int], Probe]


def check_client(client: str, path: Path, ours: list[str], data_dir: Path, probe: ProbePort = http_port.probe) -> Check:
    """``ours``: the command line this vmark installs (``vmark_command()``); ``data_dir``: the data
    directory the entry's token belongs to when the entry names no ``VMARK_HOME`` of its own;
    ``probe``: what listens on a URL entry's port (:func:`vmark.doctor.http_port.probe`)."""
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
        return _check_url_entry(client, path, entry, data_dir, probe)
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
    exposed = _readable_by_others(name, path, token)
    if exposed is not None:
        return exposed
    if _canonical(launch) != _canonical(ours):
        return Check(
            name,
            False,
            False,
            f"{path}: runs another vmark ({' '.join(launch)}), not this one ({' '.join(ours)})",
            fix,
        )
    return Check(name, True, True, f"{path}: {' '.join(launch)}{_as(principal)}")


def _check_url_entry(client: str, path: Path, entry: dict[str, Any], data_dir: Path, probe: ProbePort) -> Check:
    """The URL form (``vmark mcp --http``): it must name where that server listens, with a principal's
    token (in the query or an ``Authorization`` header) in a file only its owner reads, and the port
    must be free for it or be it. The address is shown without its query: the token stays out of the
    report."""
    name, fix = f"client {client}", f"vmark mcp install {client}"
    url = urlsplit(entry["url"])
    shown = urlunsplit((url.scheme, url.netloc, url.path, "", ""))
    port = _port(url)
    if port is None or url.scheme != "http" or url.hostname not in CLIENT_HOSTS or url.path != MCP_PATH:
        return Check(
            name,
            True,
            False,
            f"{path}: {shown} is not where vmark mcp --http serves (http://127.0.0.1:PORT{MCP_PATH} or "
            "localhost: it listens on loopback only)",
            _url_fix(client, port, fix),
        )
    fix = _url_fix(client, port, fix)
    headers = entry.get("headers")
    bearer = str(headers.get("Authorization", "")) if isinstance(headers, dict) else ""
    token = parse_qs(url.query).get("token", [None])[0] or bearer.removeprefix("Bearer ").strip() or None
    principal = _principal(token, data_dir)
    if principal == "":
        return Check(name, True, False, f"{path}: the token of {shown} is no principal's of {data_dir}", fix)
    exposed = _readable_by_others(name, path, token)
    if exposed is not None:
        return exposed
    server = f"{path}: the HTTP server at {shown}{_as(principal)}"
    found = probe(port)
    if found.listener is Listener.NOTHING:
        return Check(name, False, False, f"{server}: nothing listens on port {port}", f"vmark mcp --http --port {port}")
    if found.listener is Listener.OTHER:
        other = free_port()
        app = read_bridge(data_dir)  # the port copied from the app's address is the likely mix-up
        said = "it is the running vmark app's bridge and UI" if app is not None and app.port == port else found.said
        return Check(
            name,
            True,
            False,
            f"{server}: port {port} is used by another program ({said})",
            f"pick another port: vmark mcp install {client} --http --port {other} && "
            f"vmark mcp --http --port {other} (port {other} is free now)",
        )
    return Check(name, True, True, f"{server}, listening")


def _port(url: SplitResult) -> int | None:
    """The URL's port (http's 80 when it names none), or None when it names no valid one."""
    try:
        return url.port or 80
    except ValueError:
        return None


def _url_fix(client: str, port: int | None, fix: str) -> str:
    """A client that takes a URL gets its URL form written again (``--http`` on the port it names)."""
    return f"{fix} --http --port {port}" if client in URL_CLIENTS and port is not None else fix


def _readable_by_others(name: str, path: Path, token: object) -> Check | None:
    """A config holding a client token must be its owner's alone (``vmark mcp install`` writes 0600):
    anyone who reads the token acts as that principal."""
    if not isinstance(token, str):
        return None
    mode = stat.S_IMODE(path.stat().st_mode)
    if not mode & 0o077:
        return None
    return Check(
        name,
        True,
        False,
        f"{path} (mode {mode:04o}) holds a client token other users may read",
        f"chmod 600 {shlex.quote(str(path))}",
    )


def _as(principal: str | None) -> str:
    return f" as {principal!r}" if principal else ""


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
