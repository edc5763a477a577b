"""How a command family registers its commands: each command's parser carries the function that runs it.

A family module has ``register(sub)``, which adds its commands to ``vmark``'s subcommands with
:func:`add_command`, and their own subcommands with :func:`handled`; :func:`vmark.cli.main.main` runs
the handler of the innermost command parsed.

Every ``vmark`` process builds every family's parsers, whichever command it runs, so a family module imports at
its top only what registering needs (``argparse``, this module, the names a parser lists as ``choices``) and the
modules a handler works with inside the handler (``tests/unit/test_cli_commands.py`` checks that building the
parser imports none of the heavy ones).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeAlias

#: a command: its parsed arguments in, the process's exit code out
Handler = Callable[[argparse.Namespace], int]
#: ``vmark``'s subcommands, or a command's (what ``add_subparsers`` returns)
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def handled(parser: argparse.ArgumentParser, handler: Handler) -> argparse.ArgumentParser:
    """``parser``, run by ``handler`` (a subcommand's handler wins over its command's)."""
    parser.set_defaults(handler=handler)
    return parser


def add_command(sub: Subcommands, name: str, help: str, handler: Handler | None = None) -> argparse.ArgumentParser:
    """``vmark NAME``, listed in ``vmark --help`` with ``help``; without ``handler``, its subcommands have theirs."""
    parser = sub.add_parser(name, help=help)
    return parser if handler is None else handled(parser, handler)
