"""Keys at the edge between two of the WYSIWYG view's sections (groups of some 50 blocks, never in the text): a
person's edits there write exactly what the same edits write between any two blocks, in real Chromium.

The file has 120 paragraphs, so the view holds three sections; ``Para 49`` ends the first, ``Para 50`` starts
the second (``mdsource/sections.ts``).
"""

from __future__ import annotations

import pytest

from tests.ui.lossless import Stage
from tests.ui.lossless import scene as scene  # the fixtures this module uses
from tests.ui.lossless import stage as stage
from tests.ui.writing import Session, check_session, keys

TEXT = "".join(f"Para {n} words.\n\n" for n in range(120))


def _joined(first: int, last: int, typed: str = "") -> str:
    """TEXT with paragraphs ``first..last`` made one: the first's words, ``typed``, the rest gone."""
    gone = "".join(f"\n\nPara {n} words." for n in range(first + 1, last + 1))
    return TEXT.replace(f"Para {first} words.{gone}", f"Para {first} words.{typed}")


EDGES = [
    # A selection from the end of the first section's third last block into the second section, then a letter.
    Session("select-across-type", TEXT, "Para 48 words.", keys(*["Shift+ArrowDown"] * 3, "'X"), _joined(48, 51, "X")),
    # Undo right after gives back every byte.
    Session("select-across-undo", TEXT, "Para 48 words.", keys(*["Shift+ArrowDown"] * 3, "'X", "Control+z"), TEXT),
    # Backspace at the start of a section's first block joins it to the block before, as anywhere.
    Session("backspace-at-edge", TEXT, "Para 50 words.", keys("Home", "Backspace"), _joined(49, 50, "Para 50 words.")),
    # Delete at the end of a section's last block joins the next one to it.
    Session("delete-at-edge", TEXT, "Para 49 words.", keys("Delete"), _joined(49, 50, "Para 50 words.")),
    # Enter at the end of a section's last block adds a paragraph between the two sections' blocks.
    Session(
        "enter-at-edge",
        TEXT,
        "Para 49 words.",
        keys("Enter", "'new"),
        TEXT.replace("Para 49 words.\n\n", "Para 49 words.\n\nnew\n\n"),
    ),
    # Arrows cross the edge: the letter lands in the next section's first block.
    Session(
        "arrow-across",
        TEXT,
        "Para 49 words.",
        keys("ArrowDown", "End", "'Y"),
        TEXT.replace("Para 50 words.", "Para 50 words.Y"),
    ),
]


@pytest.mark.parametrize("session", EDGES, ids=lambda s: s.id)
async def test_keys_at_a_section_edge(scene: Stage, session: Session) -> None:
    await check_session(scene, session)
    # the view still groups the blocks (two or three sections: a short last one is joined to its neighbour)
    assert await scene.page.locator(".ProseMirror > .pm-section").count() in (2, 3)
