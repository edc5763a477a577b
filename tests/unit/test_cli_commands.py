"""The command line's parts, in-process: every command's parser carries its family's handler, the shared
output helpers print exact bytes, and a refusal or a wrong value is one ``vmark: ...`` line with its exit code."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.loaded_modules import loaded, under
from vmark.cli import output
from vmark.cli.main import FAMILIES, main, parser

#: every ``vmark`` command, in the order ``vmark --help`` lists them, and the family module that runs it
COMMANDS = {
    "app": "app",
    "stop": "app",
    "url": "app",
    "mcp": "mcp",
    "principals": "principals",
    "doctor": "doctor",
    "settings": "settings",
    "approvals": "approvals",
    "comments": "comments",
    "review": "review",
    "coherence": "coherence",
    "delegations": "delegations",
    "export": "export",
}


def _subcommands(p: argparse.ArgumentParser) -> argparse._SubParsersAction[argparse.ArgumentParser] | None:
    actions = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
    return actions[0] if actions else None


def _runnable(p: argparse.ArgumentParser, path: tuple[str, ...]) -> list[tuple[tuple[str, ...], object]]:
    """Every command that can run (a parser without subcommands, or whose subcommands are optional), with
    its handler."""
    sub = _subcommands(p)
    found = [] if sub is not None and sub.required else [(path, p.get_default("handler"))]
    if sub is not None:
        for name, child in sub.choices.items():
            found += _runnable(child, (*path, name))
    return found


def test_every_command_is_its_familys() -> None:
    top = _subcommands(parser())
    assert top is not None and top.required
    assert list(top.choices) == list(COMMANDS)
    runnable = dict(_runnable(parser(), ()))
    assert set(runnable) >= {("stop",), ("mcp",), ("mcp", "install"), ("review", "reject"), ("coherence", "edges")}
    assert len(runnable) == 37
    family_modules = {f.__name__ for f in FAMILIES}
    for path, handler in runnable.items():
        assert callable(handler), path
        expected = "vmark.cli.mcp_install" if path == ("mcp", "install") else f"vmark.cli.{COMMANDS[path[0]]}"
        assert handler.__module__ == expected, path
        assert expected in family_modules or path == ("mcp", "install")


#: what only a command's handler imports, never the parser every ``vmark`` process builds: the settings' keys (the
#: CJK rules' regular expressions), the coherence kernel, the app, the MCP SDK, Chromium's driver and flags, asyncio
HANDLERS_ONLY = (
    "asyncio",
    "markdown_it",
    "mcp",
    "mcp_types",
    "playwright",
    "websockets",
    "vmark.app",
    "vmark.browser",
    "vmark.coherence",
    "vmark.doctor",
    "vmark.export.run",
    "vmark.mcp",
    "vmark.protocol.wire_types",
    "vmark.settings_keys",
    "vmark.storage.datadir",
    "vmark.storage.settings",
    "vmark.text",
)


#: what knowing every setting's key (``vmark settings``, every ``vmark coherence`` command) does not import: the CJK
#: engine (Markdown parsing, the rules' regular expressions), the coherence checker's HTTP client
ENGINES = ("markdown_it", "urllib.request", "vmark.text.rules", "vmark.text.transform")


def test_building_the_parser_imports_no_handlers_modules() -> None:
    assert under(loaded("from vmark.cli.main import parser; parser()"), HANDLERS_ONLY) == []


def test_the_settings_keys_import_no_engine() -> None:
    modules = loaded("import vmark.settings_keys")
    assert "vmark.text.cjk" in modules
    assert under(modules, ENGINES) == []


def test_print_table_and_listing(capsys: pytest.CaptureFixture[str]) -> None:
    output.print_table([("a", 1, None), ("b c", "", "d")])
    assert capsys.readouterr().out == "a\t1\tNone\nb c\t\td\n"
    output.print_table([])
    assert capsys.readouterr().out == ""

    def rows() -> Iterator[tuple[str]]:
        raise AssertionError("rows are made only for the table")
        yield ("never",)

    output.print_listing(True, [{"x": "é"}], rows())
    assert capsys.readouterr().out == '[{"x": "\\u00e9"}]\n'
    output.print_listing(False, [{"x": 1}], (("row", r["x"]) for r in [{"x": 1}]))
    assert capsys.readouterr().out == "row\t1\n"
    output.print_json({"x": "é"}, ensure_ascii=False)
    assert capsys.readouterr().out == '{"x": "é"}\n'


def test_error_text_and_fail(capsys: pytest.CaptureFixture[str]) -> None:
    assert output.error_text('{"error": "STALE", "message": "the document changed"}') == "STALE: the document changed"
    assert output.error_text('{"error": "NOT_FOUND"}') == "NOT_FOUND"
    assert output.error_text("no pending approval 'apr-1'") == "no pending approval 'apr-1'"
    assert output.error_text('{"not": "an envelope"}') == '{"not": "an envelope"}'
    assert output.fail("no app is running") == 1
    assert output.fail("--port goes with --http", 2) == 2
    assert capsys.readouterr() == ("", "vmark: no app is running\nvmark: --port goes with --http\n")


def test_refusals_and_usage_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("VMARK_HOME", str(home))
    # No app: the person's request is refused (exit 1), and nothing is written.
    assert main(["approvals", "list"]) == 1
    assert capsys.readouterr() == ("", f"vmark: no VMark app is running for {home}\n")
    # A wrong value: a usage error (exit 2) from the store, and the settings file is not made.
    assert main(["settings", "set", "review_backlog_limit", '"many"']) == 2
    said = capsys.readouterr()
    assert said.out == "" and said.err.startswith("vmark: setting 'review_backlog_limit' ")
    assert not (home / "settings.json").exists()
    # A handler's own usage error, before anything is asked.
    assert main(["review", "accept", str(tmp_path / "a.md")]) == 2
    assert capsys.readouterr() == ("", "vmark: give CHANGE_ID... or --all (not both)\n")
    # A result: JSON on stdout.
    assert main(["principals", "add", "claude", "--json"]) == 0
    added = json.loads(capsys.readouterr().out)
    assert added["name"] == "claude" and len(added["token"]) == 64
    assert main(["principals", "list"]) == 0
    assert capsys.readouterr() == ("claude\n", "")
