"""Whole notes written in WYSIWYG from an empty file by real key presses, compared byte for byte with the Markdown a
person would type for them in source mode (written out here by hand)."""

from __future__ import annotations

from tests.ui.lossless import Stage
from tests.ui.lossless import scene as scene  # the fixtures this module uses
from tests.ui.lossless import stage as stage
from tests.ui.writing import Session, check_session, keys

TRIP = Session(
    "trip",
    "",
    None,
    keys(
        "'# Trip notes",
        "Enter",
        "'We leave on **Monday** and read [[readability]] first.",
        "Enter",
        "'- pack bags",
        "Enter",
        "'book a hotel",
        "Enter",
        "Tab",
        "'near the station",
        "Enter",
        "'with breakfast",
        "Enter",
        "Shift+Tab",
        "'buy tickets",
        "Enter",
        "Enter",
        "'Tasks:",
        "Enter",
        "'- [ ] call the host",
        "Enter",
        "'water the plants",
        "Enter",
        "Enter",
        "'> Travel light.",
        "Enter",
        "Enter",
        "'```sh",
        "Enter",
        "'ls -la",
        "ArrowDown",
        "'See [the map](https://example.com/map) for the way.",
    ),
    "# Trip notes\n"
    "\n"
    "We leave on **Monday** and read [[readability]] first.\n"
    "\n"
    "- pack bags\n"
    "- book a hotel\n"
    "  - near the station\n"
    "  - with breakfast\n"
    "- buy tickets\n"
    "\n"
    "Tasks:\n"
    "\n"
    "- [ ] call the host\n"
    "- [ ] water the plants\n"
    "\n"
    "> Travel light.\n"
    "\n"
    "```sh\n"
    "ls -la\n"
    "```\n"
    "\n"
    "See [the map](https://example.com/map) for the way.",
)

STEPS = Session(
    "steps",
    "",
    None,
    keys(
        "'Intro line",
        "Control+1",
        "Enter",
        "'1. first",
        "Enter",
        "'second",
        "Enter",
        "Tab",
        "'sub a",
        "Enter",
        "Enter",
        "'third",
        "Enter",
        "Enter",
        "'Done *now*. Use `make test`, then ~~stop~~ go.",
        "Shift+Enter",
        "'Next line with $x^2$.",
        "Enter",
        "'$$",
        "Enter",
        "'e = mc^2",
        "Control+Enter",
        "'---",
        "Enter",
        "'The end.",
    ),
    "# Intro line\n"
    "\n"
    "1. first\n"
    "2. second\n"
    "   1. sub a\n"
    "3. third\n"
    "\n"
    "Done *now*. Use `make test`, then ~~stop~~ go.\\\n"
    "Next line with $x^2$.\n"
    "\n"
    "$$\n"
    "e = mc^2\n"
    "$$\n"
    "\n"
    "---\n"
    "\n"
    "The end.",
)

EDITS = Session(
    "edits",
    "# Draft\n\nSome *old* text with a_b and [[wiki]].\n\n* one\n* two\n\n> said\n",
    "two",
    keys(
        "Enter",
        "'three",
        "Tab",
        "ArrowUp",
        "End",
        "Enter",
        "'two and a half",
        "Control+Alt+2",
        "Control+Alt+0",
    ),
    "# Draft\n\nSome *old* text with a_b and [[wiki]].\n\n* one\n* two\n* two and a half\n  * three\n\n> said\n",
)


async def test_a_note_from_an_empty_file(scene: Stage) -> None:
    await check_session(scene, TRIP)


async def test_lists_breaks_and_blocks_from_an_empty_file(scene: Stage) -> None:
    await check_session(scene, STEPS)


async def test_editing_a_note_keeps_what_was_not_touched(scene: Stage) -> None:
    await check_session(scene, EDITS)
