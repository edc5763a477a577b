"""The person's answers and preferences: replies to the app's questions, approvals, settings."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Literal

from ...protocol import wire_types as wire
from ...protocol.errors import ArgumentError
from ...protocol.jsontypes import JSONObject
from ...storage.settings import SETTINGS, SettingsError
from .registry import PersonAction

if TYPE_CHECKING:
    from ..context import RequestContext


async def reply(ctx: RequestContext, args: JSONObject) -> wire.ReplyResult:
    return {"accepted": ctx.connection.reply(args["requestId"], args)}


async def approvals_list(ctx: RequestContext, args: JSONObject) -> wire.ApprovalsList:
    return {"approvals": ctx.approvals.listing()}


async def approvals_answer(ctx: RequestContext, args: JSONObject) -> wire.AnswerResult:
    approval_id = args["id"]
    allow, decision = args["allow"], args.get("decision")
    approval = ctx.approvals.answer(approval_id, allow, decision)
    if approval is None:
        raise ArgumentError(f"no pending approval {approval_id!r} (it may have expired)")
    if approval.kind == "folder_access" and allow:
        ctx.folder_grants.add(approval.subject)
    return {"approval": approval.describe()}


#: a setting's type as the page knows it
_TYPE_NAMES: dict[type, Literal["bool", "int", "list", "str"]] = {bool: "bool", int: "int", list: "list", str: "str"}


async def settings_list(ctx: RequestContext, args: JSONObject) -> wire.SettingsList:
    """Every setting of the one table (the app's own and registered ones such as ``cjk.*``)."""
    settings = ctx.settings
    return {
        "settings": [
            {"key": key, "type": _TYPE_NAMES[typ], "value": settings.get(key), "default": default}
            for key, (typ, default) in SETTINGS.items()
        ]
    }


async def settings_set(ctx: RequestContext, args: JSONObject) -> wire.SettingResult:
    """Store one setting; a refused value changes nothing (a plain argument error)."""
    key = args["key"]
    try:
        await asyncio.to_thread(ctx.settings.set, key, args["value"])
    except SettingsError as exc:
        raise ArgumentError(str(exc)) from exc
    return {"key": key, "value": ctx.settings.get(key)}


async def prompts_list(ctx: RequestContext, args: JSONObject) -> wire.PromptFiles:
    """Settings -> Prompts: every prompt file, offered to agents or malformed (and why)."""
    await ctx.prompts.check()
    return ctx.prompts.overview()


async def prompts_new(ctx: RequestContext, args: JSONObject) -> wire.PromptCreated:
    """A new prompt file to fill in (the page opens it in a tab)."""
    return {"file": await ctx.prompts.create()}


ACTIONS = {
    "ui.reply": PersonAction(reply, checks=("requestId",)),
    "approvals.list": PersonAction(approvals_list),
    # a browser prompt's Allow once / Allow on this site
    "approvals.answer": PersonAction(approvals_answer, checks=("id", "allow", "decision")),
    "settings.list": PersonAction(settings_list),
    "prompts.list": PersonAction(prompts_list),
    "prompts.new": PersonAction(prompts_new),
    "settings.set": PersonAction(settings_set, checks=("key", "value")),
}
