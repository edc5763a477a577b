"""The page scripts take their limits from ``protocol/limits.py``: none repeats a number Python knows."""

from __future__ import annotations

import json
import re
from importlib.resources import files

from vmark.browser.isolated import limits_prelude, page_script
from vmark.protocol import limits

_SCRIPTS = sorted(p.name for p in (files("vmark.browser") / "js").iterdir() if p.name.endswith(".js"))
# a numeric literal outside strings and comments is enough here: the scripts keep numbers out of strings
_NUMBER = re.compile(r"(?<![\w.])(\d[\d_]*(?:\.\d+)?(?:e\d+)?)(?![\w.])")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _numbers(source: str) -> set[float]:
    return {float(n.replace("_", "")) for n in _NUMBER.findall(_COMMENT.sub("", source))}


def test_no_script_repeats_a_page_limit() -> None:
    known = {float(v) for v in limits.PAGE_SCRIPT_LIMITS.values()}
    repeated = {name: sorted(_numbers(source) & known) for name, source in _sources()}
    assert repeated == {name: [] for name in _SCRIPTS}


def test_every_page_limit_is_read_by_a_script_and_exists_in_python() -> None:
    read = set().union(*(re.findall(r"LIMITS\.([A-Z_]+)", source) for _, source in _sources()))
    assert read == set(limits.PAGE_SCRIPT_LIMITS)
    assert all(limits.PAGE_SCRIPT_LIMITS[name] == getattr(limits, name) for name in read)


def test_the_prelude_declares_the_python_values() -> None:
    prelude = limits_prelude()
    assert prelude.startswith("const LIMITS = Object.freeze(") and prelude.endswith(");")
    assert json.loads(prelude.removeprefix("const LIMITS = Object.freeze(").removesuffix(");")) == (
        limits.PAGE_SCRIPT_LIMITS
    )
    # each script runs in a block of its own, so two of them in one world never declare LIMITS twice
    assert page_script("console.js") == "{\n" + prelude + "\n" + _source("console.js") + "\n}"


def _source(name: str) -> str:
    return (files("vmark.browser") / "js" / name).read_text("utf-8")


def _sources() -> list[tuple[str, str]]:
    return [(name, _source(name)) for name in _SCRIPTS]
