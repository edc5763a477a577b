"""An MCP client's name as the person sees it: cleaned, bounded, beside the principal; never an identity."""

from __future__ import annotations

import pytest

from vmark.core.agentname import agent_label, clean_client_name
from vmark.protocol.limits import CLIENT_NAME_MAX_CHARS


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("claude-code", "claude-code"),
        ("  Cursor  ", "Cursor"),
        ("line\nbreak\ttab", "line break tab"),
        ("\u202eevil\u202c\x07bot", "evilbot"),  # a right-to-left override and a bell: dropped
        ("a\u2066b\u2069c\u200bd\u200fe", "abcde"),  # isolates, a zero-width space, a direction mark
        ("x\x00y\x1b[31mz", "xy[31mz"),  # NUL and ESC dropped; the rest is plain text
        ("\u2028two\u2029lines\u3000wide", "two lines wide"),  # line / paragraph separators, ideographic space
        ("名前 エージェント", "名前 エージェント"),
        ("\ud800lone", "lone"),  # a lone surrogate
        ("", None),
        ("mcp", None),  # the SDKs' name for a program that did not name itself: nobody in particular
        (" MCP ", None),
        ("mcp-inspector", "mcp-inspector"),
        ("\u202e\u200b \n", None),  # nothing showable
        (None, None),
        (42, None),
        (["claude"], None),
    ],
)
def test_clean_client_name(raw: object, shown: str | None) -> None:
    assert clean_client_name(raw) == shown


def test_a_long_name_is_cut() -> None:
    assert clean_client_name("n" * 10_000) == "n" * CLIENT_NAME_MAX_CHARS
    # Cut where it is shown, then trimmed: no trailing space.
    assert clean_client_name("a" * (CLIENT_NAME_MAX_CHARS - 1) + " b") == "a" * (CLIENT_NAME_MAX_CHARS - 1)


def test_agent_label() -> None:
    assert agent_label("claude-code", "laptop", "conn-1") == "claude-code (laptop)"
    assert agent_label("claude-code", None, "conn-1") == "claude-code"
    assert agent_label(None, "laptop", "conn-1") == "laptop"
    assert agent_label("laptop", "laptop") == "laptop"
    assert agent_label(None, None, "conn-1") == "anonymous (conn-1)"
    assert agent_label(None, None) == "anonymous"
