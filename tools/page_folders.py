"""Move the page's modules (``frontend/src/``) into their feature folders, and every reference with them.

``MOVES`` says where each module (or folder) of ``frontend/src/`` goes; ``STAY`` names what stays in the root.
The script ``git mv``s each one that is still at its old place, rewrites every relative import of the page and
its Node tests (``from "./x"``, ``import "./x.css"``, ``import("./x")``) for the new places, the ``/src/...``
entries of ``frontend/*.html``, and the ``frontend/src/...`` paths that docs, Python modules and tests name.

It refuses to move anything while a ``.ts`` file (or a folder) in ``frontend/src/`` is neither moved nor kept,
and lists those: a module added since the mapping was written needs its line here first. Run it again after
merging a branch written against the old places: what moved already stays, a file the branch added at an old
place moves, and its imports are read as the old layout meant them.

    python tools/page_folders.py            # move, rewrite (git mv stages the moves; commit them)
    python tools/page_folders.py --check    # only say what is not placed (exit 1 if anything)

docs/architecture.md ("The page, folder by folder") says what each folder is for; the folders' direction is
checked by dependency-cruiser (frontend/.dependency-cruiser.cjs, ``make lint``).
"""

from __future__ import annotations

import argparse
import posixpath
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FRONTEND = ROOT / "frontend"
SRC = FRONTEND / "src"

#: What stays in frontend/src/: the entry point, the generated wire types, the page-wide styles, and the
#: export page (its own entry, export.html).
STAY = {"main.ts", "wire.gen.ts", "style.css", "render.css", "theme.css", "export/"}

#: Old place -> new place, relative to frontend/src/ (a folder ends with "/").
MOVES: dict[str, str] = {
    # shared/: what every folder may use: the channel and its event bus, change sets, small helpers.
    "protocol.ts": "shared/protocol.ts",
    "bus.ts": "shared/bus.ts",
    "merge.ts": "shared/merge.ts",
    "dom.ts": "shared/dom.ts",
    "live.ts": "shared/live.ts",
    "renderctx.ts": "shared/renderctx.ts",
    "command.ts": "shared/command.ts",
    "fuzzy.ts": "shared/fuzzy.ts",
    "quote.ts": "shared/quote.ts",
    "linediff.ts": "shared/linediff.ts",
    "reloads.ts": "shared/reloads.ts",
    # editors/: the two editors of a tab and everything inside them.
    "editor.ts": "editors/editor.ts",
    "source.ts": "editors/source.ts",
    "sourcekeys.ts": "editors/sourcekeys.ts",
    "wysiwyg.ts": "editors/wysiwyg.ts",
    "mdsource/": "editors/mdsource/",
    "paste/": "editors/paste/",
    "writing/": "editors/writing/",
    "anchors.ts": "editors/anchors.ts",
    "pmanchors.ts": "editors/pmanchors.ts",
    "decorationlayer.ts": "editors/decorationlayer.ts",
    "headings.ts": "editors/headings.ts",
    "reviewmodel.ts": "editors/reviewmodel.ts",
    "reviewdom.ts": "editors/reviewdom.ts",
    "reviewpm.ts": "editors/reviewpm.ts",
    "reviewsource.ts": "editors/reviewsource.ts",
    "lint.ts": "editors/lint.ts",
    "links.ts": "editors/links.ts",
    "links.css": "editors/links.css",
    "linkscm.ts": "editors/linkscm.ts",
    "linkspm.ts": "editors/linkspm.ts",
    "wikilinks.ts": "editors/wikilinks.ts",
    "diagrams.ts": "editors/diagrams.ts",
    "mermaidframe.ts": "editors/mermaidframe.ts",
    "slashmenu.ts": "editors/slashmenu.ts",
    "tablemenu.ts": "editors/tablemenu.ts",
    "tablemenu.css": "editors/tablemenu.css",
    "tableactions.ts": "editors/tableactions.ts",
    "writingkeys.ts": "editors/writingkeys.ts",
    "findbar.ts": "editors/findbar.ts",
    # sync/: a tab and the app in step.
    "tabsync.ts": "sync/tabsync.ts",
    "autosave.ts": "sync/autosave.ts",
    # dialogs/: modal questions and pickers.
    "approvals.ts": "dialogs/approvals.ts",
    "closetabs.ts": "dialogs/closetabs.ts",
    "export.ts": "dialogs/export.ts",
    "exportmenu.css": "dialogs/exportmenu.css",
    "palette.ts": "dialogs/palette.ts",
    "picker.ts": "dialogs/picker.ts",
    "picker.css": "dialogs/picker.css",
    "pickerpaths.ts": "dialogs/pickerpaths.ts",
    "saveas.ts": "dialogs/saveas.ts",
    "settings.ts": "dialogs/settings.ts",
    # panels/: the side panels, each a module or a folder of its own; host.ts is what they get of the page.
    "panels.ts": "panels/index.ts",
    "panelhost.ts": "panels/host.ts",
    "browserview.ts": "panels/browser.ts",
    "coherence/": "panels/coherence/",
    "comments.ts": "panels/comments.ts",
    "history.ts": "panels/history/history.ts",
    "historydiff.ts": "panels/history/historydiff.ts",
    "review.ts": "panels/review.ts",
    "outline.ts": "panels/outline.ts",
    "filetree.ts": "panels/filetree.ts",
    # page/: the window's frame: keys, tabs' banners, theme, status bar, start screen.
    "keys.ts": "page/keys.ts",
    "gone.ts": "page/gone.ts",
    "theme.ts": "page/theme.ts",
    "statusbar.ts": "page/statusbar.ts",
    "startscreen.ts": "page/startscreen.ts",
    "cjkformat.ts": "page/cjkformat.ts",
    "page.ts": "page/page.ts",
}

#: The folders the moves make (a root folder of these is no stray).
FOLDERS = sorted({new.split("/")[0] + "/" for new in MOVES.values() if "/" in new})

#: An import's module specifier: `from "x"`, `import "x"`, `import("x")`, `export ... from "x"`.
IMPORT = re.compile(r"""(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}/[^"']*)\2""")
#: What a specifier may leave out of its file's name.
SUFFIXES = ("", ".ts", ".tsx", "/index.ts")
#: Where docs and code name the page's files (outside frontend/).
TEXT_GLOBS = ("docs/**/*.md", "src/**/*.py", "tests/**/*.py", "tools/**/*.py", "bench/**/*.py", "Makefile")


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def unplaced() -> list[str]:
    """The .ts files and folders in frontend/src/'s root that the mapping neither moves nor keeps."""
    out = []
    for entry in sorted(SRC.iterdir()):
        name = entry.name + ("/" if entry.is_dir() else "")
        if entry.is_dir():
            if name in STAY or name in MOVES or name in FOLDERS:
                continue
            if any(entry.rglob("*.ts")):
                out.append(name)
        elif entry.suffix == ".ts" and name not in STAY and name not in MOVES:
            out.append(name)
    return out


def file_moves() -> dict[str, str]:
    """Each file still at an old place (relative to frontend/src/) and where it goes."""
    moves: dict[str, str] = {}
    for old, new in MOVES.items():
        if old.endswith("/"):
            folder = SRC / old
            if folder.is_dir():
                for path in sorted(p for p in folder.rglob("*") if p.is_file()):
                    rest = path.relative_to(folder).as_posix()
                    moves[old + rest] = new + rest
        elif (SRC / old).is_file():
            moves[old] = new
    return moves


def _old_to_new(old: str) -> str | None:
    """Where a module of the old layout is now (or goes), whether or not it moved already."""
    if old in MOVES and not old.endswith("/"):
        return MOVES[old]
    for prefix, target in MOVES.items():
        if prefix.endswith("/") and old.startswith(prefix):
            return target + old[len(prefix) :]
    return None


def _resolve(spec_path: str, moves: dict[str, str]) -> tuple[str, str] | None:
    """The module a specifier names (its path in frontend/src/ terms, with the suffix it left out) and where
    that module is after the moves; None for a module that is not the page's."""
    for suffix in SUFFIXES:
        candidate = spec_path + suffix
        if candidate in moves:  # at its old place still: it moves now
            return candidate, moves[candidate]
        if (SRC / candidate).is_file():
            return candidate, candidate  # stays where it is (or is at its new place already)
        moved = _old_to_new(candidate)
        if moved is not None and (SRC / moved).is_file():
            return candidate, moved  # moved already: a reference of the old layout
    return None


def rewrite(text: str, old_file: str, new_file: str, moves: dict[str, str]) -> str:
    """`text` of the module at `old_file` (relative to frontend/, as it was read) with its relative imports
    pointing at the modules' new places from `new_file`."""
    old_dir = posixpath.dirname(old_file)
    new_dir = posixpath.dirname(new_file)

    def fix(match: re.Match[str]) -> str:
        lead, quote, spec = match.groups()
        target = posixpath.normpath(posixpath.join(old_dir, spec))
        if not target.startswith("src/"):
            return match.group(0)
        found = _resolve(target[len("src/") :], moves)
        if found is None:
            return match.group(0)
        named, now = found
        left_out = named[len(target) - len("src/") :]  # the suffix the specifier did not write
        now_spec = "src/" + now
        if left_out and now_spec.endswith(left_out):
            now_spec = now_spec[: -len(left_out)]
        relative = posixpath.relpath(now_spec, new_dir or ".")
        if not relative.startswith("."):
            relative = "./" + relative
        return f"{lead}{quote}{relative}{quote}"

    return IMPORT.sub(fix, text)


def _path_words(moves: dict[str, str]) -> list[tuple[re.Pattern[str], str]]:
    """`frontend/src/OLD` -> `frontend/src/NEW` for each moved file and folder, longest first."""
    pairs = {old: new for old, new in MOVES.items()}
    pairs.update(moves)
    out = []
    for old in sorted(pairs, key=len, reverse=True):
        new = pairs[old]
        tail = "" if old.endswith("/") else r"(?![\w-])"
        out.append((re.compile(r"(?<![\w/])frontend/src/" + re.escape(old) + tail), "frontend/src/" + new))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only list what the mapping does not place")
    args = parser.parse_args(argv)
    stray = unplaced()
    if stray:
        print("frontend/src/ has modules the mapping does not place (add them to MOVES or STAY in "
              "tools/page_folders.py):", file=sys.stderr)
        for name in stray:
            print(f"  {name}", file=sys.stderr)
        return 1
    if args.check:
        return 0
    moves = file_moves()
    # Every module of the page and its tests, read before anything moves: (where it was, where it goes).
    sources = [p for p in FRONTEND.glob("src/**/*") if p.is_file() and p.suffix in {".ts", ".tsx", ".js"}]
    sources += [*FRONTEND.glob("test/**/*.ts"), FRONTEND / "vite.config.ts"]
    plans: list[tuple[Path, str]] = []
    for path in sources:
        old = path.relative_to(FRONTEND).as_posix()
        inside = old[len("src/") :] if old.startswith("src/") else None
        new = "src/" + moves[inside] if inside in moves else old
        text = path.read_text(encoding="utf-8")
        fixed = rewrite(text, old, new, moves)
        if inside in moves or fixed != text:
            plans.append((FRONTEND / new, fixed))
    touched: list[Path] = []
    tracked = set(_git("ls-files", "--", "frontend/src").splitlines())
    for old, new in moves.items():
        (SRC / new).parent.mkdir(parents=True, exist_ok=True)
        if f"frontend/src/{old}" in tracked:
            _git("mv", f"frontend/src/{old}", f"frontend/src/{new}")
        else:  # not committed yet: moved all the same (and added below)
            (SRC / old).rename(SRC / new)
            touched.append(SRC / new)
    for path, text in plans:
        path.write_text(text, encoding="utf-8")
        touched.append(path)
    for old in MOVES:  # a folder emptied by the moves goes (one with files git does not track stays)
        folder = SRC / old
        if old.endswith("/") and folder.is_dir() and not any(p.is_file() for p in folder.rglob("*")):
            shutil.rmtree(folder)
    # The pages' entries, and the paths docs and code name.
    words = _path_words(moves)
    for html in FRONTEND.glob("*.html"):
        text = html.read_text(encoding="utf-8")
        fixed = re.sub(r'src="/src/([^"]+)"', lambda m: f'src="/src/{_old_to_new(m.group(1)) or m.group(1)}"', text)
        if fixed != text:
            html.write_text(fixed, encoding="utf-8")
            touched.append(html)
    for pattern in TEXT_GLOBS:
        for path in ROOT.glob(pattern):
            if not path.is_file() or path == Path(__file__).resolve():
                continue
            text = path.read_text(encoding="utf-8")
            fixed = text
            for word, new in words:
                fixed = word.sub(new, fixed)
            if fixed != text:
                path.write_text(fixed, encoding="utf-8")
                touched.append(path)
    # The tests' comments name the page's files as src/NAME.
    for path in FRONTEND.glob("test/**/*.ts"):
        text = path.read_text(encoding="utf-8")
        fixed = re.sub(
            r"(?<![\w/.])src/([\w./-]+\.ts)\b",
            lambda m: "src/" + (_old_to_new(m.group(1)) or m.group(1)),
            text,
        )
        if fixed != text:
            path.write_text(fixed, encoding="utf-8")
            touched.append(path)
    _git("add", "-A", "--", *{path.as_posix() for path in touched})
    print(f"moved {len(moves)} files into {', '.join(FOLDERS)}; imports and paths rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
