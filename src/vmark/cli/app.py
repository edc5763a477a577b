"""``vmark app``, ``vmark stop``, ``vmark url``: the app of this data directory (one at a time)."""

from __future__ import annotations

import argparse
import os

from .commands import Subcommands, add_command
from .output import fail

#: how long ``vmark stop`` waits for the app to let go of the data directory
STOP_SECONDS = 10


def register(sub: Subcommands) -> None:
    app = add_command(sub, "app", "run the app (UI + bridge)", _app)
    app.add_argument("folder", nargs="?", help="workspace folder to open (default: the last one, if it is still there)")
    app.add_argument("--no-reopen", action="store_true", help="without FOLDER: start with no workspace")
    app.add_argument("--headless", action="store_true", help="do not open the UI in a browser")
    app.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    add_command(sub, "stop", "stop the app of this data directory", _stop)
    add_command(sub, "url", "print the UI address of the running app", _url)


def _app(args: argparse.Namespace) -> int:
    import asyncio

    from ..app.server import AlreadyRunning, PortUnavailable, serve_forever
    from ..storage.datadir import data_dir

    if args.folder is not None and not os.path.isdir(args.folder):
        return fail(f"{args.folder!r} is not a folder", 2)
    try:
        reopen = args.folder is None and not args.no_reopen
        serving = serve_forever(data_dir(), args.folder, args.port, open_browser=not args.headless, reopen_last=reopen)
        asyncio.run(serving)
    except (AlreadyRunning, PortUnavailable) as exc:
        return fail(str(exc))
    return 0


def _stop(args: argparse.Namespace) -> int:
    import signal
    import time

    from ..mcp.discovery import lock_is_held, read_bridge
    from ..storage.datadir import data_dir

    directory = data_dir()
    info = read_bridge(directory)
    if info is None:
        return fail("no app is running")
    os.kill(info.pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    while lock_is_held(directory) and time.monotonic() < deadline:
        time.sleep(0.05)
    if lock_is_held(directory):
        return fail(f"the app did not stop within {STOP_SECONDS} s")
    return 0


def _url(args: argparse.Namespace) -> int:
    from ..mcp.discovery import read_bridge
    from ..storage.datadir import data_dir

    info = read_bridge(data_dir())
    if info is None:
        return fail("no app is running")
    if not info.ui_token:
        return fail("the running app serves no UI (it is older than the UI)")
    print(info.ui_url)
    return 0
