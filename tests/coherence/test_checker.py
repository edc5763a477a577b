"""The semantic checker providers: a real command, a local OpenAI-compatible server, the settings."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from vmark.coherence.checker import (
    SETTING_KEYS,
    CheckRequest,
    CommandChecker,
    OpenAICompatibleChecker,
    checker_from_settings,
    setting_error,
)
from vmark.protocol.limits import CHECKER_DEFAULT_TIMEOUT_S

REQUEST = CheckRequest(
    upstream_before="Elena is 30.",
    upstream_after="Elena is 31.",
    downstream="Elena, thirty, walked in.",
    claims=["Elena was born in 1995"],
    upstream_path="characters/elena.md",
    downstream_path="scenes/chapter-3.md",
)

# A checker command: records its request next to itself, then behaves as its first argument says.
SCRIPT = r"""
import json, os, subprocess, sys, time
request = json.load(sys.stdin)
with open(os.path.join(os.path.dirname(__file__), "request.json"), "w") as out:
    json.dump(request, out)
mode = sys.argv[1]
if mode in ("valid", "contradicted", "unknown"):
    print(json.dumps({"verdict": mode, "why": "because"}))
elif mode == "garbage":
    print("I think it is valid")
elif mode == "bad-verdict":
    print(json.dumps({"verdict": "VALID"}))
elif mode == "not-an-object":
    print(json.dumps(["valid"]))
elif mode == "exit-1":
    print(json.dumps({"verdict": "valid"}))
    sys.exit(1)
elif mode == "sleep":
    # a child holding stdout open too: the timeout must not wait for it
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    time.sleep(60)
"""


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "checker.py"
    path.write_text(SCRIPT, "utf-8")
    return path


def command(script: Path, mode: str, timeout_s: float = 20.0) -> CommandChecker:
    return CommandChecker([sys.executable, str(script), mode], timeout_s)


# --- CommandChecker -------------------------------------------------------------------------


@pytest.mark.parametrize("verdict", ["valid", "contradicted", "unknown"])
def test_command_verdicts_and_the_request_it_receives(script: Path, verdict: str) -> None:
    assert command(script, verdict).check(REQUEST) == verdict
    assert json.loads((script.parent / "request.json").read_text("utf-8")) == {
        "upstream_before": "Elena is 30.",
        "upstream_after": "Elena is 31.",
        "downstream": "Elena, thirty, walked in.",
        "claims": ["Elena was born in 1995"],
        "upstream_path": "characters/elena.md",
        "downstream_path": "scenes/chapter-3.md",
    }


@pytest.mark.parametrize("mode", ["garbage", "bad-verdict", "not-an-object", "exit-1"])
def test_command_bad_answers_are_unknown(script: Path, mode: str) -> None:
    assert command(script, mode).check(REQUEST) == "unknown"


def test_command_timeout_is_unknown_and_kills_the_command_and_its_children(script: Path) -> None:
    started = time.monotonic()
    assert command(script, "sleep", timeout_s=1.0).check(REQUEST) == "unknown"
    assert time.monotonic() - started < 10


def test_command_that_cannot_start_is_unknown(tmp_path: Path) -> None:
    assert CommandChecker([str(tmp_path / "no-such-program")], 5).check(REQUEST) == "unknown"
    assert CommandChecker([], 5).check(REQUEST) == "unknown"
    assert CommandChecker(["/"], 5).check(REQUEST) == "unknown"


def test_command_name_and_a_request_without_the_old_upstream(script: Path) -> None:
    checker = command(script, "valid")
    assert checker.name == "command:" + os.path.basename(sys.executable)
    request = CheckRequest(upstream_before=None, upstream_after="a", downstream="b")
    assert checker.check(request) == "valid"
    assert json.loads((script.parent / "request.json").read_text("utf-8")) == {
        "upstream_before": None,
        "upstream_after": "a",
        "downstream": "b",
        "claims": [],
        "upstream_path": None,
        "downstream_path": None,
    }


# --- OpenAICompatibleChecker ----------------------------------------------------------------


class FakeEndpoint:
    """A chat-completions endpoint on 127.0.0.1 that answers what the test sets."""

    def __init__(self) -> None:
        self.answer: Any = "valid"
        self.status = 200
        self.raw: bytes | None = None
        self.delay = 0.0
        self.requests: list[tuple[str, dict[str, str], Any]] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                endpoint.requests.append((self.path, dict(self.headers), json.loads(body)))
                time.sleep(endpoint.delay)
                message = {"role": "assistant", "content": endpoint.answer}
                reply = endpoint.raw or json.dumps({"choices": [{"message": message}]}).encode()
                self.send_response(endpoint.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeEndpoint]:
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    fake = FakeEndpoint()
    yield fake
    fake.close()


def test_openai_asks_for_one_word_with_the_key_from_the_environment(
    endpoint: FakeEndpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VMARK_TEST_CHECKER_KEY", "sk-test")
    checker = OpenAICompatibleChecker(endpoint.url, "tiny-model", "VMARK_TEST_CHECKER_KEY", 5)
    assert checker.name == "openai:tiny-model"
    assert checker.check(REQUEST) == "valid"
    [(path, headers, body)] = endpoint.requests
    assert path == "/v1/chat/completions"
    assert headers["Authorization"] == "Bearer sk-test"
    assert body["model"] == "tiny-model"
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert "exactly one word" in body["messages"][0]["content"]
    user = body["messages"][1]["content"]
    for text in ("Elena is 30.", "Elena is 31.", "Elena, thirty, walked in.", "- Elena was born in 1995"):
        assert text in user
    assert "characters/elena.md" in user and "scenes/chapter-3.md" in user


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("contradicted", "contradicted"),
        (" Valid.\n", "valid"),
        ('"unknown"', "unknown"),
        ("It is valid.", "unknown"),
        ("maybe", "unknown"),
        (None, "unknown"),
        (["valid"], "unknown"),
    ],
)
def test_openai_answers(endpoint: FakeEndpoint, answer: Any, verdict: str) -> None:
    endpoint.answer = answer
    assert OpenAICompatibleChecker(endpoint.url, "m", None, 5).check(REQUEST) == verdict
    [(_, headers, _)] = endpoint.requests
    assert "Authorization" not in headers


@pytest.mark.parametrize("raw", [b"not json", b"{}", b'{"choices": []}', b'{"choices": [{"message": {}}]}', b"[1]"])
def test_openai_malformed_responses_are_unknown(endpoint: FakeEndpoint, raw: bytes) -> None:
    endpoint.raw = raw
    assert OpenAICompatibleChecker(endpoint.url, "m", None, 5).check(REQUEST) == "unknown"


def test_openai_http_error_timeout_and_refused_are_unknown(endpoint: FakeEndpoint) -> None:
    endpoint.status = 500
    assert OpenAICompatibleChecker(endpoint.url, "m", None, 5).check(REQUEST) == "unknown"
    endpoint.status, endpoint.delay = 200, 3.0
    started = time.monotonic()
    assert OpenAICompatibleChecker(endpoint.url, "m", None, 0.5).check(REQUEST) == "unknown"
    assert time.monotonic() - started < 3.0
    endpoint.close()
    assert OpenAICompatibleChecker(endpoint.url, "m", None, 5).check(REQUEST) == "unknown"
    assert OpenAICompatibleChecker("not a url", "m", None, 5).check(REQUEST) == "unknown"
    assert OpenAICompatibleChecker("http://[::1", "m", None, 5).check(REQUEST) == "unknown"
    assert OpenAICompatibleChecker("file:///etc/hostname#", "m", None, 5).check(REQUEST) == "unknown"


# --- settings -------------------------------------------------------------------------------


def test_checker_from_settings() -> None:
    assert checker_from_settings({}) is None
    assert checker_from_settings({"coherence.checker": "off", "coherence.checker_command": ["x"]}) is None
    assert checker_from_settings({"coherence.checker": "command"}) is None
    assert checker_from_settings({"coherence.checker": "command", "coherence.checker_command": "'unclosed"}) is None
    assert checker_from_settings({"coherence.checker": "openai", "coherence.checker_url": "http://h"}) is None

    listed = checker_from_settings(
        {
            "coherence.checker": "command",
            "coherence.checker_command": ["check", "--fast"],
            "coherence.checker_timeout_s": 7,
        }
    )
    assert isinstance(listed, CommandChecker)
    assert (listed.argv, listed.timeout_s, listed.name) == (["check", "--fast"], 7.0, "command:check")
    split = checker_from_settings(
        {"coherence.checker": "command", "coherence.checker_command": "/opt/my check --say 'a b'"}
    )
    assert isinstance(split, CommandChecker)
    assert (split.argv, split.timeout_s) == (["/opt/my", "check", "--say", "a b"], float(CHECKER_DEFAULT_TIMEOUT_S))

    remote = checker_from_settings(
        {
            "coherence.checker": "openai",
            "coherence.checker_url": "http://127.0.0.1:9/v1/",
            "coherence.checker_model": "m",
            "coherence.checker_api_key_env": "KEY",
            "coherence.checker_timeout_s": True,  # not a number: the default
        }
    )
    assert isinstance(remote, OpenAICompatibleChecker)
    assert (remote.base_url, remote.model, remote.api_key_env, remote.timeout_s) == (
        "http://127.0.0.1:9/v1",
        "m",
        "KEY",
        float(CHECKER_DEFAULT_TIMEOUT_S),
    )


def test_setting_declarations_and_checks() -> None:
    expected = {
        "coherence.checker": (str, "off"),
        "coherence.checker_command": (list, []),
        "coherence.checker_url": (str, ""),
        "coherence.checker_model": (str, ""),
        "coherence.checker_api_key_env": (str, ""),
        "coherence.checker_timeout_s": (int, 10),
    }
    assert expected == SETTING_KEYS
    for key, (_, default) in SETTING_KEYS.items():
        assert setting_error(key, default) is None
    assert setting_error("coherence.checker", "command") is None
    assert setting_error("coherence.checker", "gpt") == (
        "setting 'coherence.checker' takes one of off, command, openai, not 'gpt'"
    )
    assert setting_error("coherence.checker_command", ["a", 1]) == (
        "setting 'coherence.checker_command' takes a list of non-empty strings (the command and its arguments)"
    )
    assert setting_error("coherence.checker_url", "ftp://x") == (
        "setting 'coherence.checker_url' takes an http(s) URL, not 'ftp://x'"
    )
    assert setting_error("coherence.checker_timeout_s", 0) == (
        "setting 'coherence.checker_timeout_s' takes 1..600 seconds, not 0"
    )
    assert setting_error("coherence.checker_timeout_s", True) == (
        "setting 'coherence.checker_timeout_s' takes a int, not True"
    )
    assert setting_error("coherence.other", 1) == "unknown coherence setting 'coherence.other'"
