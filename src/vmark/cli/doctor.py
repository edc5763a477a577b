"""``vmark doctor``: what this machine and data directory lack for VMark (:mod:`vmark.doctor`)."""

from __future__ import annotations

import argparse
import sys

from .commands import Subcommands, add_command


def register(sub: Subcommands) -> None:
    doctor = add_command(sub, "doctor", "check what VMark needs on this machine, and say how to fix it", _doctor)
    doctor.add_argument("--json", action="store_true")


def _doctor(args: argparse.Namespace) -> int:
    from ..doctor import exit_code, render_json, render_text, run_checks
    from ..storage.datadir import data_dir

    checks = run_checks(data_dir())
    sys.stdout.write(render_json(checks) + "\n" if args.json else render_text(checks))
    return exit_code(checks)
