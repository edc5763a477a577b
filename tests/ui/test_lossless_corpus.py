"""Real-world Markdown through the person's editor, byte for byte (issue 14): every ``.md`` file of
``../shared/corpora/markdown/`` (READMEs and docs of public projects), in real Chromium.

- (a) ``wysiwyg-open``: open in source mode, switch to WYSIWYG, switch back, Ctrl+S: the bytes on disk are the
  original's.
- (b) ``wysiwyg-type``: in WYSIWYG, click at the end of the first plain top-level paragraph (see
  :func:`tests.ui.lossless.first_plain_paragraph`), type one letter, Ctrl+S: the file is the original with that
  letter at the end of that paragraph's last source line, and nothing else changed.
- (c) ``source-type``: the same keystroke in source mode (caret put there with CodeMirror's go-to-line).

The expected bytes come from the Python side (markdown-it-py's line map of the paragraph), never from the editor.
Each file is its own test, so the pass rate shows; the module prints one summary line per scenario. One app and
one page serve the whole module (each test opens its own copy of the file; tabs are closed after each test).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.corpora import needs
from tests.ui.conftest import FAILED
from tests.ui.lossless import (
    CORPUS,
    KEY,
    Stage,
    assert_bytes,
    click_paragraph_end,
    first_plain_paragraph,
    insert_at_line_end,
    matching_paragraph,
    open_file,
    report,
    save,
    source_caret_at_line_end,
    switch_mode,
    wait_paragraph_end,
    wysiwyg_paragraphs,
)
from tests.ui.lossless import scene as scene  # the fixtures this module uses
from tests.ui.lossless import stage as stage

FILES = sorted(CORPUS.glob("*.md")) if CORPUS.is_dir() else []
pytestmark = needs("markdown", found=bool(FILES))
SCENARIOS = {
    "test_wysiwyg_open_and_back_changes_no_byte": "(a) WYSIWYG open + back",
    "test_wysiwyg_keystroke_changes_one_character": "(b) WYSIWYG keystroke",
    "test_source_keystroke_changes_one_character": "(c) source keystroke",
}
#: scenario -> file -> "pass" / "fail" / "skip"
OUTCOMES: dict[str, dict[str, str]] = {name: {} for name in SCENARIOS}


def _ids(path: Path) -> str:
    return path.stem


def _copy(s: Stage, scenario: str, source: Path) -> Path:
    """A copy of the corpus file in the workspace, named so that no two tests share one."""
    return s.write(f"{scenario}-{FILES.index(source):02d}.md", source.read_bytes())


@pytest.fixture(scope="module", autouse=True)
def summary(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    for name, label in SCENARIOS.items():
        got = OUTCOMES[name]
        if not got:
            continue
        passed = sum(v == "pass" for v in got.values())
        counted = sum(v != "skip" for v in got.values())
        skipped = len(got) - counted
        rate = f"{100 * passed / counted:.0f}%" if counted else "n/a"
        line = f"lossless corpus {label}: {passed}/{counted} files byte-exact ({rate})" + (
            f", {skipped} without a plain paragraph" if skipped else ""
        )
        report(request.config, line)


@pytest.fixture(autouse=True)
async def outcome(request: pytest.FixtureRequest) -> AsyncIterator[None]:
    name = request.node.originalname
    file = request.node.callspec.params["source"].name
    source: Path = request.node.callspec.params["source"]
    typed = name != "test_wysiwyg_open_and_back_changes_no_byte"
    if typed and first_plain_paragraph(source.read_text("utf-8")) is None:
        OUTCOMES[name][file] = "skip"  # the test skips itself
        yield
        return
    yield
    OUTCOMES[name][file] = "fail" if request.node.stash.get(FAILED, True) else "pass"


@pytest.mark.parametrize("source", FILES, ids=_ids)
async def test_wysiwyg_open_and_back_changes_no_byte(scene: Stage, source: Path) -> None:
    original = source.read_bytes()
    path = _copy(scene, "open", source)
    await open_file(scene, path)
    await switch_mode(scene, "wysiwyg")
    await switch_mode(scene, "source")
    await save(scene, path)
    assert_bytes(path, original, scene.errors)


@pytest.mark.parametrize("source", FILES, ids=_ids)
async def test_wysiwyg_keystroke_changes_one_character(scene: Stage, source: Path) -> None:
    original = source.read_bytes()
    paragraph = first_plain_paragraph(original.decode("utf-8"))
    if paragraph is None:
        pytest.skip("no top-level paragraph ends in plain text")
    path = _copy(scene, "wysiwyg", source)
    await open_file(scene, path)
    await switch_mode(scene, "wysiwyg")
    shown = await wysiwyg_paragraphs(scene.page)
    index = matching_paragraph(shown, paragraph)
    assert index is not None, (
        f"the WYSIWYG view shows no top-level paragraph ending with {paragraph.suffix!r} "
        f"(occurrence {paragraph.nth}); page errors: {scene.errors}"
    )
    await click_paragraph_end(scene.page, index)
    await scene.page.keyboard.type(KEY)
    await wait_paragraph_end(scene.page, index, paragraph.suffix + KEY)
    await save(scene, path)
    assert_bytes(path, insert_at_line_end(original, paragraph.line), scene.errors)


@pytest.mark.parametrize("source", FILES, ids=_ids)
async def test_source_keystroke_changes_one_character(scene: Stage, source: Path) -> None:
    original = source.read_bytes()
    paragraph = first_plain_paragraph(original.decode("utf-8"))
    if paragraph is None:
        pytest.skip("no top-level paragraph ends in plain text")
    path = _copy(scene, "source", source)
    await open_file(scene, path)
    await source_caret_at_line_end(scene.page, paragraph.line + 1)
    await scene.page.keyboard.type(KEY)
    await save(scene, path)
    assert_bytes(path, insert_at_line_end(original, paragraph.line), scene.errors)
