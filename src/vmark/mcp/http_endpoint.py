"""Where ``vmark mcp --http`` serves, and how it tells itself apart, known without starting it.

Kept out of :mod:`vmark.mcp.http` (which imports the HTTP server) so that ``vmark doctor`` can check a
client's URL configuration and probe its port without loading starlette or uvicorn.
"""

from __future__ import annotations

#: the only address it binds (loopback: the token is all that guards it, so no other machine may ask)
HOST = "127.0.0.1"
#: the names a client's URL may give that host by (``localhost`` resolves to it)
CLIENT_HOSTS = (HOST, "localhost")
MCP_PATH = "/mcp"
#: the ``WWW-Authenticate`` of its 401 to a request without a token: how a probe knows it is ours
CHALLENGE = 'Bearer realm="vmark"'


def url_of(port: int) -> str:
    return f"http://{HOST}:{port}{MCP_PATH}"
