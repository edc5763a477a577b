"""Benchmark: reader-mode ``extract`` on ../shared/corpora/readability, side by side with readability-lxml.

For every page of the corpus (``source.html`` in, ``expected.html`` = what Mozilla Readability extracts),
both engines run in the same process, round after round:

- ours: ``vmark.browser.extract.extract(html, url)`` -> Markdown;
- the peer: ``readability.Document(html, url=url).summary(html_partial=True)`` -> ``markdownify``.

Each Markdown is reduced to its text the same way (rendered by markdown-it-py, CommonMark plus tables and
strikethrough, then the text of that HTML: link targets and image sources are not text), and compared with
the text of ``expected.html`` by token F1 (bag of tokens: precision and recall over token counts). A token
is a lowercased run of Unicode word characters, except that every CJK ideograph, kana or Hangul syllable
is a token of its own (these scripts put no spaces between words). Prints per-page F1 for both, the means,
their ratio, and the mean extraction time of each; asserts nothing.

    .venv/bin/python bench/browser/bench_extract.py [--repeat N] [--only NAME ...] [--quiet]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from lxml import html as lxml_html
from markdown_it import MarkdownIt

from vmark.browser.extract import extract

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpora" / "readability"
URL = "http://fakehost/test/page.html"  # the base URI upstream parses every test page with

_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+")
_BLOCKS = frozenset(
    {"p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "table", "tr", "td",
     "th", "br", "hr", "section", "article", "figure", "figcaption", "dt", "dd", "dl", "header", "footer"}
)  # fmt: skip
_MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def tokens(text: str) -> list[str]:
    """The benchmark's one tokenization: lowercase Unicode word runs, each CJK character on its own."""
    return _TOKEN.findall(text.lower())


def html_text(fragment: str) -> str:
    """The text of an HTML fragment, with block boundaries kept as line breaks (so words never fuse)."""
    if not fragment.strip():
        return ""
    root = lxml_html.fragment_fromstring(fragment, create_parent="div")
    for el in root.iter():
        if isinstance(el.tag, str) and el.tag in _BLOCKS:
            el.tail = "\n" + (el.tail or "")
            if el.tag != "br":
                el.text = "\n" + (el.text or "")
    return "".join(root.itertext())


def markdown_text(markdown: str) -> str:
    return html_text(_MD.render(markdown))


def f1(predicted: list[str], expected: list[str]) -> float:
    if not predicted or not expected:
        return 1.0 if predicted == expected else 0.0
    common = sum((Counter(predicted) & Counter(expected)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(expected)
    return 2 * precision * recall / (precision + recall)


def ours(source: str) -> str:
    return extract(source, URL).markdown


def peer(source: str) -> str:
    from markdownify import markdownify
    from readability import Document

    return str(markdownify(Document(source, url=URL).summary(html_partial=True)))


def pages(only: list[str] | None = None) -> list[Path]:
    if not CORPUS.is_dir():
        return []
    found = sorted(p for p in CORPUS.iterdir() if (p / "source.html").is_file() and (p / "expected.html").is_file())
    return [p for p in found if not only or p.name in only]


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8").strip()


def score_page(folder: Path, engine: Callable[[str], str]) -> tuple[float, float]:
    """(F1, seconds) of one engine on one page."""
    source = read(folder / "source.html")
    expected = tokens(html_text(read(folder / "expected.html")))
    start = time.perf_counter()
    markdown = engine(source)
    seconds = time.perf_counter() - start
    return f1(tokens(markdown_text(markdown)), expected), seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=1, help="timing rounds per page (F1 from the first)")
    parser.add_argument("--only", nargs="*", help="page folder names")
    parser.add_argument("--quiet", action="store_true", help="no per-page lines")
    args = parser.parse_args(argv)
    folders = pages(args.only)
    if not folders:
        print(f"no corpus at {CORPUS}", file=sys.stderr)
        return 1
    logging_off()
    rows: list[tuple[str, float, float]] = []
    times: dict[str, list[float]] = {"ours": [], "peer": []}
    for folder in folders:
        scores: dict[str, float] = {}
        for round_ in range(max(1, args.repeat)):
            for name, engine in (("ours", ours), ("peer", peer)):
                score, seconds = score_page(folder, engine)
                times[name].append(seconds)
                if round_ == 0:
                    scores[name] = score
        rows.append((folder.name, scores["ours"], scores["peer"]))
        if not args.quiet:
            marker = "" if scores["ours"] >= scores["peer"] else "   <- peer better"
            print(f"{folder.name:36} ours {scores['ours']:.4f}  peer {scores['peer']:.4f}{marker}")
    mean_ours = statistics.fmean(r[1] for r in rows)
    mean_peer = statistics.fmean(r[2] for r in rows)
    time_ours = statistics.fmean(times["ours"]) * 1000
    time_peer = statistics.fmean(times["peer"]) * 1000
    print()
    print(f"pages: {len(rows)}")
    print("| engine | mean F1 | min F1 | pages >= 0.95 | mean ms/page |")
    print("| --- | ---: | ---: | ---: | ---: |")
    columns = {"ours": [r[1] for r in rows], "peer": [r[2] for r in rows]}
    for label, key, ms in (("vmark extract", "ours", time_ours), ("readability-lxml + markdownify", "peer", time_peer)):
        values = columns[key]
        good = sum(1 for v in values if v >= 0.95)
        print(f"| {label} | {statistics.fmean(values):.4f} | {min(values):.4f} | {good} | {ms:.1f} |")
    print(f"\nF1 ratio ours/peer: {mean_ours / mean_peer:.3f}   time ratio ours/peer: {time_ours / time_peer:.2f}x")
    return 0


def logging_off() -> None:
    """readability-lxml logs and warns about every page it finds hard; the figures are what matters here."""
    import logging

    logging.getLogger("readability").setLevel(logging.CRITICAL)
    warnings.simplefilter("ignore")


if __name__ == "__main__":
    raise SystemExit(main())
