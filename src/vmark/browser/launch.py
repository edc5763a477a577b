"""How VMark launches Chromium: Debian's ``/usr/bin/chromium`` (never a browser Playwright downloads),
headless, with the flags the product needs, and nothing that weakens the browser.

``--disable-quic`` matters: every context goes through the local proxy of :mod:`.netguard`, and QUIC
would go around it. The sandbox stays on. A machine where Chromium cannot sandbox (root in a container)
names its extra flags in ``VMARK_CHROMIUM_ARGS`` (e.g. ``--no-sandbox``); the app adds them at launch,
and so do the tests, which set it for the machines they run on.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping

CHROMIUM = "/usr/bin/chromium"
#: the product's flags (the tests add theirs: :mod:`vmark.testing.chromium`)
LAUNCH_ARGS = (
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
EXTRA_ARGS_ENV = "VMARK_CHROMIUM_ARGS"


def extra_args_from(environ: Mapping[str, str]) -> list[str]:
    """The machine's extra launch flags (``VMARK_CHROMIUM_ARGS``, split like a shell would)."""
    return shlex.split(environ.get(EXTRA_ARGS_ENV, ""))


def extra_args_from_env() -> list[str]:
    return extra_args_from(os.environ)
