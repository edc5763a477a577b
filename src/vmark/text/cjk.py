"""The CJK formatting rules a person can switch on and off, and their settings keys.

:class:`CjkRules` is the whole configuration of the engine. The app keeps it as settings keys
(``cjk.spacing``, ``cjk.quote_style``, ...): :data:`SETTING_KEYS` declares them with their types and
defaults in the shape of the app's settings table, :meth:`CjkRules.from_settings` reads them back
(ignoring anything of the wrong type or out of range) and :func:`setting_error` checks a value before it
is stored.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

from vmark.protocol.limits import MAX_PUNCTUATION_LIMIT

QuoteStyle = Literal["curly", "corner", "guillemets"]
#: the quote styles: curly “” ‘’; corner brackets 「」 『』 (only for quotes around Han text); guillemets « » ‹ ›
QUOTE_STYLES: tuple[QuoteStyle, ...] = ("curly", "corner", "guillemets")
SETTINGS_PREFIX = "cjk."


@dataclass(frozen=True, slots=True)
class CjkRules:
    """Which CJK rules run, and their parameters. The defaults are what ``cjk-format`` does out of the box.

    Every rule only touches text blocks (paragraphs, headings, table cells) that contain CJK characters,
    and only their text: code, URLs, HTML, math and the other protected constructs never change.
    """

    #: a space between CJK (Han, kana, Hangul) and Latin letters or digits: ``学习Python编程`` -> ``学习 Python 编程``
    spacing: bool = True
    #: half-width ``, . ! ? : ;`` next to Chinese or Japanese -> full-width: ``你好,世界`` -> ``你好，世界``
    punctuation: bool = True
    #: full-width letters and digits -> ASCII: ``１２３４`` -> ``1234``
    fullwidth_alphanumeric: bool = True
    #: parentheses around Chinese or Japanese text -> full-width: ``(注意)`` -> ``（注意）``
    brackets: bool = True
    #: ``--`` between CJK -> a CJK dash: ``原因--结果`` -> ``原因 —— 结果``
    dash: bool = True
    #: spaced dots -> an ellipsis: ``. . .`` -> ``...``
    ellipsis: bool = True
    #: repeated full-width punctuation is cut to this many marks (``！！！`` -> ``！`` at 1); 0 switches it off
    punctuation_limit: int = 1
    #: straight quotes around or next to CJK text -> typographic quotes of :attr:`quote_style`
    quotes: bool = True
    quote_style: QuoteStyle = "curly"
    #: spaces: runs collapsed, trailing ones removed (hard breaks kept), ``A / B`` -> ``A/B``, ``$ 100`` -> ``$100``,
    #: none around full-width punctuation
    cleanup: bool = True

    def __post_init__(self) -> None:
        if self.quote_style not in QUOTE_STYLES:
            raise ValueError(f"quote_style must be one of {', '.join(QUOTE_STYLES)}, not {self.quote_style!r}")
        if isinstance(self.punctuation_limit, bool) or not 0 <= self.punctuation_limit <= MAX_PUNCTUATION_LIMIT:
            raise ValueError(f"punctuation_limit must be 0..{MAX_PUNCTUATION_LIMIT}, not {self.punctuation_limit!r}")

    @classmethod
    def none(cls) -> CjkRules:
        """Every rule switched off (the starting point of a single-rule transform)."""
        return cls(
            spacing=False,
            punctuation=False,
            fullwidth_alphanumeric=False,
            brackets=False,
            dash=False,
            ellipsis=False,
            punctuation_limit=0,
            quotes=False,
            cleanup=False,
        )

    def replace(self, **changes: Any) -> CjkRules:
        return dataclasses.replace(self, **changes)

    @property
    def enabled(self) -> bool:
        """Whether any rule runs at all."""
        return any(
            (
                self.spacing,
                self.punctuation,
                self.fullwidth_alphanumeric,
                self.brackets,
                self.dash,
                self.ellipsis,
                self.punctuation_limit > 0,
                self.quotes,
                self.cleanup,
            )
        )

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> CjkRules:
        """The rules stored under :data:`SETTING_KEYS`; a missing or invalid value falls back to its default."""
        values: dict[str, Any] = {}
        for key in SETTING_KEYS:
            if key in settings and setting_error(key, settings[key]) is None:
                values[key.removeprefix(SETTINGS_PREFIX)] = settings[key]
        return cls(**values)

    def to_settings(self) -> dict[str, Any]:
        """The rules as settings keys and values (every key of :data:`SETTING_KEYS`)."""
        return {SETTINGS_PREFIX + field.name: getattr(self, field.name) for field in dataclasses.fields(self)}


def _setting_keys() -> dict[str, tuple[type, Any]]:
    defaults = CjkRules()
    keys: dict[str, tuple[type, Any]] = {}
    for field in dataclasses.fields(CjkRules):
        value = getattr(defaults, field.name)
        keys[SETTINGS_PREFIX + field.name] = (type(value), value)
    return keys


#: settings key -> (type, default), in the shape of ``vmark.storage.settings.SETTINGS``
SETTING_KEYS: dict[str, tuple[type, Any]] = _setting_keys()


def setting_error(key: str, value: Any) -> str | None:
    """Why ``value`` cannot be stored under the CJK setting ``key``, or None when it can."""
    if key not in SETTING_KEYS:
        return f"unknown CJK setting {key!r}"
    typ, _ = SETTING_KEYS[key]
    if not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
        return f"setting {key!r} takes a {typ.__name__}, not {value!r}"
    if key == "cjk.quote_style" and value not in QUOTE_STYLES:
        return f"setting {key!r} takes one of {', '.join(QUOTE_STYLES)}, not {value!r}"
    if key == "cjk.punctuation_limit" and not 0 <= cast(int, value) <= MAX_PUNCTUATION_LIMIT:
        return f"setting {key!r} takes 0..{MAX_PUNCTUATION_LIMIT}, not {value!r}"
    return None
