"""The person's export of a tab's document (``ui.export``): HTML, PDF, docx, odt or epub, written into the
window's path scope (:mod:`vmark.export`).

The document is only read, as the tab has it now (unsaved typing included): its text, revision, dirty state,
history and journal stay as they were. The target must lie in the window's scope, must not be a file open in a
tab (nor the document itself), and must not exist unless ``replace`` is true (``APPROVAL_REQUIRED`` then, like
Save as); a refusal or a failure (``EXPORT_FAILED`` with its ``reason``) writes nothing. A request sent with
``progress: true`` gets the export's phases as progress frames before its answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...export.formats import format_named
from ...export.run import ExportJob
from ...protocol import wire_types as wire
from ...protocol.errors import ArgumentError, DomainError
from ...protocol.jsontypes import JSONObject
from ..state import canonical_or_invalid
from .args import tab_of
from .registry import PersonAction

if TYPE_CHECKING:
    from ..context import RequestContext


async def export(ctx: RequestContext, args: JSONObject) -> wire.Exported:
    window, tab = tab_of(ctx, args)
    doc = tab.doc
    if doc.kind != "markdown":
        raise ArgumentError(f"only a Markdown document exports; {doc.path or tab.title} is a {doc.kind}")
    fmt = format_named(args["format"])
    real = canonical_or_invalid(args["path"])
    if real != doc.path and ctx.session.doc_by_path(real) is not None:
        raise DomainError("INVALID_PATH", f"{real} is open in a tab; an export never writes over it", filePath=real)
    job = ExportJob(
        text=doc.state.text,
        doc_path=doc.path,
        fmt=fmt,
        target=real,
        scope=ctx.session.scope(window),
        replace=args.get("replace") is True,
        page_size=str(ctx.settings.get("export.page_size")),
        margin_mm=int(ctx.settings.get("export.margin_mm")),
    )
    return (await ctx.exporter.run(job)).wire()


ACTIONS = {
    "ui.export": PersonAction(export, checks=("tabId", "format", "path", "replace")),
}
