"""How the person sees an agent: the name its MCP client gave itself, and the principal its token maps to.

The client's name (``clientInfo.name`` of MCP's ``initialize``, e.g. ``claude-code``) is whatever the client
says: display only, never an identity. Approvals and delegations stay bound to the connection and the
principal; a name only labels them. So it is cleaned before anyone sees it: control and format characters
(bidi overrides and isolates, zero-width characters) are dropped, any run of whitespace becomes one space, and
it is cut to :data:`~vmark.protocol.limits.CLIENT_NAME_MAX_CHARS` characters. A name that only says "an MCP
client" (``mcp``: what the official SDKs send when the program did not name itself) names nobody and is dropped.
"""

from __future__ import annotations

import functools
import unicodedata

from ..protocol.limits import CLIENT_NAME_MAX_CHARS

#: the bridge frame an agent's MCP server sends when its client's name is known or changed: ``{name}`` (the
#: ``auth`` frame carries it as ``clientName`` when it is known before the connection is made)
CLIENT_FRAME = "client"

#: categories dropped from a name: controls (Cc), format characters (Cf: bidi controls, zero-width joiners,
#: soft hyphens), surrogates (Cs), private use (Co) and unassigned code points (Cn)
_DROPPED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
#: names that say nothing about which client it is (compared case-insensitively)
_NAMELESS = frozenset({"mcp"})


def clean_client_name(raw: object) -> str | None:
    """A client's name as it may be shown: cleaned and bounded; None when nothing showable is left."""
    if not isinstance(raw, str):
        return None
    return _clean(raw)


@functools.lru_cache(maxsize=256)
def _clean(raw: str) -> str | None:
    """Kept per name: ``vmark mcp`` hands its client's name over with every call."""
    kept: list[str] = []
    for char in raw[: CLIENT_NAME_MAX_CHARS * 8]:  # what could survive the cut, and a bound on the work
        category = unicodedata.category(char)
        if char.isspace() or category in ("Zl", "Zp", "Zs"):
            if kept and kept[-1] != " ":
                kept.append(" ")
        elif category not in _DROPPED:
            kept.append(char)
    name = "".join(kept).strip()[:CLIENT_NAME_MAX_CHARS].strip()
    return name if name and name.casefold() not in _NAMELESS else None


def agent_label(client: str | None, principal: str | None, connection: str | None = None) -> str:
    """``claude-code (laptop)``: the client's name with the principal's; either alone when only it is known;
    an anonymous connection without a name is ``anonymous (conn-...)``."""
    if client and principal and client != principal:
        return f"{client} ({principal})"
    if client or principal:
        return str(client or principal)
    return f"anonymous ({connection})" if connection else "anonymous"
