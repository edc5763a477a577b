"""Every Markdown construct of issue 14 through the WYSIWYG editor, byte for byte, in real Chromium.

Each case is a small file holding one construct, with two places marked: ``{E}`` in a plain paragraph elsewhere
and ``{I}`` inside the construct (its text: a list item, a heading, a table cell, a link's text, a footnote's
definition; for what has no text to type into on screen, a thematic break, an HTML block or comment, front
matter, a math block, reference definitions, the paragraph right next to it). Three tests per case:

- open it in WYSIWYG and switch back, Ctrl+S: no byte changes;
- click after the visible text before ``{E}``, type one letter, Ctrl+S: the file is the original with that letter
  at ``{E}``, every byte of the construct as it was;
- the same at ``{I}``: the letter lands there and nothing else changes (the construct's markers, padding,
  escapes and spacing stay what the person wrote).

And: a document with all of them, edited in one paragraph; an agent's ``document.write`` (official MCP client)
into a tab shown in WYSIWYG saves exactly the agent's bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.async_api import Page

from tests.conftest import make_client, ok
from tests.contract.helpers import wait_until
from tests.ui.helpers import agent_write
from tests.ui.lossless import KEY, Stage, assert_bytes, click_after, dblclick_word, open_file, save, switch_mode
from tests.ui.lossless import scene as scene  # the fixtures this module uses
from tests.ui.lossless import stage as stage

EDIT = "Edit here{E}, in a plain paragraph.\n\n"


@dataclass(frozen=True)
class Case:
    id: str
    #: the file with ``{E}`` and ``{I}`` marked, ``\n`` line breaks (``crlf`` turns them into ``\r\n``)
    text: str
    #: the visible text right before ``{I}`` on screen (one text node; its first occurrence in the view)
    inside: str
    #: the visible text right before ``{E}``
    elsewhere: str = "Edit here"
    crlf: bool = False
    bom: bool = False

    def source(self, at: str | None = None) -> bytes:
        """The file's bytes; with ``at`` (``E`` or ``I``) the bytes after the person typed ``KEY`` there."""
        text = self.text.replace("{E}", KEY if at == "E" else "").replace("{I}", KEY if at == "I" else "")
        if self.crlf:
            text = text.replace("\n", "\r\n")
        return ("\ufeff" if self.bom else "").encode() + text.encode("utf-8")


CASES = [
    # list markers
    Case("list-dash", EDIT + "- one\n- two{I}\n- three\n", "two"),
    Case("list-star", EDIT + "* one\n* two{I}\n* three\n", "two"),
    Case("list-plus", EDIT + "+ one\n+ two{I}\n+ three\n", "two"),
    Case("ordered-dot", EDIT + "1. first\n1. second{I}\n1. third\n", "second"),
    Case("ordered-paren", EDIT + "7) seventh\n8) eighth{I}\n9) ninth\n", "eighth"),
    Case("loose-list", EDIT + "- one\n\n- two{I}\n\n- three\n", "two"),
    # emphasis markers
    Case(
        "emphasis",
        EDIT + "Some *star* and _under{I}score_ and **bold** and __strong__ and ***both*** words.\n",
        "under",
    ),
    # headings
    Case("atx-heading", "# Title #\n\n" + EDIT + "##   Spaced section{I} ##\n", "Spaced section"),
    Case("setext-heading", "Main title\n==========\n\n" + EDIT + "Sub{I}title\n---\n", "Sub"),
    # thematic breaks (nothing to type into: the paragraph right before them)
    Case("thematic-breaks", EDIT + "Above{I} the breaks.\n\n---\n\n***\n\n___\n\n- - -\n\n* * *\n", "Above"),
    # backslash escapes
    Case(
        "escapes",
        EDIT + "Not \\*emph\\*, not \\_th{I}is\\_, a \\# and 1\\. and \\[link\\] and \\`tick\\` and \\- \\! \\> \\|.\n",
        "*emph*, not _th",
    ),
    # hard breaks
    Case("hard-break-spaces", EDIT + "Line one  \nline t{I}wo\\\nline three.\n", "line t"),
    Case("hard-break-end", EDIT + "Line one  \nline two\\\nline three{I}.\n", "line three"),
    # indentation
    Case(
        "indentation",
        EDIT + "A paragraph\n   with indented\n      continuation{I} lines.\n\n    indented code\n      block\n",
        "continuation",
    ),
    Case("nested-list", EDIT + "- outer\n    - inner four{I}\n        - deeper\n- back\n", "inner four"),
    # reference definitions, reference-style links and images
    Case(
        "references",
        EDIT + "See [the docs][docs], [Docs], [collapsed][] and ![logo][img] and [te{I}xt][docs].\n\n"
        '[docs]: https://example.com/docs "Docs Title"\n[collapsed]: <https://example.com/c>\n'
        "[img]: ./logo.png 'Logo'\n",
        "te",
    ),
    Case(
        "reference-definitions",
        EDIT + "Next to{I} the definitions.\n\n[a]: https://a.example\n[B]:\n  https://b.example\n  (B title)\n",
        "Next to",
    ),
    # link titles
    Case(
        "link-titles",
        EDIT + "A [double](https://a.example \"Double\"), a [single](https://b.example 'Single'), "
        "a [paren](https://c.example (Paren)) and a [ba{I}re](<https://d.example/with space>).\n",
        "ba",
    ),
    # HTML
    Case(
        "html-block",
        EDIT + '<div align="center">\n  <img src="logo.png" width="100">\n</div>\n\nRight after{I} the block.\n',
        "Right after",
    ),
    Case(
        "inline-html",
        EDIT + 'Press <kbd>Ctrl</kbd>+<kbd>S</kbd> to save{I}, or <span style="color:red">red</span> text.\n',
        "to save",
    ),
    Case(
        "html-comments",
        EDIT + "<!-- a comment\n     over two lines -->\n\nText with an <!-- inline comment --> in it{I}.\n",
        "in it",
    ),
    Case(
        "details",
        EDIT + "<details>\n<summary>Click to expand</summary>\n\nHidden **bold** words{I} here.\n\n</details>\n",
        "words",
    ),
    # GFM tables
    Case(
        "table",
        EDIT + "| Left     |  Center  |    Right |\n|:---------|:--------:|---------:|\n"
        "| alpha    |   beta{I}   |    gamma |\n| long cell value | x | y |\n",
        "beta",
    ),
    # front matter (nothing to type into: the first paragraph after it)
    Case("front-matter", "---\ntitle: Hello\ntags: [a, b]\n---\n\nFirst{I} paragraph.\n\n" + EDIT, "First"),
    # raw blocks are edited as their source: a key typed inside one changes exactly that byte
    Case("front-matter-source", "---\ntitle: Hel{I}lo\ntags: [a, b]\n---\n\n" + EDIT, "title: Hel"),
    Case("html-block-source", EDIT + '<div align="cen{I}ter">\n  <img src="logo.png">\n</div>\n', '<div align="cen'),
    Case("reference-definition-source", EDIT + "See [a].\n\n[a]: https://a.exam{I}ple\n", "https://a.exam"),
    # math
    Case(
        "math",
        EDIT + "Inline $a\\,b$ and $$x^2$$ math here{I}.\n\n$$\n\\int_0^1 f(x)\\,dx\n$$\n",
        "math here",
    ),
    # footnotes
    Case(
        "footnote-reference",
        EDIT + "A claim[^1] and anoth{I}er[^note].\n\n[^1]: The first footnote.\n[^note]: A named one.\n",
        "anoth",
    ),
    Case(
        "footnote-definition",
        EDIT + "A claim[^1].\n\n[^1]: The first{I} footnote,\n    continued.\n",
        "The first",
    ),
    # task items
    Case("task-items", EDIT + "- [ ] todo item\n- [x] done{I} item\n-   [ ] spaced\n", "done"),
    # trailing whitespace and blank-line runs
    Case("trailing-whitespace", EDIT + "Words{I} with trailing spaces   \nand a tab\t\n\nMore.  \n", "Words"),
    Case("blank-line-runs", EDIT + "\n\nFirst.\n\n\n\nSec{I}ond.\n\n\n\n", "Sec"),
    # images
    Case(
        "images",
        EDIT + '![alt one](one.png) and ![alt two](two.png "Two title") and ![](empty.png) and te{I}xt.\n',
        "and te",
    ),
    # autolinks
    Case(
        "autolinks",
        EDIT + "Visit <https://example.com> or <me@example.com> or www.example.com to{I}day.\n",
        "to",
    ),
    # also common in real files: fenced code, block quotes with lazy lines, entities
    Case(
        "fenced-code",
        EDIT + "~~~python title=x\ndef f():\n    return co{I}de  \n~~~\n\n```\n\tplain\n```\n",
        "co",  # (highlighted: "return" and "code" are separate tokens on screen)
    ),
    Case("blockquote", EDIT + "> quoted{I} line\nlazy continuation\n>\n> > nested\n", "quoted"),
    Case("entities", EDIT + "Entities &copy; &amp; &#42; &nbsp; and wo{I}rds.\n", "and wo"),
    # line endings, BOM, final newline
    Case("crlf", "# Title\n\n" + EDIT + "- one\n- two{I}\n\n| a | b |\n|---|---|\n| c | d |\n", "two", crlf=True),
    Case("bom", "# Ti{I}tle\n\n" + EDIT + "Last.\n", "Ti", bom=True),
    Case("no-final-newline", "# Title\n\n" + EDIT + "Last para{I}graph", "Last para"),
    Case("soft-wrapped-paragraph", EDIT + "A soft\nwrapped paragraph\nover three{I} lines.\n", "over three"),
]
IDS = [c.id for c in CASES]

KITCHEN_SINK = Case(
    "kitchen-sink",
    "---\ntitle: All of it\n---\n\nSetext title\n============\n\n"
    + EDIT
    + "* star item\n* [x] done task\n\n1) one\n2) two\n\n"
    + "Some _under_ and *star*, \\*escaped\\*, a hard  \nbreak and \\\nanother, $a\\,b$ math.\n\n"
    + "***\n\n"
    + "| a  |  b |\n|:---|---:|\n| 1  |  2 |\n\n"
    + '[ref][r] and ![img](i.png) and ![titled](t.png "T") and <https://x.example>[^f].\n\n'
    + "<!-- comment -->\n\n<details>\n<summary>More</summary>\n\nInside.\n\n</details>\n\n"
    + "$$\nx\\,y\n$$\n\n"
    + "[r]: https://r.example 'R'\n[^f]: Footnote.\n\n\n"
    + "Trailing   \n",
    "never typed into",
)


async def _open_wysiwyg(s: Stage, name: str, data: bytes) -> tuple[Path, str]:
    path = s.write(name, data)
    tab = await open_file(s, path)
    await switch_mode(s, "wysiwyg")
    return path, tab


async def _type_after(page: Page, anchor: str) -> None:
    """Click right after ``anchor``, type the key; wait until the view shows the key right after the anchor."""
    await click_after(page, anchor)
    await page.keyboard.type(KEY)

    async def shown() -> bool:
        return bool(
            await page.evaluate(
                "([t]) => document.querySelector('.ProseMirror').textContent.includes(t)", [anchor + KEY]
            )
        )

    try:
        await wait_until(shown, f"the view to show {anchor + KEY!r}", timeout=5)
    except AssertionError as exc:
        raise AssertionError(f"{exc}: the key did not land right after {anchor!r}") from None


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_open_in_wysiwyg_and_back_changes_no_byte(scene: Stage, case: Case) -> None:
    path, _ = await _open_wysiwyg(scene, f"{case.id}-open.md", case.source())
    await switch_mode(scene, "source")
    await save(scene, path)
    assert_bytes(path, case.source(), scene.errors)


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_an_edit_elsewhere_keeps_it(scene: Stage, case: Case) -> None:
    path, _ = await _open_wysiwyg(scene, f"{case.id}-elsewhere.md", case.source())
    await _type_after(scene.page, case.elsewhere)
    await save(scene, path)
    assert_bytes(path, case.source("E"), scene.errors)


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_an_edit_inside_changes_only_it(scene: Stage, case: Case) -> None:
    path, _ = await _open_wysiwyg(scene, f"{case.id}-inside.md", case.source())
    await _type_after(scene.page, case.inside)
    await save(scene, path)
    assert_bytes(path, case.source("I"), scene.errors)


async def test_all_constructs_survive_open_and_back(scene: Stage) -> None:
    path, _ = await _open_wysiwyg(scene, "sink-open.md", KITCHEN_SINK.source())
    await switch_mode(scene, "source")
    await save(scene, path)
    assert_bytes(path, KITCHEN_SINK.source(), scene.errors)


async def test_typing_into_one_paragraph_changes_only_that_paragraph(scene: Stage) -> None:
    path, _ = await _open_wysiwyg(scene, "sink-typed.md", KITCHEN_SINK.source())
    await _type_after(scene.page, "Edit here")
    await save(scene, path)
    assert_bytes(path, KITCHEN_SINK.source("E"), scene.errors)


async def test_an_agent_write_into_a_wysiwyg_tab_saves_the_agents_bytes(scene: Stage) -> None:
    """``document.write`` into a tab the person shows in WYSIWYG: the file, the document and a read hold exactly the
    agent's text (not the editor's re-serialization of it); the person's keystroke after it adds only itself."""
    path, tab = await _open_wysiwyg(scene, "agent.md", b"# Before\n\nThe person's text.\n")
    content = KITCHEN_SINK.source().decode("utf-8")
    async with make_client(scene.app.data_dir) as agent:
        wrote = await agent_write(agent, tab, content)
        assert (wrote["applied"], wrote["saved"]) == (True, True)
        assert path.read_bytes() == content.encode("utf-8")
        assert (await ok(agent, "document", "read", tabId=tab))["content"] == content
        await _wait_shown(scene.page, "Setext title")
        assert scene.app.app.session.find_tab(tab)[1].doc.state.text == content
        assert path.read_bytes() == content.encode("utf-8")  # showing it wrote nothing
        await _type_after(scene.page, "Edit here")
        await save(scene, path)
        assert_bytes(path, KITCHEN_SINK.source("E"), scene.errors)
        assert (await ok(agent, "document", "read", tabId=tab))["content"] == KITCHEN_SINK.source("E").decode()


async def _wait_shown(page: Page, text: str) -> None:
    async def shown() -> bool:
        return bool(
            await page.evaluate("([t]) => document.querySelector('.ProseMirror').textContent.includes(t)", [text])
        )

    await wait_until(shown, f"the WYSIWYG view to show {text!r}")


async def test_undo_of_a_keystroke_gives_the_original_bytes(scene: Stage) -> None:
    path, _ = await _open_wysiwyg(scene, "sink-undo.md", KITCHEN_SINK.source())
    await _type_after(scene.page, "Edit here")
    await scene.page.keyboard.press("Control+z")

    async def undone() -> bool:
        return not await _shows(scene.page, "Edit here" + KEY)

    await wait_until(undone, "the keystroke to be undone")
    await save(scene, path)
    assert_bytes(path, KITCHEN_SINK.source(), scene.errors)


async def test_backspace_removes_one_character_only(scene: Stage) -> None:
    path, _ = await _open_wysiwyg(scene, "sink-backspace.md", KITCHEN_SINK.source())
    await click_after(scene.page, "Edit here")
    await scene.page.keyboard.press("Backspace")
    await wait_until(lambda: _shows(scene.page, "Edit her, in a plain"), "the view to lose the character")
    await save(scene, path)
    want = KITCHEN_SINK.text.replace("here{E}", "her")
    assert_bytes(path, want.encode(), scene.errors)


async def test_edits_in_both_modes_are_kept_exactly(scene: Stage) -> None:
    """A keystroke in WYSIWYG, then the mode switched and a keystroke at the end in source mode."""
    path, _ = await _open_wysiwyg(scene, "sink-modes.md", KITCHEN_SINK.source())
    await _type_after(scene.page, "Edit here")
    await switch_mode(scene, "source")
    await scene.page.locator(".cm-content").click()
    await scene.page.keyboard.press("Control+End")
    await scene.page.keyboard.type("Z")
    await save(scene, path)
    assert_bytes(path, KITCHEN_SINK.source("E") + b"Z", scene.errors)


async def test_an_agent_selection_set_in_wysiwyg_splices_exactly_its_markdown(scene: Stage) -> None:
    """``selection.set`` on a word the person selected in WYSIWYG: the file is the original with that word replaced
    by exactly the agent's Markdown; every other byte, markers and escapes included, as it was."""
    path, tab = await _open_wysiwyg(scene, "sink-selection.md", KITCHEN_SINK.source())
    await dblclick_word(scene.page, "in a plai")
    async with make_client(scene.app.data_dir) as agent:
        got = await ok(agent, "selection", "get")
        assert (got["text"], got["tabId"], got["mode"]) == ("plain", tab, "wysiwyg")
        out = await ok(agent, "selection", "set", content="**bold** and `code`", expected_revision=got["revision"])
        assert out["applied"] is True
    want = KITCHEN_SINK.text.replace("{E}", "").replace("in a plain paragraph", "in a **bold** and `code` paragraph")
    doc = scene.app.app.session.find_tab(tab)[1].doc
    await wait_until(lambda: doc.state.text == want, "the document to hold the agent's Markdown spliced in")
    assert path.read_bytes() == KITCHEN_SINK.source()  # selection.set does not save
    await save(scene, path)
    assert_bytes(path, want.encode(), scene.errors)


async def _shows(page: Page, text: str) -> bool:
    return bool(await page.evaluate("([t]) => document.querySelector('.ProseMirror').textContent.includes(t)", [text]))
