"""Documents as MCP resources: every open Markdown or workflow tab, and the files inside the scope.

A tab is ``vmark://tabs/{tabId}`` (its document's text, ``text/markdown`` or ``application/yaml``, and in
``_meta`` its revision); a file is ``file:///absolute/path`` (the open document's text when a tab shows the
file, else the file's text on disk). The path scope binds every file as it binds ``workspace.open``: the
workspaces and the folders of open documents, of any window; a path outside is ``INVALID_PATH``, in the same
words. An unknown tab or a URI of another form is "Resource not found" (SEP-2164: -32602 with the URI).

Completion offers tab ids (with their titles matched too) and the workspaces' Markdown and workflow files.
"""

from __future__ import annotations

import asyncio
from urllib.parse import quote, unquote, urlsplit

from ..core.kinds import kind_for_path
from ..core.model import Document, Tab, Window
from ..protocol import surface
from ..protocol.errors import DomainError
from ..protocol.wire_types import Kind
from ..storage.files import read_document
from ..storage.pathscope import PathScope, ScopeError
from .state import Session

TAB_SCHEME = "vmark://tabs/"
TAB_TEMPLATE = "vmark://tabs/{tabId}"
FILE_TEMPLATE = "file://{+path}"
MIME: dict[Kind, str] = {"markdown": "text/markdown", "yaml-workflow": "application/yaml"}

TEMPLATES: list[surface.ResourceTemplate] = [
    {
        "uriTemplate": TAB_TEMPLATE,
        "name": "tab",
        "title": "An open tab",
        "description": "The document an open tab shows (its unsaved text too), with its revision in _meta",
    },
    {
        "uriTemplate": FILE_TEMPLATE,
        "name": "file",
        "title": "A file of the workspace",
        "description": "A Markdown or workflow file inside the open workspace or the folders of open documents"
        " (file:///absolute/path); an open file reads as its tab's text",
    },
]


class NotFound(Exception):
    """The URI names no resource (the JSON-RPC error carries the URI)."""


def tab_uri(tab: Tab) -> str:
    return TAB_SCHEME + tab.id


def file_uri(path: str) -> str:
    return "file://" + quote(path, safe="/")


class Resources:
    def __init__(self, session: Session) -> None:
        self.session = session

    def scope(self) -> PathScope:
        """What agents may reach: every window's scope (``workspace.open`` with a ``windowLabel`` reaches it)."""
        dirs = [root for window in self.session.windows.values() for root in self.session.scope(window).roots]
        return PathScope.of(dirs)

    def listing(self) -> list[surface.Resource]:
        return [_describe(window, tab) for window, tab in self.session.tabs()]

    async def read(self, uri: str) -> tuple[surface.ResourceContents, Tab | None]:
        """The resource's contents, and the tab read (a read of a document, like ``document.read``)."""
        if uri.startswith(TAB_SCHEME):
            _window, tab = self._tab(uri)
            return _contents(uri, tab.doc, [tab.id]), tab
        real = self.resolve(uri)
        doc = self.session.doc_by_path(real)
        if doc is not None:
            tabs = self.session.tabs_of(doc)
            return _contents(uri, doc, [t.id for _w, t in tabs]), tabs[0][1] if tabs else None
        kind = kind_for_path(real)
        assert kind is not None  # resolve checked it
        try:
            text, _stamp, _read_only = await asyncio.to_thread(read_document, real, self.scope())
        except ScopeError as exc:
            raise exc.refusal(real) from exc
        meta: surface.ResourceMeta = {"tabIds": [], "filePath": real, "dirty": False}  # no revision: no document has it
        return {"uri": uri, "mimeType": MIME[kind], "text": text, "_meta": meta}, None

    def check(self, uri: str) -> None:
        """That ``uri`` names a resource an agent may read (for a subscription)."""
        if uri.startswith(TAB_SCHEME):
            self._tab(uri)
        else:
            self.resolve(uri)

    def _tab(self, uri: str) -> tuple[Window, Tab]:
        tab_id = uri[len(TAB_SCHEME) :]
        try:
            return self.session.find_tab(tab_id)
        except DomainError:
            raise NotFound(f"no open tab {tab_id!r}") from None

    def resolve(self, uri: str) -> str:
        """The canonical path a ``file:`` URI names, inside the scope and of a kind VMark opens."""
        parts = urlsplit(uri)
        if parts.scheme != "file":
            raise NotFound(f"{uri!r} is neither a tab ({TAB_TEMPLATE}) nor a file ({FILE_TEMPLATE})")
        if parts.netloc not in ("", "localhost") or parts.query or parts.fragment:
            raise NotFound(f"{uri!r} is not a local file URI (file:///absolute/path)")
        path = unquote(parts.path)
        try:
            real = self.scope().resolve(path)
        except ScopeError as exc:
            raise exc.refusal(path) from exc
        if kind_for_path(real) is None:
            raise DomainError("INVALID_PATH", f"{path!r} is not a Markdown or workflow file", filePath=path)
        return real

    # --- completion --------------------------------------------------------------------------------------------------
    def complete_tab(self, prefix: str) -> list[str]:
        wanted = prefix.lower()
        return [
            tab.id
            for _window, tab in self.session.tabs()
            if tab.id.lower().startswith(wanted) or wanted in tab.title.lower()
        ]


def _describe(window: Window, tab: Tab) -> surface.Resource:
    doc = tab.doc
    where = doc.path or f"an untitled tab in window {window.label}"
    return {
        "uri": tab_uri(tab),
        "name": tab.title,
        "title": f"{tab.title} ({tab.id})",
        "description": f"{where}: the text of tab {tab.id} as it is in VMark now",
        "mimeType": MIME[doc.kind],
        "_meta": _meta(doc, [tab.id]),
    }


def _meta(doc: Document, tab_ids: list[str]) -> surface.ResourceMeta:
    meta: surface.ResourceMeta = {"revision": doc.state.revision, "tabIds": tab_ids, "dirty": doc.dirty}
    if doc.path is not None:  # an untitled tab has no file
        meta["filePath"] = doc.path
    return meta


def _contents(uri: str, doc: Document, tab_ids: list[str]) -> surface.ResourceContents:
    return {"uri": uri, "mimeType": MIME[doc.kind], "text": doc.state.text, "_meta": _meta(doc, tab_ids)}
