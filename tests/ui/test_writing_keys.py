"""Writing in WYSIWYG by real key presses in Chromium: every construct's input rule, Enter, Backspace, Tab,
Shift+Enter, the block keys and the block menu, each with the exact bytes on disk after Ctrl+S.

The bytes wanted are the characters a person would type in source mode for the same result (written out by
hand), plus only what a construct needs (a closing fence): no escape, marker, indentation or break style that
the person did not type.
"""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.ui.lossless import Stage
from tests.ui.lossless import scene as scene  # the fixtures this module uses
from tests.ui.lossless import stage as stage
from tests.ui.writing import Session, check_session, keys, run_session

S = Session

INPUT_RULES = [
    S("heading", "", None, keys("'# My note"), "# My note"),
    S("heading-3", "", None, keys("'### Third level"), "### Third level"),
    S("bullet-dash", "", None, keys("'- first item"), "- first item"),
    S("bullet-star", "", None, keys("'* star item"), "* star item"),
    S("bullet-plus", "", None, keys("'+ plus item"), "+ plus item"),
    S("ordered-dot", "", None, keys("'1. one", "Enter", "'two"), "1. one\n2. two"),
    S("ordered-paren", "", None, keys("'1) one", "Enter", "'two"), "1) one\n2) two"),
    S("task-open", "", None, keys("'- [ ] a task", "Enter", "'next"), "- [ ] a task\n- [ ] next"),
    S("task-done", "", None, keys("'- [x] done"), "- [x] done"),
    S("quote", "", None, keys("'> quoted words"), "> quoted words"),
    S("fence-backticks", "", None, keys("'```python", "Enter", "'print(1)"), "```python\nprint(1)\n```"),
    S("fence-tildes", "", None, keys("'~~~", "Enter", "'plain"), "~~~\nplain\n~~~"),
    S("rule-dashes", "", None, keys("'---", "Enter", "'after"), "---\n\nafter"),
    S("rule-stars", "", None, keys("'***", "Enter", "'after"), "***\n\nafter"),
    S("rule-underscores", "", None, keys("'___", "Enter", "'after"), "___\n\nafter"),
    S("math-block", "", None, keys("'$$", "Enter", "'x^2"), "$$\nx^2\n$$"),
    S("strong-stars", "", None, keys("'Some **bold** text"), "Some **bold** text"),
    S("strong-underscores", "", None, keys("'Some __strong__ text"), "Some __strong__ text"),
    S("em-star", "", None, keys("'An *em* word"), "An *em* word"),
    S("em-underscore", "", None, keys("'An _em_ word"), "An _em_ word"),
    S("code", "", None, keys("'Run `make` now"), "Run `make` now"),
    S("strike", "", None, keys("'~~gone~~ now"), "~~gone~~ now"),
    S("math-inline", "", None, keys("'Math $x^2$ here"), "Math $x^2$ here"),
    S("link", "", None, keys("'A [link](https://example.com) here"), "A [link](https://example.com) here"),
    S("plain-stars", "", None, keys("'not a * star and 2 * 3"), "not a * star and 2 * 3"),
    S("plain-underscores", "", None, keys("'snake_case_name and 1 < 2"), "snake_case_name and 1 < 2"),
    S("wikilink", "", None, keys("'See [[readability]] now"), "See [[readability]] now"),
    # Undo (or Backspace) right after a conversion gives the characters back, escaped only as the parse needs.
    S("undo-heading", "", None, keys("'# ", "Control+z", "'x"), "\\# x"),
    S("backspace-after-rule", "", None, keys("'# ", "Backspace", "'x"), "\\# x"),
    S("undo-bullet", "", None, keys("'- ", "Control+z", "'x"), "\\- x"),
    S("undo-strong", "", None, keys("'**b**", "Control+z"), "\\**b\\*\\*"),
    S("undo-fence", "", None, keys("'```", "Enter", "Control+z"), "``\\`"),
]

ENTER_BACKSPACE_TAB = [
    S("enter-item-end", "- one\n- two", "two", keys("Enter", "'three"), "- one\n- two\n- three"),
    # Backspace in an empty first item: its line goes (no blank line left), an empty paragraph before the list.
    S("backspace-empty-first-item", "- a\n- b", "a", keys("Backspace", "Backspace", "'x"), "x\n\n- b"),
    # The item keeps its next paragraph: the new item goes after it.
    S("enter-item-with-paragraph", "* a\n* b\n\n  more", "b", keys("Enter", "'x"), "* a\n* b\n\n  more\n\n* x"),
    # After a math block's closing `$$`, Enter starts a paragraph (the `$$` line keeps closing the block).
    S(
        "enter-after-math",
        "$$\nx = 1\n$$\n\nnext",
        "x = 1",
        keys("ArrowDown", "End", "Enter", "'a", "Enter", "Backspace", "'b"),
        "$$\nx = 1\n$$\n\nab\n\nnext",
    ),
    S("enter-empty-item", "- one", "one", keys("Enter", "Enter", "'para"), "- one\n\npara"),
    S("enter-splits-item", "- onetwo", "one", keys("Enter"), "- one\n- two"),
    S("enter-star-item", "* a", "a", keys("Enter", "'b"), "* a\n* b"),
    S("enter-plus-item", "+ a", "a", keys("Enter", "'b"), "+ a\n+ b"),
    S("enter-ordered-item", "1. a\n2. b", "b", keys("Enter", "'c"), "1. a\n2. b\n3. c"),
    S("enter-ordered-paren", "1) a", "a", keys("Enter", "'b"), "1) a\n2) b"),
    S("enter-ordered-renumbers", "1. a\n2. b\n3. c", "a", keys("Enter", "'x"), "1. a\n2. x\n3. b\n4. c"),
    S("enter-ordered-ones", "1. a\n1. b", "a", keys("Enter", "'x"), "1. a\n1. x\n1. b"),
    S("enter-nested-item", "- a\n  - b", "b", keys("Enter", "'c"), "- a\n  - b\n  - c"),
    S("enter-task-item", "- [ ] Write the intro", "intro", keys("Enter", "'Next"), "- [ ] Write the intro\n- [ ] Next"),
    S("enter-loose-item", "- a\n\n- b", "b", keys("Enter", "'c"), "- a\n\n- b\n\n- c"),
    S("enter-empty-middle-item", "- a\n- b\n- c", "b", keys("Backspace", "Enter", "'x"), "- a\n\nx\n\n- c"),
    S("enter-empty-middle-ordered", "1. a\n2. b\n3. c", "b", keys("Backspace", "Enter", "'x"), "1. a\n\nx\n\n3. c"),
    S("enter-empty-first-item", "- a\n- b", "a", keys("Backspace", "Enter", "'x"), "x\n\n- b"),
    S("enter-quote", "> one", "one", keys("Enter", "'two"), "> one\n>\n> two"),
    S("enter-quote-leave", "> one", "one", keys("Enter", "Enter", "'out"), "> one\n\nout"),
    S("enter-heading-end", "# Title", "Title", keys("Enter", "'body"), "# Title\n\nbody"),
    S(
        "enter-paragraph-end",
        "See [[readability]] now.",
        "now.",
        keys("Enter", "'next"),
        "See [[readability]] now.\n\nnext",
    ),
    S("enter-paragraph-middle", "one *two* three", "one", keys("Enter"), "one\n\n *two* three"),
    S("shift-enter", "line one", "one", keys("Shift+Enter", "'two"), "line one\\\ntwo"),
    S("shift-enter-spaces", "a  \nb\n\nline one", "one", keys("Shift+Enter", "'two"), "a  \nb\n\nline one  \ntwo"),
    S("shift-enter-item", "- line one\n- x", "one", keys("Shift+Enter", "'two"), "- line one\\\n  two\n- x"),
    S("backspace-item", "- a\n- b\n- c", "b", keys("Home", "Backspace"), "- a\n\nb\n\n- c"),
    S("backspace-first-item", "- a\n- b", "a", keys("Home", "Backspace"), "a\n\n- b"),
    S("backspace-empty-item", "- a\n- b", "b", keys("Backspace", "Backspace"), "- a"),
    S("backspace-task-box", "- [ ] task", "task", keys("Home", "Backspace"), "- task"),
    S("backspace-heading", "# Title\n\ntext", "Title", keys("Home", "Backspace"), "Title\n\ntext"),
    S("backspace-setext", "Title\n=====\n\ntext", "Title", keys("Home", "Backspace"), "Title\n\ntext"),
    S("backspace-quote", "> quoted", "quoted", keys("Home", "Backspace"), "quoted"),
    S("backspace-join", "first *a*\n\nsecond [[x]]", "second", keys("Home", "Backspace"), "first *a*second [[x]]"),
    S("backspace-join-heading", "# Head\n\nmore", "more", keys("Home", "Backspace"), "# Headmore"),
    S("tab-nests", "- a\n- b", "b", keys("Tab"), "- a\n  - b"),
    S("tab-nests-ordered", "1. a\n2. b", "b", keys("Tab"), "1. a\n   1. b"),
    S("tab-nests-wide", "10. a\n11. b", "b", keys("Tab"), "10. a\n    1. b"),
    S("tab-joins-sublist", "- a\n  * x\n- b", "b", keys("Tab"), "- a\n  * x\n  * b"),
    S("tab-in-quote", "> - a\n> - b", "b", keys("Tab"), "> - a\n>   - b"),
    S("shift-tab", "- a\n  - b", "b", keys("Shift+Tab"), "- a\n- b"),
    S("shift-tab-ordered", "1. a\n   1. b", "b", keys("Shift+Tab"), "1. a\n2. b"),
    S("shift-tab-top", "- a\n- b", "b", keys("Shift+Tab"), "- a\n\nb"),
    S("arrow-out-of-code", "```\ncode\n```", "code", keys("ArrowDown", "'after"), "```\ncode\n```\n\nafter"),
    S("ctrl-enter-out-of-quote", "> q", "q", keys("Control+Enter", "'after"), "> q\n\nafter"),
    S("arrow-out-of-quote", "> q", "q", keys("ArrowDown", "'after"), "> q\n\nafter"),
    S(
        "arrow-out-of-table",
        "| a | b |\n| - | - |\n| 1 | 2 |",
        "2",
        keys("ArrowDown", "'after"),
        "| a | b |\n| - | - |\n| 1 | 2 |\n\nafter",
    ),
]

#: the edges of lists and blocks: an empty first item in a quote or a nested list, a closing `$$` or fence typed,
#: an empty middle item of a nested list, and ordered lists renumbered by Backspace, Tab and Shift+Tab
EDGES = [
    S("backspace-empty-first-quoted", "> - a\n> - b", "a", keys("Backspace", "Backspace", "'x"), "> x\n>\n> - b"),
    S(
        "backspace-empty-first-nested",
        "- a\n\n  - b\n  - c",
        "b",
        keys("Backspace", "Backspace", "'x"),
        "- a\n\n  x\n\n  - c",
    ),
    S("backspace-pending-nested", "- a", "a", keys("Enter", "Tab", "Backspace", "'x"), "- a\n- x"),
    S("backspace-nested-first-item", "- a\n  - b", "b", keys("Home", "Backspace"), "- a\n\n    b"),
    S("close-math", "", None, keys("'$$", "Enter", "'x^2", "Enter", "'$$", "'q"), "$$\nx^2\n$$\n\nq"),
    S("close-math-enter", "", None, keys("'$$", "Enter", "'x^2", "Enter", "'$$", "Enter", "'q"), "$$\nx^2\n$$\n\nq"),
    S("close-fence", "", None, keys("'```", "Enter", "'code", "Enter", "'```", "'q"), "```\ncode\n```\n\nq"),
    S(
        "letter-after-math",
        "$$\nx\n$$\n\nnext",
        "x",
        keys("ArrowDown", "End", "'q"),
        "$$\nx\n$$\n\nq\n\nnext",
    ),
    S(
        "enter-empty-middle-nested",
        "1. a\n   1. b\n   2. c\n   3. d\n2. e",
        "c",
        keys("Backspace", "Enter", "'x"),
        "1. a\n   1. b\n2. x\n   1. d\n3. e",
    ),
    S(
        "enter-empty-middle-nested-quote",
        "> - a\n>   - b\n>   - c\n>   - d",
        "c",
        keys("Backspace", "Enter", "'x"),
        "> - a\n>   - b\n> - x\n>   - d",
    ),
    S("backspace-renumbers", "1. a\n2. b\n3. c\n4. d", "b", keys("Home", "Backspace"), "1. a\n\nb\n\n2. c\n3. d"),
    S("backspace-empty-renumbers", "1. a\n2. b\n3. c", "b", keys("Backspace", "Backspace"), "1. a\n2. c"),
    S("backspace-ones-stay", "1. a\n1. b\n1. c", "b", keys("Backspace", "Backspace"), "1. a\n1. c"),
    S("tab-renumbers", "1. a\n2. b\n3. c\n4. d", "b", keys("Tab"), "1. a\n   1. b\n2. c\n3. d"),
    S(
        "shift-tab-renumbers",
        "1. a\n   1. b\n   2. c\n   3. d\n2. e\n3. f",
        "b",
        keys("Shift+Tab"),
        "1. a\n2. b\n   1. c\n   2. d\n3. e\n4. f",
    ),
]

#: issue 25's last edges: an empty nested first item right after its parent's text (the view keeps it, the text
#: gets its line back when typed in), an empty middle item of a list in a quote, closers typed in list items and
#: quotes, Backspace right after a closing `$$` or fence
EMPTY_ITEMS_AND_CLOSERS = [
    S("nested-last-letter", "- a\n  - b", "b", keys("Backspace", "'c"), "- a\n  - c"),
    S("nested-last-letter-left", "- a\n  - b", "b", keys("Backspace"), "- a"),
    S("nested-last-letter-star", "- a\n  * b", "b", keys("Backspace", "'c"), "- a\n  * c"),
    S("nested-last-letter-ordered", "- a\n  1. b\n  2. d", "b", keys("Backspace", "'c"), "- a\n  1. c\n  2. d"),
    S("nested-last-letter-quoted", "> - a\n>   - b", "b", keys("Backspace", "'c"), "> - a\n>   - c"),
    S("nested-last-letter-backspace", "- a\n  - b", "b", keys("Backspace", "Backspace", "'x"), "- ax"),
    S("nested-last-letter-enter", "- a\n  - b", "b", keys("Backspace", "Enter", "'c"), "- a\n- c"),
    S(
        "nested-last-letter-shift-tab",
        "1. a\n   1. b\n2. c",
        "b",
        keys("Backspace", "Shift+Tab", "'z"),
        "1. a\n2. z\n3. c",
    ),
    S(
        "enter-empty-middle-quoted",
        "> - a\n> - b\n> - c",
        "b",
        keys("Backspace", "Enter", "'x"),
        "> - a\n>\n> x\n>\n> - c",
    ),
    S(
        "enter-empty-middle-quoted-ordered",
        "> 1. a\n> 2. b\n> 3. c",
        "b",
        keys("Backspace", "Enter", "'x"),
        "> 1. a\n>\n> x\n>\n> 3. c",
    ),
    S(
        "close-fence-in-item",
        "",
        None,
        keys("'- ```", "Enter", "'code", "Enter", "'```", "'q"),
        "- ```\n  code\n  ```\n\n  q",
    ),
    S(
        "close-fence-in-quote",
        "",
        None,
        keys("'> ```", "Enter", "'code", "Enter", "'```", "'q"),
        "> ```\n> code\n> ```\n>\n> q",
    ),
    S(
        "close-fence-in-quote-enter",
        "",
        None,
        keys("'> ```", "Enter", "'code", "Enter", "'```", "Enter", "'q"),
        "> ```\n> code\n> ```\n\nq",
    ),
    S("close-math-in-item", "", None, keys("'- $$", "Enter", "'x^2", "Enter", "'$$", "'q"), "- $$\n  x^2\n  $$\n\n  q"),
    S(
        "close-math-in-quote-enter",
        "",
        None,
        keys("'> $$", "Enter", "'x^2", "Enter", "'$$", "Enter", "'q"),
        "> $$\n> x^2\n> $$\n>\n> q",
    ),
    S(
        "backspace-typed-closing-math",
        "",
        None,
        keys("'$$", "Enter", "'x", "Enter", "'$$", "Backspace", "'y"),
        "$$\nx\n$y\n$$",
    ),
    S(
        "backspace-typed-closing-fence",
        "",
        None,
        keys("'```", "Enter", "'x", "Enter", "'```", "Backspace", "'y"),
        "```\nx\n``y\n```",
    ),
    S(
        "backspace-after-closed-math",
        "$$\nx\n$$\n\nnext",
        "x",
        keys("ArrowDown", "End", "Backspace", "'y"),
        "$$\nxy\n$$\n\nnext",
    ),
    S("backspace-joins-math", "$$\nx\n$$\n\nnext", "next", keys("Home", "Backspace"), "$$\nxnext\n$$"),
]

BLOCK_KEYS = [
    S("ctrl-2", "Title", "Title", keys("Control+2"), "## Title"),
    S("ctrl-alt-3", "Title", "Title", keys("Control+Alt+3"), "### Title"),
    S("ctrl-1-on-heading", "### Title", "Title", keys("Control+1"), "# Title"),
    S("ctrl-0", "## Title", "Title", keys("Control+0"), "Title"),
    S("ctrl-alt-0", "## Title", "Title", keys("Control+Alt+0"), "Title"),
    S("bullet-key", "item", "item", keys("Control+Shift+8"), "- item"),
    S("ordered-key", "item", "item", keys("Control+Shift+7"), "1. item"),
    S("task-key", "item", "item", keys("Control+Shift+9"), "- [ ] item"),
    S("bullet-key-off", "- item", "item", keys("Control+Shift+8"), "item"),
    S("ordered-to-bullet", "1. a\n2. b", "b", keys("Control+Shift+8"), "- a\n- b"),
    S("quote-key", "item", "item", keys("Control+Alt+q"), "> item"),
    S("quote-key-off", "> item", "item", keys("Control+Alt+q"), "item"),
    S("code-key", "item", "item", keys("Control+Alt+c"), "```\nitem\n```"),
    S("math-key", "x^2", "x^2", keys("Control+Alt+m"), "$$\nx^2\n$$"),
    S("rule-key", "item", "item", keys("Control+Alt+h", "'next"), "item\n\n---\n\nnext"),
    S("slash-bullet", "", None, keys("'/bul", "Enter", "'x"), "- x"),
    S("slash-arrows", "", None, keys("'/", "ArrowDown", "Enter", "'x"), "## x"),
    S("slash-escape", "", None, keys("'/", "Escape", "'x"), "/x"),
    S("slash-code", "", None, keys("'/code", "Enter", "'x"), "```\nx\n```"),
]


@pytest.mark.parametrize("session", INPUT_RULES, ids=lambda s: s.id)
async def test_input_rule(scene: Stage, session: Session) -> None:
    await check_session(scene, session)


@pytest.mark.parametrize("session", ENTER_BACKSPACE_TAB, ids=lambda s: s.id)
async def test_enter_backspace_tab(scene: Stage, session: Session) -> None:
    await check_session(scene, session)


@pytest.mark.parametrize("session", EDGES, ids=lambda s: s.id)
async def test_list_and_block_edges(scene: Stage, session: Session) -> None:
    await check_session(scene, session)


@pytest.mark.parametrize("session", EMPTY_ITEMS_AND_CLOSERS, ids=lambda s: s.id)
async def test_empty_items_and_closers(scene: Stage, session: Session) -> None:
    await check_session(scene, session)


@pytest.mark.parametrize("session", BLOCK_KEYS, ids=lambda s: s.id)
async def test_block_keys(scene: Stage, session: Session) -> None:
    await check_session(scene, session)


async def test_task_checkboxes_follow_the_text(scene: Stage) -> None:
    """A checkbox shows only where the text has a task item: a new task item has one, an escaped `\\[ \\]` none."""
    page = scene.page
    session = S(
        "tasks-shown",
        "- [ ] one\n\n\\[ \\] not a task",
        "one",
        keys("Enter", "'two"),
        "- [ ] one\n- [ ] two\n\n\\[ \\] not a task",
    )
    await check_session(scene, session)
    await expect(page.locator(".ProseMirror .md-task-box")).to_have_count(2)


async def test_block_menu_lists_and_filters(scene: Stage) -> None:
    page = scene.page
    path = await run_session(scene, S("menu", "", None, keys("'/"), "/"), "menu.md")
    menu = page.locator(".slash-menu")
    await expect(menu).to_be_visible()
    await expect(menu.locator(".slash-item").first).to_have_text("Heading 1")
    await page.keyboard.type("quo")
    await expect(menu.locator(".slash-item")).to_have_text(["Quote"])
    await page.keyboard.press("Escape")
    await expect(menu).to_be_hidden()
    assert path.read_bytes() == b"/"


async def test_tab_stays_in_the_editor_until_escape(scene: Stage) -> None:
    """Tab where nothing nests keeps the focus in the editor and changes nothing; Escape, then Tab, moves it on."""
    page = scene.page
    path = await run_session(scene, S("tab-stays", "plain words", "words", keys("Tab", "'!"), "plain words!"))
    assert path.read_bytes() == b"plain words!"
    assert await page.evaluate("document.activeElement.classList.contains('ProseMirror')")
    await page.keyboard.press("Escape")
    await page.keyboard.press("Tab")
    assert not await page.evaluate("document.activeElement.classList.contains('ProseMirror')")


async def test_the_first_key_after_enter_lands_at_the_caret(scene: Stage) -> None:
    """Blocks off screen skip layout (content-visibility: auto), but the caret's block is always laid out: the
    first key typed into a paragraph just made by Enter goes where the caret is (it came out `yx` now and then)."""
    page = scene.page
    steps = keys(*[step for _ in range(8) for step in ("Enter", "'xy")])
    want = "one" + "\n\nxy" * 8
    await check_session(scene, S("enter-then-keys", "one", "one", steps, want))
    visibility = "el => getComputedStyle(el).contentVisibility"
    caret_section = page.locator(".ProseMirror > .pm-caret-section")
    await expect(caret_section).to_have_count(1)
    await expect(caret_section.locator(":scope > .pm-caret-block")).to_have_text("xy")
    assert await caret_section.evaluate(visibility) == "visible"
    # The sections skip layout off screen; their blocks do not on their own.
    assert await page.locator(".ProseMirror > .pm-section > p").first.evaluate(visibility) == "visible"
    assert (
        await page.evaluate("""() => {
      const editor = document.createElement("div");
      editor.className = "editor";
      editor.dataset.mode = "wysiwyg";
      editor.innerHTML = '<div class="ProseMirror"><div class="pm-section"></div></div>';
      document.body.append(editor);
      const value = getComputedStyle(editor.querySelector(".pm-section")).contentVisibility;
      editor.remove();
      return value;
    }""")
        == "auto"
    )


async def test_the_emptied_nested_item_and_the_ended_quoted_list_show(scene: Stage) -> None:
    """What the text cannot say yet is shown: the empty nested item Backspace left (the file has no line for it
    until it is typed in), and a list in a quote shown in two parts by Enter in its empty middle item."""
    page = scene.page
    path = await run_session(scene, S("nested-kept", "- a\n  - b", "b", keys("Backspace"), "- a"))
    assert path.read_bytes() == b"- a"
    nested = page.locator(".ProseMirror ul ul > li")
    await expect(nested).to_have_count(1)
    await expect(nested).to_have_text("")
    split = S("quote-split", "> - a\n> - b\n> - c", "b", keys("Backspace", "Enter"), "> - a\n> - c")
    path = await run_session(scene, split)
    assert path.read_bytes() == b"> - a\n> - c"
    await expect(page.locator(".ProseMirror blockquote > ul")).to_have_count(2)
    await expect(page.locator(".ProseMirror blockquote > p")).to_have_count(1)
