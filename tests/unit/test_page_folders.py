"""tools/page_folders.py: the page's modules into their folders, every relative import and named path with them;
a refusal (nothing moved) while a root module is unplaced; a second run after a merge moves only what the
merge added at an old place (issue 24, item 4)."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("vmark_page_folders", ROOT / "tools" / "page_folders.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


C_HEAD = "// The module C: lines that stay as they are, so that git sees the file moved.\n" * 4

#: A page of the old layout: the entry, a module, its style, a folder whose module imports upwards, a test.
FILES = {
    "frontend/src/main.ts": (
        'import "./style.css";\n'
        'import "./b.css";\n'
        'import { a } from "./a";\n'
        'import type { C } from "./sub/c";\n'
        'export const lazy = () => import("./sub/c");\n'
        "export const n: C = a;\n"
    ),
    "frontend/src/style.css": "body {}\n",
    "frontend/src/a.ts": "export const a = 1;\n",
    "frontend/src/b.css": ".b {}\n",
    "frontend/src/sub/c.ts": C_HEAD + 'import { a } from "../a";\nexport type C = typeof a;\n',
    "frontend/test/x.test.ts": (
        '// src/a.ts and src/main.ts\nimport { a } from "../src/a";\nimport { n } from "../src/main";\n'
    ),
    "frontend/index.html": '<script type="module" src="/src/main.ts"></script>\n',
    "frontend/frame.html": '<script type="module" src="/src/a.ts"></script>\n',
    "frontend/vite.config.ts": "export default {};\n",
    "docs/page.md": "See `frontend/src/a.ts`, `frontend/src/ab.ts` and `frontend/src/sub/` (`frontend/src/main.ts`).\n",
    "src/pkg/mod.py": '"""The rule is ``frontend/src/sub/c.ts``\'s."""\n',
}


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[ModuleType, Path]:
    for name, text in FILES.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "old layout")
    script = _script()
    monkeypatch.setattr(script, "ROOT", tmp_path)
    monkeypatch.setattr(script, "FRONTEND", tmp_path / "frontend")
    monkeypatch.setattr(script, "SRC", tmp_path / "frontend" / "src")
    monkeypatch.setattr(script, "STAY", {"main.ts", "style.css"})
    monkeypatch.setattr(script, "MOVES", {"a.ts": "one/a.ts", "b.css": "one/b.css", "sub/": "two/sub/"})
    monkeypatch.setattr(script, "FOLDERS", ["one/", "two/"])
    return script, tmp_path


def _read(root: Path, name: str) -> str:
    return (root / name).read_text()


def test_moves_and_rewrites_every_reference(page: tuple[ModuleType, Path]) -> None:
    script, root = page
    assert script.main([]) == 0
    src = root / "frontend" / "src"
    assert sorted(p.relative_to(src).as_posix() for p in src.rglob("*") if p.is_file()) == [
        "main.ts",
        "one/a.ts",
        "one/b.css",
        "style.css",
        "two/sub/c.ts",
    ]
    assert not (src / "sub").exists()  # the emptied folder went
    assert _read(root, "frontend/src/main.ts") == (
        'import "./style.css";\n'
        'import "./one/b.css";\n'
        'import { a } from "./one/a";\n'
        'import type { C } from "./two/sub/c";\n'
        'export const lazy = () => import("./two/sub/c");\n'
        "export const n: C = a;\n"
    )
    moved_c = _read(root, "frontend/src/two/sub/c.ts")
    assert moved_c == C_HEAD + 'import { a } from "../../one/a";\nexport type C = typeof a;\n'
    assert _read(root, "frontend/test/x.test.ts") == (
        '// src/one/a.ts and src/main.ts\nimport { a } from "../src/one/a";\nimport { n } from "../src/main";\n'
    )
    assert _read(root, "frontend/index.html") == FILES["frontend/index.html"]
    assert _read(root, "frontend/frame.html") == '<script type="module" src="/src/one/a.ts"></script>\n'
    assert _read(root, "docs/page.md") == (
        "See `frontend/src/one/a.ts`, `frontend/src/ab.ts` and `frontend/src/two/sub/` (`frontend/src/main.ts`).\n"
    )
    assert _read(root, "src/pkg/mod.py") == '"""The rule is ``frontend/src/two/sub/c.ts``\'s."""\n'
    # git sees moves (staged), not deletions and new files
    status = _git(root, "status", "--porcelain")
    assert "R  frontend/src/a.ts -> frontend/src/one/a.ts" in status
    assert "R  frontend/src/sub/c.ts -> frontend/src/two/sub/c.ts" in status


def test_refuses_while_a_root_module_is_unplaced(
    page: tuple[ModuleType, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    script, root = page
    (root / "frontend/src/stray.ts").write_text("export {};\n")
    (root / "frontend/src/loose").mkdir()
    (root / "frontend/src/loose/x.ts").write_text("export {};\n")
    assert script.main([]) == 1
    err = capsys.readouterr().err
    assert err.splitlines()[1:] == ["  loose/", "  stray.ts"]
    assert (root / "frontend/src/a.ts").is_file()  # nothing moved
    assert _read(root, "frontend/src/main.ts") == FILES["frontend/src/main.ts"]
    assert script.main(["--check"]) == 1


def test_a_second_run_moves_what_a_merge_added_at_an_old_place(page: tuple[ModuleType, Path]) -> None:
    script, root = page
    assert script.main([]) == 0
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "moved")
    assert script.main([]) == 0  # nothing left to move: nothing changes
    assert _git(root, "status", "--porcelain") == ""
    # A branch written against the old layout adds a module in an old folder, importing by old paths.
    (root / "frontend/src/sub").mkdir()
    (root / "frontend/src/sub/d.ts").write_text('import { a } from "../a";\nimport type { C } from "./c";\n')
    assert script.main([]) == 0
    assert not (root / "frontend/src/sub").exists()
    moved_d = _read(root, "frontend/src/two/sub/d.ts")
    assert moved_d == 'import { a } from "../../one/a";\nimport type { C } from "./c";\n'
    assert "A  frontend/src/two/sub/d.ts" in _git(root, "status", "--porcelain")
