"""Fuzzing every action of all ten tools over real stdio: every call answered in time, never INTERNAL.

A real ``vmark app`` on a workspace, a real ``vmark mcp``, and :class:`RawStdio` writing the lines as a
JavaScript client would (lone surrogates as ``\\ud800``). Each call starts from plausible arguments for
one action, built from the tool registry (so a new action is fuzzed too), and hypothesis mutates it:
a field dropped, an unknown one added, a value replaced by an odd one (wrong types, NUL, control
characters, lone surrogates, RTL, a 1 MB string, deep nesting), the action or the tool name or the
whole arguments replaced. After the run the app is still up and answers, and nothing outside the
workspace changed (the home directory and a sibling folder, byte for byte).

The browser tools only ever name this machine (127.0.0.1 / localhost); the app under test also runs
with ``VMARK_BROWSER_LOOPBACK_ONLY=1`` (tests/conftest.py), which refuses anything else.

``VMARK_FUZZ_LONG=1`` runs 2,000 mutated calls instead of the default 400; either prints the figures
(calls, answered, answers by code) under ``pytest -s``::

    VMARK_FUZZ_LONG=1 .venv/bin/pytest -q -s tests/e2e/test_fuzz.py
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.e2e.conftest import StartApp
from tests.e2e.helpers import Home
from tests.e2e.rawstdio import RawStdio, js_json, snapshot_tree
from vmark.protocol.tools import TOOLS, FieldSpec

LONG = os.environ.get("VMARK_FUZZ_LONG") == "1"
EXAMPLES = 2000 if LONG else 400
#: how long one call may take to be answered: the slowest limits a tool has (coherence 20 s, a browser
#: act waiting 20 s for the person), with room for a loaded machine
LIMITS = {"coherence": 30.0, "coherence_resolve": 30.0, "browser": 35.0, "browser_read": 35.0}
DEFAULT_LIMIT = 15.0
MEGABYTE = "x" * 1_000_000


def _deep_list(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return value


def _deep_object(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


ODD: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    2**53 + 1,
    2**70,
    1.5,
    -0.0,
    1e308,
    "",
    " ",
    "\x00",
    "tab-\x00",
    "\x01\x08\x1b[31m\x7f",
    "line\nbreak\r\n",
    "\ud800",
    "a\udfffb",
    "\udc00\ud800",
    "😀 paired",
    "\u202eevil\u202c \u200f",
    "שלום עולם",
    "مرحبا",
    "日本語",
    "e\u0301",
    "%s%n{0}",
    "'; DROP TABLE entries; --",
    "../../../../etc/passwd",
    "/etc/passwd",
    "~",
    ".",
    "http://127.0.0.1:9/",
    "http://localhost:1/x?token=1#f",
    "javascript:alert(1)",
    "file:///etc/passwd",
    MEGABYTE,
    [],
    [1, "a", None],
    ["\ud800"],
    {},
    {"a": 1},
    {"\ud800": "x"},
    [{"old": "alpha", "new": "\ud800"}],
    [{"kind": "needs.add", "jobId": "build", "ref": "\x00"}],
    _deep_list(70),
    _deep_list(300),
    _deep_object(65),
    _deep_object(1000),
]


class World:
    """What plausible arguments name: real tabs, files in the workspace, a folder outside it."""

    def __init__(self, home: Home, tabs: list[str]) -> None:
        self.home, self.tabs = home, tabs
        self.outside = home.root / "outside"

    def plausible(self, name: str, spec: FieldSpec, pick: Callable[[list[Any]], Any]) -> Any:
        ws = self.home.workspace
        named: dict[str, list[Any]] = {
            "tabId": [*self.tabs, "tab-nope"],
            "filePath": [str(ws / "a.md"), str(ws / "new.md"), str(ws / "notes/c.md"), str(self.outside / "o.md")],
            "folderPath": [str(ws), str(ws / "notes"), str(self.outside)],
            "workspace_root": [str(ws), str(self.outside)],
            "windowLabel": ["main", "doc-9"],
            "url": ["http://127.0.0.1:9/", "http://localhost:9/page"],
            "content": ["# fuzzed\n", ""],
            "edits": [[{"old": "alpha", "new": "beta"}], [{"old": "# ", "new": "## "}]],
            "patches": [[{"kind": "workflow.set", "path": "name", "value": "fuzz"}], []],
            "body": ["a reply"],
            "selector": ["body", "a[href]"],
            "script": ["return 1"],
            "source": ["---\nsite: x\n---\n1. action: navigate to http://127.0.0.1:9/\n"],
            "timeoutMs": [1, 50],
            "offset": [0, 3],
            "limit": [1, 5],
        }
        if name in named:
            return pick(named[name])
        if spec.enum:
            return pick(list(spec.enum))
        by_type: dict[str, list[Any]] = {
            "string": ["x", "e1"],
            "integer": [0, 1],
            "boolean": [True, False],
            "string[]": [[], ["x"]],
            "object[]": [[{}]],
            "array": [[]],
            "object": [{}, {"ctrl": True}],
        }
        return pick(by_type[spec.type])


MUTATIONS = ("none", "drop", "unknown", "odd", "odd", "odd", "action", "tool", "arguments")


@st.composite
def mutated_calls(draw: st.DrawFn, world: World) -> tuple[str, Any]:
    def pick(options: list[Any]) -> Any:
        return draw(st.sampled_from(options))

    tool = pick(sorted(TOOLS))
    spec = TOOLS[tool]
    action = pick(list(spec.actions))
    wanted = spec.actions[action]
    args: dict[str, Any] = {"action": action}
    for name in wanted.required:
        args[name] = world.plausible(name, spec.fields[name], pick)
    for name in wanted.optional:
        if draw(st.booleans()):
            args[name] = world.plausible(name, spec.fields[name], pick)
    mutation = pick(list(MUTATIONS))
    names = [n for n in args if n != "action"]
    if mutation == "drop" and names:
        del args[pick(names)]
    elif mutation == "unknown":
        args[pick(["bogus", "\ud800", "", "action ", "__proto__"])] = pick(ODD)
    elif mutation == "odd" and names:
        args[pick(names)] = pick(ODD)
    elif mutation == "action":
        args["action"] = pick(ODD)
    elif mutation == "tool":
        tool = pick(["", "nope", "document\ud800", "DOCUMENT", "session "])
    elif mutation == "arguments":
        return tool, pick(ODD)
    return tool, args


def _outcome(answer: dict[str, Any]) -> str:
    """The code a call answered with: ``ok``, ``plain``, an envelope's or token's code, or ``rpc:<code>``."""
    if "rpcError" in answer:
        return f"rpc:{answer['rpcError']['code']}"
    if not answer.get("isError"):
        return "ok"
    structured = answer.get("structuredContent")
    if isinstance(structured, dict) and isinstance(structured.get("error"), str):
        return str(structured["error"])
    text = answer["content"][0]["text"]
    head = text.split(":", 1)[0]
    return head if head.isupper() and head.replace("_", "").isalpha() else "plain"


def _check(answer: dict[str, Any], call: tuple[str, Any]) -> str:
    outcome = _outcome(answer)
    shown = json.dumps(call, ensure_ascii=True)[:300]
    assert outcome not in ("INTERNAL", "rpc:0", "rpc:-32603"), (shown, answer)
    if "rpcError" not in answer:
        text = answer["content"][0]["text"]
        assert "Unexpected handler error" not in text and "Traceback" not in text, (shown, text[:500])
    return outcome


#: what Chromium itself keeps in $HOME when the embedded browser starts (its crash reporter's settings,
#: GTK's dconf cache): the browser engine's, not anything a tool call wrote
_ENGINE_FOOTPRINT = (".cache", ".config/chromium", ".config")


def _outside(home: Home) -> dict[str, Any]:
    """Everything the fuzzed calls must leave alone: $HOME and every folder beside the workspace and data."""
    home_tree = snapshot_tree(home.home)
    engine = [p for p in home_tree if p in _ENGINE_FOOTPRINT or p.startswith((".cache/dconf", ".config/chromium/"))]
    trees = {"home": {p: v for p, v in home_tree.items() if p not in engine}}
    for entry in sorted(home.root.iterdir()):
        if entry not in (home.workspace, home.data, home.home):
            trees[entry.name] = snapshot_tree(entry) if entry.is_dir() else {"": entry.read_bytes()}
    return trees


def test_every_action_of_every_tool_answers_mutated_arguments(world: Home, start_app: StartApp) -> None:
    outside = world.root / "outside"
    outside.mkdir()
    (outside / "o.md").write_text("# outside\n", "utf-8")
    (outside / "sub").mkdir()
    app = start_app(world.workspace)
    app.ready()
    before = _outside(world)
    raw = RawStdio(world)
    codes: Counter[str] = Counter()
    calls = 0
    try:
        raw.handshake()
        tabs = []
        for name in ("a.md", "b.md", ".github/workflows/ci.yml"):
            opened = raw.call("workspace", {"action": "open", "filePath": str(world.workspace / name)})
            tabs.append(json.loads(opened["content"][0]["text"])["tabId"])
        fuzz_world = World(world, tabs)

        def send(call: tuple[str, Any]) -> None:
            nonlocal calls
            tool, arguments = call
            calls += 1
            answer = raw.call(tool, arguments, timeout=LIMITS.get(tool, DEFAULT_LIMIT))
            codes[_check(answer, call)] += 1

        # Every action once with plausible arguments, then the mutations.
        for tool, spec in TOOLS.items():
            for action, wanted in spec.actions.items():
                args = {"action": action}
                args.update({n: fuzz_world.plausible(n, spec.fields[n], lambda o: o[0]) for n in wanted.required})
                send((tool, args))

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
        )
        @given(mutated_calls(fuzz_world))
        def fuzz(call: tuple[str, Any]) -> None:
            send(call)

        fuzz()
        assert app.proc.poll() is None, "the app went down"
        state = raw.call("session", {"action": "get_state"})
        assert not state.get("isError") and state["structuredContent"]["windows"][0]["label"] == "main"
        assert raw.proc.poll() is None, "vmark mcp went down"
    finally:
        raw.close()
    assert _outside(world) == before
    answered = sum(codes.values())
    figures = ", ".join(f"{code} {n}" for code, n in codes.most_common())
    print(f"\nfuzz: {calls} calls, {answered} answered; {figures}")  # shown with -s (VMARK_FUZZ_LONG=1 for 2,000)
    assert answered == calls


def test_lines_are_written_as_javascript_writes_them() -> None:
    line = js_json({"a": "\ud800", "b": "😀", "c": "\x00\x1f", "d": "\u202e"})
    assert line == b'{"a":"\\ud800","b":"\xf0\x9f\x98\x80","c":"\\u0000\\u001f","d":"\xe2\x80\xae"}'
