"""Person actions behind editor features: actionlint in a workflow tab's gutter (``ui.validate``) and CJK
"format selection" (``ui.cjk_format``). Both answer what the agents' tools would, through the same code."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ...protocol import wire_types as wire
from ...protocol.errors import ArgumentError
from ...protocol.jsontypes import JSONObject
from ..writes import check_text
from . import ghactions
from .document import cjk_engine, user_cjk_rules
from .registry import PersonAction

if TYPE_CHECKING:
    from ..context import RequestContext


async def validate(ctx: RequestContext, args: JSONObject) -> wire.Validation:
    """``workflow.validate`` of the tab's current text, for the gutter: ``{ok, diagnostics, binaryAvailable}``.

    The page asks for whatever tab it shows, so a tab of another kind is the page's mistake (an argument
    error), not the agents' ``NOT_WORKFLOW`` refusal."""
    _, tab = ctx.session.find_tab(args["tabId"])
    if tab.doc.kind != "yaml-workflow":
        raise ArgumentError(f"ui.validate checks workflow tabs; {tab.id} is a {tab.doc.kind} document")
    return await ghactions.validate(ctx, {"tabId": tab.id})


async def cjk_format(ctx: RequestContext, args: JSONObject) -> wire.TextResult:
    """``text`` (the person's selection, Markdown) formatted like ``document.transform`` kind ``cjk-format``,
    with the person's rules from the settings. Nothing is written: the page replaces its selection itself."""
    text = args["text"]
    check_text(text)
    cjk_transform = await cjk_engine()
    rules = user_cjk_rules(ctx)
    # A selection may be a whole large document: format it off the event loop.
    return {"text": await asyncio.to_thread(cjk_transform, text, "cjk-format", rules)}


ACTIONS = {
    "ui.validate": PersonAction(validate, checks=("tabId",)),
    "ui.cjk_format": PersonAction(cjk_format, checks=("text",), texts=("text",)),
}
