"""``document``: read and write whole documents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.errors import ArgumentError
from ...text import SETTING_KEYS, CjkRules
from ...text import transform as cjk_transform
from ..writes import WriteRequest, check_text

if TYPE_CHECKING:
    from ..service import App, RequestContext


def user_cjk_rules(app: App) -> CjkRules:
    """The person's CJK rules, as the settings say now (``document.transform`` and format selection)."""
    return CjkRules.from_settings({key: app.settings.get(key) for key in SETTING_KEYS})


async def read(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    _window, tab = ctx.app.session.resolve_tab(args.get("tabId"))
    doc = tab.doc
    tab.basis_seq = doc.write_seq
    ctx.app.coherence.note_read(ctx.connection, doc)
    return {
        "content": doc.state.text,
        "revision": doc.state.revision,
        "filePath": doc.path,
        "kind": doc.kind,
        "dirty": doc.dirty,
    }


async def write(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    tab_id = args.get("tabId")
    window, tab = ctx.app.session.resolve_tab(tab_id)
    content: str = args["content"]
    check_text(content)  # before anything else: nothing may change
    # In either mode the document holds and saves exactly the agent's text; an editor only displays it.
    request = WriteRequest(
        tool="document.write",
        edit=lambda _current: content,
        expected_revision=args.get("expected_revision"),
        addresses=tuple(args.get("addresses", ())),
        save=args.get("save", True),
        implicit_tab=tab_id is None,
    )
    return await ctx.app.writer.write(ctx, window, tab, request)


async def transform(ctx: RequestContext, args: dict[str, Any]) -> dict[str, Any]:
    tab_id = args.get("tabId")
    window, tab = ctx.app.session.resolve_tab(tab_id)
    if tab.doc.kind != "markdown":
        raise ArgumentError(f"document.transform works on Markdown tabs; {tab.id} is {tab.doc.kind}")
    rules = user_cjk_rules(ctx.app)
    kind: str = args["kind"]
    request = WriteRequest(
        tool="document.transform",
        edit=lambda text: cjk_transform(text, kind, rules),
        expected_revision=args.get("expected_revision"),
        addresses=tuple(args.get("addresses", ())),
        implicit_tab=tab_id is None,
        skip_unchanged=True,
    )
    return await ctx.app.writer.write(ctx, window, tab, request)


ACTIONS = {"read": read, "write": write, "transform": transform}
