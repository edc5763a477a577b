"""What listens on the port of a client's URL configuration: nothing, ``vmark mcp --http``, or another
program.

The probe is the request a client without a token makes: ``GET /mcp`` on 127.0.0.1. Ours refuses it
with 401 and its own ``WWW-Authenticate`` challenge before any tool or session exists, so the probe
changes nothing there; any other answer (or none) is another program holding the port.
"""

from __future__ import annotations

import http.client
import socket
from dataclasses import dataclass
from enum import Enum

from vmark.mcp.http_endpoint import CHALLENGE, HOST, MCP_PATH

#: how long the program on the port may take to answer the probe (a loaded machine is slow)
PROBE_TIMEOUT = 3.0


class Listener(Enum):
    NOTHING = "nothing"
    OURS = "ours"
    OTHER = "other"


@dataclass(frozen=True)
class Probe:
    listener: Listener
    #: for ``OTHER``: what it did with the probe, e.g. "it answered HTTP 200 to GET /mcp"
    said: str = ""


def probe(port: int, timeout: float = PROBE_TIMEOUT) -> Probe:
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        connection.request("GET", MCP_PATH, headers={"Accept": "application/json, text/event-stream"})
        reply = connection.getresponse()
        challenge = reply.getheader("WWW-Authenticate")
        reply.read()
    except ConnectionRefusedError:
        return Probe(Listener.NOTHING)
    except TimeoutError:
        return Probe(Listener.OTHER, f"it gave no answer to GET {MCP_PATH} within {timeout:g} s")
    except (OSError, http.client.HTTPException) as exc:
        return Probe(Listener.OTHER, f"it gave no HTTP answer to GET {MCP_PATH} ({type(exc).__name__})")
    finally:
        connection.close()
    if reply.status == 401 and challenge == CHALLENGE:
        return Probe(Listener.OURS)
    return Probe(Listener.OTHER, f"it answered HTTP {reply.status} to GET {MCP_PATH}")


def free_port() -> int:
    """A port nothing listens on now (the system's pick), to suggest instead of a taken one."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])
