"""One check's outcome, and the report: a line per check (mark, name, needed or advisory, what was
found, and for a failure the command that fixes it), or JSON for scripts."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

PASS, FAIL, WARN = "✓", "✗", "!"
LEGEND = f"{PASS} passes   {FAIL} a needed check fails   {WARN} an advisory check fails (only some tools need it)"
NAME_WIDTH = 21


@dataclass(frozen=True)
class Check:
    name: str
    #: whether VMark needs this to pass (else it is advisory)
    needed: bool
    ok: bool
    #: what was found, in one line
    found: str
    #: for a failure: how to fix it (the exact command)
    fix: str | None = None

    @property
    def mark(self) -> str:
        return PASS if self.ok else FAIL if self.needed else WARN

    def line(self) -> str:
        kind = "needed" if self.needed else "advisory"
        text = f"{self.mark} {self.name:<{NAME_WIDTH}} {kind:<8}  {self.found}"
        return f"{text}; fix: {self.fix}" if not self.ok and self.fix else text


def exit_code(checks: list[Check]) -> int:
    """0 when every needed check passes, else 1 (advisory failures never change it)."""
    return 0 if all(c.ok for c in checks if c.needed) else 1


def summary(checks: list[Check]) -> str:
    failed = [c.name for c in checks if c.needed and not c.ok]
    warned = [c.name for c in checks if not c.needed and not c.ok]
    advisory = f"{len(warned)} advisory warning{'' if len(warned) == 1 else 's'}" + (
        f" ({', '.join(warned)})" if warned else ""
    )
    if failed:
        return f"{len(failed)} needed check{'' if len(failed) == 1 else 's'} failed ({', '.join(failed)}); {advisory}"
    return f"every needed check passes; {advisory}"


def render_text(checks: list[Check]) -> str:
    return "\n".join([LEGEND, *(c.line() for c in checks), summary(checks)]) + "\n"


def render_json(checks: list[Check]) -> str:
    return json.dumps({"ok": exit_code(checks) == 0, "checks": [asdict(c) for c in checks]}, ensure_ascii=False)
