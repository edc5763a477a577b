"""The document every export test exports: front matter, headings at three levels, inline and display math,
a table, code, a Mermaid diagram and a local image; what each format must show of it; and the command line."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

TITLE = "Harbour Survey"
TEXT = """---
title: Harbour Survey
lang: en
author: the survey team
---

# Harbour Survey

The tide gauge reads $h = a \\sin(\\omega t)$ at noon, every day.

## Measurements

| Pier  | Depth |
|-------|------:|
| North |    12 |
| South |     9 |

$$
\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}
$$

### Procedure

```python
def depth(reading):
    return reading * 0.3048  # feet to metres
```

```mermaid
graph LR
  Buoy --> Station
```

![Pier photo](assets/pier.png)

Closing remarks about the lighthouse.
"""
#: (level, text) of each heading, in order
HEADINGS = [(1, "Harbour Survey"), (2, "Measurements"), (3, "Procedure")]
#: words of the text, the table, the code and the diagram that every rendering of it must hold
WORDS = ["tide gauge", "noon", "Measurements", "North", "South", "Depth", "Procedure", "reading", "lighthouse"]
DIAGRAM_WORDS = ["Buoy", "Station"]
IMAGE_SIZE = (40, 20)
TABLE = [["Pier", "Depth"], ["North", "12"], ["South", "9"]]


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A plain PNG of one colour."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def make_document(folder: Path, name: str = "survey.md") -> Path:
    """The sample document and its image in ``folder`` (created); its path."""
    (folder / "assets").mkdir(parents=True, exist_ok=True)
    (folder / "assets" / "pier.png").write_bytes(png(*IMAGE_SIZE, (200, 40, 40)))
    doc = folder / name
    doc.write_text(TEXT, "utf-8")
    return doc


def listing(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` and its bytes (temp files included: nothing may be left behind)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def vmark(home: Path, *args: str, env: dict[str, str] | None = None, code: str | None = None) -> tuple[int, str, str]:
    """``vmark ARGS`` (or ``python -c CODE ARGS``) with ``VMARK_HOME=home``: its exit code, stdout and stderr."""
    command = [sys.executable, "-c", code, *args] if code else [sys.executable, "-m", "vmark", *args]
    done = subprocess.run(
        command,
        env={**os.environ, "VMARK_HOME": str(home), **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr
