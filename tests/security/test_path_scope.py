"""Path-scope attack suite: every escape answers exactly ``INVALID_PATH`` and touches nothing.

Each attack goes through the official MCP client (``workspace.open`` and
``workspace.save_as`` with auto-approve on, so the scope is the only barrier) and
checks the envelope, that no tab or document appeared, and that the whole test tree
(outside sentinels, prefix-collision siblings, the workspace itself) kept its exact
bytes, links and entries. Races between check and use are driven precisely: through
``vmark.storage`` directly, and in the app by acting right before a queued save takes
its turn. The attack lists share one app; every attack gets its own window and tree.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import WORKSPACE_FILES, fail_code, make_client, ok
from tests.security.helpers import Tree, snapshot, tree_diff, write_files
from vmark.app.server import RunningApp
from vmark.storage.files import read_document, save_new, save_replace
from vmark.storage.pathscope import PathScope, ScopeError, is_within
from vmark.testing.uiclient import UIClient

SECRET = b"TOP SECRET: outside the workspace\n"
AGENT_TEXT = "written by the agent\n"
NFC_DIR, NFD_DIR = "caf\u00e9", "cafe\u0301"
SKIP = frozenset({"data"})

#: Files outside the workspace (relative to the test's tmp_path). None of them may change.
OUTSIDE_FILES = {
    "outside/secret.md": SECRET,
    "outside/a.md": b"outside a (the cwd holds this)\n",
    "outside/notes/c.md": b"outside notes/c\n",
    "outside/deep/doc.md": b"outside deep/doc\n",
    "ws-evil/a.md": b"ws-evil a\n",
    "ws2/a.md": b"ws2 a\n",
    "ws.bak/a.md": b"ws.bak a\n",
    "WS/a.md": b"upper-case WS a\n",
    "home/x.md": b"home x (HOME points here)\n",
    "other/x.md": b"the workspace of window doc-1\n",
    f"{NFC_DIR}/inside.md": b"nfc workspace file\n",
    f"{NFC_DIR}/secret.md": b"nfc secret\n",
    f"{NFD_DIR}/secret.md": b"nfd secret\n",
    f"{NFD_DIR}/inside.md": b"nfd workspace file\n",
}


# --- the world every attack runs in ------------------------------------------------------------
@dataclass
class World:
    tmp: Path
    ws: Path
    app: RunningApp
    page: UIClient
    agent: Client
    window: str
    fds: list[int] = field(default_factory=list)

    @property
    def outside(self) -> Path:
        return self.tmp / "outside"

    def at(self, rel: str) -> str:
        """A path spelled inside the workspace (``rel`` may hold ``..`` or odd characters)."""
        return f"{self.ws}/{rel}"

    def out(self, name: str = "secret.md") -> str:
        return str(self.outside / name)

    def link(self, rel: str, target: str | Path) -> str:
        os.symlink(target, self.ws / rel)
        return self.at(rel)

    def chain(self, names: list[str], target: str | Path) -> str:
        """``names[0] -> names[1] -> ... -> target``, all inside the workspace; the first one's path."""
        for name, nxt in zip(names, [*names[1:], None], strict=True):
            self.link(name, target if nxt is None else self.ws / nxt)
        return self.at(names[0])

    def hardlink(self, rel: str, target: Path) -> str:
        os.link(target, self.ws / rel)
        return self.at(rel)

    def fifo(self, rel: str) -> str:
        os.mkfifo(self.ws / rel)
        return self.at(rel)

    def mkdir(self, rel: str) -> str:
        (self.ws / rel).mkdir(parents=True)
        return self.at(rel)

    def proc_fd(self, target: str) -> str:
        """``/proc/self/fd/N`` for a descriptor this process holds on ``target``."""
        fd = os.open(target, os.O_RDONLY)
        self.fds.append(fd)
        return f"/proc/self/fd/{fd}"

    async def workspace(self, folder: str) -> None:
        """The person opens ``tmp/folder`` as a second workspace of this world's window."""
        await self.page.call("ui.open_folder", path=str(self.tmp / folder))

    def tab_ids(self) -> set[str]:
        return {tab.id for _, tab in self.app.app.session.tabs()}

    def doc_keys(self) -> set[str]:
        return set(self.app.app.session.docs)

    def tree(self) -> Tree:
        return snapshot(self.tmp, SKIP)

    def close_fds(self) -> None:
        while self.fds:
            os.close(self.fds.pop())


def prepare(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The workspace files and everything outside; cwd and HOME point outside."""
    write_files(tmp / "ws", {name: text.encode("utf-8") for name, text in WORKSPACE_FILES.items()})
    write_files(tmp, OUTSIDE_FILES)
    # Relative paths and ~ would land in these if anything expanded them.
    monkeypatch.chdir(tmp / "outside")
    monkeypatch.setenv("HOME", str(tmp / "home"))
    return tmp / "ws"


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Shared:
    app: RunningApp
    agent: Client


@pytest.fixture(scope="module")
async def shared(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Shared]:
    """One app for the attack lists; every attack gets its own window, workspace and tree."""
    data = tmp_path_factory.mktemp("data")
    running = RunningApp(data, test_hooks=True)
    await running.start()
    running.app.settings.set("auto_approve_save_as", True)
    try:
        async with UIClient(data) as main_page, make_client(data) as agent:
            await main_page.attach("main")  # so that each attack's page gets a window of its own
            yield Shared(running, agent)
    finally:
        await running.stop()


@pytest.fixture
async def world(shared: Shared, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[World]:
    ws = prepare(tmp_path, monkeypatch)
    async with UIClient(shared.app.data_dir) as page:
        window = await page.attach()
        await page.call("ui.open_folder", path=str(ws))
        w = World(tmp_path, ws, shared.app, page, shared.agent, window)
        try:
            yield w
        finally:
            w.close_fds()


def world_in_main(
    tmp: Path, vmark: RunningApp, person: UIClient, agent: Client, monkeypatch: pytest.MonkeyPatch
) -> World:
    """A world on the conftest fixtures: ``opened`` already made ``tmp/ws`` the workspace of ``main``."""
    ws = prepare(tmp, monkeypatch)
    vmark.app.settings.set("auto_approve_save_as", True)
    return World(tmp, ws, vmark, person, agent, "main")


PathFn = Callable[[World], "str | Awaitable[str]"]


@dataclass(frozen=True)
class Attack:
    name: str
    path: PathFn


async def attack_path(w: World, attack: Attack) -> str:
    value = attack.path(w)
    return await value if inspect.isawaitable(value) else value


async def nfd_workspace(w: World, workspace: str, target: str) -> str:
    """The workspace is one Unicode form of ``café``; the path uses the other form."""
    await w.workspace(workspace)
    return str(w.tmp / target)


def long_component(w: World) -> str:
    return w.at("a" * 300 + ".md")


def long_path(w: World) -> str:
    return w.at("d/" * 2100 + "x.md")


# --- the attacks -------------------------------------------------------------------------------
OPEN_ATTACKS = [
    Attack("dotdot", lambda w: w.at("../outside/secret.md")),
    Attack("dotdot-from-subdir", lambda w: w.at("notes/../../outside/secret.md")),
    Attack("dotdot-past-root", lambda w: w.at("../" * 40 + w.out().lstrip("/"))),
    Attack("dotdot-through-missing-dir", lambda w: w.at("missing/../../outside/secret.md")),
    Attack("dotdot-into-prefix-sibling", lambda w: w.at("notes/../../ws-evil/a.md")),
    Attack("percent-encoded-dotdot-is-literal", lambda w: w.at("%2e%2e/outside/secret.md")),
    Attack("percent-encoded-slash-is-literal", lambda w: w.at("..%2foutside%2fsecret.md")),
    Attack("backslashes-are-literal", lambda w: w.at("..\\outside\\secret.md")),
    Attack("absolute-outside", lambda w: w.out()),
    Attack("absolute-system-file", lambda w: "/etc/passwd"),
    Attack("prefix-collision-ws-evil", lambda w: str(w.tmp / "ws-evil" / "a.md")),
    Attack("prefix-collision-ws2", lambda w: str(w.tmp / "ws2" / "a.md")),
    Attack("prefix-collision-ws.bak", lambda w: str(w.tmp / "ws.bak" / "a.md")),
    Attack("case-variant-of-workspace", lambda w: str(w.tmp / "WS" / "a.md")),
    Attack("symlink-file-to-outside", lambda w: w.link("leak.md", w.out())),
    Attack("symlink-dir-to-outside", lambda w: w.link("outdir", w.outside) + "/secret.md"),
    Attack("symlink-to-filesystem-root", lambda w: w.link("root", "/") + w.out()),
    Attack("symlink-chain-file", lambda w: w.chain(["c1.md", "c2.md", "c3.md"], w.out())),
    Attack("symlink-chain-dir", lambda w: w.chain(["d1", "d2"], w.outside) + "/secret.md"),
    Attack("relative-symlink-escape", lambda w: w.link("rel.md", "../outside/secret.md")),
    Attack("relative-symlink-dir-escape", lambda w: w.link("notes/up", "../../outside") + "/secret.md"),
    Attack("symlink-loop-file", lambda w: w.chain(["loop1.md", "loop2.md"], w.ws / "loop1.md")),
    Attack("symlink-loop-dir", lambda w: w.chain(["loopdir1", "loopdir2"], w.ws / "loopdir1") + "/a.md"),
    Attack("self-symlink", lambda w: w.link("self.md", "self.md")),
    Attack("hard-link-to-outside", lambda w: w.hardlink("hard.md", w.outside / "secret.md")),
    Attack("null-byte-truncation", lambda w: w.at("a.md\x00/../../outside/secret.md")),
    Attack("null-byte-suffix", lambda w: w.out() + "\x00.md"),
    Attack("empty-string", lambda w: ""),
    Attack("relative-name", lambda w: "a.md"),
    Attack("relative-dot", lambda w: "./a.md"),
    Attack("relative-dotdot", lambda w: "../outside/secret.md"),
    Attack("tilde", lambda w: "~"),
    Attack("tilde-file", lambda w: "~/x.md"),
    Attack("tilde-user", lambda w: "~root/x.md"),
    Attack("fullwidth-solidus", lambda w: w.at("..\uff0foutside\uff0fsecret.md")),
    Attack("one-dot-leader", lambda w: w.at("\u2024\u2024/outside/secret.md")),
    Attack("two-dot-leader", lambda w: w.at("\u2025/outside/secret.md")),
    Attack("nfd-variant-of-nfc-workspace", lambda w: nfd_workspace(w, NFC_DIR, f"{NFD_DIR}/secret.md")),
    Attack("nfc-variant-of-nfd-workspace", lambda w: nfd_workspace(w, NFD_DIR, f"{NFC_DIR}/secret.md")),
    Attack("proc-self-root", lambda w: "/proc/self/root" + w.out()),
    Attack("proc-self-root-dotdot", lambda w: f"/proc/self/root{w.ws}/../outside/secret.md"),
    Attack("proc-self-cwd", lambda w: "/proc/self/cwd/a.md"),
    Attack("proc-self-fd", lambda w: w.proc_fd(w.out())),
    Attack("proc-pid-root", lambda w: f"/proc/{os.getpid()}/root" + w.out()),
    Attack("dev-stdin", lambda w: "/dev/stdin"),
    Attack("symlink-to-dev-stdin", lambda w: w.link("stdin.md", "/dev/stdin")),
    Attack("fifo-in-workspace", lambda w: w.fifo("pipe.md")),
    Attack("directory-as-file", lambda w: w.mkdir("folder.md")),
    Attack("workspace-root-as-file", lambda w: str(w.ws)),
    Attack("long-component", long_component),
    Attack("long-path", long_path),
    Attack("trailing-slash-outside", lambda w: w.out() + "/"),
    Attack("trailing-slash-dotdot", lambda w: w.at("../outside/secret.md//")),
    Attack("double-slashes", lambda w: w.at("/..//outside//secret.md")),
    Attack("leading-double-slash", lambda w: "/" + w.at("../outside/secret.md")),
    Attack("dot-segments", lambda w: w.at("./.././outside/./secret.md")),
]

SAVE_AS_ATTACKS = [
    Attack("into-outside-dir", lambda w: w.out("new.md")),
    Attack("dotdot", lambda w: w.at("../outside/new.md")),
    Attack("dotdot-into-prefix-sibling", lambda w: w.at("../ws-evil/new.md")),
    Attack("prefix-collision-ws-evil", lambda w: str(w.tmp / "ws-evil" / "new.md")),
    Attack("prefix-collision-ws2", lambda w: str(w.tmp / "ws2" / "new.md")),
    Attack("prefix-collision-ws.bak", lambda w: str(w.tmp / "ws.bak" / "new.md")),
    Attack("case-variant-of-workspace", lambda w: str(w.tmp / "WS" / "new.md")),
    Attack("through-symlinked-dir", lambda w: w.link("outdir", w.outside) + "/new.md"),
    Attack("through-relative-symlinked-dir", lambda w: w.link("notes/up", "../../outside") + "/new.md"),
    Attack("through-symlink-chain-dir", lambda w: w.chain(["d1", "d2"], w.outside) + "/new.md"),
    Attack("onto-symlink-to-outside-file", lambda w: w.link("leak.md", w.out())),
    Attack("onto-dangling-symlink-to-outside", lambda w: w.link("dangle.md", w.out("new.md"))),
    Attack("onto-symlink-chain-to-outside", lambda w: w.chain(["c1.md", "c2.md"], w.out("new.md"))),
    Attack("onto-symlink-loop", lambda w: w.chain(["loop1.md", "loop2.md"], w.ws / "loop1.md")),
    Attack("into-symlink-loop-dir", lambda w: w.chain(["loopdir1", "loopdir2"], w.ws / "loopdir1") + "/new.md"),
    Attack("into-missing-dir", lambda w: w.at("missing/new.md")),
    Attack("proc-self-root", lambda w: "/proc/self/root" + w.out("new.md")),
    Attack("proc-self-cwd", lambda w: "/proc/self/cwd/new.md"),
    Attack("relative-name", lambda w: "new.md"),
    Attack("relative-dot", lambda w: "./new.md"),
    Attack("tilde-file", lambda w: "~/new.md"),
    Attack("null-byte", lambda w: w.at("new.md\x00")),
    Attack("null-byte-truncation", lambda w: w.out("new.md\x00") + w.at("x.md")),
    Attack("empty-string", lambda w: ""),
    Attack("nfd-variant-of-nfc-workspace", lambda w: nfd_workspace(w, NFC_DIR, f"{NFD_DIR}/new.md")),
    Attack("long-component", long_component),
    Attack("long-path", long_path),
    Attack("trailing-slash", lambda w: w.out("new.md") + "/"),
    Attack("double-slashes", lambda w: w.at("/..//outside//new.md")),
]


def _ids(attacks: list[Attack]) -> list[str]:
    names = [a.name for a in attacks]
    assert len(set(names)) == len(names), "attack names must be distinct"
    return names


def test_the_suite_is_big_enough() -> None:
    assert len(set(_ids(OPEN_ATTACKS))) + len(set(_ids(SAVE_AS_ATTACKS))) >= 40


# --- running an attack ---------------------------------------------------------------------------
async def untitled_with_text(w: World) -> str:
    tab = str((await ok(w.agent, "workspace", "new", windowLabel=w.window))["tabId"])
    out = await ok(w.agent, "document", "write", tabId=tab, content=AGENT_TEXT)
    assert out["saved"] is False and out["save_skipped"] == "untitled"
    return tab


async def assert_refused(w: World, action: str, path: str, **args: Any) -> dict[str, Any]:
    """``action`` on ``path`` answers exactly INVALID_PATH and nothing on disk or in the session moved."""
    before, tabs, docs = w.tree(), w.tab_ids(), w.doc_keys()
    envelope = await fail_code(w.agent, "workspace", action, filePath=path, **args)
    assert set(envelope) == {"error", "message", "filePath"}, envelope
    assert envelope["error"] == "INVALID_PATH"
    assert isinstance(envelope["message"], str) and envelope["message"]
    assert tree_diff(before, w.tree()) == []
    assert (w.outside / "secret.md").read_bytes() == SECRET
    assert w.tab_ids() == tabs and w.doc_keys() == docs
    return envelope


@pytest.mark.parametrize("attack", OPEN_ATTACKS, ids=_ids(OPEN_ATTACKS))
async def test_open_attack_is_invalid_path(world: World, attack: Attack) -> None:
    path = await attack_path(world, attack)
    envelope = await assert_refused(world, "open", path, windowLabel=world.window)
    assert envelope["filePath"] == path


@pytest.mark.parametrize("attack", SAVE_AS_ATTACKS, ids=_ids(SAVE_AS_ATTACKS))
async def test_save_as_attack_is_invalid_path(world: World, attack: Attack) -> None:
    tab = await untitled_with_text(world)
    path = await attack_path(world, attack)
    envelope = await assert_refused(world, "save_as", path, tabId=tab)
    assert envelope["filePath"] == path
    state = await ok(world.agent, "document", "read", tabId=tab)
    assert state["filePath"] is None and state["content"] == AGENT_TEXT


async def test_attacks_on_both_protocol_versions(
    vmark: RunningApp, person: UIClient, opened: Path, mcp: Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scope does not depend on the client's protocol: a sample through the ``mcp`` fixture."""
    w = world_in_main(tmp_path, vmark, person, mcp, monkeypatch)
    sample = {"dotdot", "symlink-file-to-outside", "proc-self-root", "prefix-collision-ws-evil"}
    for attack in (a for a in OPEN_ATTACKS if a.name in sample):
        await assert_refused(w, "open", await attack_path(w, attack), windowLabel="main")
    await assert_refused(w, "save_as", w.out("new.md"), tabId=await untitled_with_text(w))


async def test_scope_is_per_window(
    vmark: RunningApp, person: UIClient, opened: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A path inside window ``doc-1``'s workspace is outside the scope of window ``main``."""
    async with make_client(vmark.data_dir) as agent, UIClient(vmark.data_dir) as page:
        w = world_in_main(tmp_path, vmark, person, agent, monkeypatch)
        assert await page.attach() == "doc-1"
        await page.call("ui.open_folder", path=str(tmp_path / "other"))
        await assert_refused(w, "open", str(tmp_path / "other" / "x.md"), windowLabel="main")
        await assert_refused(w, "save_as", str(tmp_path / "other" / "new.md"), tabId=await untitled_with_text(w))
        # Positive control: the same path is in scope in the window that opened it.
        tab = await open_tab(w, str(tmp_path / "other" / "x.md"), "doc-1")
        assert await tab_path(w, tab) == str(tmp_path / "other" / "x.md")


# --- positive controls: the same machinery lets legitimate paths through ---------------------------
async def open_tab(w: World, path: str, window: str | None = None) -> str:
    return str((await ok(w.agent, "workspace", "open", filePath=path, windowLabel=window or w.window))["tabId"])


async def tab_path(w: World, tab: str) -> str | None:
    value = (await ok(w.agent, "document", "read", tabId=tab))["filePath"]
    return None if value is None else str(value)


@pytest.mark.parametrize(
    ("spelled", "real"),
    [
        ("a.md", "a.md"),
        ("notes/../a.md", "a.md"),
        ("/notes//./c.md", "notes/c.md"),
        (".github/workflows/ci.yml", ".github/workflows/ci.yml"),
    ],
)
async def test_open_in_scope_is_allowed(world: World, spelled: str, real: str) -> None:
    before = world.tree()
    tab = await open_tab(world, world.at(spelled))
    doc = await ok(world.agent, "document", "read", tabId=tab)
    assert doc["filePath"] == str(world.ws / real)
    assert doc["content"].encode() == (world.ws / real).read_bytes()
    assert tree_diff(before, world.tree()) == []


async def test_open_through_symlink_inside_the_workspace_is_allowed(world: World) -> None:
    world.chain(["alias.md", "notes/alias2.md"], world.ws / "b.md")
    tab = await open_tab(world, world.at("alias.md"))
    assert await tab_path(world, tab) == str(world.ws / "b.md")


async def test_save_as_in_scope_writes_exactly_there(world: World) -> None:
    tab = await untitled_with_text(world)
    before = world.tree()
    out = await ok(world.agent, "workspace", "save_as", tabId=tab, filePath=world.at("notes/new.md"))
    assert set(out) == {"revision", "journaled"}
    assert (world.ws / "notes" / "new.md").read_bytes() == AGENT_TEXT.encode()
    assert tree_diff(before, world.tree()) == ["+ ws/notes/new.md"]
    assert await tab_path(world, tab) == str(world.ws / "notes" / "new.md")


@pytest.mark.parametrize("name", ["..\uff0fevil.md", "\u2025\uff0fevil.md", "\u2024\u2024\uff0fevil.md", "%2e%2e.md"])
async def test_save_as_look_alike_name_is_a_literal_name_inside(world: World, name: str) -> None:
    """Look-alikes are ordinary characters: the file lands in the workspace under that very name."""
    tab = await untitled_with_text(world)
    before = world.tree()
    await ok(world.agent, "workspace", "save_as", tabId=tab, filePath=world.at(name))
    assert (world.ws / name).read_bytes() == AGENT_TEXT.encode()
    assert tree_diff(before, world.tree()) == [f"+ ws/{name}"]


async def test_nfc_workspace_file_is_allowed_in_its_own_form(world: World) -> None:
    await world.workspace(NFC_DIR)
    path = str(world.tmp / NFC_DIR / "inside.md")
    tab = await open_tab(world, path)
    assert await tab_path(world, tab) == path


# --- no workspace, no document: no scope ---------------------------------------------------------
async def test_without_workspace_or_document_every_file_op_is_invalid_path(
    vmark: RunningApp, person: UIClient, workspace: Path, tmp_path: Path
) -> None:
    vmark.app.settings.set("auto_approve_save_as", True)
    before = snapshot(tmp_path, SKIP)
    async with make_client(vmark.data_dir) as agent:
        for path in (workspace / "a.md", workspace, Path("/"), Path("/etc/passwd")):
            envelope = await fail_code(agent, "workspace", "open", filePath=str(path))
            assert envelope["error"] == "INVALID_PATH"
        tab = str((await ok(agent, "workspace", "new"))["tabId"])
        for target in (workspace / "new.md", workspace / "a.md", tmp_path / "new.md"):
            envelope = await fail_code(agent, "workspace", "save_as", tabId=tab, filePath=str(target))
            assert envelope["error"] == "INVALID_PATH"
        assert (await fail_code(agent, "workspace", "save", tabId=tab))["error"] == "INVALID_PATH"
        assert (await fail_code(agent, "workspace", "save"))["error"] == "INVALID_PATH"
        assert snapshot(tmp_path, SKIP) == before
        # One document opened by the person makes its directory (and nothing above it) the scope.
        (workspace / "notes" / "d.md").write_text("# D\n", "utf-8")
        await person.call("ui.open", path=str(workspace / "notes" / "c.md"))
        await ok(agent, "workspace", "open", filePath=str(workspace / "notes" / "d.md"), windowLabel="main")
        envelope = await fail_code(agent, "workspace", "open", filePath=str(workspace / "a.md"), windowLabel="main")
        assert envelope["error"] == "INVALID_PATH"


# --- a directory swapped after the scope was set up -------------------------------------------------
def swap_for_link(path: Path, target: Path) -> Path:
    """Move ``path`` aside and put a symlink to ``target`` in its place; where the original went."""
    aside = path.with_name(path.name + ".moved")
    os.rename(path, aside)
    os.symlink(target, path)
    return aside


def swap_dir_of(path: Path, target: Path) -> Callable[[], None]:
    def attack() -> None:
        swap_for_link(path, target)

    return attack


async def test_open_document_dir_swapped_for_symlink_does_not_widen_the_scope(world: World) -> None:
    """The scope is the directories as opened: a later swap must not carry it outside."""
    tab = await open_tab(world, world.at("notes/c.md"))
    swap_for_link(world.ws / "notes", world.outside / "notes")
    for path in (world.out("notes/c.md"), world.out("secret.md"), world.at("notes/c.md")):
        await assert_refused(world, "open", path, windowLabel=world.window)
    await assert_refused(world, "save_as", world.out("notes/new.md"), tabId=tab)


async def test_external_change_check_does_not_follow_a_swapped_dir(world: World) -> None:
    """A clean tab reloads changed files, but never from a directory that now points outside."""
    tab = await open_tab(world, world.at("notes/c.md"))
    swap_for_link(world.ws / "notes", world.outside / "notes")
    await world.app.app.disk.check()  # what the background poll runs
    doc = await ok(world.agent, "document", "read", tabId=tab)
    assert doc["content"] == "# C\n"


# --- the queued save re-checks the scope when its turn comes ----------------------------------------
async def refused_when_queued(
    w: World, monkeypatch: pytest.MonkeyPatch, attack: Callable[[], None], action: str, **args: Any
) -> None:
    """Run ``attack`` after the request's own checks, right before the save takes its turn."""
    queue = w.app.app.saves
    original = queue.run
    pictures: list[Tree] = []

    async def run(real_path: str, ticket: int, save: Callable[[], Awaitable[Any]]) -> Any:
        attack()
        pictures.append(w.tree())
        return await original(real_path, ticket, save)

    monkeypatch.setattr(queue, "run", run)
    envelope = await fail_code(w.agent, "workspace", action, **args)
    assert envelope["error"] == "INVALID_PATH", envelope
    assert len(pictures) == 1 and tree_diff(pictures[0], w.tree()) == []
    assert (w.outside / "secret.md").read_bytes() == SECRET


async def open_with_edit(w: World, rel: str) -> str:
    tab = await open_tab(w, w.at(rel))
    await ok(w.agent, "document", "write", tabId=tab, content=AGENT_TEXT, save=False)
    return tab


async def test_queued_save_refuses_a_directory_swapped_meanwhile(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    tab = await open_with_edit(world, "notes/c.md")
    attack = swap_dir_of(world.ws / "notes", world.outside / "notes")
    await refused_when_queued(world, monkeypatch, attack, "save", tabId=tab)
    assert (world.outside / "notes" / "c.md").read_bytes() == OUTSIDE_FILES["outside/notes/c.md"]
    assert (world.ws / "notes.moved" / "c.md").read_bytes() == b"# C\n"


async def test_queued_save_as_refuses_a_directory_swapped_meanwhile(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    tab = await untitled_with_text(world)
    attack = swap_dir_of(world.ws / "notes", world.outside / "notes")
    await refused_when_queued(world, monkeypatch, attack, "save_as", tabId=tab, filePath=world.at("notes/new.md"))
    assert not (world.outside / "notes" / "new.md").exists()


async def test_queued_save_refuses_a_file_swapped_for_a_symlink_meanwhile(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    tab = await open_with_edit(world, "a.md")
    attack = swap_dir_of(world.ws / "a.md", world.outside / "secret.md")
    await refused_when_queued(world, monkeypatch, attack, "save", tabId=tab)
    assert (world.ws / "a.md.moved").read_bytes() == b"# A\n\nalpha\n"


# --- unit level: races between the check and the use, driven precisely ------------------------------
@dataclass(frozen=True)
class SwapAfterResolve(PathScope):
    """A scope that lets the attacker move right after the path was checked."""

    attack: Callable[[], None] = lambda: None

    def resolve(self, path: object) -> str:
        real = super().resolve(path)
        self.attack()
        return real


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``tmp/ws`` (the scope) and ``tmp/outside`` with the same layout but secret bytes."""
    layout = {"sub/doc.md": b"inside sub/doc\n", "sub/deep/doc.md": b"inside deep/doc\n", "doc.md": b"inside doc\n"}
    write_files(tmp_path / "ws", layout)
    write_files(tmp_path / "outside", {rel: SECRET for rel in layout})
    return tmp_path


def scope_of(tree: Path) -> PathScope:
    return PathScope.of([str(tree / "ws")])


def swap_dir(tree: Path, rel: str) -> Callable[[], None]:
    return swap_dir_of(tree / "ws" / rel, tree / "outside" / rel)


def assert_outside_untouched(tree: Path, before: Tree) -> None:
    assert tree_diff(before, snapshot(tree / "outside")) == []


@pytest.mark.parametrize("rel", ["sub/doc.md", "sub/deep/doc.md"], ids=["parent", "grandparent"])
def test_read_refuses_a_directory_swapped_after_the_check(tree: Path, rel: str) -> None:
    scope = SwapAfterResolve((str(tree / "ws"),), swap_dir(tree, "sub"))
    with pytest.raises(ScopeError):
        read_document(str(tree / "ws" / rel), scope)


def test_read_refuses_a_file_swapped_for_a_symlink_after_the_check(tree: Path) -> None:
    def attack() -> None:
        os.unlink(tree / "ws" / "doc.md")
        os.symlink(tree / "outside" / "doc.md", tree / "ws" / "doc.md")

    with pytest.raises(ScopeError):
        read_document(str(tree / "ws" / "doc.md"), SwapAfterResolve((str(tree / "ws"),), attack))


def test_read_refuses_a_file_swapped_for_a_hard_link_after_the_check(tree: Path) -> None:
    def attack() -> None:
        os.unlink(tree / "ws" / "doc.md")
        os.link(tree / "outside" / "doc.md", tree / "ws" / "doc.md")

    with pytest.raises(ScopeError, match="hard links"):
        read_document(str(tree / "ws" / "doc.md"), SwapAfterResolve((str(tree / "ws"),), attack))


@pytest.mark.parametrize("writer", [save_replace, save_new], ids=["save_replace", "save_new"])
@pytest.mark.parametrize("rel", ["sub/new.md", "sub/deep/new.md"], ids=["parent", "grandparent"])
def test_save_refuses_a_directory_swapped_after_the_check(
    tree: Path, writer: Callable[[str, bytes, PathScope], object], rel: str
) -> None:
    scope = scope_of(tree)
    real = scope.resolve(str(tree / "ws" / rel))
    swap_dir(tree, "sub")()
    before = snapshot(tree / "outside")
    with pytest.raises(ScopeError):
        writer(real, b"agent bytes\n", scope)
    assert_outside_untouched(tree, before)
    assert not (tree / "outside" / rel).exists()


def test_save_replace_replaces_a_swapped_in_symlink_instead_of_writing_through(tree: Path) -> None:
    scope = scope_of(tree)
    real = scope.resolve(str(tree / "ws" / "doc.md"))
    os.unlink(real)
    os.symlink(tree / "outside" / "doc.md", real)
    before = snapshot(tree / "outside")
    save_replace(real, b"agent bytes\n", scope)
    assert_outside_untouched(tree, before)
    assert not os.path.islink(real)
    assert Path(real).read_bytes() == b"agent bytes\n"
    # The link's 0777 is no file mode to keep: the new file gets the default, not world-writable.
    assert os.stat(real).st_mode & 0o777 == 0o644


def test_save_new_never_writes_through_a_symlink_that_appeared(tree: Path) -> None:
    scope = scope_of(tree)
    real = scope.resolve(str(tree / "ws" / "brand-new.md"))
    os.symlink(tree / "outside" / "brand-new.md", real)
    before = snapshot(tree / "outside")
    with pytest.raises(FileExistsError):
        save_new(real, b"agent bytes\n", scope)
    assert_outside_untouched(tree, before)
    assert os.readlink(real) == str(tree / "outside" / "brand-new.md")
    assert sorted(os.listdir(tree / "ws")) == ["brand-new.md", "doc.md", "sub"]


# --- unit level: the comparison itself ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("path", "root", "inside"),
    [
        ("/x/ws", "/x/ws", True),
        ("/x/ws/a.md", "/x/ws", True),
        ("/x/ws/a.md", "/x/ws/", True),
        ("/x/ws-evil/a.md", "/x/ws", False),
        ("/x/ws2", "/x/ws", False),
        ("/x/ws.bak/a.md", "/x/ws", False),
        ("/x/w", "/x/ws", False),
        ("/x", "/x/ws", False),
        ("/x/WS/a.md", "/x/ws", False),
        (f"/x/{NFD_DIR}/a.md", f"/x/{NFC_DIR}", False),
        ("/anything", "/", True),
    ],
)
def test_is_within_has_no_prefix_collisions(path: str, root: str, inside: bool) -> None:
    assert is_within(path, root) is inside


def test_empty_scope_refuses_everything(tmp_path: Path) -> None:
    with pytest.raises(ScopeError, match="no path scope"):
        PathScope(()).resolve(str(tmp_path))
