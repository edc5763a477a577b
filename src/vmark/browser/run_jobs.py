"""The registry of completed writes: a write step that succeeded is remembered under its job, and a later
run of the same job skips it unless ``allowRepeat``.

A job is a keyed hash of the workflow's source and the inputs: the key is random per app session, so a
hash of short inputs cannot be looked up in a table of hashes.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Mapping

from vmark.protocol.limits import MAX_BROWSER_RUN_JOBS_KEPT


class Jobs:
    def __init__(self) -> None:
        #: job -> indexes of its write steps that succeeded (the oldest jobs are forgotten first)
        self._done: dict[str, set[int]] = {}
        self._key = secrets.token_bytes(32)

    def job(self, source: str, inputs: Mapping[str, str]) -> str:
        payload = json.dumps([source, sorted(inputs.items())], ensure_ascii=False).encode("utf-8", "surrogatepass")
        return hmac.new(self._key, payload, hashlib.sha256).hexdigest()

    def done(self, job: str, index: int) -> bool:
        return index in self._done.get(job, ())

    def remember(self, job: str, index: int) -> None:
        self._done.setdefault(job, set()).add(index)
        while len(self._done) > MAX_BROWSER_RUN_JOBS_KEPT:
            del self._done[next(iter(self._done))]
