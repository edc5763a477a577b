"""Paste and drop in the editor, in real Chromium with real key presses, byte for byte on disk after Ctrl+S.

The clipboard is the browser's own: the test grants the page ``clipboard-read`` / ``clipboard-write``, writes
the content with the page's async Clipboard API, then presses Control+V (or Control+Shift+V). A drop is a
``drop`` event carrying a DataTransfer with a File, dispatched where the page shows the place.

- HTML from a web page, Google Docs, Word, Google Sheets and Excel becomes the Markdown of its fixture
  (``frontend/test/fixtures/paste/NAME.md``, the same the unit tests pin), in the document's own list and
  emphasis style; Markdown text goes in as exactly its characters; Ctrl+Shift+V pastes text literally; a code
  block takes plain text.
- An image pasted or dropped is written into ``assets/`` beside the document (the exact bytes the clipboard or
  the drop held, never over another file) and linked as ``![name](assets/NAME.png)``; it shows at once. An
  image the page knows by its path is linked, not copied. An untitled document asks to be saved first; a
  folder outside the window's scope is refused: nothing is written either way.
- The blocks around a paste keep their bytes (every test compares the whole file).

The module's stage (one app, one page) is ``tests/ui/lossless.py``'s.
"""

from __future__ import annotations

import base64
import os
import struct
import zlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.contract.helpers import wait_until
from tests.ui.conftest import ARTIFACTS
from tests.ui.lossless import _CLICK_AFTER, Stage, assert_bytes, click_after, open_file, save, switch_mode
from tests.ui.lossless import scene as scene  # the fixtures this module uses
from tests.ui.lossless import stage as stage
from tests.ui.test_images import png

FIXTURES = Path(__file__).resolve().parents[2] / "frontend" / "test" / "fixtures" / "paste"

#: a document whose blocks keep odd bytes a re-serialization would change (spacing, a backslash break, padding)
BEFORE = "# Notes\n\nIntro  with  odd   spacing\\\nand a break.\n\nBefore paste."
AFTER = "\n\n|keep|this|\n|---|:-|\n|1|2|\n\nAfter paste.\n"


@pytest.fixture
async def paste(scene: Stage) -> AsyncIterator[Stage]:
    """The stage, its page allowed to read and write the clipboard."""
    origin = scene.app.ui_url.split("/?")[0]
    await scene.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
    yield scene
    await scene.page.emulate_media(color_scheme="light")


def picture(width: int = 240, height: int = 120) -> bytes:
    """A PNG a person would notice: diagonal stripes of two colours."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(
        b"\x00" + b"".join(b"\x2b\x6c\xb0" if (x + y) // 20 % 2 else b"\xf2\xa9\x3b" for x in range(width))
        for y in range(height)
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def fixture(name: str) -> tuple[str, str]:
    """The HTML a source puts on the clipboard and the Markdown it must become."""
    html = (FIXTURES / f"{name}.html").read_text("utf-8")
    return html, (FIXTURES / f"{name}.md").read_text("utf-8").rstrip("\n")


_WRITE_CLIPBOARD = """
async ([kinds]) => {
  const items = {};
  for (const [type, value, binary] of kinds) {
    const data = binary ? Uint8Array.from(atob(value), (c) => c.charCodeAt(0)) : value;
    items[type] = new Blob([data], { type });
  }
  await navigator.clipboard.write([new ClipboardItem(items)]);
  // The browser's own sanitizer reads the HTML written here (the test's doing, not the editor's): its inline
  // styles are reported against the page's policy. What the paste itself causes is checked after the test.
  window.__cspViolations.splice(0);
}
"""

_READ_CLIPBOARD_IMAGE = """
async () => {
  const [item] = await navigator.clipboard.read();
  const bytes = new Uint8Array(await (await item.getType("image/png")).arrayBuffer());
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text);
}
"""


async def write_clipboard(
    page: Page, html: str | None = None, text: str | None = None, image: bytes | None = None
) -> None:
    kinds: list[tuple[str, str, bool]] = []
    if html is not None:
        kinds.append(("text/html", html, False))
    if text is not None:
        kinds.append(("text/plain", text, False))
    if image is not None:
        kinds.append(("image/png", base64.b64encode(image).decode(), True))
    await page.evaluate(_WRITE_CLIPBOARD, [kinds])


async def clipboard_image(page: Page) -> bytes:
    """The PNG the clipboard holds (the browser writes images anew: these are the bytes a paste carries)."""
    return base64.b64decode(await page.evaluate(_READ_CLIPBOARD_IMAGE))


async def shows(s: Stage, text: str) -> None:
    """Wait until the editor's text is ``text``."""
    got: list[str] = []

    async def same() -> bool:
        got[:] = [await s.page.evaluate("window.vmarkPage.editorText()")]
        return got[0] == text

    try:
        await wait_until(same, "the editor to hold the pasted text", timeout=10)
    except AssertionError as exc:
        shown = got[0] if got else None
        raise AssertionError(f"{exc}\nwant {text!r}\ngot  {shown!r}\npage errors: {s.errors}") from None


async def wysiwyg_doc(s: Stage, name: str, text: str) -> Path:
    path = s.write(name, text.encode())
    await open_file(s, path)
    await switch_mode(s, "wysiwyg")
    return path


async def paste_at(s: Stage, anchor: str, keys: str = "Control+v", **clipboard: str | bytes) -> None:
    """Click right after ``anchor``, put ``clipboard`` on the clipboard, press ``keys``."""
    await click_after(s.page, anchor)
    await write_clipboard(s.page, **clipboard)  # type: ignore[arg-type]
    await s.page.keyboard.press(keys)


async def pasted_html(s: Stage, name: str, html: str, text: str, want: str) -> None:
    path = await wysiwyg_doc(s, name, BEFORE + AFTER)
    await paste_at(s, "Before paste.", html=html, text=text)
    expected = f"{BEFORE}\n\n{want}{AFTER}"
    await shows(s, expected)
    await save(s, path)
    assert_bytes(path, expected.encode(), s.errors)


# --- HTML ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("source", ["web-article", "google-docs", "word", "google-sheets", "excel"])
async def test_html_from_each_source_becomes_clean_markdown(paste: Stage, source: str) -> None:
    html, want = fixture(source)
    await pasted_html(paste, f"html-{source}.md", html, "(the plain text the source gives too)", want)


async def test_pasted_html_takes_the_documents_list_marker_and_emphasis(paste: Stage) -> None:
    s = paste
    before = "# Styled\n\n* one\n* two\n\nSome _em_ and __strong__ here."
    path = await wysiwyg_doc(s, "styled.md", before + "\n")
    html, _ = fixture("google-docs")
    await paste_at(s, "here.", html=html, text="Meeting notes")
    want = (
        "# Meeting notes\n\nWe agreed on the __release date__ and the _scope_. See [the plan](https://example.com/plan)."
        "\n\n* Docs\n  * user guide\n* `vmark app`\n\n~~Old idea~~"
    )
    await shows(s, f"{before}\n\n{want}\n")
    await save(s, path)
    assert_bytes(path, f"{before}\n\n{want}\n".encode(), s.errors)


# --- text ------------------------------------------------------------------------------------------------------
async def test_markdown_text_is_parsed_and_kept_as_its_characters(paste: Stage) -> None:
    s = paste
    path = await wysiwyg_doc(s, "markdown-text.md", BEFORE + AFTER)
    await paste_at(s, "Before paste.", text="# Title\n\n- a\n-   b  \n\n1) one")
    expected = f"{BEFORE}\n\n# Title\n\n- a\n-   b  \n\n1) one{AFTER}"
    await shows(s, expected)
    await expect(s.page.locator(".ProseMirror h1", has_text="Title")).to_have_count(1)
    await expect(s.page.locator(".ProseMirror ul li")).to_have_count(2)
    # Inline Markdown in the middle of a paragraph: the characters as pasted, shown as what they mean.
    await paste_at(s, "Before", text="**bold**, `code` and [a link](https://example.com)")
    expected = expected.replace(
        "Before paste.", "Before**bold**, `code` and [a link](https://example.com) paste.", 1
    )
    await shows(s, expected)
    await expect(s.page.locator(".ProseMirror strong", has_text="bold")).to_have_count(1)
    await save(s, path)
    assert_bytes(path, expected.encode(), s.errors)


async def test_ctrl_shift_v_pastes_plain_text_literally(paste: Stage) -> None:
    s = paste
    path = await wysiwyg_doc(s, "literal.md", BEFORE + AFTER)
    text = "# not a heading\n*not emphasis* and snake_case & 5 > 3\n\n- not a list"
    await paste_at(s, "Before paste.", "Control+Shift+V", html="<h1>ignored</h1>", text=text)
    want = "\\# not a heading\n\\*not emphasis\\* and snake_case & 5 > 3\n\n\\- not a list"
    expected = f"{BEFORE}\n\n{want}{AFTER}"
    await shows(s, expected)
    await expect(s.page.locator(".ProseMirror h1")).to_have_count(1)  # the document's own only
    await save(s, path)
    assert_bytes(path, expected.encode(), s.errors)


async def test_a_code_block_takes_plain_text(paste: Stage) -> None:
    s = paste
    text = "# Code\n\n```\nplain words\n```\n"
    path = await wysiwyg_doc(s, "code.md", text)
    await paste_at(s, "plain words", html="<p><b>y</b> = <i>2</i></p>", text="\ny = *2*")
    expected = "# Code\n\n```\nplain words\ny = *2*\n```\n"
    await shows(s, expected)
    await save(s, path)
    assert_bytes(path, expected.encode(), s.errors)


# --- images ----------------------------------------------------------------------------------------------------
async def test_a_pasted_image_is_written_beside_the_document_and_shows(paste: Stage) -> None:
    s = paste
    path = await wysiwyg_doc(s, "shot.md", BEFORE + AFTER)
    await paste_at(s, "Before paste.", image=picture())
    expected = f"{BEFORE}![image](assets/image.png){AFTER}"
    await shows(s, expected)
    written = s.folder / "assets" / "image.png"
    assert written.read_bytes() == await clipboard_image(s.page)
    image = s.page.locator(".ProseMirror img.md-image[alt=image]")
    await expect(image).to_have_attribute("data-state", "loaded")
    assert await image.evaluate("img => [img.naturalWidth, img.naturalHeight]") == [240, 120]
    assert await image.get_attribute("src") == f"/files/main{s.folder}/assets/image.png"
    await save(s, path)
    assert_bytes(path, expected.encode(), s.errors)
    assert b"data:" not in path.read_bytes()
    ARTIFACTS.mkdir(exist_ok=True)
    await s.page.screenshot(path=str(ARTIFACTS / "paste-image-light.png"))
    await s.page.emulate_media(color_scheme="dark")
    await s.page.screenshot(path=str(ARTIFACTS / "paste-image-dark.png"))


async def test_two_images_never_replace_a_file(paste: Stage) -> None:
    s = paste
    s.write("two/assets/image.png", b"an older file of the person's")
    path = await wysiwyg_doc(s, "two/pics.md", "# Two\n\nFirst: \n\nSecond: \n")
    await paste_at(s, "First:", image=png(3, 3))
    first = await clipboard_image(s.page)
    await shows(s, "# Two\n\nFirst:![image](assets/image-1.png) \n\nSecond: \n")
    await paste_at(s, "Second:", image=png(5, 2))
    second = await clipboard_image(s.page)
    expected = "# Two\n\nFirst:![image](assets/image-1.png) \n\nSecond:![image](assets/image-2.png) \n"
    await shows(s, expected)
    assets = s.folder / "two" / "assets"
    assert (assets / "image.png").read_bytes() == b"an older file of the person's"
    assert (assets / "image-1.png").read_bytes() == first
    assert (assets / "image-2.png").read_bytes() == second
    await save(s, path)
    assert_bytes(path, expected.encode(), s.errors)


_DROP = """
async ([files, paths, x, y]) => {
  const data = new DataTransfer();
  for (const [name, type, b64] of files) {
    data.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name, { type }));
  }
  for (const [type, value] of paths) data.setData(type, value);
  const target = document.elementFromPoint(x, y);
  for (const kind of ["dragenter", "dragover", "drop"]) {
    const init = { bubbles: true, cancelable: true, clientX: x, clientY: y, dataTransfer: data };
    target.dispatchEvent(new DragEvent(kind, init));
  }
}
"""


async def drop_after(
    page: Page, anchor: str, files: list[tuple[str, str, bytes]] = (), data: list[tuple[str, str]] = ()  # type: ignore[assignment]
) -> None:
    """Drop ``files`` (name, type, bytes) and ``data`` (type, value) right after the visible text ``anchor``."""
    point = await page.evaluate(_CLICK_AFTER, [".ProseMirror", anchor, 0])
    assert point is not None and "covered" not in point, point
    encoded = [[name, kind, base64.b64encode(body).decode()] for name, kind, body in files]
    await page.evaluate(_DROP, [encoded, [list(d) for d in data], point["x"], point["y"]])


async def test_a_dropped_image_is_written_and_linked_where_it_fell(paste: Stage) -> None:
    s = paste
    path = await wysiwyg_doc(s, "drop.md", BEFORE + AFTER)
    body = png(9, 9)
    await drop_after(s.page, "After paste.", files=[("Flow Diagram.png", "image/png", body)])
    expected = f"{BEFORE}{AFTER[:-1]}![Flow Diagram](assets/Flow-Diagram.png)\n"
    await shows(s, expected)
    assert (s.folder / "assets" / "Flow-Diagram.png").read_bytes() == body
    shown = s.page.locator(".ProseMirror img.md-image[alt='Flow Diagram']")
    await expect(shown).to_have_attribute("data-state", "loaded")
    await save(s, path)
    assert_bytes(path, expected.encode(), s.errors)


async def test_files_the_page_knows_are_linked_by_path_not_copied(paste: Stage) -> None:
    s = paste
    s.write("known/pics/dot.png", png(2, 2))
    other = s.write("known/other.md", b"# Other\n")
    path = await wysiwyg_doc(s, "known/doc.md", "# Known\n\nHere: \n")
    url = f"{s.app.ui_url.split('/?')[0]}/files/main{s.folder}/known/pics/dot.png"
    await drop_after(s.page, "Here:", data=[("text/uri-list", url)])
    await shows(s, "# Known\n\nHere:![dot](pics/dot.png) \n")
    await drop_after(s.page, "Known", data=[("application/x-vmark-path", str(other))])
    expected = "# Known[other](other.md)\n\nHere:![dot](pics/dot.png) \n"
    await shows(s, expected)
    assert not (s.folder / "known" / "assets").exists()
    await save(s, path)
    assert_bytes(path, expected.encode(), s.errors)


async def test_source_mode_pastes_and_drops_images_too(paste: Stage) -> None:
    s = paste
    path = s.write("src/source.md", b"# Source\n\nline one\n")
    await open_file(s, path)
    await click_after(s.page, "line one", root=".cm-content")
    await write_clipboard(s.page, image=png(4, 4))
    await s.page.keyboard.press("Control+v")
    await shows(s, "# Source\n\nline one![image](assets/image.png)\n")
    assert (s.folder / "src" / "assets" / "image.png").read_bytes() == await clipboard_image(s.page)
    await s.page.keyboard.type(" ok")
    await shows(s, "# Source\n\nline one![image](assets/image.png) ok\n")
    await save(s, path)
    assert_bytes(path, b"# Source\n\nline one![image](assets/image.png) ok\n", s.errors)


async def test_an_untitled_document_asks_to_be_saved_first(paste: Stage) -> None:
    s = paste
    await s.page.click("#new-tab")
    await s.page.wait_for_selector(".tab.active .title:text-matches('^Untitled')")
    await switch_mode(s, "wysiwyg")
    await s.page.locator(".ProseMirror").click()
    await s.page.keyboard.type("Draft")
    await write_clipboard(s.page, image=png(3, 3))
    before = sorted(p.name for p in s.folder.iterdir())
    await s.page.keyboard.press("Control+v")
    await expect(s.page.get_by_test_id("picker")).to_be_visible()
    await expect(s.page.get_by_test_id("picker")).to_have_attribute("data-mode", "save")  # Save as
    await expect(s.page.locator(".toast.warning")).to_contain_text("Save the document first")
    await s.page.get_by_test_id("picker-cancel").click()
    assert await s.page.evaluate("window.vmarkPage.editorText()") == "Draft"
    assert sorted(p.name for p in s.folder.iterdir()) == before


async def test_a_folder_outside_the_scope_is_refused_and_nothing_is_written(paste: Stage, tmp_path: Path) -> None:
    s = paste
    outside = tmp_path / "outside"
    outside.mkdir()
    folder = s.folder / "deep"
    s.app.app.settings.set("editor.image_folder", os.path.relpath(outside, folder))
    try:
        path = await wysiwyg_doc(s, "deep/refused.md", BEFORE + AFTER)
        await paste_at(s, "Before paste.", image=png(3, 3))
        await expect(s.page.locator(".toast.error")).to_contain_text("INVALID_PATH")
        assert list(outside.iterdir()) == []
        assert sorted(p.name for p in folder.iterdir()) == ["refused.md"]
        await save(s, path)
        assert_bytes(path, (BEFORE + AFTER).encode(), s.errors)
    finally:
        s.app.app.settings.set("editor.image_folder", "assets")
