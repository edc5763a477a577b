"""The shared corpora: public test data beside the repository (``../shared/corpora``), not in it.

A clone standing alone has none of it: every test that reads a corpus skips then, and says which corpus is
missing (``needs``). A clone beside ``shared/`` (CI's) runs them all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
CORPORA = REPOSITORY.parent / "shared" / "corpora"


def needs(name: str, found: bool | None = None) -> pytest.MarkDecorator:
    """Skip unless the corpus ``name`` is there (or, given, unless ``found``: what the test found in it)."""
    folder = CORPORA / name
    missing = not folder.is_dir() if found is None else not found
    reason = f"the shared corpus {folder} is not there (a clone beside ../shared has it)"
    return pytest.mark.skipif(missing, reason=reason)
