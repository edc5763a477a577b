"""What ``vmark mcp --http`` refuses before any tool runs: each case its exact status, nothing changed.

Every request is a complete sessionless (2026-07-28) ``document.write``: sent as it is, it would run
at once (the control case shows it does), so a refusal is the only thing between it and the document.

The refusals and the malformed bodies share one app and one ``vmark mcp --http`` (a process start is the
most of a case's CPU): each refusal shows it changed nothing, so no case sees another's trace. The control,
which does write, has an app and a server of its own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.conftest import make_client, ok
from tests.contract.helpers import doc_of, open_tab, snapshot
from tests.http.helpers import Served, post, served_app, sse_messages, tool_call, tool_call_headers
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient

#: (url, token) -> (the URL to post to, extra headers); and the status that must come back
Case = tuple[Callable[[str, str], tuple[str, dict[str, str]]], int]


def _port(url: str) -> int:
    port = urlsplit(url).port
    assert port is not None
    return port


CASES: dict[str, Case] = {
    "no token": (lambda url, token: (url, {}), 401),
    "wrong bearer token": (lambda url, token: (url, {"Authorization": "Bearer " + "0" * 64}), 401),
    "wrong token in the URL": (lambda url, token: (f"{url}?token={'0' * 64}", {}), 401),
    "empty token in the URL": (lambda url, token: (f"{url}?token=", {}), 401),
    "not a bearer token": (lambda url, token: (url, {"Authorization": f"Basic {token}"}), 401),
    "foreign Origin": (
        lambda url, token: (url, {"Authorization": f"Bearer {token}", "Origin": "http://evil.example"}), 403,
    ),
    "loopback Origin, other port": (
        lambda url, token: (url, {"Authorization": f"Bearer {token}", "Origin": "http://127.0.0.1:1"}), 403,
    ),
    "rebinding Host": (
        lambda url, token: (url, {"Authorization": f"Bearer {token}", "Host": f"evil.example:{_port(url)}"}), 421,
    ),
    "loopback Host, other port": (
        lambda url, token: (url, {"Authorization": f"Bearer {token}", "Host": "127.0.0.1:1"}), 421,
    ),
    "other path": (lambda url, token: (url.replace("/mcp", "/mcp2"), {"Authorization": f"Bearer {token}"}), 404),
    "unknown MCP-Protocol-Version": (
        lambda url, token: (url, {"Authorization": f"Bearer {token}", "MCP-Protocol-Version": "1999-01-01"}), 400,
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """One event loop for the module, so that the shared app and server serve all its tests."""
    return "asyncio"


@pytest.fixture(scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Served]:
    """The app with the person's workspace open in ``main``."""
    async with served_app(tmp_path_factory.mktemp("served")) as served, UIClient(served.app.data_dir) as person:
        await person.attach("main")
        await person.call("ui.open_folder", path=str(served.workspace))
        yield served


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
async def test_refused_before_any_tool_runs(case: str, served: Served) -> None:
    vmark, opened = served.app, served.workspace
    async with make_client(vmark.data_dir) as local:
        tab = await open_tab(local, opened / "a.md")
        revision = (await ok(local, "document", "read", tabId=tab))["revision"]
    before = await snapshot(vmark, doc_of(vmark, tab), opened / "a.md")
    shape, status = CASES[case]
    url, headers = shape(served.url, served.alice)
    args = {"action": "write", "tabId": tab, "content": "# taken over\n", "expected_revision": revision}
    response = await post(url, tool_call("document", args), tool_call_headers("document", **headers))
    assert response.status_code == status, response.text
    [error] = sse_messages(response.text)
    if status == 400:  # the body was read: the refusal names the request (SEP-2575) and what is served
        assert error["id"] == tool_call("document", args)["id"], error
        assert error["error"]["code"] == -32022, error
        assert error["error"]["data"] == {"supported": ["2026-07-28"], "requested": "1999-01-01"}, error
    else:
        assert error["id"] is None and error["error"]["code"] == -32000, error
    if status == 401:
        assert response.headers["WWW-Authenticate"].startswith('Bearer realm="vmark"')
    assert await snapshot(vmark, doc_of(vmark, tab), opened / "a.md") == before


async def test_the_same_request_with_the_token_runs(
    http_url: str, alice: str, vmark: RunningApp, opened: Path, person: UIClient
) -> None:
    """The control: the request the refusals refuse does write, as alice."""
    async with make_client(vmark.data_dir) as local:
        tab = await open_tab(local, opened / "a.md")
        revision = (await ok(local, "document", "read", tabId=tab))["revision"]
    args = {"action": "write", "tabId": tab, "content": "# taken over\n", "expected_revision": revision}
    for url, headers in ((http_url, {"Authorization": f"Bearer {alice}"}), (f"{http_url}?token={alice}", {})):
        response = await post(url, tool_call("document", args), tool_call_headers("document", **headers))
        assert response.status_code == 200, response.text
        [answer] = sse_messages(response.text)
        assert answer["result"]["isError"] is False, answer
        assert (opened / "a.md").read_bytes() == b"# taken over\n"
        args["expected_revision"] = answer["result"]["structuredContent"]["revision"]


MALFORMED = {
    "not JSON": (b"{bad", -32700, None),
    "not UTF-8": (b'{"jsonrpc": "2.0", "id": 1, "method": "\xff"}', -32700, None),
    "NaN": (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": NaN}}', -32700, None),
    "empty": (b"", -32700, None),
    "a batch": (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', -32600, None),
    "a number": (b"7", -32600, None),
    "no jsonrpc": (b'{"id": 5, "method": "ping"}', -32600, 5),
    "method not a string": (b'{"jsonrpc": "2.0", "id": 6, "method": 3}', -32600, 6),
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
async def test_malformed_bodies_get_the_stdio_answers(case: str, served: Served) -> None:
    """The same rules as a stdio line: every body gets a JSON-RPC answer (here with HTTP 400)."""
    body, code, request_id = MALFORMED[case]
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    response = await post(f"{served.url}?token={served.alice}", body, headers)
    assert response.status_code == 400, response.text
    [error] = sse_messages(response.text)
    assert (error["jsonrpc"], error["id"], error["error"]["code"]) == ("2.0", request_id, code), error
