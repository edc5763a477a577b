"""``vmark mcp install CLIENT --http --port N``: the URL form of a client's config, for ``vmark mcp --http``.

Clients that take a server URL get it with the token in an ``Authorization`` header (a header stays out
of logs and history that a URL ends up in); Claude Desktop's config file takes commands only (remote
servers are added in its settings), so it is refused there and the stdio form is the one to use.
"""

from __future__ import annotations

from typing import Any

#: the clients whose config file takes a URL, and the ``type`` their entry is marked with (None: unmarked)
URL_CLIENTS: dict[str, str | None] = {"claude-code": "http", "cursor": None, "print": "http"}


def check_url_client(client: str) -> None:
    """A ``ValueError`` for a client whose config file cannot name a URL."""
    if client not in URL_CLIENTS:
        raise ValueError(
            f"{client} takes no server URL in its config file; install it without --http (it starts `vmark mcp`)"
        )


def http_server_entry(client: str, token: str, url: str) -> dict[str, Any]:
    """The config entry for ``client`` (see :func:`check_url_client`)."""
    check_url_client(client)
    kind = URL_CLIENTS[client]
    entry: dict[str, Any] = {"url": url, "headers": {"Authorization": f"Bearer {token}"}}
    return {"type": kind, **entry} if kind is not None else entry
