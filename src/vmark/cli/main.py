"""``vmark``: the parser, built from the command families, and the run of the command chosen.

A new family is a module with ``register(sub)`` (:mod:`.commands`) and its line in :data:`FAMILIES`. Every
``vmark`` process imports every family to build the parser, so a family imports at its top only what its parsers
need; its handlers import the rest when they run (:mod:`.commands`).
"""

from __future__ import annotations

import argparse

from . import (
    app,
    approvals,
    coherence,
    comments,
    delegations,
    doctor,
    export,
    mcp,
    principals,
    review,
    settings,
)
from .bridge import Refused
from .commands import Handler
from .output import error_text, fail

#: every command family, in the order ``vmark --help`` lists their commands
FAMILIES = (app, mcp, principals, doctor, settings, approvals, comments, review, coherence, delegations, export)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="vmark", description="A Markdown workspace shared by you and AI agents")
    sub = p.add_subparsers(dest="command", required=True)
    for family in FAMILIES:
        family.register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except Refused as exc:  # the app said no, or none runs
        return fail(error_text(exc.error))
    except ValueError as exc:  # a name, key, value or folder given wrong (PrincipalError, SettingsError are ones)
        return fail(str(exc), 2)
