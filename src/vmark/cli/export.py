"""``vmark export FILE --to html|pdf|docx|odt|epub [-o OUT] [--force] [--root DIR]``.

The command makes the export itself, with its own headless Chromium (and Pandoc for docx, odt, epub), whether
an app runs or not: an export reads a file and writes another, so it needs nothing the app holds, and the
same code (:class:`vmark.export.run.Exporter`) gives the same file either way. It exports the file as it is on
disk (a tab's unsaved typing is the app's Export menu's to export).

The scope is the file's folder and each ``--root`` (a workspace folder its images may come from, and where
``-o`` may write): nothing outside it is read or written. OUT is by default beside FILE with the format's
suffix; an existing OUT is replaced only with ``--force``. Progress is a bar on a terminal (stderr); stdout
says where the file went (``--json``: the whole result); each warning is a line on stderr.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from ..export.formats import FORMATS
from . import stores
from .commands import Subcommands, add_command
from .output import fail, print_json, say

if TYPE_CHECKING:
    from ..protocol.errors import DomainError


def register(sub: Subcommands) -> None:
    ex = add_command(sub, "export", "export a Markdown file to HTML, PDF, Word, OpenDocument or EPUB", _export)
    ex.add_argument("file", help="the Markdown file")
    ex.add_argument("--to", required=True, choices=list(FORMATS), help="the format")
    ex.add_argument("-o", "--output", help="the file to write (default: beside FILE, with the format's suffix)")
    ex.add_argument("--force", action="store_true", help="replace OUT when it exists")
    ex.add_argument(
        "--root",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder the export may also read images from and write into (besides FILE's folder); repeatable",
    )
    ex.add_argument("--json", action="store_true", help="print the result as JSON")


def _export(args: argparse.Namespace) -> int:
    import asyncio

    from ..browser.launch import extra_args_from_env
    from ..export.formats import default_output, format_named
    from ..export.run import Exporter, ExportJob
    from ..protocol.errors import ArgumentError, DomainError
    from ..storage.files import read_document
    from ..storage.pathscope import PathScope, ScopeError
    from .progress import progress_bar

    source = os.path.abspath(args.file)
    if not os.path.isfile(source):
        return fail(f"{args.file!r} is not a file", 2)
    roots = [os.path.realpath(source)]
    for root in args.root:
        if not os.path.isdir(root):
            return fail(f"--root {root!r} is not a folder", 2)
        roots.append(os.path.realpath(root))
    scope = PathScope.of([os.path.dirname(roots[0]), *roots[1:]])
    fmt = format_named(args.to)
    settings = stores.settings()
    try:
        text, _, _ = read_document(source, scope)
    except ScopeError as exc:
        return _refused(exc.refusal(source))
    target = os.path.abspath(args.output) if args.output else default_output(roots[0], fmt)
    job = ExportJob(
        text=text,
        doc_path=roots[0],
        fmt=fmt,
        target=target,
        scope=scope,
        replace=args.force,
        page_size=str(settings.get("export.page_size")),
        margin_mm=int(settings.get("export.margin_mm")),
    )
    try:
        with progress_bar():
            result = asyncio.run(Exporter(extra_args_from_env()).run(job))
    except ArgumentError as exc:
        return fail(exc.message, 2)
    except DomainError as exc:
        return _refused(exc)
    for warning in result.warnings:
        say(f"warning: {warning}")
    if args.json:
        print_json(result.wire(), ensure_ascii=False)
    else:
        print(f"wrote {result.path} ({result.bytes} bytes)")
    return 0


def _refused(exc: DomainError) -> int:
    return fail(f"{exc.code}: {exc.message}")
