"""``vmark mcp install CLIENT``: a new client token, and the client's config naming this vmark with it
(the formats are :mod:`vmark.storage.client_configs`'); ``print`` prints the config instead of writing one.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..storage.client_configs import (
    CLIENTS,
    check_url_client,
    default_config_path,
    http_server_entry,
    merged_config,
    server_entry,
    write_config,
)
from . import stores
from .commands import Subcommands, handled
from .output import fail


def register(mcp_sub: Subcommands) -> None:
    """``install``, a subcommand of ``vmark mcp``."""
    inst = handled(mcp_sub.add_parser("install", help="write a client's MCP config"), _install)
    inst.add_argument("client", choices=list(CLIENTS))
    inst.add_argument("--config", type=Path, help="config file to write (default: the client's own)")
    inst.add_argument("--name", help="principal name for the new client token (default: the client)")
    inst.add_argument("--http", action="store_true", help="the URL form, for `vmark mcp --http --port N`")
    inst.add_argument("--port", type=int, help="with --http: the port `vmark mcp --http` serves on")


def _install(args: argparse.Namespace) -> int:
    if args.http and not args.port:
        return fail("--http needs --port N: the port `vmark mcp --http --port N` will serve on", 2)
    if not args.http and args.port is not None:
        return fail("--port goes with --http", 2)
    path = None if args.client == "print" else args.config or default_config_path(args.client)
    config = merged_config(path, {})  # refuse a broken config before a token is registered
    if args.http:
        check_url_client(args.client)  # before a token is registered (a ValueError: exit 2)
    store = stores.principals()
    name = _free_name(args.name or args.client, {p["name"] for p in store.list()})
    token = store.add(name)
    config["mcpServers"]["vmark"] = (
        http_server_entry(args.client, token, _http_url(args.port)) if args.http else server_entry(args.client, token)
    )
    if path is None:
        print(json.dumps(config, indent=2))
        return 0
    write_config(path, config)
    print(f"wrote the vmark server to {path} (principal {name!r})")
    return 0


def _free_name(base: str, taken: set[str]) -> str:
    """``base``, or the first of ``base-2``, ``base-3``, ... that no principal has."""
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    return name


def _http_url(port: int) -> str:
    from ..mcp.http import url_of

    return url_of(port)
