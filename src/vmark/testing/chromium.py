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

#: the browser the UI tests show the page in, as a person's browser would: Debian's headless build of the same
#: Chromium (package ``chromium-headless-shell``, the build Playwright itself runs headless tests in). The full
#: ``chromium`` opens a browser window per context, with its tab strip and address bar; a UI test opens one or two
#: contexts, and that window cost about 0.4 s of CPU per page opened, a third of the page's whole cost. The
#: product's own browser (the agents' browser tools, the exports) stays :data:`CHROMIUM`, and so do their tests.
PAGE_CHROMIUM = "/usr/bin/chromium-headless-shell"

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "EXTRA_ARGS_ENV", "PAGE_CHROMIUM", "TEST_ARGS"]
