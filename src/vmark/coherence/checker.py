"""The pluggable semantic checker: is a derived document still consistent with its source?

A checker answers ``valid``, ``contradicted`` or ``unknown`` for one edge between two exact
revisions under one claim set. Off by default. Providers: a configured command (JSON request on
stdin, ``{"verdict": ...}`` on stdout) or an OpenAI-compatible chat endpoint. Every failure —
a crash, a timeout, an unreadable answer — is the verdict ``unknown``, never an exception: a
checker that cannot decide must not break the projection.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from vmark.protocol.limits import CHECKER_DEFAULT_TIMEOUT_S, CHECKER_MAX_ANSWER_BYTES, CHECKER_MAX_TIMEOUT_S

from .records import VERDICTS

UNKNOWN = "unknown"
CHECKER_MODES = ("off", "command", "openai")

#: settings key -> (type, default), in the shape of ``vmark.storage.settings.SETTINGS``
SETTING_KEYS: dict[str, tuple[type, Any]] = {
    "coherence.checker": (str, "off"),
    "coherence.checker_command": (list, []),
    "coherence.checker_url": (str, ""),
    "coherence.checker_model": (str, ""),
    "coherence.checker_api_key_env": (str, ""),
    "coherence.checker_timeout_s": (int, CHECKER_DEFAULT_TIMEOUT_S),
}

_INSTRUCTION = (
    "You check whether a derived document is still consistent with the new revision of the source "
    "it was generated from, under the listed canon claims. Answer with exactly one word and nothing "
    "else: valid (still consistent), contradicted (the new source or a claim contradicts it), or "
    "unknown (you cannot tell)."
)


@dataclass(frozen=True)
class CheckRequest:
    upstream_before: str | None  # the pinned upstream content (None: no longer available)
    upstream_after: str  # the upstream content now
    downstream: str  # the derived document now
    claims: list[str] = field(default_factory=list)  # statements of the constraining claims
    upstream_path: str | None = None
    downstream_path: str | None = None


class Checker(Protocol):
    name: str

    def check(self, request: CheckRequest) -> str: ...


class CommandChecker:
    """Runs ``argv`` with the request as JSON on stdin; expects ``{"verdict": ...}`` on stdout."""

    def __init__(self, argv: list[str], timeout_s: float) -> None:
        self.argv = list(argv)
        self.timeout_s = timeout_s
        self.name = "command:" + (os.path.basename(argv[0]) if argv else "")

    def check(self, request: CheckRequest) -> str:
        if not self.argv:
            return UNKNOWN
        payload = json.dumps(asdict(request), ensure_ascii=False).encode("utf-8")
        try:
            # a session of its own, so a timeout kills the command's children too
            process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except (OSError, ValueError):
            return UNKNOWN
        try:
            out, _ = process.communicate(payload, timeout=self.timeout_s)
        except subprocess.TimeoutExpired:
            _kill(process)
            return UNKNOWN
        except OSError:
            _kill(process)
            return UNKNOWN
        if process.returncode != 0 or len(out) > CHECKER_MAX_ANSWER_BYTES:
            return UNKNOWN
        return _verdict_of_json(out)


class OpenAICompatibleChecker:
    """Asks ``{base_url}/chat/completions`` for a one-word verdict."""

    def __init__(self, base_url: str, model: str, api_key_env: str | None, timeout_s: float) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key_env = api_key_env
        self.timeout_s = timeout_s
        self.name = "openai:" + model

    def check(self, request: CheckRequest) -> str:
        body = {
            "model": self.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": _INSTRUCTION},
                {"role": "user", "content": _prompt(request)},
            ],
        }
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        if key:
            headers["Authorization"] = "Bearer " + key
        if not self.base_url.startswith(("http://", "https://")):
            return UNKNOWN  # never a file: or other scheme urllib would also open
        import urllib.request  # here: every process that knows the settings' keys imports this module

        try:
            http = urllib.request.Request(
                self.base_url + "/chat/completions",
                data=json.dumps(body, ensure_ascii=False).encode("utf-8"),
                headers=headers,
                method="POST",
            )
            with urllib.request.urlopen(http, timeout=self.timeout_s) as response:
                raw = response.read(CHECKER_MAX_ANSWER_BYTES + 1)
        except (OSError, ValueError):  # URLError, HTTPError, timeouts, a malformed URL
            return UNKNOWN
        if len(raw) > CHECKER_MAX_ANSWER_BYTES:
            return UNKNOWN
        try:
            answer = json.loads(raw)["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            return UNKNOWN
        return _verdict_of_word(answer)


def checker_from_settings(values: Mapping[str, Any]) -> Checker | None:
    """The configured checker, or None when checking is off or not configured completely."""
    mode = values.get("coherence.checker", "off")
    timeout = _timeout(values.get("coherence.checker_timeout_s"))
    if mode == "command":
        argv = _argv(values.get("coherence.checker_command"))
        return CommandChecker(argv, timeout) if argv else None
    if mode == "openai":
        url, model = values.get("coherence.checker_url"), values.get("coherence.checker_model")
        if not isinstance(url, str) or not url or not isinstance(model, str) or not model:
            return None
        key_env = values.get("coherence.checker_api_key_env")
        return OpenAICompatibleChecker(url, model, key_env if isinstance(key_env, str) and key_env else None, timeout)
    return None


def setting_error(key: str, value: Any) -> str | None:
    """Why ``value`` cannot be stored under the checker setting ``key``, or None when it can."""
    if key not in SETTING_KEYS:
        return f"unknown coherence setting {key!r}"
    typ, _ = SETTING_KEYS[key]
    if not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
        return f"setting {key!r} takes a {typ.__name__}, not {value!r}"
    return _setting_range_error(key, value)


def _setting_range_error(key: str, value: Any) -> str | None:
    if key == "coherence.checker" and value not in CHECKER_MODES:
        return f"setting {key!r} takes one of {', '.join(CHECKER_MODES)}, not {value!r}"
    if key == "coherence.checker_command" and not all(isinstance(item, str) and item for item in value):
        return f"setting {key!r} takes a list of non-empty strings (the command and its arguments)"
    if key == "coherence.checker_url" and value and not value.startswith(("http://", "https://")):
        return f"setting {key!r} takes an http(s) URL, not {value!r}"
    if key == "coherence.checker_timeout_s" and not 1 <= value <= CHECKER_MAX_TIMEOUT_S:
        return f"setting {key!r} takes 1..{CHECKER_MAX_TIMEOUT_S} seconds, not {value!r}"
    return None


def _prompt(request: CheckRequest) -> str:
    claims = "\n".join(f"- {statement}" for statement in request.claims) or "(none)"
    before = request.upstream_before if request.upstream_before is not None else "(not available)"
    return (
        f"Canon claims:\n{claims}\n\n"
        f"Source ({request.upstream_path or 'upstream'}) when the document was generated:\n{before}\n\n"
        f"Source now:\n{request.upstream_after}\n\n"
        f"Derived document ({request.downstream_path or 'downstream'}):\n{request.downstream}\n\n"
        "Answer with one word: valid, contradicted or unknown."
    )


def _verdict_of_json(out: bytes) -> str:
    try:
        data = json.loads(out)
    except ValueError:
        return UNKNOWN
    verdict = data.get("verdict") if isinstance(data, dict) else None
    return verdict if isinstance(verdict, str) and verdict in VERDICTS else UNKNOWN


def _verdict_of_word(answer: Any) -> str:
    if not isinstance(answer, str):
        return UNKNOWN
    # tolerate case, surrounding space, quotes and a full stop; anything longer is not an answer
    word = answer.strip().strip("\"'`*.!").strip().lower()
    return word if word in VERDICTS else UNKNOWN


def _argv(value: Any) -> list[str]:
    if isinstance(value, str):
        try:
            return shlex.split(value)
        except ValueError:
            return []
    if isinstance(value, list) and all(isinstance(item, str) and item for item in value):
        return list(value)
    return []


def _timeout(value: Any) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= CHECKER_MAX_TIMEOUT_S:
        return float(value)
    return float(CHECKER_DEFAULT_TIMEOUT_S)


def _kill(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        process.kill()
    # reap it and drop whatever it wrote; the pipes close with the process group
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        process.communicate(timeout=5)
