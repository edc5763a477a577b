"""How the tests and the benchmarks start a browser: Debian's Chromium, driven by Playwright.

Never a browser downloaded by Playwright (``playwright install`` cannot reach its servers here). The
product's flags are :data:`vmark.browser.launch.LAUNCH_ARGS`; these machines run the tests as root in a
container, where Chromium cannot sandbox, so the tests add :data:`TEST_ARGS` to the browsers they launch
and, through ``VMARK_CHROMIUM_ARGS``, to the app's.
"""

from __future__ import annotations

from vmark.browser.launch import CHROMIUM, EXTRA_ARGS_ENV, LAUNCH_ARGS

#: what the tests add to the product's flags
TEST_ARGS = ["--no-sandbox"]
CHROMIUM_ARGS = [*LAUNCH_ARGS, *TEST_ARGS]

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "EXTRA_ARGS_ENV", "TEST_ARGS"]
