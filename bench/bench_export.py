"""``vmark export`` against Pandoc alone: one document (headings, a table, inline and display math, code, a Mermaid
diagram, an image) to each format, as a person runs it from a shell (a new process each time, no app).

    .venv/bin/python bench/bench_export.py [--rounds 3] [--no-diagram]

The peer is the Pandoc the ``export`` extra ships, run straight on the file (``pandoc doc.md -o doc.FORMAT``,
standalone HTML with MathML, the image read by Pandoc itself): what a person would do without VMark. It draws no
diagram (the Mermaid block stays code), embeds no KaTeX and makes no PDF (Pandoc needs a LaTeX for that: no
peer). VMark's figure includes its Python start, Chromium's start where the format needs it (HTML, PDF, and the
Pandoc formats when there is a diagram), the scope checks and the atomic write. Contestants take turns, the
order rotating; ``vmark/pandoc`` is the median of the round-by-round ratios. Nothing asserts on a timing.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import BenchError, Stats, machine_line, paired_ratio, save_results, table, vmark_exe

from vmark.export.pandoc import find_pandoc

FORMATS = ["html", "pdf", "docx", "odt", "epub"]
PNG_1PX = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415478da63f8cfc0000003010100c9fe92ef0000000049454e44ae426082"
)


def document(diagram: bool) -> str:
    sections = []
    for k in range(1, 21):
        sections.append(
            f"## Section {k}\n\nSome words about part {k}, with $x_{k}^2 + y_{k}^2 = r^2$ inline.\n\n"
            f"| item | value |\n|------|------:|\n| a{k} | {k} |\n| b{k} | {k * 2} |\n\n"
            f"$$\n\\sum_{{i=1}}^{{{k}}} i = \\frac{{{k}({k}+1)}}{{2}}\n$$\n\n"
            f"```python\ndef part_{k}(x):\n    return x * {k}  # scaled\n```\n"
        )
    mermaid = "```mermaid\ngraph LR\n  Start --> Middle --> End\n```\n\n" if diagram else ""
    return f"---\ntitle: Bench\n---\n\n# Bench\n\n{mermaid}![dot](dot.png)\n\n" + "\n".join(sections)


def run(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise BenchError(f"{shlex.join(argv)} failed: {done.stderr.strip()[-400:]}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-diagram", action="store_true", help="a document without a Mermaid block")
    args = parser.parse_args()
    pandoc = find_pandoc()
    if pandoc is None:
        raise BenchError("no Pandoc: pip install the export extra (pypandoc-binary)")
    with tempfile.TemporaryDirectory(prefix="vmark-bench-export-") as tmp:
        folder = Path(tmp)
        home = folder / "home"
        home.mkdir()
        (folder / "dot.png").write_bytes(PNG_1PX)
        doc = folder / "doc.md"
        doc.write_text(document(not args.no_diagram), "utf-8")
        env = {**os.environ, "VMARK_HOME": str(home)}
        rows, results = [], {}
        for fmt in FORMATS:
            ours: list[float] = []
            theirs: list[float] = []
            for n in range(args.rounds):
                out_v, out_p = folder / f"v{n}.{fmt}", folder / f"p{n}.{fmt}"
                vmark = [vmark_exe(), "export", str(doc), "--to", fmt, "-o", str(out_v)]
                peer = [pandoc, str(doc), "-o", str(out_p), "--standalone", "--mathml", "--resource-path", str(folder)]
                turns = [("vmark", vmark), ("pandoc", peer)] if fmt != "pdf" else [("vmark", vmark)]
                for who, argv in turns if n % 2 == 0 else list(reversed(turns)):
                    (ours if who == "vmark" else theirs).append(run(argv, env))
            stats = Stats.of(ours)
            peer_stats = Stats.of(theirs) if theirs else None
            ratio = f"{paired_ratio(ours, theirs):.1f}" if theirs else "—"
            size = (folder / f"v0.{fmt}").stat().st_size
            rows.append([fmt, stats.ms(), peer_stats.ms() if peer_stats else "— (needs LaTeX)", ratio, f"{size:,}"])
            results[fmt] = {
                "vmark": stats.as_dict(),
                "pandoc": peer_stats.as_dict() if peer_stats else None,
                "bytes": size,
            }
    print(f"vmark export vs pandoc, {args.rounds} rounds, {'no diagram' if args.no_diagram else 'one diagram'}")
    print(machine_line())
    print(table(["format", "vmark ms", "pandoc ms", "vmark/pandoc", "vmark bytes"], rows))
    print(f"results: {save_results('export', results)}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as exc:
        print(f"bench_export: {exc}", file=sys.stderr)
        sys.exit(1)
