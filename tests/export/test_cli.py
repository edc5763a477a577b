"""``vmark export FILE --to FORMAT``: each format made without an app, checked as a reader would; and every
refusal (outside the scope, an existing file without --force, no Pandoc) leaves the folder as it was."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pypdf
import pytest

from tests.export import checks
from tests.export.sample import TEXT, listing, make_document, vmark
from vmark.storage.settings import Settings

FORMATS = ["html", "pdf", "docx", "odt", "epub"]
#: the command with ``sys.modules['pypandoc']`` refused: the pypandoc-binary package is absent
WITHOUT_PYPANDOC = (
    "import sys; sys.modules['pypandoc'] = None; from vmark.cli.main import main; sys.exit(main(sys.argv[1:]))"
)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    directory = tmp_path / "home"
    directory.mkdir()
    return directory


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    make_document(tmp_path / "docs")
    return tmp_path / "docs"


@pytest.mark.parametrize("fmt", FORMATS)
async def test_each_format_beside_the_file(home: Path, folder: Path, fmt: str) -> None:
    before = listing(folder)
    code, out, err = vmark(home, "export", str(folder / "survey.md"), "--to", fmt)
    target = folder / f"survey.{fmt}"
    assert (code, out, err) == (0, f"wrote {target} ({target.stat().st_size} bytes)\n", "")
    assert listing(folder) == {**before, f"survey.{fmt}": target.read_bytes()}  # that file, nothing else
    assert (folder / "survey.md").read_text("utf-8") == TEXT
    if fmt == "html":
        await checks.check_html(target)
    else:
        getattr(checks, f"check_{fmt}")(target)


def test_output_json_and_the_pdf_settings(home: Path, folder: Path) -> None:
    Settings(home / "settings.json").set("export.page_size", "Letter")
    Settings(home / "settings.json").set("export.margin_mm", 10)
    target = folder / "out" / "letter.pdf"
    target.parent.mkdir()
    code, out, err = vmark(home, "export", str(folder / "survey.md"), "--to", "pdf", "-o", str(target), "--json")
    assert (code, err) == (0, "")
    assert json.loads(out) == {"path": str(target), "format": "pdf", "bytes": target.stat().st_size, "warnings": []}
    box = pypdf.PdfReader(str(target)).pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (612, 792)  # US Letter in points


def test_an_existing_file_is_replaced_only_with_force(home: Path, folder: Path) -> None:
    target = folder / "survey.html"
    target.write_bytes(b"an older export")
    before = listing(folder)
    code, out, err = vmark(home, "export", str(folder / "survey.md"), "--to", "html")
    assert (code, out) == (1, "")
    assert err == (
        f"vmark: APPROVAL_REQUIRED: {target} already exists; an export replaces a file only when asked "
        "(--force, or Replace)\n"
    )
    assert listing(folder) == before
    code, out, err = vmark(home, "export", str(folder / "survey.md"), "--to", "html", "--force")
    assert (code, err) == (0, "")
    assert target.read_bytes().startswith(b"<!doctype html>")
    assert set(listing(folder)) == set(before)  # replaced in place: no temp file left beside it


def test_outside_the_scope_nothing_is_written(home: Path, folder: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    before = listing(folder)
    code, out, err = vmark(home, "export", str(folder / "survey.md"), "--to", "pdf", "-o", str(elsewhere / "x.pdf"))
    assert (code, out) == (1, "")
    assert err == f"vmark: INVALID_PATH: '{elsewhere / 'x.pdf'}' lies outside the open workspace and documents\n"
    # ... and through a symlink out of the document's folder
    (folder / "out").symlink_to(elsewhere)
    target = folder / "out" / "x.html"
    code, out, err = vmark(home, "export", str(folder / "survey.md"), "--to", "html", "-o", str(target))
    assert (code, out, err) == (
        1,
        "",
        f"vmark: INVALID_PATH: '{target}' lies outside the open workspace and documents\n",
    )
    (folder / "out").unlink()
    assert listing(folder) == before
    assert list(elsewhere.iterdir()) == []
    # --root widens the scope to that folder
    target = elsewhere / "x.html"
    code, out, err = vmark(
        home, "export", str(folder / "survey.md"), "--to", "html", "-o", str(target), "--root", str(elsewhere)
    )
    assert (code, err) == (0, "")
    assert target.read_bytes().startswith(b"<!doctype html>")


def test_the_document_itself_is_never_the_target(home: Path, folder: Path) -> None:
    before = listing(folder)
    code, _, err = vmark(
        home, "export", str(folder / "survey.md"), "--to", "html", "-o", str(folder / "survey.md"), "--force"
    )
    assert code == 1
    assert (
        err == f"vmark: INVALID_PATH: {folder / 'survey.md'} is the document itself; an export never writes over it\n"
    )
    assert listing(folder) == before


def test_an_image_outside_the_scope_is_left_out_with_a_warning(home: Path, folder: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.png"
    secret.write_bytes((folder / "assets" / "pier.png").read_bytes())
    doc = folder / "leak.md"
    doc.write_text(f"# Leak\n\n![secret]({secret})\n\n![gone](assets/none.png)\n", "utf-8")
    code, out, err = vmark(home, "export", str(doc), "--to", "html")
    assert (code, out) == (0, f"wrote {folder / 'leak.html'} ({(folder / 'leak.html').stat().st_size} bytes)\n")
    assert err == (
        f"vmark: warning: {secret}: {secret} lies outside the workspace and the document's folder; left out\n"
        f"vmark: warning: assets/none.png: {folder / 'assets' / 'none.png'} does not exist; left out\n"
    )
    html = (folder / "leak.html").read_text("utf-8")
    assert "<img" not in html and 'class="missing-image"' in html


def test_without_pandoc_nothing_is_written_and_the_fix_is_named(home: Path, folder: Path, tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    before = listing(folder)
    for fmt in ("docx", "odt", "epub"):
        code, out, err = vmark(
            home, "export", str(folder / "survey.md"), "--to", fmt, env={"PATH": str(empty)}, code=WITHOUT_PYPANDOC
        )
        assert (code, out) == (1, "")
        assert err == (
            "vmark: EXPORT_FAILED: Pandoc is not installed (Word, OpenDocument and EPUB are written with it): "
            f"{sys.executable} -m pip install 'pypandoc-binary==1.17'\n"
        )
    assert listing(folder) == before
    # HTML and PDF need no Pandoc
    code, _, err = vmark(
        home, "export", str(folder / "survey.md"), "--to", "html", env={"PATH": str(empty)}, code=WITHOUT_PYPANDOC
    )
    assert (code, err) == (0, "")


def test_bad_arguments(home: Path, folder: Path) -> None:
    code, _, err = vmark(home, "export", str(folder / "survey.md"), "--to", "rtf")
    assert code == 2 and "argument --to: invalid choice: 'rtf'" in err
    code, _, err = vmark(home, "export", str(folder / "none.md"), "--to", "pdf")
    assert (code, err) == (2, f"vmark: '{folder / 'none.md'}' is not a file\n")
    code, _, err = vmark(home, "export", str(folder / "survey.md"), "--to", "pdf", "--root", str(folder / "nothing"))
    assert (code, err) == (2, f"vmark: --root '{folder / 'nothing'}' is not a folder\n")


def test_a_code_block_that_fits_on_a_page_is_not_split(home: Path, tmp_path: Path) -> None:
    """Print styles: a block moves whole to the next page rather than break, where a page can hold it."""
    paragraphs = "\n\n".join(f"Paragraph {k} of filler text." for k in range(12))
    code = "\n".join(f"line_{k:02d} = {k}" for k in range(40))
    doc = tmp_path / "long.md"
    doc.write_text(f"# Long\n\n{paragraphs}\n\n```python\n{code}\n```\n\nAfter the code.\n", "utf-8")
    code_, _, err = vmark(home, "export", str(doc), "--to", "pdf")
    assert (code_, err) == (0, "")
    placed: list[list[tuple[float, str]]] = []
    for page in pypdf.PdfReader(str(tmp_path / "long.pdf")).pages:
        lines: list[tuple[float, str]] = []

        def seen(
            text: str, cm: list[float], tm: list[float], *_: object, into: list[tuple[float, str]] = lines
        ) -> None:
            if text.strip():
                into.append((tm[5] * cm[3] + cm[5], text.strip()))  # points above the page's bottom edge

        page.extract_text(visitor_text=seen)
        placed.append(lines)
    assert len(placed) == 2
    first, second = placed
    assert not any(text.startswith("line_") for _, text in first)
    assert [text for _, text in second if text.startswith("line_")] == [f"line_{k:02d}" for k in range(40)]
    last_paragraph = min(y for y, text in first if text.startswith("Paragraph"))
    assert last_paragraph > 57 + 200  # the first page had room for part of the block (its margin is 20 mm)
