"""The export's parts without a browser: front matter, image references, the target's checks and write, the
settings, the formats, finding Pandoc, Pandoc's conversion with images put in, and doctor's line."""

from __future__ import annotations

import sys
import typing
import zipfile
from pathlib import Path

import docx
import pytest

from tests.export.sample import png
from vmark.doctor.machine import check_pandoc
from vmark.export import formats, pandoc
from vmark.export.frontmatter import Split, split_front_matter
from vmark.export.images import ImageRefused, Reference, read_scoped_image, reference_of
from vmark.export.output import check_target, write_target
from vmark.export.settings import setting_error
from vmark.protocol.errors import DomainError
from vmark.protocol.wire_types import ExportFormat
from vmark.storage.pathscope import PathScope
from vmark.storage.settings import Settings, SettingsError


# --- front matter ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "split"),
    [
        ("---\ntitle: Trip\nlang: fr\n---\n# Body\n", Split("# Body\n", "Trip", "fr")),
        ("\ufeff---\r\ntitle:  Spaced  \r\n...\r\nrest", Split("rest", "Spaced", None)),
        ("---\ntitle: [a, b]\n---\nx", Split("x", None, None)),  # not a plain string: no title
        ("---\n: : not yaml {\n---\nx", Split("x", None, None)),  # not YAML: still front matter, left out
        ("---\ntitle: open\nno closing line\n", Split("---\ntitle: open\nno closing line\n", None, None)),
        ("text\n---\ntitle: late\n---\n", Split("text\n---\ntitle: late\n---\n", None, None)),
        (" ---\ntitle: indented\n---\n", Split(" ---\ntitle: indented\n---\n", None, None)),
    ],
)
def test_front_matter(text: str, split: Split) -> None:
    assert split_front_matter(text) == split


# --- image references ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("src", "doc", "reference"),
    [
        ("assets/a.png", "/w/d/doc.md", Reference("file", "/w/d/assets/a.png")),
        ("../img/a%20b.png?v=2#x", "/w/d/doc.md", Reference("file", "/w/img/a b.png")),
        ("/abs/./x/../a.png", None, Reference("file", "/abs/a.png")),
        ("file:///abs/a.png", None, Reference("file", "/abs/a.png")),
        ("file://localhost/abs/a.png", None, Reference("file", "/abs/a.png")),
        ("../../../../etc/x.png", "/w/doc.md", Reference("file", "/etc/x.png")),
        ("https://example.org/a.png", "/w/doc.md", Reference("web")),
        ("data:image/png;base64,AAAA", None, Reference("data")),
        ("http://example.org/a.png", "/w/doc.md", Reference("other")),
        ("javascript:alert(1)", "/w/doc.md", Reference("other")),
        ("a.png", None, Reference("other")),  # an untitled document has no folder
        ("  ", "/w/doc.md", Reference("other")),
    ],
)
def test_image_references_read_as_the_editor_reads_them(src: str, doc: str | None, reference: Reference) -> None:
    assert reference_of(src, doc) == reference


def test_images_are_read_only_inside_the_scope(tmp_path: Path) -> None:
    inside, outside = tmp_path / "in", tmp_path / "out"
    inside.mkdir()
    outside.mkdir()
    (inside / "a.png").write_bytes(png(2, 2, (1, 2, 3)))
    (outside / "b.png").write_bytes(png(2, 2, (1, 2, 3)))
    (inside / "link.png").symlink_to(outside / "b.png")
    (inside / "notes.txt").write_text("x")
    scope = PathScope.of([str(inside)])
    assert read_scoped_image(str(inside / "a.png"), scope) == (png(2, 2, (1, 2, 3)), "image/png")
    cases = {
        str(outside / "b.png"): f"{outside / 'b.png'} lies outside the workspace and the document's folder",
        str(inside / "link.png"): f"{inside / 'link.png'} lies outside the workspace and the document's folder",
        str(inside / "notes.txt"): f"{inside / 'notes.txt'} is not an image file (by its name)",
        str(inside / "gone.png"): f"{inside / 'gone.png'} does not exist",
    }
    for path, why in cases.items():
        with pytest.raises(ImageRefused) as info:
            read_scoped_image(path, scope)
        assert str(info.value) == why


# --- the target ----------------------------------------------------------------------------------------------
def test_the_target_is_checked_before_and_written_at_once(tmp_path: Path) -> None:
    folder = tmp_path / "w"
    (folder / "sub").mkdir(parents=True)
    doc = folder / "doc.md"
    doc.write_text("# x\n")
    scope = PathScope.of([str(folder)])
    target = str(folder / "doc.html")
    assert check_target(target, scope, replace=False, source=str(doc)) == target
    write_target(target, b"first", scope, replace=False)
    assert Path(target).read_bytes() == b"first"
    with pytest.raises(DomainError) as info:
        check_target(target, scope, replace=False, source=str(doc))
    assert info.value.code == "APPROVAL_REQUIRED"
    with pytest.raises(DomainError) as info:
        write_target(target, b"second", scope, replace=False)  # it appeared meanwhile: still never replaced
    assert info.value.code == "APPROVAL_REQUIRED"
    assert Path(target).read_bytes() == b"first"
    assert check_target(target, scope, replace=True, source=str(doc)) == target
    write_target(target, b"second", scope, replace=True)
    assert Path(target).read_bytes() == b"second"
    for bad, message in [
        (str(doc), f"{doc} is the document itself; an export never writes over it"),
        (str(folder / "sub"), f"{folder / 'sub'} is a folder: name the file to write"),
        (str(tmp_path / "x.html"), f"'{tmp_path / 'x.html'}' lies outside the open workspace and documents"),
        (str(folder / "none" / "x.html"), f"the directory of '{folder / 'none' / 'x.html'}' cannot be used"),
        ("relative.html", "path must be absolute: 'relative.html'"),
    ]:
        with pytest.raises(DomainError) as info:
            check_target(bad, scope, replace=True, source=str(doc))
        assert (info.value.code, info.value.message[: len(message)]) == ("INVALID_PATH", message)
    assert sorted(p.name for p in folder.iterdir()) == ["doc.html", "doc.md", "sub"]  # no temp file anywhere


# --- formats and settings ----------------------------------------------------------------------------------
def test_formats_and_the_wire_agree() -> None:
    assert set(typing.get_args(ExportFormat)) == set(formats.FORMATS)
    assert formats.default_output("/a/b/notes.md", formats.FORMATS["pdf"]) == "/a/b/notes.pdf"
    assert formats.default_output("/a/b/README", formats.FORMATS["epub"]) == "/a/b/README.epub"


def test_the_export_settings(tmp_path: Path) -> None:
    import vmark.settings_keys  # noqa: F401  (registers them)

    settings = Settings(tmp_path / "settings.json")
    assert (settings.get("export.page_size"), settings.get("export.margin_mm")) == ("A4", 20)
    settings.set("export.page_size", "Letter")
    settings.set("export.margin_mm", 0)
    assert (settings.get("export.page_size"), settings.get("export.margin_mm")) == ("Letter", 0)
    for key, value, problem in [
        ("export.page_size", "A5", "setting 'export.page_size' must be 'A4' or 'Letter', not 'A5'"),
        ("export.margin_mm", 61, "setting 'export.margin_mm' must be from 0 to 60 (millimetres), not 61"),
        ("export.margin_mm", -1, "setting 'export.margin_mm' must be from 0 to 60 (millimetres), not -1"),
    ]:
        assert setting_error(key, value) == problem
        with pytest.raises(SettingsError, match="must be"):
            settings.set(key, value)


# --- Pandoc ------------------------------------------------------------------------------------------------------
def test_pandoc_is_found_in_the_package_or_on_path_or_not_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = pandoc.find_pandoc()
    assert shipped is not None and shipped.endswith("pypandoc/files/pandoc")
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setitem(sys.modules, "pypandoc", None)
    monkeypatch.setenv("PATH", str(empty))
    assert pandoc.find_pandoc() is None
    on_path = tmp_path / "bin"
    on_path.mkdir()
    (on_path / "pandoc").symlink_to(shipped)
    monkeypatch.setenv("PATH", str(on_path))
    assert pandoc.find_pandoc() == str(on_path / "pandoc")


def test_doctor_says_when_pandoc_is_missing_and_how_to_install_it() -> None:
    fix = pandoc.install_command(sys.executable)
    assert fix == f"{sys.executable} -m pip install 'pypandoc-binary==1.17'"
    missing = check_pandoc(lambda: None, fix)
    assert missing.line() == (
        f"! pandoc                advisory  not installed (exports to docx, odt and epub need it); fix: {fix}"
    )
    found = pandoc.find_pandoc()
    assert found is not None
    assert check_pandoc(lambda: found, fix).line() == f"✓ pandoc                advisory  pandoc 3.9 ({found})"


async def test_pandoc_gets_the_images_through_the_scope_and_reads_nothing_itself(tmp_path: Path) -> None:
    folder = tmp_path / "w"
    folder.mkdir()
    (folder / "in.png").write_bytes(png(3, 3, (9, 9, 9)))
    (tmp_path / "out.png").write_bytes(png(5, 5, (9, 9, 9)))
    doc = folder / "doc.md"
    markdown = (
        "# T\n\n![inside](in.png) ![outside](../out.png) ![web](https://example.org/w.png) ![gone](none.png)\n\n"
        'Smart "quotes" stay, ~tilde~ and ^caret^ too, :smile: and {#id} as well.\n\n'
        "---\nnot: metadata\n---\n"  # a rule, then a heading (never a YAML block)
    )
    warnings: list[str] = []

    async def no_diagrams(sources: list[str]) -> list[pandoc.Diagram]:
        raise AssertionError("no diagram to draw")

    found = pandoc.find_pandoc()
    assert found is not None
    data = await pandoc.convert(
        found,
        markdown,
        writer="docx",
        title="yes: no",  # not YAML: the title as written
        lang=None,
        doc_path=str(doc),
        scope=PathScope.of([str(folder)]),
        draw=no_diagrams,
        warnings=warnings,
    )
    assert warnings == [
        f"../out.png: {tmp_path / 'out.png'} lies outside the workspace and the document's folder; left out",
        "https://example.org/w.png: an image from the web, written as a link",
        f"none.png: {folder / 'none.png'} does not exist; left out",
    ]
    path = tmp_path / "x.docx"
    path.write_bytes(data)
    media = [n for n in zipfile.ZipFile(path).namelist() if n.startswith("word/media/")]
    assert len(media) == 1 and zipfile.ZipFile(path).read(media[0]) == png(3, 3, (9, 9, 9))
    document = docx.Document(str(path))
    assert document.core_properties.title == "yes: no"
    text = "\n".join(p.text for p in document.paragraphs)
    assert 'Smart "quotes" stay, ~tilde~ and ^caret^ too, :smile: and {#id} as well.' in text
    assert "outside" in text and "gone" in text and "web" in text  # their descriptions stay
    assert [p.text for p in document.paragraphs if p.style is not None and p.style.name == "Heading 2"] == [
        "not: metadata"
    ]


async def test_a_pandoc_failure_says_why() -> None:
    found = pandoc.find_pandoc()
    assert found is not None
    with pytest.raises(DomainError) as info:
        await pandoc.run_pandoc(found, ["-f", "nonsense-format", "-t", "json"], b"x")
    assert info.value.code == "EXPORT_FAILED" and info.value.extra == {"reason": "pandoc_failed"}
    assert info.value.message == "Pandoc failed: Unknown input format nonsense"
