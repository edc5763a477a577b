"""The AI clients' MCP config files, each in its client's own format: where the client keeps it, the entry
that starts this vmark (or, the URL form, names ``vmark mcp --http``'s address), reading and writing it.

``vmark mcp install`` writes them (:mod:`vmark.cli.mcp_install`); ``vmark doctor`` checks them
(:mod:`vmark.doctor.clients`).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from ..protocol.jsontypes import JSONObject

CLIENTS = ("claude-code", "claude-desktop", "cursor", "print")


def vmark_command() -> list[str]:
    """How a client should launch us: the installed ``vmark`` script, else this interpreter."""
    script = shutil.which("vmark")
    if script:
        return [os.path.realpath(script), "mcp"]
    return [sys.executable, "-m", "vmark", "mcp"]


def server_entry(client: str, token: str) -> JSONObject:
    command = vmark_command()
    env = {"VMARK_MCP_TOKEN": token}
    if os.environ.get("VMARK_HOME"):
        env["VMARK_HOME"] = os.environ["VMARK_HOME"]
    entry: JSONObject = {"command": command[0], "args": command[1:], "env": env}
    if client == "claude-code":
        entry = {"type": "stdio", **entry}
    return entry


def default_config_path(client: str) -> Path:
    home = Path.home()
    if client == "claude-code":
        return Path.cwd() / ".mcp.json"
    if client == "cursor":
        return home / ".cursor" / "mcp.json"
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA", home)) / "Claude" / "claude_desktop_config.json"
    return Path(os.environ.get("XDG_CONFIG_HOME", home / ".config")) / "Claude" / "claude_desktop_config.json"


def merged_config(path: Path | None, entry: JSONObject, name: str = "vmark") -> JSONObject:
    config: JSONObject = {}
    if path is not None and path.exists():
        try:
            loaded = json.loads(path.read_text("utf-8") or "{}")
        except ValueError as exc:
            raise ValueError(f"{path} is not valid JSON ({exc}); fix or remove it first") from exc
        if not isinstance(loaded, dict):
            raise ValueError(f"{path} does not hold a JSON object")
        config = loaded
    servers = config.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ValueError(f"{path}: mcpServers is not an object")
    servers[name] = entry
    return config


def write_config(path: Path, config: JSONObject) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    from .atomic import write_text_atomic  # here: every vmark process imports this module (`mcp install`'s choices)

    write_text_atomic(path, json.dumps(config, indent=2) + "\n", 0o600)  # it holds a client token


# --- the URL form (``vmark mcp install CLIENT --http --port N``, for ``vmark mcp --http``) ---
# Clients that take a server URL get it with the token in an ``Authorization`` header (a header stays out
# of logs and history that a URL ends up in); Claude Desktop's config file takes commands only (remote
# servers are added in its settings), so it is refused there and the stdio form is the one to use.

#: the clients whose config file takes a URL, and the ``type`` their entry is marked with (None: unmarked)
URL_CLIENTS: dict[str, str | None] = {"claude-code": "http", "cursor": None, "print": "http"}


def check_url_client(client: str) -> None:
    """A ``ValueError`` for a client whose config file cannot name a URL."""
    if client not in URL_CLIENTS:
        raise ValueError(
            f"{client} takes no server URL in its config file; install it without --http (it starts `vmark mcp`)"
        )


def http_server_entry(client: str, token: str, url: str) -> JSONObject:
    """The config entry for ``client`` (see :func:`check_url_client`)."""
    check_url_client(client)
    kind = URL_CLIENTS[client]
    entry: JSONObject = {"url": url, "headers": {"Authorization": f"Bearer {token}"}}
    return {"type": kind, **entry} if kind is not None else entry
