"""What a string that crossed the wire may hold: JSON can carry lone UTF-16 surrogates, Python's ``str`` keeps them."""

from __future__ import annotations


def has_lone_surrogate(text: str) -> bool:
    """Python strings decoded from JSON can carry unpaired UTF-16 surrogates.

    A str never holds a valid pair (JSON's pairs decode to one code point), so any
    surrogate is a lone one, and strict UTF-8 refuses exactly those; encoding is several
    times faster than a regex scan over a large document.
    """
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
