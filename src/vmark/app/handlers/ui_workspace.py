"""The workspace rail: the person switches which workspace instance of a window is shown.

Tabs of the other instances stay open but are ``visible: false`` (``session.get_state`` says so);
the window's active tab becomes the most recently listed visible tab of the instance, or none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...protocol import wire_types as wire
from ...protocol.errors import ArgumentError
from ...protocol.jsontypes import JSONObject
from .registry import PersonAction

if TYPE_CHECKING:
    from ..context import RequestContext


async def switch_workspace(ctx: RequestContext, args: JSONObject) -> wire.WorkspaceSwitched:
    window = ctx.windows.page_window(ctx.connection)
    instance_id = args.get("workspaceInstanceId")
    if not isinstance(instance_id, str) or window.workspace(instance_id) is None:
        known = ", ".join(w.id for w in window.workspaces) or "none"
        raise ArgumentError(f"no workspace instance {instance_id!r} in window {window.label!r} (known: {known})")
    return {"workspaceInstanceId": instance_id, "activeTabId": ctx.windows.switch_workspace(window, instance_id)}


#: the instance is checked against the window's (its message lists the known ones)
ACTIONS = {"ui.switch_workspace": PersonAction(switch_workspace)}
