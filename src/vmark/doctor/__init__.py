"""``vmark doctor``: what this machine and data directory lack for VMark, and how to fix each.

The checks, in order (:func:`~vmark.doctor.run.run_checks`): Python, the data directory and its
permissions, a running app (and a stale ``bridge.json``), Chromium for the browser tools,
actionlint, shellcheck, a keyring backend (or the labelled file vault), and each client
configuration ``vmark mcp install`` writes. A *needed* check is one without which ``vmark app`` or
``vmark mcp`` does not work (or a client cannot start it); an *advisory* one limits some tools only
(the browser tools, ``workflow.validate``) or is harmless (a stale ``bridge.json``, which the next app
replaces). ``vmark doctor`` exits 0 exactly when every needed check passes.
"""

from vmark.doctor.report import Check, exit_code, render_json, render_text
from vmark.doctor.run import run_checks

__all__ = ["Check", "exit_code", "render_json", "render_text", "run_checks"]
