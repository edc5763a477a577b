"""The README's quick start, checked in a clone that stands alone (issue 23): ``git clone`` of this checkout's
HEAD into an empty folder (no ``../shared`` beside it), then, without installing anything:

- every ``make TARGET`` the README names is a target of the clone's Makefile; ``make -n run`` plans what the
  README says ``make run`` does (the runtime lock, VMark, the editor page, Chromium's hint, the app on
  ``examples/``) and nothing that only tests need; ``make -n test`` plans the test tooling and every part the
  README lists;
- every ``.venv/bin/vmark ...`` command of the README is one the clone's command line accepts;
- ``vmark app examples`` of the clone, on a free port, serves its page: 503 with "run `make setup`" while the
  editor page is not built (as in a fresh clone), the page and its scripts once it is; its window holds
  ``examples/`` (an agent may open its files);
- pytest collects the clone's whole suite (unit, contract, end-to-end and UI tests), and every test that
  reads a shared corpus is skipped, saying which corpus is missing.

What runs: the clone's Python code (``PYTHONPATH`` is the clone's ``src``; the test checks that ``vmark`` is
imported from there) on this checkout's virtualenv, so no package is installed; the editor page is this
checkout's build of ``frontend/`` linked into the clone (``make test`` builds it first; building it in the
clone would be ``npm ci``'s minutes).
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import shlex
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.e2e.helpers import PYTHON, AppProcess, Home, bridge_client, free_port, request

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = Path(__file__).with_name("corpus_only.py")
STEP_TIMEOUT = 120.0
#: a clone, an app and a run of pytest over the whole suite's collection, on a loaded machine
pytestmark = pytest.mark.timeout(300)


def _run(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=STEP_TIMEOUT, check=False
    )
    assert done.returncode == 0, f"{argv} exited {done.returncode}:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done.stdout


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """This checkout's HEAD cloned into a folder of its own, with nothing beside it."""
    if shutil.which("git") is None or shutil.which("make") is None:
        pytest.skip("git and make are needed to clone the repository and read its Makefile")
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--git-dir"], capture_output=True).returncode != 0:
        pytest.skip(f"{ROOT} is not a git checkout (an unpacked sdist): there is nothing to clone")
    alone = tmp_path / "alone"
    alone.mkdir()
    target = alone / "vmark"
    _run(["git", "clone", "-q", str(ROOT), str(target)], tmp_path)
    head = _run(["git", "rev-parse", "HEAD"], ROOT)
    assert _run(["git", "rev-parse", "HEAD"], target) == head
    assert list(alone.iterdir()) == [target]
    return target


#: what running needs, as ``make -n`` plans it in a fresh clone (``make run`` and ``make test`` alike)
SETUP = (
    "python3 -m venv .venv",
    "pip install -q -r requirements.lock",
    "pip install -q --no-deps -e .",
    "npm ci --prefix frontend",
    "npm run build --prefix frontend",
)


def _readme_code(clone: Path) -> list[str]:
    """The lines of the README's code blocks, comments cut."""
    readme = (clone / "README.md").read_text("utf-8")
    blocks = re.findall(r"^```\w*\n(.*?)^```", readme, re.DOTALL | re.MULTILINE)
    lines = [line.split(" #", 1)[0].strip() for block in blocks for line in block.splitlines()]
    return [line for line in lines if line]


def _make_targets(clone: Path) -> set[str]:
    makefile = (clone / "Makefile").read_text("utf-8")
    return set(re.findall(r"^([A-Za-z][\w.-]*)\s*:(?!=)", makefile, re.MULTILINE))


def _plan(clone: Path, target: str) -> list[str]:
    """What ``make -n TARGET`` would run in the clone, one command a line."""
    # As a person types it: not a sub-make of the `make test` this may run under (which would print
    # "make[1]: Entering directory" lines).
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES")}
    return _run(["make", "--no-print-directory", "-n", target], clone, env).splitlines()


def _env(clone: Path, world: Home) -> dict[str, str]:
    return world.env(PYTHONPATH=str(clone / "src"))


def test_the_readme_commands_are_the_clone_s(clone: Path, world: Home) -> None:
    readme = (clone / "README.md").read_text("utf-8")
    named = set(re.findall(r"`make ([a-z][\w-]*)`|^make ([a-z][\w-]*)$", readme, re.MULTILINE))
    targets = {a or b for a, b in named}
    assert targets >= {"run", "test"}
    assert targets <= _make_targets(clone)

    # make run: the runtime lock, VMark, the page built once, Chromium's hint, then the app on examples/.
    run = _plan(clone, "run")
    text = "\n".join(run)
    for step in (
        *SETUP,
        "apt-get install -y chromium",  # as root
        "run 'sudo apt-get install chromium'",  # otherwise, the one command to run
    ):
        assert step in text, step
    assert run[-1] == ".venv/bin/vmark app examples"
    for only_tests in ("requirements-dev.lock", "tests/conformance", "tools/pagejs", "pytest", "ruff", "mypy"):
        assert only_tests not in text, only_tests

    # make test: that, the test tooling, then lint, types, the page's Node tests and pytest, in that order.
    test = _plan(clone, "test")
    order = [
        *SETUP,
        "pip install -q -r requirements-dev.lock",
        "ruff check",
        ".venv/bin/mypy",
        "lint-imports",
        "npm run typecheck --prefix frontend",
        "npm test --prefix frontend",
        ".venv/bin/pytest",
    ]
    at = [next(n for n, line in enumerate(test) if step in line) for step in order]
    assert at == sorted(at), list(zip(order, at, strict=True))
    assert "vmark app" not in "\n".join(test)

    # Every vmark command of the README is one the clone's command line takes (and it is the clone's vmark).
    commands = [shlex.split(line)[1:] for line in _readme_code(clone) if line.startswith(".venv/bin/vmark ")]
    assert ["app", "~/notes"] in commands and ["mcp", "install", "claude-code"] in commands
    check = (
        "import json, sys, vmark\n"
        "from vmark.cli.main import parser\n"
        "for argv in json.loads(sys.argv[1]):\n"
        "    parser().parse_args(argv)\n"
        "print(vmark.__file__)\n"
    )
    where = _run([PYTHON, "-c", check, json.dumps(commands)], clone, _env(clone, world))
    assert where.strip() == str(clone / "src" / "vmark" / "__init__.py")


def _get(opener: urllib.request.OpenerDirector, url: str) -> tuple[int, str, bytes]:
    try:
        with opener.open(url, timeout=30) as reply:
            return reply.status, reply.headers.get_content_type(), reply.read()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.headers.get_content_type(), refused.read()


async def test_the_clone_s_app_serves_its_page(clone: Path, world: Home) -> None:
    dist = clone / "src" / "vmark" / "ui" / "dist"
    assert not dist.exists(), "a fresh clone has no built page (git ignores it)"
    built = ROOT / "src" / "vmark" / "ui" / "dist"
    assert (built / "index.html").is_file(), "the UI is not built here: run `make setup`"
    app = AppProcess(_env(clone, world), world.data, clone / "examples", free_port())
    try:
        info = await app.aready()
        opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({}), urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )
        status, kind, body = _get(opener, info.ui_url)
        assert (status, kind, body) == (503, "text/plain", b"the UI is not built: run `make setup`\n")

        dist.parent.mkdir(parents=True, exist_ok=True)
        dist.symlink_to(built, target_is_directory=True)
        status, kind, body = _get(opener, f"http://127.0.0.1:{info.port}/")
        assert (status, kind) == (200, "text/html")
        page = body.decode()
        # The built page, with the style nonce of this response (the app's only change to it).
        assert re.sub(r'\n<meta name="vmark-style-nonce" content="[\w-]+">', "", page, count=1) == (
            built / "index.html"
        ).read_text("utf-8")
        scripts = re.findall(r'<script[^>]+src="(/assets/[^"]+\.js)"', page)
        assert scripts, page[:500]
        for script in scripts:
            status, kind, _ = _get(opener, f"http://127.0.0.1:{info.port}{script}")
            assert (status, kind) == (200, "text/javascript"), script

        # examples/ is the window's workspace: its file is in the path scope (with no workspace it is not).
        async with bridge_client(world.data) as agent:
            opened = await request(agent, "workspace", "open", filePath=str(clone / "examples" / "welcome.md"))
            assert opened["success"] is True, opened
            read = await request(agent, "document", "read", tabId=opened["data"]["tabId"])
        assert read["data"]["content"] == (clone / "examples" / "welcome.md").read_text("utf-8")
    finally:
        app.signal(15)
        code = app.wait()
        out, err = app.output()
    assert code == 0, err
    assert f"vmark app serving on http://127.0.0.1:{info.port}" in out


def test_pytest_collects_in_the_clone_and_skips_the_corpus_tests_saying_why(
    clone: Path, world: Home, tmp_path: Path
) -> None:
    assert not (clone.parent / "shared").exists()
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    shutil.copy(PLUGIN, plugins / PLUGIN.name)
    env = _env(clone, world)
    env["PYTHONPATH"] += os.pathsep + str(plugins)
    env.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run(
        # --assert=plain: no test here runs an assert (the kept ones skip), and rewriting every module's asserts
        # would be most of the collection's time
        [PYTHON, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "--assert=plain", "-p", "corpus_only"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=STEP_TIMEOUT,
        check=False,
    )
    out = done.stdout
    assert done.returncode == 0, out[-4000:] + done.stderr[-4000:]

    collected = dict(re.findall(r"^collected (tests/\w+): (\d+)$", out, re.MULTILINE))
    for part in ("tests/unit", "tests/contract", "tests/e2e", "tests/ui"):
        assert int(collected.get(part, 0)) > 0, (part, collected)

    corpora = re.escape(str(clone.parent / "shared" / "corpora"))
    reason = rf"the shared corpus {corpora}/(\w+) is not there \(a clone beside \.\./shared has it\)"
    skips = re.findall(rf"^SKIPPED \[(\d+)\] \S+: {reason}$", out, re.MULTILINE)
    assert {corpus for _, corpus in skips} == {"markdown", "workflows", "actionlint", "readability"}, out[-4000:]
    skipped = sum(int(count) for count, _ in skips)
    summary = out.strip().splitlines()[-1]
    total = sum(int(count) for count in collected.values())
    assert re.fullmatch(rf"{skipped} skipped, {total - skipped} deselected in [\d.]+s( \(.*\))?", summary), summary
