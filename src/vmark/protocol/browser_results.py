"""What the browser tools' actions answer (``browser``, ``browser_read``): their result ``TypedDict``s, which
:data:`vmark.protocol.results.RESULTS` lists with the other tools'; the browser's services (``vmark.browser``) and
its handlers answer them. A page's own words are marked as the page's (:class:`PageAnswer`).
"""

from typing import Literal, NotRequired, TypedDict

from .jsontypes import JSONObject


class Gate(TypedDict):
    """What stands between the agent and the page (a login, a consent wall, a challenge), and a hint."""

    kind: str
    hint: str


class Ticket(TypedDict):
    """A navigation's ticket: its id, where it stands, the (redacted) URL; once loaded the page's title and
    generation (and its HTTP status, a gate in the way); a failed one's ``error``, a superseded one's
    successor."""

    navigationId: NotRequired[str]
    status: NotRequired[str]
    url: NotRequired[str]
    title: NotRequired[str]
    generation: NotRequired[int]
    httpStatus: NotRequired[int]
    gate: NotRequired[Gate]
    error: NotRequired[str]
    supersededBy: NotRequired[str]


class TabOpened(Ticket):
    tabId: str


class TabClosed(TypedDict):
    tabId: str
    closed: bool
    destroyed: NotRequired[bool]


class PageAnswer(TypedDict):
    """What the page said, marked as the page's: untrusted data, not instructions."""

    url: str
    generation: int
    untrusted: str


class ActDone(TypedDict):
    """What an act did (``vmark.browser.act``): whether it went through (else why), how many elements matched
    its target, the ref it acted on, and the input it sent (``none``: nothing reached the page)."""

    ok: bool
    reason: NotRequired[str]
    detail: NotRequired[str]
    candidates: NotRequired[object]
    matchedTotal: int
    matchedVisible: int
    ref: NotRequired[str]
    input: Literal["trusted", "synthetic", "none"]
    #: a key's: submit, focus-move, navigation or none
    defaultAction: NotRequired[str]


class Popup(TypedDict):
    url: str


class ActedOnPage(PageAnswer):
    """An act's answer is the page's; ``popup``: a window the act opened."""

    popup: NotRequired[Popup]


class Acted(ActDone, ActedOnPage):
    """``browser.act``: what it did (:class:`ActDone`), marked as the page's (:class:`ActedOnPage`)."""


class Evaluated(PageAnswer):
    result: object


class ConsoleEntry(TypedDict):
    level: str
    text: str


class ConsoleEntries(TypedDict):
    entries: list[ConsoleEntry]


class ConsoleRead(PageAnswer, ConsoleEntries):
    pass


class WorkflowStep(TypedDict):
    """A step of a workflow as written (its text cut to a bound)."""

    index: int
    line: int
    kind: str
    text: str


class RunStarted(TypedDict):
    runId: str
    steps: list[WorkflowStep]
    firstStep: int


class RunCancelled(TypedDict):
    runId: str
    status: str
    alreadyTerminal: NotRequired[bool]


class RecordingStarted(TypedDict):
    recording: bool
    tabId: str
    url: str


class RecordedWorkflow(TypedDict):
    """A recording's workflow text, its inputs, how many events made it; past a bound, how many were left out
    (``notRecorded``) and which bound (``limit``, in words)."""

    source: str
    inputs: list[str]
    eventCount: int
    notRecorded: NotRequired[int]
    limit: NotRequired[str]


#: ``browser.workflow_record``: ``start`` answers :class:`RecordingStarted`, ``stop`` :class:`RecordedWorkflow`
Recording = RecordingStarted | RecordedWorkflow


class SessionSaved(TypedDict):
    handle: str
    origin: str
    cookies: int
    localStorage: int
    store: object


class SessionLoaded(TypedDict):
    loaded: bool
    handle: str


class SnapshotRead(TypedDict):
    """A page's accessibility snapshot (its nodes, each with a ``ref``), cut at a bound; ``unreachable``:
    closed shadow roots it could not enter."""

    snapshot: list[JSONObject]
    truncated: NotRequired[bool]
    unreachable: NotRequired[int]


class Snapshot(PageAnswer, SnapshotRead):
    pass


class Screenshot(TypedDict):
    """The image travels as an image block; ``structuredContent`` names it and the page."""

    mimeType: str
    text: str


class Image(TypedDict):
    mimeType: str
    #: base64
    data: str


class ScreenshotTaken(TypedDict):
    """What the app answers ``browser_read.screenshot`` with: the MCP server sends ``image`` as an image block
    and :class:`Screenshot` as ``structuredContent``."""

    image: Image
    text: str


class QueryMatches(TypedDict):
    count: int
    elements: list[object]
    truncated: NotRequired[bool]


class Queried(PageAnswer, QueryMatches):
    pass


class Extracted(TypedDict):
    title: str | None
    byline: str | None
    url: str
    markdown: str
    textLength: int
    truncated: bool
    untrusted: str


class Match(TypedDict):
    matched: bool
    ref: NotRequired[str]


class Matched(PageAnswer, Match):
    pass


class Restyled(TypedDict):
    """What ``browser.style`` changed: how many elements (``injected`` for a style sheet)."""

    count: int
    injected: NotRequired[bool]


class Styled(PageAnswer, Restyled):
    pass


class PendingApproval(TypedDict):
    approvalId: str
    step: int
    subject: str


class StepOutcome(TypedDict):
    index: int
    status: Literal["pending", "running", "completed", "skipped", "paused", "failed", "cancelled"]
    attempts: int
    reason: NotRequired[str]
    data: NotRequired[object]


class RunSummary(TypedDict):
    runId: str
    status: Literal["running", "paused", "completed", "failed", "cancelled", "superseded"]
    completedSteps: int
    skippedSteps: int
    stepCount: int
    firstStep: int


class RunProgress(TypedDict, total=False):
    """Where a run stopped (``pausedAt``), the prompt it waits on, why it ended, the run it resumed."""

    pausedAt: int
    pendingApproval: PendingApproval
    reasonCode: str
    reason: str
    resumedFrom: str


class RunStatus(RunSummary, RunProgress):
    stepResults: list[StepOutcome]
