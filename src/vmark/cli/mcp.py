"""``vmark mcp``: the MCP server for one AI client, over stdio (the client starts it) or Streamable HTTP
(``--http``: one server on 127.0.0.1 for the clients that connect to a URL); ``vmark mcp install`` is
:mod:`.mcp_install`'s.
"""

from __future__ import annotations

import argparse
import os

from . import mcp_install, stores
from .commands import Subcommands, add_command
from .output import fail


def register(sub: Subcommands) -> None:
    mcp = add_command(sub, "mcp", "run the MCP server (stdio, or Streamable HTTP), or install it into a client", _mcp)
    mcp.add_argument("--http", action="store_true", help="serve MCP Streamable HTTP on 127.0.0.1 (prints the URL)")
    mcp.add_argument("--port", type=int, default=0, help="with --http: the port (default: a free one)")
    mcp_install.register(mcp.add_subparsers(dest="mcp_command"))


def _mcp(args: argparse.Namespace) -> int:
    if args.http:
        return _http(args)
    if args.port:
        return fail("--port goes with --http", 2)
    import asyncio

    from ..mcp.bridge_client import BridgeClient
    from ..storage.datadir import data_dir

    bridge = BridgeClient(data_dir(), os.environ.get("VMARK_MCP_TOKEN") or None)
    bridge.start_early()  # the app boots on the other core while the MCP SDK (over a second) imports
    from ..mcp.server import run_stdio

    asyncio.run(run_stdio(bridge))
    return 0


def _http(args: argparse.Namespace) -> int:
    import asyncio

    from ..mcp.bridge_client import BridgeClient
    from ..storage.datadir import data_dir

    BridgeClient(data_dir()).start_early()  # the app boots while the MCP SDK and uvicorn import
    from ..mcp.http import bind, serve_http

    try:
        sock = bind(args.port)
    except OSError as exc:
        return fail(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror}")
    asyncio.run(serve_http(data_dir(), sock, stores.principals().authenticate))
    return 0
