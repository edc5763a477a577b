"""What the app's start imports: the subsystems an agent or the person may never use load at their first use
(docs/architecture.md), in a fresh interpreter as ``vmark app`` starts."""

from __future__ import annotations

from pathlib import Path

from tests.loaded_modules import loaded, under

#: what the app's server module and its composition root (every service made, nothing started) do not import:
#: the keyring, the browser's page half (the reader's extractor and lxml, a workflow's steps),
#: the export's renderers and front matter parser, the workflow engine, the CJK engine, the person's web browser
FIRST_USE = (
    "keyring",
    "lxml",
    "markdown_it",
    "vmark.browser.extract",
    "vmark.browser.run_steps",
    "vmark.export.browser",
    "vmark.export.frontmatter",
    "vmark.export.pandoc",
    "vmark.ghactions",
    "vmark.text.rules",
    "vmark.text.transform",
    "webbrowser",
)


def test_the_app_starts_without_the_subsystems_of_first_use(tmp_path: Path) -> None:
    code = (
        "import pathlib, vmark.app.server, vmark.browser.launch as launch; from vmark.app.service import App; "
        f"App(pathlib.Path({str(tmp_path)!r})); print('LAUNCH_ARGS' in vars(launch))"
    )
    modules = loaded(code)
    assert modules[0] == "False"  # Chromium's flags (Playwright's bundle read) are made at the first launch
    assert "vmark.app.service" in modules
    assert under(modules, FIRST_USE) == []
    # of Playwright, only the module that defines the error vmark.browser catches: not its API, nor its driver
    assert under(modules, ("playwright",)) == ["playwright", "playwright._impl", "playwright._impl._errors"]


def test_playwright_error_is_the_apis() -> None:
    """What vmark.browser catches is the very class Playwright's API raises."""
    from playwright.async_api import Error

    from vmark.browser.failures import PlaywrightError

    assert PlaywrightError is Error
