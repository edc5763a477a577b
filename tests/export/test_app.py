"""``ui.export``: the person exports a tab's document from the app. Each format is made and checked as a reader
would; the document is only read (its bytes, revision, dirty state, history and journal stay as they were);
progress comes before the answer; every refusal and failure leaves the folders as they were."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.contract.helpers import history, journal, person_open
from tests.export import checks
from tests.export.sample import TEXT, listing, make_document
from tests.export.sample import vmark as vmark_cli
from vmark.app.server import RunningApp
from vmark.testing.uiclient import UIClient, UIError

FORMATS = ["html", "pdf", "docx", "odt", "epub"]


@pytest.fixture
async def survey(person: UIClient, opened: Path) -> tuple[str, Path]:
    """The sample document in the workspace, open in a tab: (tab, path)."""
    doc = make_document(opened)
    return await person_open(person, doc), doc


async def facts(vmark: RunningApp, person: UIClient, tab: str) -> dict[str, Any]:
    """What an export must leave as it was."""
    doc = vmark.app.session.find_tab(tab)[1].doc
    info = next(t for w in (await person.call("ui.state"))["windows"] for t in w["tabs"] if t["id"] == tab)
    return {
        "text": doc.state.text,
        "revision": doc.state.revision,
        "dirty": (doc.dirty, info["dirty"]),
        "disk": Path(str(doc.path)).read_bytes(),
        "history": await history(person, tab),
        "journal": await journal(vmark),
    }


async def export(person: UIClient, tab: str, fmt: str, path: Path, **more: Any) -> tuple[dict[str, Any], list[Any]]:
    """The answer of ``ui.export``, and the progress reported before it."""
    reports: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        reports.append((done, total, message))

    response = await person.bridge.request(
        "ui.export", {"tabId": tab, "format": fmt, "path": str(path), **more}, progress=progress
    )
    assert response.get("success"), response
    return response["data"], reports


async def refusal(person: UIClient, tab: str, fmt: str, path: Path | str, **more: Any) -> Any:
    with pytest.raises(UIError) as info:
        await person.call("ui.export", tabId=tab, format=fmt, path=str(path), **more)
    return info.value.error


@pytest.mark.parametrize("fmt", FORMATS)
async def test_each_format_and_the_document_unchanged(
    vmark: RunningApp, person: UIClient, survey: tuple[str, Path], fmt: str
) -> None:
    tab, doc = survey
    before = await facts(vmark, person, tab)
    target = doc.parent / "exports" / f"survey.{fmt}"
    target.parent.mkdir()
    answer, reports = await export(person, tab, fmt, target)
    assert answer == {"path": str(target), "format": fmt, "bytes": target.stat().st_size, "warnings": []}
    assert await facts(vmark, person, tab) == before
    assert before["dirty"] == (False, False) and before["disk"] == TEXT.encode()
    assert [p.name for p in target.parent.iterdir()] == [f"survey.{fmt}"]
    # progress: one growing count, phase by phase, the file's write last
    counts = [done for done, _, _ in reports]
    assert counts == sorted(counts) and reports[-1] == (reports[-1][1], reports[-1][1], "Writing the file")
    phases = list(dict.fromkeys(message for _, _, message in reports))
    if fmt in ("html", "pdf"):
        expected = ["Starting Chromium", "Rendering the document"] + (["Printing the PDF"] if fmt == "pdf" else [])
    else:
        writer = "epub3" if fmt == "epub" else fmt
        expected = [
            "Reading the document with Pandoc",
            "Drawing the diagrams",
            "Embedding the images",
            f"Writing {writer} with Pandoc",
        ]
    assert phases == [*expected, "Writing the file"]
    if fmt == "html":
        await checks.check_html(target)
    else:
        getattr(checks, f"check_{fmt}")(target)


async def test_the_tab_as_it_is_now_unsaved_typing_included(
    vmark: RunningApp, person: UIClient, survey: tuple[str, Path]
) -> None:
    tab, doc = survey
    await person.edit(tab, TEXT + "\nWords typed but not saved.\n")
    before = await facts(vmark, person, tab)
    assert before["dirty"] == (True, True)
    answer, _ = await export(person, tab, "html", doc.parent / "now.html")
    assert "Words typed but not saved." in (doc.parent / "now.html").read_text("utf-8")
    assert answer["warnings"] == []
    assert await facts(vmark, person, tab) == before  # still dirty, same revision, the file on disk untouched


async def test_an_untitled_document_exports_its_text(vmark: RunningApp, person: UIClient, opened: Path) -> None:
    tab = (await person.call("ui.new"))["tabId"]
    await person.edit(tab, "# Draft\n\n![pic](pic.png) and $x^2$\n")
    answer, _ = await export(person, tab, "html", opened / "draft.html")
    assert answer["warnings"] == ["pic.png: an untitled document's image cannot be found; left out"]
    html = (opened / "draft.html").read_text("utf-8")
    assert "<title>Untitled</title>" in html and 'id="draft"' in html and 'class="katex"' in html


async def test_refusals_write_nothing(
    vmark: RunningApp, person: UIClient, survey: tuple[str, Path], tmp_path: Path
) -> None:
    tab, doc = survey
    outside = tmp_path / "outside"
    outside.mkdir()
    before = await facts(vmark, person, tab)
    workspace = listing(doc.parent)

    assert await refusal(person, tab, "pdf", outside / "x.pdf") == {
        "error": "INVALID_PATH",
        "message": f"'{outside / 'x.pdf'}' lies outside the open workspace and documents",
        "filePath": str(outside / "x.pdf"),
    }
    existing = doc.parent / "a.md"
    other = await person_open(person, existing)
    assert await refusal(person, tab, "html", existing, replace=True) == {
        "error": "INVALID_PATH",
        "message": f"{existing} is open in a tab; an export never writes over it",
        "filePath": str(existing),
    }
    await person.call("ui.close", tabId=other)
    assert await refusal(person, tab, "html", doc, replace=True) == {
        "error": "INVALID_PATH",
        "message": f"{doc} is the document itself; an export never writes over it",
        "filePath": str(doc),
    }
    assert await refusal(person, tab, "html", doc.parent / "notes") == {
        "error": "INVALID_PATH",
        "message": f"{doc.parent / 'notes'} is a folder: name the file to write",
        "filePath": str(doc.parent / "notes"),
    }
    assert await refusal(person, tab, "html", existing) == {
        "error": "APPROVAL_REQUIRED",
        "message": f"{existing} already exists; an export replaces a file only when asked (--force, or Replace)",
        "filePath": str(existing),
    }
    assert await refusal(person, tab, "rtf", doc.parent / "x.rtf") == (
        "argument 'format' must be one of: html, pdf, docx, odt, epub"
    )
    ci = doc.parent / ".github" / "workflows" / "ci.yml"
    workflow = await person_open(person, ci)
    assert await refusal(person, workflow, "html", doc.parent / "ci.html") == (
        f"only a Markdown document exports; {ci} is a yaml-workflow"
    )
    assert listing(doc.parent) == workspace
    assert list(outside.iterdir()) == []
    assert await facts(vmark, person, tab) == before


async def test_replace_writes_over_an_existing_export(
    vmark: RunningApp, person: UIClient, survey: tuple[str, Path]
) -> None:
    tab, doc = survey
    target = doc.parent / "survey.html"
    target.write_bytes(b"old")
    target.chmod(0o640)
    answer, _ = await export(person, tab, "html", target, replace=True)
    assert answer["path"] == str(target)
    assert target.read_bytes().startswith(b"<!doctype html>")
    assert target.stat().st_mode & 0o777 == 0o640  # replaced in place, its permissions kept
    assert not [p.name for p in doc.parent.iterdir() if p.name.endswith(".vmark-tmp")]


async def test_without_pandoc_or_chromium_the_failure_says_what_and_writes_nothing(
    vmark: RunningApp, person: UIClient, survey: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tab, doc = survey
    workspace = listing(doc.parent)
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setitem(sys.modules, "pypandoc", None)  # the pypandoc-binary package is absent
    monkeypatch.setenv("PATH", str(empty))  # ... and no pandoc on PATH
    for fmt in ("docx", "odt", "epub"):
        assert await refusal(person, tab, fmt, doc.parent / f"survey.{fmt}") == {
            "error": "EXPORT_FAILED",
            "message": (
                "Pandoc is not installed (Word, OpenDocument and EPUB are written with it): "
                f"{sys.executable} -m pip install 'pypandoc-binary==1.17'"
            ),
            "reason": "pandoc_missing",
        }
    monkeypatch.setattr(vmark.app.services.exporter, "executable", str(tmp_path / "no-chromium"))
    for fmt in ("html", "pdf"):
        assert await refusal(person, tab, fmt, doc.parent / f"survey.{fmt}") == {
            "error": "EXPORT_FAILED",
            "message": (
                f"Chromium is not installed at {tmp_path / 'no-chromium'} (exports are rendered with it): "
                "sudo apt-get install chromium"
            ),
            "reason": "chromium_missing",
        }
    assert listing(doc.parent) == workspace


async def test_the_command_line_beside_a_running_app_exports_the_file_on_disk(
    vmark: RunningApp, person: UIClient, survey: tuple[str, Path]
) -> None:
    """``vmark export`` needs no app and asks none: with one running (the same data directory) and the file open
    with unsaved typing, it exports the file as it is on disk, and the tab stays as it was."""
    tab, doc = survey
    await person.edit(tab, TEXT + "\nUnsaved words.\n")
    before = await facts(vmark, person, tab)
    target = doc.parent / "disk.html"
    code, out, err = vmark_cli(vmark.data_dir, "export", str(doc), "--to", "html", "-o", str(target))
    assert (code, out, err) == (0, f"wrote {target} ({target.stat().st_size} bytes)\n", "")
    html = target.read_text("utf-8")
    assert "lighthouse" in html and "Unsaved words." not in html
    assert await facts(vmark, person, tab) == before
