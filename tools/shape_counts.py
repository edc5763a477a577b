"""How loosely typed the code is, in four numbers (issue 24, "shape"): the request handlers whose answer is only
``dict[str, Any]``, the lines of ``src/`` naming ``dict[str, Any]``, the lines of ``core/``, and the source files
over 500 lines.

A handler is a module-level ``async def`` of ``src/vmark/app/handlers/`` taking the request's context
(``ctx: RequestContext``) and its arguments; its answer is its return annotation, as written.

    python3 tools/shape_counts.py [--json] [ROOT]
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

LOOSE = "dict[str, Any]"
LONG_FILE = 500


def _is_handler(node: ast.AST) -> bool:
    if not isinstance(node, ast.AsyncFunctionDef) or len(node.args.args) != 2:
        return False
    first = node.args.args[0].annotation
    return first is not None and ast.unparse(first).strip("'\"") == "RequestContext"


def handler_counts(handlers: Path) -> tuple[int, int, list[str]]:
    """``(handlers, of them answering dict[str, Any], their names)`` in the modules under ``handlers``."""
    total, loose, names = 0, 0, []
    for path in sorted(handlers.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not _is_handler(node):
                continue
            assert isinstance(node, ast.AsyncFunctionDef)
            total += 1
            if node.returns is not None and ast.unparse(node.returns).strip("'\"") == LOOSE:
                loose += 1
                names.append(f"{path.stem}.{node.name}")
    return total, loose, names


def counts(root: Path) -> dict[str, object]:
    src = root / "src"
    total, loose, names = handler_counts(src / "vmark" / "app" / "handlers")
    loose_lines = 0
    long_files: list[str] = []
    for path in sorted(src.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        loose_lines += sum(LOOSE in line for line in lines)
        if len(lines) > LONG_FILE:
            long_files.append(f"{path.relative_to(root)} ({len(lines)})")
    core_lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in (src / "vmark" / "core").rglob("*.py"))
    return {
        "handlers": total,
        "handlers_loose": loose,
        "loose_handlers": names,
        "dict_str_any_lines": loose_lines,
        "core_lines": core_lines,
        "files_over_500": len(long_files),
        "long_files": long_files,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--json", action="store_true", help="everything, the lists too, as JSON")
    args = parser.parse_args(argv)
    found = counts(args.root)
    if args.json:
        json.dump(found, sys.stdout, indent=2)
        print()
        return 0
    print(f"handlers answering {LOOSE}: {found['handlers_loose']} of {found['handlers']}")
    print(f"lines with {LOOSE} in src/: {found['dict_str_any_lines']}")
    print(f"lines of core/: {found['core_lines']}")
    print(f"files over {LONG_FILE} lines: {found['files_over_500']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
