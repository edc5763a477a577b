"""``vmark doctor`` on the URL form of a client configuration (``vmark mcp install CLIENT --http``):
where the URL points, who may read its token, and what listens on its port (real sockets on 127.0.0.1:
a foreign HTTP server, a silent listener, a real ``vmark mcp --http``, a free port)."""

from __future__ import annotations

import asyncio
import http.server
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.helpers import free_port
from tests.http.helpers import http_server
from vmark.app.server import RunningApp
from vmark.cli.main import main
from vmark.doctor import clients, exit_code
from vmark.doctor.clients import check_client
from vmark.doctor.http_port import Listener, Probe, probe
from vmark.storage.client_configs import http_server_entry, server_entry, vmark_command, write_config
from vmark.storage.principals import Principals

OURS = Probe(Listener.OURS)
#: the port the doctor suggests instead of a taken one (its real pick is the system's: a free port)
SUGGESTED = 40999


def _ours(_: int) -> Probe:
    return OURS


def _no_probe(port: int) -> Probe:
    raise AssertionError(f"port {port} probed for a config that names no port of ours")


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return tmp_path / "cfg" / "mcp.json"


@pytest.fixture
def suggested(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(clients, "free_port", lambda: SUGGESTED)
    return SUGGESTED


def _url_config(config: Path, data: Path, port: int, client: str = "cursor", name: str = "") -> None:
    """What ``vmark mcp install CLIENT --http --port PORT`` writes (a fresh principal's token)."""
    token = Principals(data / "principals.json").add(name or f"{client}-http")
    write_config(config, {"mcpServers": {"vmark": http_server_entry(client, token, f"http://127.0.0.1:{port}/mcp")}})


# --- the probe, against real listeners -------------------------------------------------------------
class _Foreign(http.server.BaseHTTPRequestHandler):
    """Another program's HTTP server: 200 to everything, or a 401 with a challenge that is not ours."""

    challenge: str | None = None

    def do_GET(self) -> None:
        self.send_response(401 if self.challenge else 200)
        if self.challenge:
            self.send_header("WWW-Authenticate", self.challenge)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"hi")

    def log_message(self, format: str, *args: object) -> None:
        pass


def _serve(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def foreign() -> Iterator[int]:
    yield from _serve(_Foreign)


@pytest.fixture
def foreign_401() -> Iterator[int]:
    class _Other401(_Foreign):
        challenge = 'Bearer realm="jupyter"'

    yield from _serve(_Other401)


@pytest.fixture
def silent() -> Iterator[int]:
    """A listener that never answers (the kernel accepts the connection into its backlog)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(4)
        yield sock.getsockname()[1]


def test_probe_tells_nothing_ours_and_others_apart(foreign: int, foreign_401: int, silent: int) -> None:
    assert probe(free_port()) == Probe(Listener.NOTHING)
    assert probe(foreign) == Probe(Listener.OTHER, "it answered HTTP 200 to GET /mcp")
    assert probe(foreign_401) == Probe(Listener.OTHER, "it answered HTTP 401 to GET /mcp")  # not our challenge
    assert probe(silent, timeout=0.5) == Probe(Listener.OTHER, "it gave no answer to GET /mcp within 0.5 s")


async def test_a_real_vmark_mcp_http_is_ours_and_its_config_passes(
    vmark: RunningApp, config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VMARK_HOME", raising=False)
    port = free_port()
    async with http_server(vmark.data_dir, "--port", str(port)) as url:
        assert url == f"http://127.0.0.1:{port}/mcp"
        assert await asyncio.to_thread(probe, port) == OURS
        _url_config(config, vmark.data_dir, port)
        result = await asyncio.to_thread(check_client, "cursor", config, vmark_command(), vmark.data_dir)
    assert result.line() == (
        f"✓ client cursor         needed    {config}: the HTTP server at {url} as 'cursor-http', listening"
    )


# --- what listens on the configured port -----------------------------------------------------------
def test_nothing_on_the_port_is_advisory_and_says_to_start_the_server(config: Path, tmp_path: Path) -> None:
    port = free_port()
    _url_config(config, tmp_path, port)
    result = check_client("cursor", config, vmark_command(), tmp_path)
    assert result.line() == (
        f"! client cursor         advisory  {config}: the HTTP server at http://127.0.0.1:{port}/mcp as "
        f"'cursor-http': nothing listens on port {port}; fix: vmark mcp --http --port {port}"
    )
    assert exit_code([result]) == 0


def test_another_program_on_the_port_fails_with_a_free_port_to_move_to(
    config: Path, tmp_path: Path, foreign: int, silent: int, suggested: int
) -> None:
    _url_config(config, tmp_path, foreign, client="claude-code")
    result = check_client("claude-code", config, vmark_command(), tmp_path)
    assert result.line() == (
        f"✗ client claude-code    needed    {config}: the HTTP server at http://127.0.0.1:{foreign}/mcp as "
        f"'claude-code-http': port {foreign} is used by another program (it answered HTTP 200 to GET /mcp); "
        f"fix: pick another port: vmark mcp install claude-code --http --port {suggested} && "
        f"vmark mcp --http --port {suggested} (port {suggested} is free now)"
    )
    assert exit_code([result]) == 1
    said = check_client("claude-code", config, vmark_command(), tmp_path, lambda p: probe(p, timeout=0.5))
    assert said.found.endswith(f"port {foreign} is used by another program (it answered HTTP 200 to GET /mcp)")
    _url_config(config, tmp_path, silent, client="claude-code", name="claude-code-http-2")
    said = check_client("claude-code", config, vmark_command(), tmp_path, lambda p: probe(p, timeout=0.5))
    assert said.found.endswith(f"port {silent} is used by another program (it gave no answer to GET /mcp within 0.5 s)")


def test_the_suggested_port_is_free() -> None:
    port = clients.free_port()
    assert probe(port) == Probe(Listener.NOTHING)


# --- where the URL points --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("url", "fix"),
    [
        ("http://192.168.1.5:8765/mcp", "vmark mcp install cursor --http --port 8765"),
        ("http://vmark.example:8765/mcp", "vmark mcp install cursor --http --port 8765"),
        ("https://127.0.0.1:8765/mcp", "vmark mcp install cursor --http --port 8765"),
        ("http://127.0.0.1:8765/", "vmark mcp install cursor --http --port 8765"),
        ("http://127.0.0.1:99999/mcp", "vmark mcp install cursor"),
    ],
    ids=["lan-address", "other-host", "https", "other-path", "bad-port"],
)
def test_a_url_not_on_loopback_fails_before_any_probe(config: Path, tmp_path: Path, url: str, fix: str) -> None:
    write_config(config, {"mcpServers": {"vmark": {"url": url}}})
    result = check_client("cursor", config, vmark_command(), tmp_path, _no_probe)
    assert result.line() == (
        f"✗ client cursor         needed    {config}: {url} is not where vmark mcp --http serves "
        f"(http://127.0.0.1:PORT/mcp or localhost: it listens on loopback only); fix: {fix}"
    )


def test_localhost_is_loopback_and_its_query_token_stays_out_of_the_line(config: Path, tmp_path: Path) -> None:
    token = Principals(tmp_path / "principals.json").add("jupyter-style")
    write_config(config, {"mcpServers": {"vmark": {"url": f"http://localhost:8765/mcp?token={token}"}}})
    line = check_client("cursor", config, vmark_command(), tmp_path, _ours).line()
    assert line == (
        f"✓ client cursor         needed    {config}: the HTTP server at http://localhost:8765/mcp as "
        "'jupyter-style', listening"
    )
    assert token not in line


def test_a_url_entry_names_its_server_and_its_principal_never_its_token(config: Path, tmp_path: Path) -> None:
    ours = vmark_command()
    write_config(config, {"mcpServers": {"vmark": {"type": "http", "url": "http://127.0.0.1:8765/mcp"}}})
    assert check_client("claude-desktop", config, ours, tmp_path, _ours).line() == (
        f"✓ client claude-desktop needed    {config}: the HTTP server at http://127.0.0.1:8765/mcp, listening"
    )
    token = Principals(tmp_path / "principals.json").add("cursor-http")
    for entry in (
        {"url": f"http://127.0.0.1:8765/mcp?token={token}"},
        {"url": "http://127.0.0.1:8765/mcp", "headers": {"Authorization": f"Bearer {token}"}},
    ):
        write_config(config, {"mcpServers": {"vmark": entry}})
        assert check_client("claude-desktop", config, ours, tmp_path, _ours).line() == (
            f"✓ client claude-desktop needed    {config}: the HTTP server at http://127.0.0.1:8765/mcp as "
            "'cursor-http', listening"
        )
    Principals(tmp_path / "principals.json").remove("cursor-http")
    assert check_client("claude-desktop", config, ours, tmp_path, _no_probe).line() == (
        f"✗ client claude-desktop needed    {config}: the token of http://127.0.0.1:8765/mcp is no principal's of "
        f"{tmp_path}; fix: vmark mcp install claude-desktop"
    )
    # A client that takes a URL is told to write its URL form again, on the port its config names.
    assert (
        check_client("cursor", config, ours, tmp_path, _no_probe)
        .line()
        .endswith("; fix: vmark mcp install cursor --http --port 8765")
    )


# --- who may read the token ------------------------------------------------------------------------
@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604])
def test_a_token_others_may_read_fails_with_the_chmod_that_fixes_it(config: Path, tmp_path: Path, mode: int) -> None:
    _url_config(config, tmp_path, 8765)
    before = config.read_bytes()
    config.chmod(mode)
    assert check_client("cursor", config, vmark_command(), tmp_path, _no_probe).line() == (
        f"✗ client cursor         needed    {config} (mode {mode:04o}) holds a client token other users may read; "
        f"fix: chmod 600 {config}"
    )
    assert (config.read_bytes(), config.stat().st_mode & 0o777) == (before, mode)  # the doctor only looks
    config.chmod(0o600)
    assert check_client("cursor", config, vmark_command(), tmp_path, _ours).ok


def test_the_stdio_form_is_held_to_the_same_mode_and_a_tokenless_url_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VMARK_HOME", raising=False)
    config = tmp_path / "my config" / "mcp.json"
    token = Principals(tmp_path / "principals.json").add("desk")
    write_config(config, {"mcpServers": {"vmark": server_entry("claude-desktop", token)}})
    config.chmod(0o644)
    assert check_client("claude-desktop", config, vmark_command(), tmp_path).line() == (
        f"✗ client claude-desktop needed    {config} (mode 0644) holds a client token other users may read; "
        f"fix: chmod 600 '{config}'"
    )
    write_config(config, {"mcpServers": {"vmark": {"url": "http://127.0.0.1:8765/mcp"}}})
    config.chmod(0o644)
    assert check_client("cursor", config, vmark_command(), tmp_path, _ours).ok  # no token: nothing to read


# --- the command, on what `vmark mcp install cursor --http` wrote -----------------------------------
def test_vmark_doctor_fails_on_a_url_config_whose_port_another_program_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], foreign: int, suggested: int
) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    monkeypatch.setenv("VMARK_HOME", str(data))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    monkeypatch.chdir(tmp_path)
    assert main(["mcp", "install", "cursor", "--http", "--port", str(foreign)]) == 0
    capsys.readouterr()
    assert main(["doctor"]) == 1
    lines = capsys.readouterr().out.splitlines()
    cursor = tmp_path / "home" / ".cursor" / "mcp.json"
    assert lines[-2] == (
        f"✗ client cursor         needed    {cursor}: the HTTP server at http://127.0.0.1:{foreign}/mcp as 'cursor': "
        f"port {foreign} is used by another program (it answered HTTP 200 to GET /mcp); fix: pick another port: "
        f"vmark mcp install cursor --http --port {suggested} && vmark mcp --http --port {suggested} "
        f"(port {suggested} is free now)"
    )
    assert lines[-1].startswith("1 needed check failed (client cursor); ")


async def test_the_running_apps_own_port_in_a_url_config_is_named_as_such(
    vmark: RunningApp, config: Path, suggested: int
) -> None:
    _url_config(config, vmark.data_dir, vmark.port)
    result = await asyncio.to_thread(check_client, "cursor", config, vmark_command(), vmark.data_dir)
    assert result.line() == (
        f"✗ client cursor         needed    {config}: the HTTP server at http://127.0.0.1:{vmark.port}/mcp as "
        f"'cursor-http': port {vmark.port} is used by another program (it is the running vmark app's bridge and "
        f"UI); fix: pick another port: vmark mcp install cursor --http --port {suggested} && "
        f"vmark mcp --http --port {suggested} (port {suggested} is free now)"
    )
