"""The person protocol's wire shapes, as the editor page (``frontend/``) uses them: the one definition.

``frontend/src/wire.gen.ts`` is generated from this module (``python -m vmark.tools.gen_wire``; ``make lint``
fails when it is stale), and the UI tests validate what the app really sends against it
(``vmark.protocol.wirecheck``), so the page's TypeScript and the app cannot drift apart.

Frames on ``/ui``: ``hello`` once, then ``{type: "response", id, success, data | error}`` for each request
``{id, type, payload}``, and ``{type: "event", event, payload, requestId?}``; an event with a ``requestId`` wants
a ``ui.reply``. :data:`REQUESTS` maps each request the page sends to its payload and result, :data:`EVENTS` and
:data:`REQUEST_EVENTS` each event to its payload: every request the page sends is here, typed.

Stdlib only, and without ``from __future__ import annotations`` (Python 3.11 cannot see ``NotRequired`` in a
string annotation). Keys are the wire's own (camelCase, ``from``), so some shapes use the functional syntax.
"""

from typing import Literal, NotRequired, TypedDict

from .limits import MAX_PASTED_IMAGE_BYTES

#: what a file opens as (``vmark.core.kinds`` says which files are which)
Kind = Literal["markdown", "yaml-workflow"]
Mode = Literal["wysiwyg", "source"]
#: code points ``[from, to, insert]`` of a text: the spans of one change (``core.changes.wire``)
WireSpan = tuple[int, int, str]
#: who made a change, as the pages see it (a revert is the person's edit)
ShownOrigin = Literal["agent", "person", "disk"]
LineEnding = Literal["\n", "\r\n", "\r"]
Encoding = Literal["UTF-8", "UTF-8 with BOM"]
NotificationLevel = Literal["info", "warning", "error"]


class Empty(TypedDict):
    """No arguments, or nothing to say."""


# --- the session state the pages render ----------------------------------------------------------------
class TabInfo(TypedDict):
    id: str
    filePath: str | None
    title: str
    dirty: bool
    revision: str
    kind: Kind
    active: bool
    visible: bool
    #: the agent changes of its document waiting for the person (``review``): in the pushed ``state`` (the
    #: page state), not in ``ui.attach``'s answer (the session's description, as agents see it too)
    reviewCount: NotRequired[int]


class WindowInfo(TypedDict):
    label: str
    focused: bool
    activeWorkspaceInstanceId: str | None
    tabs: list[TabInfo]


class TabView(TypedDict):
    mode: Mode
    pinned: bool
    divergent: bool
    divergenceKept: bool
    #: the file is gone from disk (deleted or renamed by another program): the tab still holds its text
    missing: bool
    readOnly: bool
    workspaceInstanceId: str | None
    reviewCount: int


class WorkspaceRef(TypedDict):
    id: str
    root: str


class WindowView(TypedDict):
    workspaces: list[WorkspaceRef]
    tabs: dict[str, TabView]


class AgentInfo(TypedDict):
    connectionId: str
    principal: str | None
    #: the name its MCP client gave itself (``clientInfo.name``), cleaned; display only
    name: str | None
    #: how the person sees it: ``claude-code (laptop)``
    label: str


class PageState(TypedDict):
    """``ui.state``: every window, its view details, the connected agents. The ``state`` event is a window's
    own (``app/page_push.py``): ``windows`` holds only that window; ``views`` holds its view and, for the
    other windows, their workspaces only (``tabs`` empty)."""

    windows: list[WindowInfo]
    views: dict[str, WindowView]
    agents: list[AgentInfo]


# --- events ----------------------------------------------------------------------------------------------
class DocChanges(TypedDict):
    """A ``doc`` event's changes: spans in code points of revision ``base``'s text."""

    base: str
    spans: list[WireSpan]


class DocEvent(TypedDict):
    """A document changed elsewhere: its changes since the revision the page has (or its whole ``text``)."""

    tabIds: list[str]
    revision: str
    origin: ShownOrigin
    dirty: bool
    text: NotRequired[str]
    changes: NotRequired[DocChanges]
    #: a ``review`` event of this revision comes right after this one (the page may show both in one redraw)
    reviewFollows: NotRequired[bool]


class DivergentEvent(TypedDict):
    filePath: str | None


class NotificationEvent(TypedDict):
    level: NotificationLevel
    message: str


class BrowserTabEvent(TypedDict):
    """``browser_crashed``: the page of an embedded browser tab crashed."""

    tabId: str


class BrowserFrame(TypedDict):
    """One screencast frame of the tab the person views (a base64 JPEG), acknowledged by ``browser.frame_ack``."""

    tabId: str
    data: str
    width: float
    height: float
    url: str


class ActivateRequest(TypedDict):
    tabId: str


class WorkspaceSwitchRequest(TypedDict):
    workspaceInstanceId: str
    folder: str


class EditorRequest(TypedDict):
    """``get``: the selection; ``prepare``: what replacing it with ``content`` would do (``app.editor_link``)."""

    tabId: str
    op: Literal["get", "prepare"]
    content: NotRequired[str]


# --- approvals: the person's yes or no to what widens an agent's access (``app.approvals``) ------------------
ApprovalKind = Literal["open_workspace", "folder_access", "browser"]
ApprovalState = Literal["pending", "allowed", "denied", "used"]
#: a browser prompt's Allow once / Allow on this site
BrowserDecision = Literal["once", "site"]
#: what an approval ended as: allowed once or on the site, or denied
ApprovalDecision = Literal["once", "site", "deny"]


class BrowserElement(TypedDict):
    role: str
    name: str


class BrowserDetail(TypedDict):
    """What a browser prompt shows: every string here may come from the page or the agent (untrusted)."""

    site: str
    tabId: str | None
    action: str
    element: BrowserElement | None
    value: str | None


class Approval(TypedDict):
    """An approval as the pages list and show it (``prompt``, ``folder_picker``, ``browser_prompt`` events)."""

    id: str
    kind: ApprovalKind
    #: who asked (its principal, or its anonymous connection); ``agent``: how the person sees it
    requester: str
    agent: str
    subject: str
    window: str
    state: ApprovalState
    created: str
    expires: str
    detail: NotRequired[BrowserDetail]
    decision: NotRequired[ApprovalDecision | None]


class ApprovalsList(TypedDict):
    approvals: list[Approval]


class AnswerPayload(TypedDict):
    id: str
    allow: bool
    decision: NotRequired[BrowserDecision]


class AnswerResult(TypedDict):
    approval: Approval


# --- history: a document's snapshots and the review of AI revisions (``storage.history``) -----------------
SnapshotKind = Literal["manual", "auto", "mcp", "revert", "reject", "disk", "edit"]
ActorKind = Literal["person", "agent", "disk", "revert"]
ThreadState = Literal["open", "addressed", "resolved", "reopened", "deleted"]


class Addressed(TypedDict):
    """A comment a revision answered, as it is now (state ``deleted`` for a deleted one)."""

    comment: str
    quote: str
    state: ThreadState


class Actor(TypedDict):
    """Who made a history entry (``app.history_view.snapshot_actor``)."""

    kind: ActorKind
    principal: NotRequired[str]
    #: how the person sees an agent: its MCP client's name with the principal (``claude-code (laptop)``)
    label: NotRequired[str]
    tool: NotRequired[str]


class SnapshotRecord(TypedDict):
    """A snapshot as the history keeps it (``storage.history``; its text only when asked for)."""

    id: int
    path: str | None
    kind: SnapshotKind
    revision: str
    time: float
    principal: str | None
    addresses: list[str]
    #: the tool an agent entry was made with (None for the person's, and for entries from before tools)
    tool: str | None
    #: the name the agent's MCP client gave itself (display only; None when it gave none)
    client: str | None
    content: NotRequired[str]


class Snapshot(SnapshotRecord):
    """A snapshot as the History shows it: who made it, and the comments its revision answered."""

    label: str
    actor: Actor
    addressed: list[Addressed]


class HistoryListPayload(TypedDict):
    tabId: str
    content: NotRequired[bool]


class HistoryList(TypedDict):
    snapshots: list[Snapshot]
    unreviewed: int


class SnapshotPayload(TypedDict):
    tabId: str
    id: int


class RevisionResult(TypedDict):
    revision: str


class ReviewedPayload(TypedDict):
    tabId: str
    revision: NotRequired[str | None]


class ReviewedResult(TypedDict):
    reviewed: int


# --- the review of agent changes, one by one (``app.review``, ``app.handlers.ui_review``) --------------------
#: a pending agent change: ``[from, to)`` code points of the shown text hold its inserted text, ``old`` the text
#: it replaced ("" for an insertion), ``at`` ISO 8601 UTC (``core.review.Change.wire``); ``principal`` is who made it
#: (its principal, or its anonymous connection), ``agent`` how the person sees it (``claude-code (laptop)``)
ReviewChange = TypedDict(
    "ReviewChange",
    {
        "id": str,
        "revision": str,
        "principal": str,
        "agent": str,
        "tool": str,
        "from": int,
        "to": int,
        "old": str,
        "at": str,
    },
)


class ReviewNotice(TypedDict):
    """An agent just made ``count`` new changes with ``tool`` (``principal``: the agent as the person sees it)."""

    principal: str
    tool: str
    count: int


class ReviewEvent(TypedDict):
    filePath: str | None
    docKey: str
    tabIds: list[str]
    #: the text revision the ranges apply to
    revision: str
    changes: list[ReviewChange]
    notice: NotRequired[ReviewNotice]


class ReviewListPayload(TypedDict):
    """A page names the tab; ``vmark review`` names the file."""

    tabId: NotRequired[str]
    filePath: NotRequired[str]


class ListedChange(ReviewChange):
    """A change as ``review.list`` answers it; by ``filePath`` (``vmark review``) also the inserted text."""

    new: NotRequired[str]


class ReviewList(TypedDict):
    revision: str
    changes: list[ListedChange]
    #: for a ``filePath`` request: the tab it is in, its path and whether its text is unsaved
    tabId: NotRequired[str]
    filePath: NotRequired[str | None]
    dirty: NotRequired[bool]


class VerdictPayload(TypedDict):
    """Exactly one of ``ids`` (from ``review.list``) or ``all: true``."""

    tabId: NotRequired[str]
    filePath: NotRequired[str]
    ids: NotRequired[list[str]]
    all: NotRequired[bool]


class Accepted(TypedDict):
    accepted: int
    revision: str
    unreviewed: int


class Rejected(TypedDict):
    rejected: int
    #: the text revision the rejection made
    revision: str
    unreviewed: int


# --- review comments: the person's side (``app.handlers.ui_comments``) -------------------------------------
class CommentReply(TypedDict):
    id: str
    author: str
    body: str
    created: float


CommentAnchor = TypedDict("CommentAnchor", {"from": int, "to": int})


class ThreadStatus(TypedDict):
    """A thread's identity, state and ``commentGen`` (the generation an agent's change must name)."""

    comment: str
    state: ThreadState
    commentGen: str


class Thread(TypedDict):
    comment: str
    state: ThreadState
    commentGen: str
    quote: str
    body: str
    author: str
    created: float
    anchor: CommentAnchor | None
    orphaned: bool
    replies: list[CommentReply]


class ThreadsPayload(TypedDict):
    """A document by its tab or its file (a file no tab shows has threads too)."""

    tabId: NotRequired[str]
    filePath: NotRequired[str]


class Threads(TypedDict):
    doc: str
    threads: list[Thread]


class CommentAddPayload(TypedDict):
    """A new thread on ``quote``, at its occurrence nearest ``at`` (code points; the first without it)."""

    tabId: NotRequired[str]
    filePath: NotRequired[str]
    quote: str
    body: str
    at: NotRequired[int]


class CommentAdded(TypedDict):
    comment: str
    commentGen: str


class CommentPayload(TypedDict):
    commentId: str


class CommentReplyPayload(TypedDict):
    commentId: str
    body: str


class CommentReplied(TypedDict):
    reply: str
    commentGen: str


class CommentsEvent(TypedDict):
    """The threads of ``doc`` changed."""

    doc: str
    filePath: str | None


# --- the workspace's files: the tree, its changes, search ----------------------------------------------------
class TreeFile(TypedDict):
    path: str
    kind: Kind


class Listing(TypedDict):
    """One workspace instance of the page's window: its files and folders (relative, sorted)."""

    workspaceInstanceId: str
    root: str
    active: bool
    files: list[TreeFile]
    folders: list[str]
    truncated: bool


class Listings(TypedDict):
    workspaces: list[Listing]


class FileCreatePayload(TypedDict):
    path: str
    type: NotRequired[Literal["file", "folder"]]


class FileCreated(TypedDict):
    path: str
    type: Literal["file", "folder"]


FileRenamePayload = TypedDict("FileRenamePayload", {"from": str, "to": str})
Moved = TypedDict("Moved", {"from": str, "to": str})


class FileRenamed(TypedDict):
    """The new path, and the open documents that moved with it."""

    path: str
    moved: list[Moved]


class FileDeleted(TypedDict):
    path: str
    trashed: bool


class ImageSavePayload(TypedDict):
    """An image the person pasted or dropped into the tab's document, to be written beside it."""

    tabId: str
    #: the file's name as the page had it (``image.png``): the written file's name comes from its stem
    name: str
    #: the image's bytes, base64 (at most ``MAX_PASTED_IMAGE_BYTES`` of them)
    data: str


class ImageSaved(TypedDict):
    """Where the image went: ``path`` (absolute), ``link`` (relative to the document, for ``![](link)``)."""

    path: str
    link: str
    bytes: int


ExportFormat = Literal["html", "pdf", "docx", "odt", "epub"]


class ExportPayload(TypedDict):
    """Export the tab's document (as the tab has it now) to ``path``, a file in the window's scope."""

    tabId: str
    format: ExportFormat
    path: str
    #: write over an existing file (else an existing ``path`` is ``APPROVAL_REQUIRED``)
    replace: NotRequired[bool]


class Exported(TypedDict):
    """The written file (absolute), its size, and what the export left out or changed, in words."""

    path: str
    format: ExportFormat
    bytes: int
    warnings: list[str]


class WorkspaceSwitchPayload(TypedDict):
    workspaceInstanceId: str


class WorkspaceSwitched(TypedDict):
    workspaceInstanceId: str
    activeTabId: str | None


class SearchPayload(TypedDict):
    query: str
    matchCase: NotRequired[bool]


class SearchResult(TypedDict):
    """A match: its file, line and column (code points), and the part of its line shown around it."""

    root: str
    path: str
    filePath: str
    line: int
    column: int
    length: int
    text: str
    textColumn: int


class SearchResults(TypedDict):
    query: str
    results: list[SearchResult]
    truncated: bool


class Backlink(TypedDict):
    """A line of another file that links to the tab's file: the file's canonical path, the line (1-based) and
    its text (trimmed, cut short). ``wikilinks``: the names of the line's wikilinks that may name the file,
    present when no Markdown link of the line does; the page keeps the line only when its own wikilink rule
    resolves one of them to the file (docs/backlinks.md)."""

    path: str
    line: int
    text: str
    wikilinks: NotRequired[list[str]]


class Backlinks(TypedDict):
    """Sorted by path, then line; ``truncated`` when there were more than the limit. ``filePath``: the tab's
    file they link to (what the page resolves wikilinks against), null for an untitled tab."""

    filePath: str | None
    backlinks: list[Backlink]
    truncated: bool


# --- the picker: folders listed through the scope, the places to start from, recent folders and files ---------
#: ``outside``: a link to somewhere the picker may not list (never followed, nothing of it said)
EntryKind = Literal["folder", "file", "other", "outside"]
PlaceKind = Literal["home", "readable", "granted", "workspace"]


class BrowsePayload(TypedDict):
    """A folder to list (absolute or ``~/...``; the home folder when absent), or a file: its folder is listed."""

    path: NotRequired[str]
    #: names starting with a dot too
    hidden: NotRequired[bool]
    #: only names containing this (any case), bounded after filtering
    filter: NotRequired[str]


class BrowseEntry(TypedDict):
    name: str
    kind: EntryKind
    #: a symbolic link (``kind`` says what it leads to)
    link: bool
    #: bytes of a file, else null
    size: int | None
    #: seconds since the epoch, null for ``outside``
    modified: float | None
    #: what VMark opens it as (a Markdown or workflow file), else null
    opens: Kind | None


class Browsed(TypedDict):
    """A folder's entries (folders first, then by name), canonical paths, at most ``BROWSE_MAX_ENTRIES``."""

    path: str
    #: the folder above, when the picker may list it
    parent: str | None
    #: the file the request named (``path`` is its folder), else null
    selected: str | None
    entries: list[BrowseEntry]
    #: entries past the bound, not listed
    more: int
    writable: bool


class Place(TypedDict):
    path: str
    kind: PlaceKind


class RecentEntry(TypedDict):
    path: str
    openedAt: float
    #: no longer on the disk (kept: a drive may come back; the person may forget it)
    gone: bool


class Places(TypedDict):
    """Where the picker may start: the places it lists from, the recent folders and files (most recent first)."""

    home: str
    places: list[Place]
    recentFolders: list[RecentEntry]
    recentFiles: list[RecentEntry]


class RecentForgotten(TypedDict):
    forgotten: bool


class TextPayload(TypedDict):
    text: str


class TextResult(TypedDict):
    text: str


# --- requests --------------------------------------------------------------------------------------------
class AttachPayload(TypedDict):
    window: NotRequired[str | None]


class AttachResult(TypedDict):
    window: str
    windows: list[WindowInfo]


class FocusPayload(TypedDict):
    #: absent: not focused
    focused: NotRequired[bool]
    visible: NotRequired[bool]


class FocusResult(TypedDict):
    window: str
    focused: bool


class PathPayload(TypedDict):
    path: str


class TabResult(TypedDict):
    tabId: str


class WorkspaceResult(TypedDict):
    workspaceInstanceId: str


class LinkPayload(TypedDict):
    """``ui.open_link``: a link of the document in ``tabId`` to ``path`` (absolute, or relative to that
    document's folder; percent-decoded, without ``#heading``)."""

    tabId: str
    path: str


class LinkResult(TypedDict):
    """The link's canonical target, in the window's path scope; ``tabId`` the tab showing it, or absent when
    the file does not exist (the page offers to create it with ``ui.file_create``)."""

    path: str
    tabId: NotRequired[str]


class NewPayload(TypedDict):
    kind: NotRequired[Kind]


class TabPayload(TypedDict):
    tabId: str


class ClosePayload(TypedDict):
    tabId: str
    force: NotRequired[bool]


class CloseResult(TypedDict):
    closed: bool
    #: MISSING: the file is gone from disk; closing would lose the only copy of its text (``force`` closes)
    reason: NotRequired[Literal["PINNED", "DIRTY", "DIVERGENT", "MISSING"]]


class SwitchResult(TypedDict):
    activeTabId: str | None


class PinPayload(TypedDict):
    tabId: str
    pinned: NotRequired[bool]


class PinResult(TypedDict):
    pinned: bool


class ModePayload(TypedDict):
    tabId: str
    mode: Mode


class ModeResult(TypedDict):
    mode: Mode


class EditPayload(TypedDict):
    """``changes`` (on top of ``baseRevision``) or the whole ``text``, never both."""

    tabId: str
    baseRevision: NotRequired[str]
    text: NotRequired[str]
    changes: NotRequired[list[WireSpan]]


class EditResult(TypedDict):
    """``applied: false``: the app's changes from the base to ``revision``, or else its whole text."""

    revision: str
    applied: bool
    text: NotRequired[str]
    changes: NotRequired[list[WireSpan]]


class CompositionPayload(TypedDict):
    tabId: str
    state: Literal["start", "end"]
    mode: NotRequired[Mode]


class CompositionResult(TypedDict):
    composing: bool


SelectionPayload = TypedDict("SelectionPayload", {"tabId": str, "from": int, "to": int})


class SelectionResult(TypedDict):
    selection: tuple[int, int]


class SaveAsPayload(TypedDict):
    tabId: str
    path: str


class SaveResult(TypedDict):
    filePath: str
    revision: str


class DivergencePayload(TypedDict):
    tabId: str
    keep: Literal["mine", "disk"]


class DivergenceResult(TypedDict):
    divergent: bool
    revision: str


#: the page's answer to a request event: ``ok`` and, for ``editor``, the editor's state and selection
#: (``revision`` is null while keystrokes are unsent); for a refused ``activate``, what it shows instead
Reply = TypedDict(
    "Reply",
    {
        "requestId": str,
        "ok": bool,
        "reason": NotRequired[str],
        "activeTabId": NotRequired[str | None],
        "tabId": NotRequired[str],
        "mode": NotRequired[Mode],
        "revision": NotRequired[str | None],
        "composing": NotRequired[bool],
        "from": NotRequired[int],
        "to": NotRequired[int],
        "text": NotRequired[str],
        "replaced": NotRequired[int],
        "changes": NotRequired[list[WireSpan]],
    },
)


class ReplyResult(TypedDict):
    accepted: bool


class TabText(TypedDict):
    """``ui.read``: a tab's text and what the page shows about its file."""

    text: str
    revision: str
    kind: Kind
    mode: Mode
    dirty: bool
    filePath: str | None
    divergent: bool
    readOnly: bool
    lineEnding: LineEnding
    encoding: Encoding


class Setting(TypedDict):
    key: str
    type: Literal["bool", "int", "list", "str"]
    value: object
    default: object


class SettingsList(TypedDict):
    settings: list[Setting]


class SettingPayload(TypedDict):
    key: str
    value: object


class SettingResult(TypedDict):
    key: str
    value: object


class PromptFile(TypedDict):
    """One prompt file of Settings -> Prompts: a prompt agents are offered, or a malformed file and why."""

    file: str
    name: str | None
    title: str | None
    description: str | None
    #: what is wrong with the file (None: it is well-formed and offered to agents)
    error: str | None


class PromptFiles(TypedDict):
    folder: str
    prompts: list[PromptFile]


class PromptCreated(TypedDict):
    file: str


# --- the embedded browser, as the person sees it (the Browser panel) -------------------------------------
BrowserOwner = Literal["ai", "human"]
BrowserPosture = Literal["sandbox", "shared"]
#: what a site permission lets an agent do (``browser.grants`` uses this one)
BrowserOperation = Literal[
    "read",
    "attach",
    "click",
    "type",
    "scroll",
    "key",
    "style",
    "navigate",
    "eval",
    "session",
    "record",
    "profile",
    "upload",
]
InputKind = Literal["mouse", "wheel", "key", "text"]


class BrowserTabPayload(TypedDict):
    tabId: str


class BrowserTabSummary(TypedDict):
    """One embedded browser tab, its URL redacted: as ``session.get_state`` lists it to agents."""

    tabId: str
    owner: BrowserOwner
    url: str
    title: str
    generation: int
    posture: BrowserPosture


class BrowserTabInfo(BrowserTabSummary):
    """One embedded browser tab (the agents' and the person's), as the Browser panel lists it."""

    crashed: bool
    #: the agent that opened an AI tab, as the person sees it (``claude-code (laptop)``); None for the person's
    agent: str | None


class BrowserTabs(TypedDict):
    tabs: list[BrowserTabInfo]


class HumanOpenPayload(TypedDict):
    url: NotRequired[str]


class BrowserOpened(TypedDict):
    """``browser.human_open``: the person's new tab; with a ``url``, where it went (``error``: why not)."""

    tabId: str
    url: NotRequired[str]
    error: NotRequired[str]


class BrowserWhere(TypedDict):
    """Where a tab is after a navigation (``error``: Chromium's reason, the tab shows its error page)."""

    tabId: str
    url: str
    error: NotRequired[str]


class BrowserViewed(TypedDict):
    tabId: str
    url: str
    title: str
    crashed: bool


class BrowserUnviewed(TypedDict):
    tabId: str
    stopped: bool


class BrowserNavPayload(TypedDict):
    tabId: str
    op: Literal["back", "forward", "reload", "go"]
    #: for ``go`` only
    url: NotRequired[str]


class BrowserClosed(TypedDict):
    tabId: str
    closed: bool


class MouseInput(TypedDict):
    """A click at ``x, y`` of a view of ``width`` x ``height`` (what the person clicked)."""

    tabId: str
    kind: Literal["mouse"]
    x: float
    y: float
    width: float
    height: float
    button: NotRequired[Literal["left", "middle", "right"]]
    clickCount: NotRequired[int]


class WheelInput(TypedDict):
    tabId: str
    kind: Literal["wheel"]
    x: float
    y: float
    width: float
    height: float
    dx: NotRequired[float]
    dy: NotRequired[float]


class KeyModifiers(TypedDict):
    ctrl: NotRequired[bool]
    alt: NotRequired[bool]
    shift: NotRequired[bool]
    meta: NotRequired[bool]


class KeyInput(TypedDict):
    tabId: str
    kind: Literal["key"]
    key: str
    modifiers: NotRequired[KeyModifiers]


class TextInput(TypedDict):
    """Typed text (keystrokes), or pasted text (one insertion)."""

    tabId: str
    kind: Literal["text"]
    text: str
    paste: NotRequired[bool]


BrowserInput = MouseInput | WheelInput | KeyInput | TextInput


class BrowserInputResult(TypedDict):
    tabId: str
    kind: InputKind


class SitePermission(TypedDict):
    """A standing grant ("Allow on this site"): its tab, site, operation and what it binds."""

    tabId: str
    origin: str
    operation: BrowserOperation
    role: str | None
    name: str | None
    value: str | None


class SitePermissions(TypedDict):
    permissions: list[SitePermission]


class RevokePayload(TypedDict):
    origin: str
    operation: BrowserOperation


class Revoked(TypedDict):
    origin: str
    operation: BrowserOperation
    revoked: bool


# --- coherence (the Coherence panel): a workspace is its window's active one unless named ----------------
#: the states of an edge that needs attention, in the order the tool contract lists them
#: (``coherence.projection.EDGE_STATES``), then those of a coherent one
AttentionState = Literal[
    "version-stale",
    "stale-valid",
    "stale-contradicted",
    "stale-unknown",
    "waived",
    "diverged",
    "diverged-multi-head",
    "unpinnable",
]
CoherentState = Literal["fresh", "ratified"]
EdgeState = Literal[AttentionState, CoherentState]
Resolution = Literal["accept-newer", "waive"]
Maturity = Literal["draft", "established"]


class CoherencePayload(TypedDict):
    workspaceRoot: NotRequired[str]


class Duplicate(TypedDict):
    object: str
    paths: list[str]


class CoherenceStatus(TypedDict):
    initialized: bool
    objects: int
    open_items: int
    quarantined: int
    writer: str
    #: when tracking is on: objects whose identity more than one file carries
    duplicates: NotRequired[list[Duplicate]]


class Edge(TypedDict):
    """An edge of the breakdown: a transformation's input and its state."""

    txf: str
    input: int
    upstream: str
    upstream_path: str | None
    pinned: str
    downstream: str
    downstream_path: str | None
    downstream_rev: str
    state: EdgeState


class CoherenceOverview(TypedDict):
    workspaceRoot: str
    status: CoherenceStatus
    edges: list[Edge]


class IdentitiesAdded(TypedDict):
    """The files that got their identity, and those left for their next save."""

    added: list[str]
    skipped: list[str]


class EdgePayload(TypedDict):
    workspaceRoot: NotRequired[str]
    txf: str
    input: int


class ResolvePayload(TypedDict):
    workspaceRoot: NotRequired[str]
    txf: str
    input: int
    resolution: Resolution
    #: a waiver's (required for ``waive``), and when it lapses (RFC 3339)
    reason: NotRequired[str]
    expires: NotRequired[str]


class Resolved(TypedDict):
    txf: str
    input: int
    resolution: Resolution
    state: EdgeState | None
    entry: str


class EdgeTexts(Edge):
    """An edge with its upstream's pinned and current text (for "revise")."""

    pinned_text: str | None
    current_text: str | None


class Claim(TypedDict):
    claim: str
    entryId: str
    statement: str
    maturity: Maturity
    invalidAt: str | None
    visible: bool


class Claims(TypedDict):
    claims: list[Claim]


class ClaimAddPayload(TypedDict):
    workspaceRoot: NotRequired[str]
    statement: str
    maturity: NotRequired[Maturity]
    supersedes: NotRequired[str]


class ClaimUpdatePayload(TypedDict):
    workspaceRoot: NotRequired[str]
    claim: str
    statement: NotRequired[str]
    maturity: NotRequired[Maturity]
    invalidAt: NotRequired[str | None]


class ClaimPut(TypedDict):
    claim: str
    entryId: str


class Context(TypedDict):
    """A context of the canon (``default`` first); ``errors``: what is wrong with its file."""

    id: str
    name: str
    parent: str | None
    #: read from the context's file as it is (a wrong value is one of its ``errors``)
    enforcement: str
    visibleClaims: int
    errors: list[str]


class Contexts(TypedDict):
    contexts: list[Context]


class ContextSavePayload(TypedDict):
    workspaceRoot: NotRequired[str]
    id: str
    name: str
    parent: NotRequired[str | None]
    enforcement: Literal["greenhouse", "enforcing"]
    include: NotRequired[list[str]]
    exclude: NotRequired[list[str]]


class ContextPayload(TypedDict):
    workspaceRoot: NotRequired[str]
    id: str


class Delegation(TypedDict):
    """A grant of resolutions to an agent (times in seconds since the epoch)."""

    id: str
    principal: str
    scope: list[Resolution]
    workspace: str | None
    created: float
    expires: float
    revoked: float | None
    state: Literal["live", "expired", "revoked"]


class Delegations(TypedDict):
    grants: list[Delegation]
    #: the agents a grant may name
    principals: list[str]


class DelegationGrantPayload(TypedDict):
    principal: str
    scope: list[Resolution]
    #: how long it lasts (``30m``, ``8h``, ``7d``); the default when left out
    expires: NotRequired[str]
    #: only in this workspace
    workspaceRoot: NotRequired[str]


class DelegationPayload(TypedDict):
    id: str


# --- a workflow tab's gutter (``ui.validate``: ``workflow.validate`` of its text) ------------------------
class Finding(TypedDict):
    """One of actionlint's findings: 1-based line and column."""

    line: int
    col: int
    message: str
    severity: str


class Validation(TypedDict):
    ok: bool
    diagnostics: list[Finding]
    #: false: no actionlint, so no verdict (not a finding about the text)
    binaryAvailable: bool


#: every request the page sends with a written-down shape: its payload and its result
REQUESTS: dict[str, tuple[object, object]] = {
    "ui.attach": (AttachPayload, AttachResult),
    "ui.focus": (FocusPayload, FocusResult),
    "ui.open": (PathPayload, TabResult),
    "ui.open_folder": (PathPayload, WorkspaceResult),
    "ui.open_link": (LinkPayload, LinkResult),
    "ui.backlinks": (TabPayload, Backlinks),
    "ui.new": (NewPayload, TabResult),
    "ui.close": (ClosePayload, CloseResult),
    "ui.switch_tab": (TabPayload, SwitchResult),
    "ui.pin": (PinPayload, PinResult),
    "ui.set_mode": (ModePayload, ModeResult),
    "ui.edit": (EditPayload, EditResult),
    "ui.composition": (CompositionPayload, CompositionResult),
    "ui.selection": (SelectionPayload, SelectionResult),
    "ui.save": (TabPayload, SaveResult),
    "ui.save_as": (SaveAsPayload, SaveResult),
    "ui.resolve_divergence": (DivergencePayload, DivergenceResult),
    "ui.reply": (Reply, ReplyResult),
    "ui.state": (Empty, PageState),
    "ui.read": (TabPayload, TabText),
    "history.list": (HistoryListPayload, HistoryList),
    "history.get": (SnapshotPayload, Snapshot),
    "history.revert": (SnapshotPayload, RevisionResult),
    "history.mark_reviewed": (ReviewedPayload, ReviewedResult),
    "review.list": (ReviewListPayload, ReviewList),
    "review.accept": (VerdictPayload, Accepted),
    "review.reject": (VerdictPayload, Rejected),
    "comments.threads": (ThreadsPayload, Threads),
    "comments.add": (CommentAddPayload, CommentAdded),
    "comments.person_reply": (CommentReplyPayload, CommentReplied),
    "comments.resolve": (CommentPayload, ThreadStatus),
    "comments.reopen": (CommentPayload, ThreadStatus),
    "comments.delete": (CommentPayload, ThreadStatus),
    "ui.files": (Empty, Listings),
    "ui.file_create": (FileCreatePayload, FileCreated),
    "ui.file_rename": (FileRenamePayload, FileRenamed),
    "ui.file_delete": (PathPayload, FileDeleted),
    "ui.image_save": (ImageSavePayload, ImageSaved),
    "ui.export": (ExportPayload, Exported),
    "ui.switch_workspace": (WorkspaceSwitchPayload, WorkspaceSwitched),
    "ui.search": (SearchPayload, SearchResults),
    "ui.browse": (BrowsePayload, Browsed),
    "ui.places": (Empty, Places),
    "ui.recent_forget": (PathPayload, RecentForgotten),
    "ui.cjk_format": (TextPayload, TextResult),
    "approvals.list": (Empty, ApprovalsList),
    "approvals.answer": (AnswerPayload, AnswerResult),
    "settings.list": (Empty, SettingsList),
    "settings.set": (SettingPayload, SettingResult),
    "prompts.list": (Empty, PromptFiles),
    "prompts.new": (Empty, PromptCreated),
    "browser.tabs": (Empty, BrowserTabs),
    "browser.human_open": (HumanOpenPayload, BrowserOpened),
    "browser.view": (BrowserTabPayload, BrowserViewed),
    "browser.unview": (BrowserTabPayload, BrowserUnviewed),
    "browser.frame_ack": (BrowserTabPayload, BrowserTabPayload),
    "browser.input": (BrowserInput, BrowserInputResult),
    "browser.nav": (BrowserNavPayload, BrowserWhere),
    "browser.close": (BrowserTabPayload, BrowserClosed),
    "browser.reload_crashed": (BrowserTabPayload, BrowserWhere),
    "browser.permissions": (Empty, SitePermissions),
    "browser.revoke": (RevokePayload, Revoked),
    "coherence.overview": (CoherencePayload, CoherenceOverview),
    "coherence.init": (CoherencePayload, CoherenceStatus),
    "coherence.add_identities": (CoherencePayload, IdentitiesAdded),
    "coherence.resolve": (ResolvePayload, Resolved),
    "coherence.diff": (EdgePayload, EdgeTexts),
    "coherence.claims": (CoherencePayload, Claims),
    "coherence.claim_add": (ClaimAddPayload, ClaimPut),
    "coherence.claim_update": (ClaimUpdatePayload, ClaimPut),
    "coherence.contexts": (CoherencePayload, Contexts),
    "coherence.context_save": (ContextSavePayload, Contexts),
    "coherence.context_delete": (ContextPayload, Contexts),
    "delegations.list": (Empty, Delegations),
    "delegations.grant": (DelegationGrantPayload, Delegation),
    "delegations.revoke": (DelegationPayload, Delegation),
    "ui.validate": (TabPayload, Validation),
}


class FilesChangedEvent(TypedDict):
    """Other programs created, renamed or deleted files or folders under a workspace root the window shows."""

    root: str


#: events the app pushes, and their payloads
EVENTS: dict[str, type] = {
    "state": PageState,
    "doc": DocEvent,
    "divergent": DivergentEvent,
    "notification": NotificationEvent,
    "browser_crashed": BrowserTabEvent,
    "browser_frame": BrowserFrame,
    "browser_prompt": Approval,
    "browser_tabs": Empty,
    "coherence": Empty,
    "comments": CommentsEvent,
    "review": ReviewEvent,
    "folder_picker": Approval,
    "prompt": Approval,
    "files_changed": FilesChangedEvent,
}

#: events that want a ``ui.reply`` (they carry a ``requestId``), and their payloads
REQUEST_EVENTS: dict[str, type] = {
    "flush": Empty,
    "activate": ActivateRequest,
    "focus": Empty,
    "workspace_switch": WorkspaceSwitchRequest,
    "editor": EditorRequest,
}

#: limits the editor page applies before it asks (``export const`` in the generated TypeScript)
PAGE_LIMITS: dict[str, int] = {
    "MAX_PASTED_IMAGE_BYTES": MAX_PASTED_IMAGE_BYTES,
}

#: the named aliases the generated TypeScript keeps (so it reads like this module)
ALIASES: dict[str, object] = {
    "Kind": Kind,
    "Mode": Mode,
    "WireSpan": WireSpan,
    "ShownOrigin": ShownOrigin,
    "LineEnding": LineEnding,
    "Encoding": Encoding,
    "NotificationLevel": NotificationLevel,
    "ExportFormat": ExportFormat,
    "ApprovalKind": ApprovalKind,
    "ApprovalState": ApprovalState,
    "BrowserDecision": BrowserDecision,
    "SnapshotKind": SnapshotKind,
    "ActorKind": ActorKind,
    "ThreadState": ThreadState,
    "BrowserOwner": BrowserOwner,
    "BrowserPosture": BrowserPosture,
    "BrowserOperation": BrowserOperation,
    "InputKind": InputKind,
    "BrowserInput": BrowserInput,
    "EdgeState": EdgeState,
    "Resolution": Resolution,
    "Maturity": Maturity,
    "EntryKind": EntryKind,
    "PlaceKind": PlaceKind,
}
