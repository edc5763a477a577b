"""The UI protocol: everything the person can do, as messages, one family a module.

A UI page (or the Python test client, or the CLI) authenticates with role ``person`` and sends these.
Agents can never send them: approving your own request is not a tool action. Every action declares its
arguments, checked by :func:`.registry.check_person_request` before its handler runs.
"""

from __future__ import annotations

from collections.abc import Mapping

from . import (
    ui_backlinks,
    ui_browse,
    ui_browser,
    ui_coherence,
    ui_comments,
    ui_editing,
    ui_export,
    ui_files,
    ui_history,
    ui_images,
    ui_links,
    ui_read,
    ui_review,
    ui_saving,
    ui_search,
    ui_settings,
    ui_tools,
    ui_windows,
    ui_workspace,
)
from .registry import Action, bind

#: request type -> the action and the arguments it takes
ACTIONS: Mapping[str, Action] = bind(
    {
        **ui_windows.ACTIONS,
        **ui_editing.ACTIONS,
        **ui_saving.ACTIONS,
        **ui_history.ACTIONS,
        **ui_settings.ACTIONS,
        **ui_read.ACTIONS,
        **ui_workspace.ACTIONS,
        **ui_tools.ACTIONS,
        **ui_comments.ACTIONS,
        **ui_coherence.ACTIONS,
        **ui_browser.ACTIONS,
        **ui_search.ACTIONS,
        **ui_files.ACTIONS,
        **ui_browse.ACTIONS,
        **ui_images.ACTIONS,
        **ui_links.ACTIONS,
        **ui_backlinks.ACTIONS,
        **ui_review.ACTIONS,
        **ui_export.ACTIONS,
    }
)
