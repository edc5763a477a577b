"""Windows, workspace instances, documents and tabs: the shape of the session.

These are the app's live records. The text of a document is always a
:class:`~vmark.core.document.DocState` value; everything here around it is view state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..protocol.wire_types import Kind, LineEnding, TabInfo, WindowInfo
from .changes import ChangeLog
from .document import DocState, detect_line_ending
from .kinds import title_for_path

Mode = Literal["wysiwyg", "source"]


@dataclass(frozen=True)
class DiskStamp:
    """What a file looked like on disk when we last read or wrote it."""

    mtime_ns: int
    size: int
    inode: int


@dataclass
class Document:
    """One document, shared by every tab (in any window) that shows the same file."""

    key: str
    kind: Kind
    path: str | None
    state: DocState
    saved_revision: str | None
    line_ending: LineEnding = "\n"
    disk: DiskStamp | None = None
    read_only: bool = False
    divergent: bool = False
    #: the person answered the divergence with "keep mine": still divergent (closing says so), no banner
    divergence_kept: bool = False
    #: the file is gone from disk (deleted, or renamed by another program): the tab keeps its text and says so
    missing: bool = False
    composing: bool = False
    composition_ended_at: float = 0.0
    composing_mode: Mode | None = None
    write_seq: int = 0
    last_write_window: str | None = None
    #: the recent states' changes: pages a few revisions behind get spans, not the whole text
    recent: ChangeLog = field(default_factory=ChangeLog, repr=False, compare=False)

    @classmethod
    def load(cls, key: str, kind: Kind, path: str | None, text: str, disk: DiskStamp | None) -> Document:
        state = DocState(text)
        return cls(
            key=key,
            kind=kind,
            path=path,
            state=state,
            saved_revision=state.revision,  # a fresh untitled tab is clean too
            line_ending=detect_line_ending(text),
            disk=disk,
        )

    @property
    def dirty(self) -> bool:
        return self.state.revision != self.saved_revision


@dataclass
class WorkspaceInstance:
    id: str
    root: str


@dataclass
class Tab:
    id: str
    window: str
    doc: Document
    workspace_instance: str | None
    untitled_number: int = 0
    mode: Mode = "source"
    pinned: bool = False
    selection: tuple[int, int] = (0, 0)
    #: ``Document.write_seq`` when this tab last read or wrote through MCP (None: never).
    basis_seq: int | None = None

    @property
    def title(self) -> str:
        return title_for_path(self.doc.path, self.untitled_number)


@dataclass
class Window:
    label: str
    tabs: list[Tab] = field(default_factory=list)
    active_tab: str | None = None
    workspaces: list[WorkspaceInstance] = field(default_factory=list)
    active_workspace: str | None = None
    focused: bool = False
    last_used: float = 0.0

    @property
    def workspace_bar(self) -> bool:
        """The workspace bar shows once the window holds a workspace instance."""
        return bool(self.workspaces)

    def workspace(self, instance_id: str | None) -> WorkspaceInstance | None:
        return next((w for w in self.workspaces if w.id == instance_id), None)

    def tab(self, tab_id: str) -> Tab | None:
        return next((t for t in self.tabs if t.id == tab_id), None)

    def is_visible(self, tab: Tab) -> bool:
        if not self.workspace_bar or self.active_workspace is None:
            return True
        return tab.workspace_instance in (None, self.active_workspace)

    def describe(self) -> WindowInfo:
        """The window as ``session.get_state`` reports it."""
        return {
            "label": self.label,
            "focused": self.focused,
            "activeWorkspaceInstanceId": self.active_workspace if self.workspace_bar else None,
            "tabs": [describe_tab(self, t) for t in self.tabs],
        }


def describe_tab(window: Window, tab: Tab) -> TabInfo:
    return {
        "id": tab.id,
        "filePath": tab.doc.path,
        "title": tab.title,
        "dirty": tab.doc.dirty,
        "revision": tab.doc.state.revision,
        "kind": tab.doc.kind,
        "active": window.active_tab == tab.id,
        "visible": window.is_visible(tab),
    }
