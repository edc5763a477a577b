"""Text transforms: CJK formatting of Markdown (``document.transform``).

- :class:`vmark.text.cjk.CjkRules` — the rule switches and parameters, with their settings keys
  (:data:`vmark.text.cjk.SETTING_KEYS`).
- :func:`vmark.text.transform.transform` / :func:`vmark.text.transform.transform_range` — format a document
  or a range of it; :data:`vmark.text.transform.KINDS` are the transform kinds.

The package itself exports only the rules and their settings: every process that knows the settings' keys
(:mod:`vmark.settings_keys`: each ``vmark settings`` or ``vmark coherence`` command) imports it, and the engine
(Markdown parsing, the rules' regular expressions) is most of a command's start; import it from
:mod:`.transform` where a document is formatted.

Only the text of Markdown paragraphs, headings and table cells that contain CJK changes; code, URLs, HTML,
math, front matter and all other syntax stay byte for byte as they were.
"""

from __future__ import annotations

from .cjk import QUOTE_STYLES, SETTING_KEYS, CjkRules, QuoteStyle, setting_error

__all__ = ["QUOTE_STYLES", "SETTING_KEYS", "CjkRules", "QuoteStyle", "setting_error"]
