"""Every line a stdio client sends is answered: the real ``vmark mcp`` against a real app, byte for byte.

The lines are what a JavaScript client writes (``JSON.stringify``: a lone surrogate as ``\\ud800``), or
what a broken one does (a cut-off line, plain text, nesting no parser wants).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.e2e.conftest import StartApp
from tests.e2e.helpers import Home
from tests.e2e.rawstdio import RawStdio, js_json, result_text, snapshot_tree

A_TEXT = b"# A\n\nalpha\n"


@pytest.fixture
def raw(world: Home, start_app: StartApp) -> Iterator[RawStdio]:
    start_app(world.workspace).ready()
    client = RawStdio(world)
    try:
        client.handshake()
        yield client
    finally:
        client.close()


def _error_line(code: int, message: str, request_id: object = None) -> bytes:
    return js_json({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})


NOT_JSON: list[tuple[bytes, str]] = [
    (b"not json", "Parse error: Expecting value at column 1"),
    (b'{"jsonrpc":"2.0","id":1,"method":"ping"', "Parse error: Expecting ',' delimiter at column 40"),
    (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"document","argu', "Parse error: "),
    (b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":NaN}}', "Parse error: NaN is not JSON"),
    (b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"a\x01b"}}', "Parse error: Invalid control character"),
    (b'{"jsonrpc":"2.0","id":4,"method":"ping","params":{"x":"\xff"}}', "Parse error: the line is not UTF-8 (byte 55)"),
    (b"{" * 100_000, "Parse error: "),  # nested past every parser, and cut off
]

NOT_JSONRPC: list[tuple[bytes, str, object]] = [
    (b"[]", "Invalid Request: batches are not supported; send one message per line", None),
    (b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', "Invalid Request: batches are not supported", None),
    (b"42", "Invalid Request: a JSON-RPC message is an object", None),
    (b'"ping"', "Invalid Request: a JSON-RPC message is an object", None),
    (b"null", "Invalid Request: a JSON-RPC message is an object", None),
    (b"{}", 'Invalid Request: "jsonrpc" must be "2.0"', None),
    (b'{"jsonrpc":"1.0","id":6,"method":"ping"}', 'Invalid Request: "jsonrpc" must be "2.0"', 6),
    (b'{"jsonrpc":"2.0","id":7}', "Invalid Request: not a JSON-RPC 2.0 request", 7),
    (b'{"jsonrpc":"2.0","id":"x","method":5}', "Invalid Request: not a JSON-RPC 2.0 request", "x"),
    (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', "Invalid Request: an id is a string or an integer", None),
    (b'{"jsonrpc":"2.0","id":null,"method":"ping"}', "Invalid Request: an id is a string or an integer", None),
    (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', "Invalid Request: an id is a string or an integer", None),
    (b'{"jsonrpc":"2.0","id":8,"method":"ping","params":[1]}', "Invalid Request: not a JSON-RPC 2.0 request", 8),
]


def test_a_line_that_is_not_json_answers_parse_error(raw: RawStdio) -> None:
    for line, message in NOT_JSON:
        answer = json.loads(raw.exchange(line))
        assert answer["id"] is None and answer["error"]["code"] == -32700, (line[:60], answer)
        assert answer["error"]["message"].startswith(message), (line[:60], answer)
    # Byte for byte, and the session goes on.
    assert raw.exchange(b"not json") == _error_line(-32700, "Parse error: Expecting value at column 1")
    assert raw.request("ping") == {"jsonrpc": "2.0", "id": raw.request("ping")["id"] - 1, "result": {}}


def test_json_that_is_not_a_message_answers_invalid_request(raw: RawStdio) -> None:
    for line, message, request_id in NOT_JSONRPC:
        answer = json.loads(raw.exchange(line))
        assert (answer["id"], answer["error"]["code"]) == (request_id, -32600), (line, answer)
        assert answer["error"]["message"].startswith(message), (line, answer)
    assert raw.exchange(b"[]") == _error_line(
        -32600, "Invalid Request: batches are not supported; send one message per line"
    )
    assert raw.exchange(b'{"jsonrpc":"1.0","id":6,"method":"ping"}') == _error_line(
        -32600, 'Invalid Request: "jsonrpc" must be "2.0"', 6
    )
    raw.send(b"")  # a blank line is not a message: no answer
    raw.send(b"   ")
    assert raw.exchange(b'{"jsonrpc":"2.0","id":99,"method":"ping"}') == b'{"jsonrpc":"2.0","id":99,"result":{}}'


def test_a_lone_surrogate_reaches_the_tools(world: Home, raw: RawStdio) -> None:
    path = world.workspace / "a.md"
    workflow = world.workspace / ".github/workflows/ci.yml"
    # Anywhere in a message the tools do not look at, it is just a string: ping's _meta, an id, a method.
    assert raw.exchange(b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x":"\\ud800"}}}') == (
        b'{"jsonrpc":"2.0","id":1,"result":{}}'
    )
    unknown = json.loads(raw.exchange(b'{"jsonrpc":"2.0","id":"\\udfff","method":"nope\\ud800"}'))
    assert (unknown["id"], unknown["error"]["code"], unknown["error"]["data"]) == ("\udfff", -32601, "nope\ud800")
    tab = json.loads(result_text(raw.call("workspace", {"action": "open", "filePath": str(path)})))["tabId"]
    flow = json.loads(result_text(raw.call("workspace", {"action": "open", "filePath": str(workflow)})))["tabId"]
    # A text of a writing call: INVALID_TEXT, and nothing changes.
    texts = [
        ("document", {"action": "write", "tabId": tab, "content": "a\ud800b"}),
        ("document", {"action": "write", "tabId": tab, "content": "\udc00"}),
        ("document", {"action": "edit", "tabId": tab, "edits": [{"old": "alpha", "new": "\ud83d"}]}),
        (
            "workflow",
            {
                "action": "apply_patch",
                "tabId": flow,
                "patches": [{"kind": "workflow.set", "path": "name", "value": "ci \ud800"}],
            },
        ),
    ]
    for tool, arguments in texts:
        result = raw.call(tool, arguments)
        assert result["isError"] is True and result["structuredContent"]["error"] == "INVALID_TEXT", result
    # Byte for byte as the client gets it.
    line = b'{"jsonrpc":"2.0","id":50,"method":"tools/call","params":{"name":"document","arguments":'
    line += b'{"action":"write","tabId":"' + tab.encode() + b'","content":"\\ud800"}}}'
    envelope = '{"error":"INVALID_TEXT","message":"content contains a lone UTF-16 surrogate"}'
    assert json.loads(raw.exchange(line)) == {
        "jsonrpc": "2.0",
        "id": 50,
        "result": {
            "content": [{"type": "text", "text": envelope}],
            "structuredContent": json.loads(envelope),
            "isError": True,
        },
    }
    # Any other argument: a plain argument error naming it.
    lone = "contains a lone UTF-16 surrogate (\\ud800 without its pair), which is not text; send well-formed Unicode"
    plain = [
        ("document", {"action": "read", "tabId": "tab-\ud800"}, f"document.read: argument 'tabId' {lone}"),
        ("workspace", {"action": "open", "filePath": f"{path}\ud800"}, f"workspace.open: argument 'filePath' {lone}"),
        (
            "document",
            {"action": "write", "tabId": tab, "content": "x", "addresses": ["c-\ud800"]},
            f"document.write: argument 'addresses' {lone}",
        ),
        ("browser_read", {"action": "query", "selector": "a\ud800"}, f"browser_read.query: argument 'selector' {lone}"),
        (
            "browser",
            {"action": "workflow_run", "source": "x", "inputs": {"\ud800": "v"}},
            f"browser.workflow_run: argument 'inputs' {lone}",
        ),
        (
            "document",
            {"action": "re\ud800d"},
            "document: unknown action 're\\ud800d'; expected one of: read, write, edit, transform",
        ),
        (
            "document",
            {"action": "read", "x\ud800": 1},
            "document.read: argument 'x\\ud800' is not accepted"
            " (document.read takes: tabId, offset, limit, expected_revision)",
        ),
        (
            "docu\ud800ment",
            {"action": "read"},
            "unknown tool 'docu\\ud800ment'; expected one of: session, workspace,"
            " document, workflow, selection, comments, browser, browser_read, coherence, coherence_resolve",
        ),
    ]
    for tool, arguments, message in plain:
        result = raw.call(tool, arguments)
        assert result == {"content": [{"type": "text", "text": message}], "isError": True}, result
    assert path.read_bytes() == A_TEXT
    assert workflow.read_bytes() == b"name: ci\non: push\njobs: {}\n"


def _nested(depth: int, leaf: str = "1") -> str:
    return '{"a":' * depth + leaf + "}" * depth


def test_arguments_nested_too_deeply_get_a_plain_argument_error(world: Home, raw: RawStdio) -> None:
    before = snapshot_tree(world.workspace)
    deep = "nested deeper than 64 levels of arrays and objects"
    for depth in (65, 200, 1_000, 100_000):
        for tool, action, name in (("browser", "act", "modifiers"), ("browser", "workflow_run", "inputs")):
            extra = ',"operation":"key"' if action == "act" else ',"source":"x"'
            line = (
                f'{{"jsonrpc":"2.0","id":{depth},"method":"tools/call","params":{{"name":"{tool}","arguments":'
                f'{{"action":"{action}"{extra},"{name}":{_nested(depth)}}}}}}}'
            ).encode()
            answer = json.loads(raw.exchange(line))
            text = f"{tool}.{action}: argument '{name}' is {deep}"
            assert answer == {
                "jsonrpc": "2.0",
                "id": depth,
                "result": {"content": [{"type": "text", "text": text}], "isError": True},
            }, (depth, answer)
        # In a list the cut keeps an array: the message names the type the field wants.
        line = (
            f'{{"jsonrpc":"2.0","id":"l{depth}","method":"tools/call","params":{{"name":"document","arguments":'
            f'{{"action":"write","content":"x","addresses":{"[" * depth}{"]" * depth}}}}}}}'
        ).encode()
        answer = json.loads(raw.exchange(line))
        assert answer["result"]["isError"] is True, answer
        assert answer["result"]["content"][0]["text"].startswith("document.write: argument 'addresses' ")
        # Past the tools, a deep _meta is only data: ping answers.
        line = f'{{"jsonrpc":"2.0","id":"p{depth}","method":"ping","params":{{"_meta":{_nested(depth)}}}}}'.encode()
        assert json.loads(raw.exchange(line)) == {"jsonrpc": "2.0", "id": f"p{depth}", "result": {}}
    # 64 levels are fine: the argument reaches the tool (which says what it makes of it).
    ok = raw.call("browser", {"action": "act", "operation": "key", "modifiers": json.loads(_nested(63))})
    assert "nested deeper" not in result_text(ok)
    assert snapshot_tree(world.workspace) == before
    state = raw.call("session", {"action": "get_state"})
    assert state.get("isError") is not True and state["structuredContent"]["windows"][0]["label"] == "main"


def test_a_request_with_params_the_method_cannot_take_answers_invalid_params(raw: RawStdio) -> None:
    invalid = b'{"jsonrpc":"2.0","id":%d,"error":{"code":-32602,"message":"Invalid request parameters","data":""}}'
    lines = [
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call"}',
        b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":5}}',
        b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"document","arguments":"x"}}',
        b'{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":5}}',
        b'{"jsonrpc":"2.0","id":5,"method":"resources/list","params":{"cursor":5}}',
    ]
    for number, line in enumerate(lines, 1):
        assert raw.exchange(line) == invalid % number
    # A method the server does not offer is another answer: not found, with its name.
    assert raw.exchange(b'{"jsonrpc":"2.0","id":6,"method":"sampling/createMessage"}') == (
        b'{"jsonrpc":"2.0","id":6,"error":{"code":-32601,"message":"Method not found","data":"sampling/createMessage"}}'
    )
