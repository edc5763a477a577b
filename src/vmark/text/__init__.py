"""Text transforms: CJK formatting of Markdown (``document.transform``).

- :class:`vmark.text.cjk.CjkRules` — the rule switches and parameters, with their settings keys
  (:data:`vmark.text.cjk.SETTING_KEYS`).
- :func:`vmark.text.transform.transform` / :func:`vmark.text.transform.transform_range` — format a document
  or a range of it; :data:`vmark.text.transform.KINDS` are the transform kinds.

Only the text of Markdown paragraphs, headings and table cells that contain CJK changes; code, URLs, HTML,
math, front matter and all other syntax stay byte for byte as they were.
"""

from __future__ import annotations

from .cjk import QUOTE_STYLES, SETTING_KEYS, CjkRules, QuoteStyle, setting_error
from .transform import KINDS, transform, transform_range

__all__ = [
    "KINDS",
    "QUOTE_STYLES",
    "SETTING_KEYS",
    "CjkRules",
    "QuoteStyle",
    "setting_error",
    "transform",
    "transform_range",
]
