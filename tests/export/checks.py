"""What each exported format must be, checked with the tools a reader would use: Chromium offline for HTML,
pypdf for PDF, python-docx for Word, the zip containers of OpenDocument and EPUB."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path
from typing import Any

import docx
import pypdf
from playwright.async_api import Request, async_playwright

from tests.export.sample import DIAGRAM_WORDS, HEADINGS, IMAGE_SIZE, TABLE, TITLE, WORDS
from vmark.testing.chromium import CHROMIUM, CHROMIUM_ARGS


async def check_html(path: Path) -> None:
    """Opened offline (every request aborted, and none made): the image shows, the math is KaTeX's and
    visible, the diagram is inline SVG, the headings have ids, the title is the front matter's."""
    html = path.read_text("utf-8")
    assert f"<title>{TITLE}</title>" in html
    assert "author:" not in html and "the survey team" not in html  # front matter is not shown
    requested: list[str] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = await browser.new_context()

            async def cut_off(route: Any, request: Request) -> None:
                requested.append(request.url)
                await route.abort("internetdisconnected")

            await context.route("**/*", cut_off)
            page = await context.new_page()
            await page.set_content(html, wait_until="load")
            seen = await page.evaluate(
                """async () => {
                  await document.fonts.ready;
                  const img = document.querySelector("img");
                  const math = [...document.querySelectorAll(".katex")];
                  const shown = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
                  const svg = document.querySelector("figure.vmark-diagram svg");
                  return {
                    image: img && {
                      w: img.naturalWidth, h: img.naturalHeight, data: img.src.startsWith("data:image/png"),
                    },
                    math: math.length,
                    display: document.querySelectorAll(".katex-display").length,
                    mathShown: math.every(shown),
                    mathText: math.map((m) => m.querySelector("annotation")?.textContent ?? ""),
                    fontsLoaded: [...document.fonts].filter((f) => f.status === "loaded").map((f) => f.family),
                    svg: svg ? { shown: shown(svg), text: svg.textContent } : null,
                    headings: [...document.querySelectorAll("h1, h2, h3")].map((h) => [h.tagName, h.id, h.textContent]),
                    table: [...document.querySelectorAll("table tr")].map(
                      (r) => [...r.cells].map((c) => c.textContent.trim())),
                    code: document.querySelector(".code-block code")?.innerHTML ?? "",
                    text: document.body.innerText,
                  };
                }"""
            )
        finally:
            await browser.close()
    assert requested == []  # everything it needs is inside it
    assert seen["image"] == {"w": IMAGE_SIZE[0], "h": IMAGE_SIZE[1], "data": True}
    assert (seen["math"], seen["display"], seen["mathShown"]) == (2, 1, True)
    assert seen["mathText"] == ["h = a \\sin(\\omega t)", "\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}"]
    assert "KaTeX_Main" in seen["fontsLoaded"] and "KaTeX_Math" in seen["fontsLoaded"]  # the inlined fonts
    assert seen["svg"] is not None and seen["svg"]["shown"]
    assert all(word in seen["svg"]["text"] for word in DIAGRAM_WORDS)
    assert seen["headings"] == [
        ["H1", "harbour-survey", "Harbour Survey"],
        ["H2", "measurements", "Measurements"],
        ["H3", "procedure", "Procedure"],
    ]
    assert seen["table"] == TABLE
    assert 'class="tok-keyword">def</span>' in seen["code"]  # highlighted as the editor does
    assert all(word in seen["text"] for word in WORDS)


def check_pdf(path: Path) -> None:
    """Its text holds the document's words (and the diagram's), its outline the headings, nested."""
    data = path.read_bytes()
    assert data.startswith(b"%PDF-")
    reader = pypdf.PdfReader(io.BytesIO(data))
    text = " ".join(page.extract_text() for page in reader.pages)
    flat = re.sub(r"\s+", " ", text)
    for word in [*WORDS, *DIAGRAM_WORDS]:
        assert word in flat, (word, flat)
    assert "the survey team" not in flat

    def titles(outline: list[Any], depth: int = 1) -> list[tuple[int, str]]:
        found: list[tuple[int, str]] = []
        for item in outline:
            if isinstance(item, list):
                found += titles(item, depth + 1)
            else:
                found.append((depth, str(item.title)))
        return found

    assert titles(reader.outline) == HEADINGS
    root = reader.trailer["/Root"]
    assert bool(root["/MarkInfo"]["/Marked"]) and "/StructTreeRoot" in root  # tagged: a structure of the text
    assert root["/Lang"] == "en"  # the front matter's lang


def check_docx(path: Path) -> None:
    """The headings in Word's Heading styles, the table as a table, math as equations, both images."""
    document = docx.Document(str(path))
    headings = [
        (int(p.style.name.removeprefix("Heading ")), p.text)
        for p in document.paragraphs
        if p.style is not None and p.style.name.startswith("Heading ")
    ]
    assert headings == HEADINGS
    assert len(document.tables) == 1
    assert [[cell.text for cell in row.cells] for row in document.tables[0].rows] == TABLE
    code = [p for p in document.paragraphs if p.text.startswith("def depth(reading):")]
    assert [p.style.name for p in code if p.style is not None] == ["Source Code"]  # code as code
    assert "lighthouse" in "\n".join(p.text for p in document.paragraphs)
    body = zipfile.ZipFile(path).read("word/document.xml").decode("utf-8")
    assert body.count("<m:oMathPara>") == 1 and body.count("<m:oMath>") == 2  # one display, one inline
    assert len(document.inline_shapes) == 2  # the photo and the diagram
    media = [n for n in zipfile.ZipFile(path).namelist() if n.startswith("word/media/")]
    assert len(media) == 2 and all(n.endswith(".png") for n in media)


def check_odt(path: Path) -> None:
    """A valid OpenDocument text: its mimetype first and stored, a manifest, the content with the headings,
    the table and two formulas, and both pictures."""
    with zipfile.ZipFile(path) as odt:
        first = odt.infolist()[0]
        assert (first.filename, first.compress_type) == ("mimetype", zipfile.ZIP_STORED)
        assert odt.read("mimetype") == b"application/vnd.oasis.opendocument.text"
        names = odt.namelist()
        assert {"content.xml", "styles.xml", "meta.xml", "META-INF/manifest.xml"} <= set(names)
        content = odt.read("content.xml").decode("utf-8")
        found = re.findall(r'<text:h [^>]*text:outline-level="(\d)">(.*?)</text:h>', content)
        assert [(int(level), re.sub(r"<[^>]*>", "", inner)) for level, inner in found] == HEADINGS
        assert content.count("<table:table ") == 1
        formulas = [n for n in names if re.fullmatch(r"Formula-\d+/content\.xml", n)]
        assert len(formulas) == 2
        assert all(b"<math" in odt.read(n) for n in formulas)
        pictures = [n for n in names if n.startswith("Pictures/")]
        assert len(pictures) == 2


def check_epub(path: Path) -> None:
    """A valid EPUB 3: its mimetype first and stored, the container, the package with the title, a
    navigation with the headings, MathML for the math, both images."""
    with zipfile.ZipFile(path) as epub:
        first = epub.infolist()[0]
        assert (first.filename, first.compress_type) == ("mimetype", zipfile.ZIP_STORED)
        assert epub.read("mimetype") == b"application/epub+zip"
        names = epub.namelist()
        container = epub.read("META-INF/container.xml").decode("utf-8")
        package = re.search(r'full-path="([^"]+)"', container)
        assert package is not None and package.group(1) in names
        opf = epub.read(package.group(1)).decode("utf-8")
        assert f'<dc:title id="epub-title-1">{TITLE}</dc:title>' in opf
        nav = next(n for n in names if n.endswith("nav.xhtml"))
        navigation = epub.read(nav).decode("utf-8")
        assert all(heading in navigation for _, heading in HEADINGS)
        chapters = "".join(epub.read(n).decode("utf-8") for n in names if re.search(r"text/ch\d+\.xhtml$", n))
        assert chapters.count("<math") == 2
        images = [n for n in names if "/media/" in n]
        assert len(images) == 2
