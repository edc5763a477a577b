"""How VMark launches Chromium: Debian's ``/usr/bin/chromium`` (never a browser Playwright downloads),
headless, with the flags the product needs, and nothing that weakens the browser.

``--disable-quic`` matters: every context goes through the local proxy of :mod:`.netguard`, and QUIC
would go around it. The sandbox stays on. A machine where Chromium cannot sandbox (root in a container)
names its extra flags in ``VMARK_CHROMIUM_ARGS`` (e.g. ``--no-sandbox``); the app adds them at launch,
and so do the tests, which set it for the machines they run on.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.async_api import Playwright

CHROMIUM = "/usr/bin/chromium"
#: Chromium features the product turns off. Headless Chromium opens a window per browser context, and each
#: window built its address bar's WebUI popups in a renderer of their own: about a quarter of a second of CPU per
#: context (a page of the agents' browser, an export, each UI test), for a popup no one can open.
DISABLED_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup")
#: where the installed Playwright keeps the features it turns off at every launch
_PLAYWRIGHT_LIST = re.compile(r"disabledFeatures = \[(.*?)\]\.filter\(Boolean\)", re.DOTALL)


def playwright_disabled_features() -> tuple[str, ...]:
    """The features the installed Playwright turns off at every launch (read from its driver), or () when its
    driver does not say in a way read here."""
    import playwright  # the driver's files, not its API: launch.py stays importable without starting it

    lib = Path(playwright.__file__).parent / "driver" / "package" / "lib"
    for source in (lib / "coreBundle.js", lib / "server" / "chromium" / "chromiumSwitches.js"):
        try:
            found = _PLAYWRIGHT_LIST.search(source.read_text("utf-8"))
        except OSError:
            continue
        if found:
            return tuple(re.findall(r'"(\w+)"', found.group(1)))
    return ()


def _disable_features_args() -> tuple[str, ...]:
    """One ``--disable-features`` with Playwright's and ours. Chromium keeps only the last such switch, so ours
    must carry Playwright's list (HTTP kept on HTTP, no paint holding, ...); when that list cannot be read, no
    switch at all: Playwright's defaults matter more than the CPU."""
    theirs = playwright_disabled_features()
    return (f"--disable-features={','.join((*theirs, *DISABLED_FEATURES))}",) if theirs else ()


#: the product's flags (the tests add theirs: :mod:`vmark.testing.chromium`); made at the first use (module
#: ``__getattr__``): Playwright's list is read from its 3.6 MB driver bundle, which a process that launches no
#: Chromium (the app until its first browser use, every ``vmark`` command) never reads
LAUNCH_ARGS: tuple[str, ...]


def __getattr__(name: str) -> tuple[str, ...]:
    if name != "LAUNCH_ARGS":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    args = (
        "--headless",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        *_disable_features_args(),
    )
    globals()["LAUNCH_ARGS"] = args
    return args


EXTRA_ARGS_ENV = "VMARK_CHROMIUM_ARGS"


async def start_playwright() -> Playwright:
    """A started Playwright. Its API is imported here, at the first launch (about 130 ms of CPU, on the loop):
    the app, the export and the tests import the rest of :mod:`vmark.browser` without it."""
    from playwright.async_api import async_playwright

    return await async_playwright().start()


def extra_args_from(environ: Mapping[str, str]) -> list[str]:
    """The machine's extra launch flags (``VMARK_CHROMIUM_ARGS``, split like a shell would)."""
    return shlex.split(environ.get(EXTRA_ARGS_ENV, ""))


def extra_args_from_env() -> list[str]:
    return extra_args_from(os.environ)
