"""Every numeric limit of the surface, in one place.

A limit is a bound on size, count or time that VMark enforces (an argument's range, a cap on what an answer
carries, how long something may take). Each says what it bounds and why that value; modules import it from
here (and keep the name at module level where a test shortens it). The browser's page scripts
(``browser/js/*.js``) receive the ones they apply as ``LIMITS`` (:data:`PAGE_SCRIPT_LIMITS`), so no number
lives twice. Heuristic thresholds (when a page "looks like" a gate, how text is scored) and protocol codes are
not limits and stay with their algorithm.
"""

from __future__ import annotations

# Bridge (DESIGN.md section 4)
PRE_AUTH_FRAME_BYTES = 64 * 1024
AUTH_DEADLINE_SECONDS = 10.0
MAX_SOCKETS = 32
MAX_FRAME_BYTES = 64 * 1024 * 1024  # a 10 MB document JSON-escaped, with room
#: an MCP client's name (``clientInfo.name``) as the person sees it: a label, never an identity; long enough for
#: "claude-code", "Cursor", "vscode-copilot-chat", short enough to fit a toolbar's tooltip and a History line
CLIENT_NAME_MAX_CHARS = 64

# Writes
WRITE_QUEUE_WAIT_SECONDS = 3.0
COMPOSITION_GRACE_SECONDS = 0.5
JOURNAL_ANSWER_SECONDS = 2.0
JOURNAL_RETRY_SECONDS = 1.0
MAX_ADDRESSES = 64
DEFAULT_REVIEW_BACKLOG_LIMIT = 50

# Comments (DECISIONS.md "Comments")
MAX_REPLIES = 200
MAX_COMMENT_BODY_BYTES = 16 * 1024
#: a quote is what the person selected; bounded so that a thread's first part always fits on a page
MAX_QUOTE_BYTES = 1024
#: changes one thread may take (each keeps an idempotence record); past it the thread can no longer change
MAX_THREAD_CHANGES = 1000
COMMENT_PAGE_BYTES = 32 * 1024

# Approvals
APPROVAL_TTL_SECONDS = 300.0

# MCP output
OUTPUT_BOUND_BYTES = 75_000

# MCP input
#: levels of arrays and objects one argument may nest (deeper: a plain argument error)
MAX_ARGUMENT_DEPTH = 64
#: a line deeper than this is cut there before parsing (what was cut is still deeper than any argument may be)
MAX_MESSAGE_DEPTH = 2 * MAX_ARGUMENT_DEPTH
#: exact-match edits in one ``document.edit``
MAX_DOCUMENT_EDITS = 500

# UI round trips (flush before close, activation confirmation)
UI_ROUND_TRIP_SECONDS = 1.0

# External changes
DISK_POLL_SECONDS = 0.5
#: how often the folders a window's file tree shows are looked at for entries other programs made (a burst of
#: changes reaches the pages at most once a round)
TREE_POLL_SECONDS = 1.0

# --- coherence ---
#: a coherence / coherence_resolve call that has not finished by then answers TIMEOUT
COHERENCE_TIMEOUT_SECONDS = 20.0

# --- browser ---
#: how long a browser act waits for the person's answer before it answers APPROVAL_PENDING
BROWSER_PROMPT_WAIT_SECONDS = 20.0
#: prompts waiting for the person at once, at most
MAX_BROWSER_PROMPTS = 64

# --- browser workflows ---
MAX_WORKFLOW_STEPS = 25
MAX_WORKFLOW_SOURCE_BYTES = 64 * 1024
MAX_WORKFLOW_INPUTS = 64
#: one input value, in UTF-8 bytes
MAX_WORKFLOW_INPUT_BYTES = 4 * 1024
#: a run's running time; the time it waits for the person does not count
BROWSER_RUN_TIME_BUDGET_SECONDS = 120.0
#: how long a click / type step waits for its element to show up before acting anyway
BROWSER_RUN_STEP_READY_SECONDS = 5.0
#: the Markdown an extract step keeps (status answers stay well inside the MCP output bound)
BROWSER_RUN_EXTRACT_MAX_CHARS = 2000
#: finished runs kept for workflow_status (the oldest go first), and jobs remembered for skipping
MAX_BROWSER_RUNS_KEPT = 200
MAX_BROWSER_RUN_JOBS_KEPT = 1000

# --- browser: tabs and navigation (spec: browser.open / navigate / wait) ---
#: AI-owned tabs open at once (spec ``TAB_LIMIT``): enough for a task's side by side reading, few enough that
#: an agent that forgets to close them meets the limit instead of exhausting memory
TAB_LIMIT = 8
#: a tab's title is read this long after a load; a page that does not answer in time has no title yet
TAB_TITLE_SECONDS = 1.0
#: ``timeoutMs`` of open / navigate / wait: the spec's 1-9,000 ms (below the MCP client's usual 10 s)
MIN_TIMEOUT_MS = 1
MAX_TIMEOUT_MS = 9000
DEFAULT_TIMEOUT_MS = 9000
#: the argument error a ``timeoutMs`` out of that range answers
TIMEOUT_MS_RULE = f"argument 'timeoutMs' must be an integer from {MIN_TIMEOUT_MS} to {MAX_TIMEOUT_MS}"
#: how long a navigation may run at all, waited for or not (a load that never ends is failed, not kept)
NAVIGATION_LIMIT_MS = 120_000
#: finished navigation tickets kept per tab for a later ``wait`` (older ones are forgotten)
TICKETS_PER_TAB = 16
#: reading the loaded page's text for gate detection (a hung page must not hold the navigation's answer)
GATE_TEXT_TIMEOUT_MS = 2000
#: how long a failed load's error page may take to commit before the failure is answered anyway
ERROR_PAGE_TIMEOUT_MS = 1000
#: markup beyond this is not scanned for gates (gates are small pages; this bounds the work on huge ones)
GATE_MAX_HTML_CHARS = 2_000_000
#: the person's navigations (the browser view) wait for the response to commit, not for the page to load
VIEW_NAVIGATION_TIMEOUT_MS = 15_000

# --- browser: what the driver keeps of a page (a hostile page must not grow VMark's memory) ---
#: how much of a dialog's (page-controlled) message is kept
DIALOG_MESSAGE_CHARS = 500
#: dialogs and downloads logged per page
EVENT_LOG_LIMIT = 50
#: console entries kept per tab (the newest), and characters of text per entry (spec: browser_read.console)
CONSOLE_RING_ENTRIES = 200
CONSOLE_TEXT_CHARS = 2000
#: characters of a console entry's level kept (a level is a word such as "warning"; the page may lie)
CONSOLE_LEVEL_CHARS = 16
#: elements one ``query`` answers, and characters of text per element (spec: browser_read.query)
QUERY_MAX_ELEMENTS = 50
QUERY_TEXT_CHARS = 500
#: nodes one snapshot lists (spec: browser_read.snapshot); past it the answer says ``truncated``
SNAPSHOT_MAX_NODES = 2000
#: custom elements per snapshot asked (over CDP, one call each) whether they carry a closed shadow root
SNAPSHOT_CLOSED_ROOT_CHECKS = 200
#: cross-origin frames inside cross-origin frames are entered this deep, then counted
MAX_FRAME_DEPTH = 4
#: characters of an accessible name (snapshot, acts, recordings): long enough to tell elements apart,
#: short enough that a link wrapping a whole article does not flood the answer
ACCESSIBLE_NAME_CHARS = 200
#: how long one evaluation in an isolated world may take before it answers a timeout
PAGE_EVAL_SECONDS = 10.0
#: the characters of a field's value quoted when a typed text did not land
FIELD_VALUE_SHOWN_CHARS = 200
#: the option labels a refused ``select`` lists (enough to pick the right one, bounded for a huge list)
SELECT_OPTIONS_SHOWN = 20

# --- browser: recordings ---
#: events one document records; a recording past it keeps the first ones and says so
RECORDER_PAGE_EVENT_LIMIT = 200
#: events one recording keeps over all its documents
RECORDER_SESSION_EVENT_LIMIT = 1000
#: characters of an input's name used to name a workflow input
RECORDER_INPUT_NAME_CHARS = 40
#: how long installing or reading the shim may take in a page
RECORDER_EVAL_SECONDS = 5.0

# --- browser: the network guard ---
#: the largest request head accepted from the browser
PROXY_HEAD_BYTES = 64 * 1024
#: connecting to an allowed destination
PROXY_CONNECT_SECONDS = 15.0
#: refusals remembered for the person's view (the newest)
PROXY_REFUSALS_KEPT = 50

# --- browser: extraction (browser_read.extract) ---
#: the largest page capture extract reads (the rest is left unread: ``truncated``)
EXTRACT_CAPTURE_CHARS = 4_000_000
#: the Markdown one extract answers at most (inside the MCP output bound once escaped)
EXTRACT_MAX_CHARS = 200_000
#: element nesting the DOM parser keeps (deeper content is flattened into its ancestor at this depth)
EXTRACT_DOM_MAX_DEPTH = 160
#: nesting the Markdown writer follows (deeper blocks are written as their text)
EXTRACT_MARKDOWN_MAX_DEPTH = 96
#: elements scored over all attempts on one page (each attempt walks the whole body)
EXTRACT_WORK_BUDGET = 200_000
#: a byline longer than this is content, not a byline
EXTRACT_BYLINE_CHARS = 120

# --- browser: the person's browser view ---
#: a page that has not acknowledged a screencast frame for this long is sent the newest one anyway
VIEW_ACK_SECONDS = 3.0
#: text the person types into the view in one message
VIEW_MAX_TEXT_CHARS = 4096
#: one wheel event's scroll, in CSS pixels either way
VIEW_MAX_WHEEL_PX = 10_000.0

# --- browser workflows (runs) ---
#: the longest step text a run's start answer repeats
WORKFLOW_STEP_TEXT_SHOWN = 200

# --- the person's UI ---
#: files listed per workspace instance; past this the listing says ``truncated``
MAX_TREE_FILES = 5000
#: workspace search: results per query (past it ``truncated``), files larger than this are not searched,
#: characters of a line shown around a match
SEARCH_MAX_RESULTS = 500
SEARCH_MAX_FILE_BYTES = 4 * 1024 * 1024
SEARCH_LINE_PREVIEW_CHARS = 160
#: ``ui.backlinks``: the lines that link to a file, at most this many; each line's text cut to this length
BACKLINKS_MAX_RESULTS = 200
BACKLINKS_LINE_CHARS = 200
#: no image a document shows is larger; past this the answer is 413
MAX_IMAGE_BYTES = 64 * 1024 * 1024
#: entries one folder listing of the picker (``ui.browse``) carries, sorted; the rest are counted in its ``more``
#: (a person scrolls a few hundred names at most; filtering asks the app again with the typed text)
BROWSE_MAX_ENTRIES = 1000
#: recent folders and recent files the picker remembers (each list, most recent first)
MAX_RECENT_FOLDERS = 20
MAX_RECENT_FILES = 30
#: an image the person pastes or drops into a document (``ui.image_save``): it travels base64-encoded in one
#: UI frame (a third larger), which must stay well inside ``MAX_FRAME_BYTES``; screenshots and photos fit
MAX_PASTED_IMAGE_BYTES = 16 * 1024 * 1024
#: files whose last editor mode (WYSIWYG / source) is remembered; the least recently toggled go first
MAX_REMEMBERED_MODES = 2000

# --- export (``vmark export``, the page's Export menu) ---
#: one export (Chromium's start, the rendering, Pandoc, the write) takes at most this long
EXPORT_TIMEOUT_SECONDS = 180.0
#: Pandoc's own run, one of its two passes (reading Markdown, writing the format)
PANDOC_TIMEOUT_SECONDS = 60.0
#: a PDF's page margins, in millimetres (the ``export.margin_mm`` setting): its default and range
EXPORT_MARGIN_DEFAULT_MM = 20
EXPORT_MARGIN_MIN_MM = 0
EXPORT_MARGIN_MAX_MM = 60

# --- documents ---
#: recent changes kept per document, and inserted characters at most over them
CHANGE_LOG_ENTRIES = 64
CHANGE_LOG_CHARS = 1_000_000
#: room kept on a comment page for ``nextCursor``; a cursor is far shorter (see ``app.comments``)
COMMENT_CURSOR_ROOM = 160
#: fuzzy anchor searches per edit; past it a displaced thread is orphaned (and found again by exact match later)
FUZZY_BUDGET = 64

# --- delegations (the person lets an agent accept newer versions / waive checks) ---
DELEGATION_DEFAULT_SECONDS = 7 * 24 * 3600
#: a delegation longer than a year is refused (the person should look again at least that often)
DELEGATION_MAX_SECONDS = 365 * 24 * 3600

# --- coherence ---
#: semantic checks run per ``edges`` call at most (each may take the checker's whole timeout)
MAX_CHECKS_PER_CALL = 8
#: ... and stop starting new ones after this long (a check may take the checker's own timeout more)
CHECK_BUDGET_SECONDS = 4.0
#: the checker's timeout setting: its default (below COHERENCE_TIMEOUT_SECONDS, so a call can run a check)
#: and its highest value
CHECKER_DEFAULT_TIMEOUT_S = 10
CHECKER_MAX_TIMEOUT_S = 600
#: an answer larger than this is not a one-word verdict; it is read no further
CHECKER_MAX_ANSWER_BYTES = 1024 * 1024
#: a context file larger than this is refused unread (it is a handful of ids, not a document)
MAX_CONTEXT_FILE_BYTES = 256 * 1024
#: a ledger file is rotated past this size (reading stays incremental and cheap)
LEDGER_ROTATE_BYTES = 8 * 1024 * 1024
#: a ledger appended to nonstop is read as of the last of these rounds, not chased forever
LEDGER_SYNC_ROUNDS = 8

# --- text ---
#: the highest repeated-punctuation limit a setting may hold (0 switches the rule off)
MAX_PUNCTUATION_LIMIT = 9
#: markdown-it's ``maxNesting``: deeper links are left alone, deeper label lookahead gives up
MAX_INLINE_NESTING = 20
#: YAML nesting a workflow file may have (deeper is refused, not recursed into)
YAML_MAX_DEPTH = 200

# --- agents hear the person (session.changes, resources, prompts) ---
#: events the app keeps for ``session.changes``; a cursor older than the oldest kept answers CURSOR_EXPIRED
CHANGES_LOG_EVENTS = 2000
#: the longest ``wait_ms`` of ``session.changes``: a tool call answers before the MCP client's usual 10 s
CHANGES_MAX_WAIT_MS = MAX_TIMEOUT_MS
#: one ``session.changes`` answer carries events up to about this much JSON (well inside the output bound);
#: the rest comes with the next call (``more: true``)
CHANGES_PAGE_BYTES = 48 * 1024
#: characters of a judged change's text (and of the text it replaced) a verdict event quotes
CHANGES_TEXT_CHARS = 2000
#: the person's prompt files: at most this many are read, each at most this large
MAX_PROMPTS = 200
MAX_PROMPT_FILE_BYTES = 256 * 1024
#: values one ``completion/complete`` answers (the MCP maximum)
COMPLETION_MAX_VALUES = 100

# --- MCP server ---
#: how long ``vmark mcp`` waits for the app it started to publish its bridge
APP_START_TIMEOUT_SECONDS = 15.0
#: how long ``vmark mcp`` waits for the running app to take its connection (the WebSocket handshake, then the
#: answer to its credentials): a busy app on a loaded machine may take seconds; one that is not there refuses at once
BRIDGE_OPEN_SECONDS = 10.0

#: the limits the page scripts (``browser/js/*.js``) apply, given to them as ``LIMITS`` (browser/isolated.py)
PAGE_SCRIPT_LIMITS: dict[str, int] = {
    "ACCESSIBLE_NAME_CHARS": ACCESSIBLE_NAME_CHARS,
    "CONSOLE_RING_ENTRIES": CONSOLE_RING_ENTRIES,
    "CONSOLE_TEXT_CHARS": CONSOLE_TEXT_CHARS,
    "QUERY_MAX_ELEMENTS": QUERY_MAX_ELEMENTS,
    "QUERY_TEXT_CHARS": QUERY_TEXT_CHARS,
    "RECORDER_PAGE_EVENT_LIMIT": RECORDER_PAGE_EVENT_LIMIT,
    "SELECT_OPTIONS_SHOWN": SELECT_OPTIONS_SHOWN,
    "SNAPSHOT_MAX_NODES": SNAPSHOT_MAX_NODES,
}
