"""Every check, in the order ``vmark doctor`` prints them, against this machine and data directory."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import keyring

from vmark.browser.launch import CHROMIUM, extra_args_from_env
from vmark.browser.vault import VAULT_FILE, Vault
from vmark.doctor import clients, datadir, machine, running
from vmark.doctor.report import Check
from vmark.export.pandoc import find_pandoc, install_command
from vmark.ghactions.actionlint import find_actionlint
from vmark.storage.atomic import write_text_atomic
from vmark.storage.client_configs import CLIENTS, default_config_path, vmark_command

#: the clients ``vmark mcp install`` writes a file for (``print`` writes none)
CONFIGURED_CLIENTS = tuple(c for c in CLIENTS if c != "print")


def run_checks(directory: Path, chromium: str = CHROMIUM) -> list[Check]:
    """``directory``: the data directory (``vmark.storage.datadir.data_dir()``); ``chromium``: the
    browser the app launches."""
    checks = [
        machine.check_python(),
        datadir.check_data_dir(directory),
        running.check_app(directory),
        machine.check_chromium(chromium, extra_args_from_env()),
        machine.check_actionlint(find_actionlint),
        machine.check_shellcheck(shutil.which),
        machine.check_pandoc(find_pandoc, install_command(sys.executable)),
        machine.check_keyring(Vault(directory, write_text_atomic).store, _backend_name(), directory / VAULT_FILE),
    ]
    ours = vmark_command()
    for client in CONFIGURED_CLIENTS:
        checks.append(clients.check_client(client, default_config_path(client), ours, directory))
    return checks


def _backend_name() -> str:
    try:
        backend = keyring.get_keyring()
    except Exception as exc:  # a broken keyring configuration is what this check reports
        return f"keyring failed: {exc}"
    return str(getattr(backend, "name", type(backend).__name__))
