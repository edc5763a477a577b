"""The product's Chromium flags are its own: the sandbox stays on unless the machine says otherwise."""

from __future__ import annotations

from pathlib import Path

from vmark.browser.driver import BrowserDriver
from vmark.browser.launch import LAUNCH_ARGS, extra_args_from
from vmark.testing.chromium import CHROMIUM_ARGS, TEST_ARGS


def test_the_product_keeps_the_sandbox_and_stays_behind_its_proxy() -> None:
    assert "--no-sandbox" not in LAUNCH_ARGS
    assert "--disable-quic" in LAUNCH_ARGS  # QUIC would go around the network guard's proxy
    assert [*LAUNCH_ARGS, *TEST_ARGS] == CHROMIUM_ARGS  # the tests add theirs, they do not replace


def test_a_machine_adds_flags_through_the_environment(tmp_path: Path) -> None:
    assert extra_args_from({}) == []
    assert extra_args_from({"VMARK_CHROMIUM_ARGS": "--no-sandbox '--lang=de DE'"}) == ["--no-sandbox", "--lang=de DE"]
    driver = BrowserDriver(tmp_path, allow_private=lambda: False, extra_args=["--no-sandbox"])
    assert driver._args == [*LAUNCH_ARGS, "--no-sandbox"]
    assert BrowserDriver(tmp_path, allow_private=lambda: False)._args == list(LAUNCH_ARGS)
