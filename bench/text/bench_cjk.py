"""Benchmark: ``cjk-format`` over a 1 MB mixed CJK/Latin Markdown document, side by side with pangu.

The document is generated deterministically (a seeded PRNG over fixed sentence parts): headings, paragraphs
mixing Chinese with English words, numbers, versions, URLs, half-width punctuation and quotes, emphasis,
links, inline code, lists, block quotes, tables, fenced code, and some Japanese and Korean. Both engines get
the same text: VMark runs every rule of ``cjk-format`` with the Markdown protection, pangu
(``pangu.space_text``, the spacing rule alone on plain text) has no notion of Markdown.

Usage: ``.venv/bin/python bench/text/bench_cjk.py [--size BYTES] [--repeat N] [--seed S] [--profile]
[--baseline DIR]``. It prints the timings per MB and the ratio, and, for reference, the time markdown-it-py's block
parse alone takes (the floor of any engine built on it); it asserts nothing. ``--baseline`` times another copy of
the engine too (a ``vmark/text`` folder, e.g. one extracted with ``git archive <commit> src/vmark/text | tar -x -C
/tmp/old``), on the same text, in the same rounds, and checks that it gives the same result. See ``README.md``.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import pstats
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from vmark.text import CjkRules
from vmark.text.blocks import block_parser
from vmark.text.transform import transform

_SUBJECTS = ["我们", "这个项目", "团队", "用户", "作者", "开发者", "系统", "编辑器", "文档", "服务器"]
_VERBS = ["使用", "支持", "需要", "发布了", "修复了", "测试了", "优化了", "介绍了", "比较了", "部署了"]
_OBJECTS = ["新功能", "性能问题", "排版规则", "配置文件", "数据库", "接口", "插件", "命令行工具", "网页", "测试用例"]
_LATIN = ["Python", "VMark", "GitHub", "Markdown", "JSON", "API", "Docker", "Linux", "macOS", "Rust", "TypeScript"]
_TAILS = ["，效果很好", "，但是还有问题", "，速度提高了很多", "，大家都很满意", "", "", "，然后继续工作"]
_ENDS = ["。", "。", "！", "？", ".", ",", "!"]
_JAPANESE = ["この機能はPythonで書かれています。", "VMarkエディタを使ってMarkdownを書きます。"]
_KOREAN = ["한국어Python 문서를 작성합니다.", "VMark에는 새로운 기능이 있습니다."]


def _sentence(rng: random.Random) -> str:
    parts = [rng.choice(_SUBJECTS), rng.choice(_VERBS), rng.choice(_LATIN), rng.choice(_OBJECTS)]
    roll = rng.random()
    if roll < 0.15:
        parts.append(f"版本v{rng.randint(1, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}")
    elif roll < 0.3:
        parts.append(f"花了{rng.randint(2, 5000)}元")
    elif roll < 0.4:
        parts.append(f"时间是{rng.randint(8, 23)}:{rng.randint(10, 59)}")
    elif roll < 0.5:
        parts.append(f'他说"{rng.choice(_OBJECTS)}很重要"')
    return "".join(parts) + rng.choice(_TAILS) + rng.choice(_ENDS)


def _inline_extra(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.2:
        return f"请看[{rng.choice(_OBJECTS)}文档](https://example.com/docs/{rng.randint(1, 999)})获取更多信息。"
    if roll < 0.4:
        return f"运行`pip install {rng.choice(_LATIN).lower()}`命令安装。"
    if roll < 0.55:
        return f"这是**重要{rng.choice(_LATIN)}**的内容。"
    if roll < 0.65:
        return f"访问https://{rng.choice(_LATIN).lower()}.org/page?id={rng.randint(1, 99)}了解详情。"
    if roll < 0.7:
        return rng.choice(_JAPANESE)
    if roll < 0.75:
        return rng.choice(_KOREAN)
    return ""


def _paragraph(rng: random.Random) -> str:
    sentences = [_sentence(rng) + _inline_extra(rng) for _ in range(rng.randint(2, 6))]
    return "".join(sentences)


def _code_block(rng: random.Random) -> str:
    name = rng.choice(_LATIN).lower()
    body = "\n".join(
        f'    print("{rng.choice(_OBJECTS)}", {name}.value_{i}, "{i}:{i}")' for i in range(rng.randint(2, 8))
    )
    return f"```python\ndef {name}_demo():\n{body}\n```"


def _list(rng: random.Random) -> str:
    return "\n".join(f"- {_sentence(rng)}" for _ in range(rng.randint(2, 5)))


def _table(rng: random.Random) -> str:
    rows = [f"| {rng.choice(_LATIN)}工具 | {rng.randint(1, 100)}个 | {rng.choice(_OBJECTS)} |" for _ in range(3)]
    return "\n".join(["| 名称 | 数量 | 说明 |", "|---|---|---|", *rows])


def _section(rng: random.Random, number: int) -> str:
    blocks = [f"## 第{number}章 Chapter {number}介绍{rng.choice(_LATIN)}"]
    for _ in range(rng.randint(3, 6)):
        roll = rng.random()
        if roll < 0.55:
            blocks.append(_paragraph(rng))
        elif roll < 0.7:
            blocks.append(_list(rng))
        elif roll < 0.82:
            blocks.append(_code_block(rng))
        elif roll < 0.92:
            blocks.append(f"> {_sentence(rng)}{_inline_extra(rng)}")
        else:
            blocks.append(_table(rng))
    return "\n\n".join(blocks)


def make_document(size: int = 1_000_000, seed: int = 20260601) -> str:
    """A deterministic mixed CJK/Latin Markdown document of about ``size`` UTF-8 bytes."""
    rng = random.Random(seed)
    sections: list[str] = ["# 基准测试文档 Benchmark Document\n"]
    total = len(sections[0].encode())
    number = 1
    while total < size:
        section = _section(rng, number) + "\n"
        sections.append(section)
        total += len(section.encode()) + 1
        number += 1
    return "\n".join(sections)


def _time(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def _baseline(folder: Path) -> ModuleType:
    """The ``transform`` module of another copy of ``vmark.text`` (its modules import each other relatively),
    under its own name."""
    spec = importlib.util.spec_from_file_location(
        "vmark_text_baseline", folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    if spec is None or spec.loader is None:
        raise SystemExit(f"no engine in {folder}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return importlib.import_module(f"{spec.name}.transform")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=1_000_000, help="document size in UTF-8 bytes")
    parser.add_argument("--repeat", type=int, default=7, help="timed runs of each engine")
    parser.add_argument("--seed", type=int, default=20260601)
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one cjk-format run")
    parser.add_argument("--baseline", type=Path, help="a vmark/text folder to time side by side")
    parser.add_argument(
        "--only", choices=["vmark", "pangu", "baseline"], help="just run this engine --repeat times, print nothing"
    )
    args = parser.parse_args()

    import pangu  # the peer; imported here so that the document generator needs nothing but vmark

    document = make_document(args.size, args.seed)
    megabytes = len(document.encode()) / 1_000_000
    rules = CjkRules()
    formatted = transform(document, "cjk-format", rules)  # warm-up (compiles the regular expressions)
    pangu.space_text(document)
    md = block_parser()
    md.disable(["inline", "footnote_tail", "text_join"])
    engines: dict[str, Callable[[], object]] = {
        "vmark cjk-format (all rules)": lambda: transform(document, "cjk-format", rules),
        "pangu.space_text (spacing only)": lambda: pangu.space_text(document),
        "  of vmark: markdown-it block parse": lambda: md.parse(document, {}),
    }
    if args.baseline is not None:
        baseline = _baseline(args.baseline)
        baseline_rules = baseline.CjkRules()
        if baseline.transform(document, "cjk-format", baseline_rules) != formatted:
            raise SystemExit(f"the baseline in {args.baseline} gives another result")
        engines["baseline cjk-format (all rules)"] = lambda: baseline.transform(document, "cjk-format", baseline_rules)
    if args.only is not None:  # e.g. under valgrind --tool=callgrind, for instruction counts (see README.md)
        run = next(run for name, run in engines.items() if name.startswith(args.only))
        for _ in range(args.repeat):
            run()
        return

    times: dict[str, list[float]] = {name: [] for name in engines}
    for _ in range(args.repeat):  # interleaved, so that machine noise hits all alike
        for name, run in engines.items():
            times[name].append(_time(run))

    changed = sum(1 for a, b in zip(document.splitlines(), formatted.splitlines(), strict=False) if a != b)
    print(f"document: {megabytes:.3f} MB, {document.count(chr(10)) + 1} lines ({changed} changed by cjk-format)")
    print(f"{'engine':<38}{'best s/MB':>12}{'median s/MB':>14}")
    for name, measured in times.items():
        print(f"{name:<38}{min(measured) / megabytes:>12.4f}{statistics.median(measured) / megabytes:>14.4f}")
    pangu_times = times["pangu.space_text (spacing only)"]
    for label, name in (("vmark", "vmark cjk-format (all rules)"), ("baseline", "baseline cjk-format (all rules)")):
        if name in times:
            best = min(times[name]) / min(pangu_times)
            median = statistics.median(times[name]) / statistics.median(pangu_times)
            print(f"ratio {label}/pangu: best {best:.2f}x, median {median:.2f}x (target: at most 1.5x)")
    parse_ratio = statistics.median(times["  of vmark: markdown-it block parse"]) / statistics.median(pangu_times)
    print(f"ratio markdown-it block parse alone/pangu: median {parse_ratio:.2f}x")

    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(transform, document, "cjk-format", rules)
        pstats.Stats(profile).sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()
