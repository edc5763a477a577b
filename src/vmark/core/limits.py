"""Every numeric limit of the surface, in one place."""

from __future__ import annotations

# Bridge (DESIGN.md section 4)
PRE_AUTH_FRAME_BYTES = 64 * 1024
AUTH_DEADLINE_SECONDS = 10.0
MAX_SOCKETS = 32
MAX_FRAME_BYTES = 64 * 1024 * 1024  # a 10 MB document JSON-escaped, with room

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
