"""What each tool action answers: one ``TypedDict`` per action, the ``outputSchema`` every tool declares.

The MCP server lists each tool with :func:`output_schema` (MCP 2025-06-18: a tool with an output schema answers
``structuredContent`` that conforms to it; the official clients check every result against it). A tool has many
actions and a result does not name its action, so a tool's schema is ``anyOf`` its actions' results, plus the
truncation note any result can become (:data:`Truncated`, over the output bound). An action that answers a
JSON array is carried as ``{"result": [...]}`` (``structuredContent`` is an object). Error results
(``isError``) are not held to the output schema (MCP's rule); a domain error's ``structuredContent`` is
:data:`ERROR_SCHEMA`'s envelope, a browser error's its ``{error, message, data}``, and an argument error has none.

The key sets are the spec's (``mcp-tools.en.md``); objects stay open to keys they do not name, so a result may
grow a field without breaking a client that validates against an older listing.
"""

from typing import Literal, NotRequired, TypedDict

from . import wire_types
from .browser_results import (
    Acted,
    ConsoleRead,
    Evaluated,
    Extracted,
    Matched,
    Queried,
    Recording,
    RunCancelled,
    RunStarted,
    RunStatus,
    Screenshot,
    SessionLoaded,
    SessionSaved,
    Snapshot,
    Styled,
    TabClosed,
    TabOpened,
    Ticket,
)
from .errors import ERROR_CODES, ErrorShape
from .schema import json_schema
from .wire_types import Claim, CoherenceStatus, Context, Edge, Kind, Mode, WindowInfo

Journaled = Literal["yes", "pending", "no"]


# --- session -------------------------------------------------------------------------------------------
class Capabilities(TypedDict):
    version: str
    supportedKinds: list[Kind]
    mcpProtocol: str


class SessionState(TypedDict):
    windows: list[WindowInfo]
    #: the AI-owned and attached browser tabs (URLs redacted)
    browserTabs: list[wire_types.BrowserTabSummary]
    capabilities: Capabilities


class SessionChanges(TypedDict):
    cursor: str
    events: list[object]
    #: more events wait beyond this answer's bound: ask again from ``cursor``
    more: NotRequired[bool]


# --- workspace -----------------------------------------------------------------------------------------
class NewTab(TypedDict):
    tabId: str


class Opened(TypedDict):
    tabId: str
    workspaceInstanceId: str | None
    activationChanged: bool
    workspaceSwitched: bool


class WorkspaceOpened(TypedDict):
    folderPath: str
    #: the first call (and one while the person has not decided): ask the user, then repeat the call
    needsApproval: NotRequired[bool]
    opened: NotRequired[bool]
    workspaceInstanceId: NotRequired[str]
    windowLabel: NotRequired[str]


class Saved(TypedDict):
    filePath: str | None
    revision: str
    journaled: NotRequired[Journaled]


class SavedAs(TypedDict):
    revision: str
    journaled: NotRequired[Journaled]


class Closed(TypedDict):
    closed: bool
    reason: NotRequired[Literal["PINNED", "DIVERGENT", "DIRTY"]]


class Switched(TypedDict):
    activated: bool
    workspaceSwitched: bool
    workspaceInstanceId: str | None
    activeTabId: str | None


class Focused(TypedDict):
    windowLabel: str
    focused: bool


# --- document, workflow, selection ----------------------------------------------------------------------
class DocumentFields(TypedDict):
    """What a page of a document's text says about the document (:class:`DocumentPage`)."""

    revision: str
    filePath: str | None
    kind: Kind
    dirty: bool


class DocumentPage(TypedDict):
    content: str
    revision: str
    filePath: str | None
    kind: Kind
    dirty: bool
    totalLength: int
    #: present while more of the text remains: read on from here
    nextOffset: NotRequired[int]


class Written(TypedDict):
    """Every agent write (``document.write`` / ``edit`` / ``transform``, ``workflow.apply_patch``)."""

    revision: str
    applied: bool
    durable: bool
    saved: NotRequired[bool]
    journaled: NotRequired[Journaled]
    save_skipped: NotRequired[Literal["untitled", "opt_out"]]
    save_error: NotRequired[str]


#: ``workflow.validate``: actionlint's verdict, as the person's gutter gets it (``ui.validate``)
Validated = wire_types.Validation


SelectionRange = TypedDict("SelectionRange", {"from": int, "to": int})


class Selection(TypedDict):
    text: str
    isEmpty: bool
    range: SelectionRange
    mode: Mode
    kind: Kind
    tabId: str
    revision: str


class SelectionSet(TypedDict):
    revision: str
    replaced_chars: int
    applied: bool
    durable: bool


# --- comments ------------------------------------------------------------------------------------------
class PagedReply(TypedDict):
    """A reply on a page of ``comments.list``: its body as text, or (too long for any page) as ``bodyBase64``."""

    id: str
    author: str
    created: float
    body: NotRequired[str]
    bodyBase64: NotRequired[str]


class ThreadPart(wire_types.ThreadStatus):
    """A thread on a page of ``comments.list``, or a part of one split between replies: its first part carries
    the thread (and ``repliesFrom`` / ``repliesTotal`` when split), a later part only ``continued: true``, where
    its replies resume and the next replies."""

    #: always there (after the thread's own keys)
    replies: NotRequired[list[PagedReply]]
    quote: NotRequired[str]
    author: NotRequired[str]
    created: NotRequired[float]
    anchor: NotRequired[wire_types.CommentAnchor | None]
    orphaned: NotRequired[bool]
    body: NotRequired[str]
    bodyBase64: NotRequired[str]
    continued: NotRequired[bool]
    repliesFrom: NotRequired[int]
    repliesTotal: NotRequired[int]


class CommentPage(TypedDict):
    doc: str
    generation: str
    threads: list[ThreadPart]
    nextCursor: NotRequired[str]


class Replied(TypedDict):
    reply: str
    commentGen: str
    durable: NotRequired[bool]


class Addressed(TypedDict):
    comment: str
    state: str
    commentGen: str
    durable: NotRequired[bool]


# --- coherence (the rows are the person protocol's: the same kernel answers both) -------------------------
class Edges(TypedDict):
    result: list[Edge]


class Claims(TypedDict):
    result: list[Claim]


class Contexts(TypedDict):
    result: list[Context]


class Resolved(wire_types.Resolved):
    """The person's resolution, and the delegation that let the agent make it."""

    grant: str
    durable: bool


class Truncated(TypedDict):
    """Any result over the output bound (75,000 UTF-8 bytes) becomes this note and a preview of its JSON."""

    truncated: Literal[True]
    truncation_note: str
    bytes_total: int
    bytes_shown: int
    preview: str


#: tool -> action -> what the action answers (its ``structuredContent``): a ``TypedDict``, or a union of them
RESULTS: dict[str, dict[str, object]] = {
    "session": {"get_state": SessionState, "changes": SessionChanges},
    "workspace": {
        "new": NewTab,
        "open": Opened,
        "open_workspace": WorkspaceOpened,
        "save": Saved,
        "save_as": SavedAs,
        "close": Closed,
        "switch_tab": Switched,
        "focus_window": Focused,
    },
    "document": {"read": DocumentPage, "write": Written, "edit": Written, "transform": Written},
    "workflow": {"apply_patch": Written, "validate": Validated},
    "selection": {"get": Selection, "set": SelectionSet},
    "comments": {"list": CommentPage, "reply": Replied, "mark_addressed": Addressed},
    "browser": {
        "act": Acted,
        "open": TabOpened,
        "navigate": Ticket,
        "close": TabClosed,
        "style": Styled,
        "execute_js": Evaluated,
        "console_clear": ConsoleRead,
        "workflow_run": RunStarted,
        "workflow_cancel": RunCancelled,
        "workflow_record": Recording,
        "session_save": SessionSaved,
        "session_load": SessionLoaded,
    },
    "browser_read": {
        "read": Snapshot,
        "screenshot": Screenshot,
        "query": Queried,
        "extract": Extracted,
        "console": ConsoleRead,
        "wait": Ticket,
        "wait_for": Matched,
        "workflow_status": RunStatus,
    },
    "coherence": {"status": CoherenceStatus, "edges": Edges, "claims": Claims, "contexts": Contexts},
    "coherence_resolve": {"resolve": Resolved},
}


def output_schema(tool: str) -> dict[str, object]:
    """The ``outputSchema`` of ``tool``: any of its actions' results, or the truncation note."""
    results = list(dict.fromkeys([*RESULTS[tool].values(), Truncated]))
    return {"type": "object", "anyOf": [json_schema(result) for result in results]}


#: a domain error's ``structuredContent`` (``{"error": CODE, "message": ..., **extra}``) and a browser error's
#: (``{"error": TOKEN, "message": ..., "data": ...}``)
ERROR_SCHEMA: dict[str, object] = {
    "type": "object",
    "required": ["error", "message"],
    "properties": {"error": {"type": "string", "pattern": "^[A-Z][A-Z_]*$"}, "message": {"type": "string"}},
}
#: the codes of the envelope shape (a token of the browser tools is one of its own)
ENVELOPE_CODES = frozenset(code for code, (shape, _) in ERROR_CODES.items() if shape is ErrorShape.ENVELOPE)
