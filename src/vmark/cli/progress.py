"""A progress bar on the terminal for long CLI work (:mod:`vmark.core.progress` reports), on a TTY only.

One line on stderr, redrawn in place a few times a second (``reading changed files [#####-----] 120/400``)
and erased when the work is done, so stdout (what a script reads) never sees it.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import TextIO

from ..core.progress import Throttled, reporting

BAR_WIDTH = 30


class _Bar:
    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._drawn = False

    def __call__(self, done: int, total: int, message: str) -> None:
        filled = BAR_WIDTH * done // total if total > 0 else BAR_WIDTH
        self._stream.write(f"\r\x1b[2K{message} [{'#' * filled}{'-' * (BAR_WIDTH - filled)}] {done}/{total}")
        self._stream.flush()
        self._drawn = True

    def erase(self) -> None:
        if self._drawn:
            self._stream.write("\r\x1b[2K")
            self._stream.flush()


@contextlib.contextmanager
def progress_bar(stream: TextIO | None = None) -> Iterator[None]:
    out = sys.stderr if stream is None else stream
    if not out.isatty():
        yield
        return
    bar = _Bar(out)
    try:
        with reporting(Throttled(bar)):
            yield
    finally:
        bar.erase()
