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

# Approvals
APPROVAL_TTL_SECONDS = 300.0

# MCP output
OUTPUT_BOUND_BYTES = 75_000

# UI round trips (flush before close, activation confirmation)
UI_ROUND_TRIP_SECONDS = 1.0

# External changes
DISK_POLL_SECONDS = 0.5
