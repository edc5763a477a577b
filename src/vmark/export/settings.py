"""The export's settings, registered in the one settings table (``vmark.settings_keys``)."""

from __future__ import annotations

from typing import Any

from ..protocol.limits import EXPORT_MARGIN_DEFAULT_MM, EXPORT_MARGIN_MAX_MM, EXPORT_MARGIN_MIN_MM

PAGE_SIZES = ("A4", "Letter")

SETTING_KEYS: dict[str, tuple[type, Any]] = {
    #: a PDF's page size
    "export.page_size": (str, "A4"),
    #: a PDF's margins on every side, in millimetres
    "export.margin_mm": (int, EXPORT_MARGIN_DEFAULT_MM),
}


def setting_error(key: str, value: Any) -> str | None:
    if key == "export.page_size" and value not in PAGE_SIZES:
        return f"setting {key!r} must be {' or '.join(repr(s) for s in PAGE_SIZES)}, not {value!r}"
    if key == "export.margin_mm" and not EXPORT_MARGIN_MIN_MM <= value <= EXPORT_MARGIN_MAX_MM:
        low, high = EXPORT_MARGIN_MIN_MM, EXPORT_MARGIN_MAX_MM
        return f"setting {key!r} must be from {low} to {high} (millimetres), not {value!r}"
    return None
