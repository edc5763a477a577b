"""The inputs of the differential test (``test_differential.py``): documents whose outputs were frozen from the
engine as it was before it was optimised, so that any change of a result shows.

- :func:`random_documents`: seeded random Markdown built from a fixed vocabulary that leans on what an engine
  working incrementally could get wrong: lines whose first character a rule changes (``１. `` becomes a list
  marker, a quote, a bracket), pipes, ``$$``, ``#`` runs, container prefixes, setext underlines, tables, code,
  HTML, front matter, math, definitions, hard breaks, tabs, trailing spaces and CRLF line ends.
- :func:`bench_document`: the benchmark's document (``bench/text/bench_cjk.py``).
- :func:`corpus_documents`: the Markdown files of the shared corpora next to the repository, and the CJK pages of
  the readability corpus (their HTML as it is, and their article text as paragraphs).

The vocabulary and the generator are frozen with the expected data: changing either changes the documents.
"""

from __future__ import annotations

import html
import importlib.util
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from tests.corpora import CORPORA, REPOSITORY
from vmark.text import CjkRules

DATA = Path(__file__).resolve().parent / "data"

#: (name, kind, rules): the configurations every document is checked under
CONFIGS: list[tuple[str, str, CjkRules]] = [
    ("format", "cjk-format", CjkRules()),
    ("spacing", "cjk-spacing", CjkRules()),
    ("punctuation", "cjk-punctuation", CjkRules()),
    ("corner-limit2", "cjk-format", CjkRules(quote_style="corner", punctuation_limit=2)),
    ("guillemets-nocleanup", "cjk-format", CjkRules(quote_style="guillemets", cleanup=False)),
    ("nospacing-nolimit", "cjk-format", CjkRules(spacing=False, punctuation_limit=0)),
    ("noshape", "cjk-format", CjkRules(fullwidth_alphanumeric=False, brackets=False, dash=False, ellipsis=False)),
    ("noquote-nopunct", "cjk-format", CjkRules(punctuation=False, quotes=False)),
]

_WORDS = [
    "中文", "学习", "编程", "Python", "VMark", "한국어", "これは", "テスト", "3", "2024", "v1.2.3", "3.14",
    "12:30", "1,000", "a@b.co", "example.com", "https://x.com/a?b=1", "https://例子.cn/路径", "１２", "ＡＢ",
    "ｐｙ", "don't", "'90s", "5'10\"", "C++", "C#", "50%", "$100", "$ 100", "A / B", "e.g.", "file.md",
]  # fmt: skip
_PUNCTUATION = [
    ",", ".", "!", "?", ":", ";", "...", ". . .", "--", "---", "——", "！！！", "？？", "，", "。", "、", "(", ")",
    "（", "）", '"', "'", "“", "”", "‘", "’", "「", "」", "/", "$", "$$", "|", "\\", "\\|", "#", " #", "=", "-",
    ">", "<", "[", "]", "~", "~~~", "```", "+", "*", "_", "…", "%",
]  # fmt: skip
_INLINE = [
    "**", "*", "_", "__", "~~", "`", "``", "`code`", "$x$", "$$y$$", "[", "](/u)", "![", "![图a](/i \"t\")",
    "[文档Docs](https://x.com)", "[ref]", "[文档Docs]", "[^1]", "^[", "<b>", "</b>", "<!-- c -->", "&amp;",
    "&#20013;", "\\,", "\\*", "<https://a.b>", "<a@b.co>",
]  # fmt: skip
_SPACES = [" ", " ", "  ", "   ", "\t", "\u3000"]
_LINE_STARTS = [
    "", "", "", "", "", "# ", "## ", "###### ", "- ", "* ", "+ ", "1. ", "2) ", "> ", "> - ", ">> ", "    ",
    "  ", "   ", "\t", "| ", "[^1]: ", "[ref]: /u ", "１. ", "１）", "１.", "＃ ", "- [ ] ", "<div>", "$$ ", "```",
    "~~~ ", "---", "===", "***", "___", ":", "[x]: ",
]  # fmt: skip
_BLOCKS = [
    "```\n中文a,b\n```",
    "~~~python\n中文a,b\n~~~",
    "$$\n中a,b\n$$",
    "$$ 中a,b $$",
    "<div>\n中文a,b\n</div>",
    "<!--\n中文a,b\n-->",
    "---",
    "中文标题Title\n===",
    "中文标题Title\n---",
    "| a中 | b,c |\n|---|:---:|\n| 中c | d(中) |\n| １２ | x |",
    "a中 | b\n--|--\n中c | 「d」",
    "    中文code,x\n    更多",
    "[ref]: /r '中文标题'\n[文档Docs]: /d",
    "[^1]: 注释Note,很好\n    续行Line",
    "- 项目Item\n\n  续段Para,好\n- 第二Second",
    "> 引用Quote,好\n继续lazy,行",
]
_DEFINITIONS = ["", "[ref]: /r\n[文档Docs]: /d\n[^1]: 注释Note\n\n"]
_FRONT_MATTER = ["", "", "", "---\ntitle: 中文,标题\n---\n"]


def _token(rng: random.Random) -> str:
    roll = rng.random()
    pool = _WORDS if roll < 0.45 else _PUNCTUATION if roll < 0.7 else _INLINE if roll < 0.85 else _SPACES
    return rng.choice(pool)


def _line(rng: random.Random) -> str:
    body = "".join(_token(rng) for _ in range(rng.randint(0, 14)))
    tail = rng.choice(["", "", "", "", " ", "  ", "\t", "\\"])
    return rng.choice(_LINE_STARTS) + body + tail


def _block(rng: random.Random) -> str:
    if rng.random() < 0.2:
        return rng.choice(_BLOCKS)
    return "\n".join(_line(rng) for _ in range(rng.randint(1, 4)))


def random_document(rng: random.Random) -> str:
    """One random document: optional front matter and definitions, then blocks separated by one or two line
    ends (so that blocks also run into each other); a tenth of them with CRLF line ends."""
    parts = [rng.choice(_FRONT_MATTER), rng.choice(_DEFINITIONS)]
    for _ in range(rng.randint(1, 7)):
        parts.append(_block(rng))
        parts.append(rng.choice(["\n\n", "\n\n", "\n"]))
    document = "".join(parts)
    return document.replace("\n", "\r\n") if rng.random() < 0.1 else document


def random_documents(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return [random_document(rng) for _ in range(count)]


def bench_document(size: int) -> str:
    """The benchmark's document of ``size`` bytes (the benchmark's default seed)."""
    spec = importlib.util.spec_from_file_location("bench_cjk", REPOSITORY / "bench" / "text" / "bench_cjk.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    make: Callable[[int], str] = module.make_document
    return make(size)


#: readability pages with CJK article text
READABILITY_CJK = ("hukumusume", "pixnet", "qq", "yahoo-4")
_BLOCK_END = re.compile(r"</(?:p|div|h[1-6]|li|tr|blockquote|pre|section|article)>|<br\s*/?>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
_BLANK_RUNS = re.compile(r"\n\s*\n\s*")


def article_text(page: str) -> str:
    """The text of an HTML article as Markdown paragraphs: block ends become blank lines, tags go."""
    text = html.unescape(_TAG.sub("", _BLOCK_END.sub("\n\n", page)))
    paragraphs = (" ".join(line.strip() for line in chunk.splitlines()) for chunk in _BLANK_RUNS.split(text))
    return "\n\n".join(paragraph for paragraph in paragraphs if paragraph) + "\n"


def corpus_documents() -> Iterator[tuple[str, str]]:
    """(name, text) of the corpus documents, in a stable order; nothing when the corpora are not there."""
    if not CORPORA.is_dir():
        return
    for path in sorted(CORPORA.rglob("*.md")):
        yield str(path.relative_to(CORPORA)), path.read_text(encoding="utf-8")
    for page in READABILITY_CJK:
        folder = CORPORA / "readability" / page
        if folder.is_dir():
            yield f"readability/{page}/source.html", (folder / "source.html").read_text(encoding="utf-8")
            yield f"readability/{page}/article", article_text((folder / "expected.html").read_text(encoding="utf-8"))
