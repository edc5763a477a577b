"""How the tests and the benchmarks start a browser: Debian's Chromium, driven by Playwright.

Never a browser downloaded by Playwright (``playwright install`` cannot reach its servers here);
these flags are the ones that work headless on this kind of machine.
"""

from __future__ import annotations

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
