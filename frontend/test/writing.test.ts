// Writing in WYSIWYG, key by key, in Node (the Chromium suite is tests/ui/test_writing_*.py): exact bytes of the
// writing commands and random key sequences on generated Markdown that keep every untouched byte and the view true
// to the text. The same keys on real files are writing.corpus.test.ts; the spec examples writing.spec.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { flatPos, viewPos } from "../src/editors/mdsource/blocks";
import { KeyboardEditor } from "./keyboard";
import { checkKeys, keys, markdown, runs, seed } from "./writingkeys";
import { assertTrue } from "./writingview";

/** Keys typed as named: `'text` types it, anything else is a key name. */
function run(text: string, at: string | number | null, steps: string[]): string {
  const editor = new KeyboardEditor(text);
  // Numbers are positions of the document without its sections (mdsource/blocks.ts).
  const doc = editor.state.doc;
  if (at === null) editor.cursorAt(viewPos(doc, flatPos(doc, doc.content.size) - 1));
  else if (typeof at === "number") editor.cursorAt(viewPos(doc, at));
  else editor.cursorAfter(at);
  for (const step of steps) {
    if (step.startsWith("'")) editor.type(step.slice(1));
    else editor.press(step);
    assertTrue(editor);
  }
  return editor.text;
}

const CASES: [string, string, string | number | null, string[], string][] = [
  ["heading rule", "", null, ["'# My note"], "# My note"],
  ["bullet rule", "", null, ["'- first", "Enter", "'second"], "- first\n- second"],
  ["ordered rule", "", null, ["'1) one", "Enter", "'two"], "1) one\n2) two"],
  ["task item", "- [ ] Write the intro", "intro", ["Enter", "'next"], "- [ ] Write the intro\n- [ ] next"],
  ["empty item ends the list", "- one", "one", ["Enter", "Enter", "'after"], "- one\n\nafter"],
  ["wikilink paragraph", "See [[readability]] now.", "now.", ["Enter", "'x"], "See [[readability]] now.\n\nx"],
  ["quote continues and ends", "> one", "one", ["Enter", "'two", "Enter", "Enter", "'out"], "> one\n>\n> two\n\nout"],
  ["fence", "", null, ["'```js", "Enter", "'x = 1"], "```js\nx = 1\n```"],
  ["math block", "", null, ["'$$", "Enter", "'x"], "$$\nx\n$$"],
  ["rule", "", null, ["'***", "Enter", "'x"], "***\n\nx"],
  ["inline marks", "", null, ["'a **b** _c_ `d` ~~e~~ $f$ [g](h)"], "a **b** _c_ `d` ~~e~~ $f$ [g](h)"],
  ["undo a conversion", "", null, ["'# ", "Mod-z", "'x"], "\\# x"],
  ["tab and shift tab", "- a\n- b\n- c", "b", ["Tab", "End", "Enter", "'d", "Shift-Tab"], "- a\n  - b\n- d\n- c"],
  ["tab on an empty item nests when typed", "- a", "a", ["Enter", "Tab", "'b"], "- a\n  - b"],
  ["enter before a nested list", "* one\n* two\n  * three", "two", ["Enter", "'half"], "* one\n* two\n* half\n  * three"],
  ["hard break in the file's style", "x  \ny\n\nline", "line", ["Shift-Enter", "'two"], "x  \ny\n\nline  \ntwo"],
  ["backspace joins", "a *b*\n\nc [[d]]", "c", ["ArrowLeft", "Backspace"], "a *b*c [[d]]"],
  ["backspace unwraps an item", "- a\n- b\n- c", "b", ["ArrowLeft", "Backspace"], "- a\n\nb\n\n- c"],
  ["heading keys", "Title", "Title", ["Ctrl-Digit3", "Ctrl-Alt-Digit1", "Ctrl-Digit0"], "Title"],
  ["list keys", "a\n\nb", "b", ["Ctrl-Shift-Digit7", "Ctrl-Shift-Digit8", "Ctrl-Shift-Digit9"], "a\n\n- [ ] b"],
  ["quote key", "a\nb", "b", ["Ctrl-Alt-KeyQ"], "> a\n> b"],
  ["undo brings a list back", "- a\n- b", "b", ["Enter", "Mod-z"], "- a\n- b"],
  ["undo brings a joined paragraph back", "# h\ntext *x*", "text", ["Home", "Backspace", "Mod-z"], "# h\ntext *x*"],
  ["enter in an empty middle item ends the list there", "- a\n- b\n- c", "b", ["Backspace", "Enter", "'x"], "- a\n\nx\n\n- c"],
  ["enter in an empty middle item of a loose list", "- a\n\n- b\n\n- c", "b", ["Backspace", "Enter", "'x"], "- a\n\nx\n\n- c"],
  ["enter in an empty middle item of an ordered list", "1. a\n2. b\n3. c", "b", ["Backspace", "Enter", "'x"], "1. a\n\nx\n\n3. c"],
  ["enter in an empty first item", "- a\n- b\n- c", "a", ["Backspace", "Enter", "'x"], "x\n\n- b\n- c"],
  ["typing in the list after an ended list", "- a\n- b\n- c\n- d", "b", ["Backspace", "Enter", "ArrowRight", "'z"], "- a\n- zc\n- d"],
  ["enter in the list after an ended list", "- a\n- b\n- c\n- d", "b", ["Backspace", "Enter", "ArrowRight", "End", "Enter", "'z"], "- a\n- c\n- z\n- d"],
  ["enter in an ordered list renumbers the items after it", "1. a\n2. b\n3. c", "a", ["Enter", "'x"], "1. a\n2. x\n3. b\n4. c"],
  ["renumbering stops where the numbers stop counting", "1. a\n2. b\n5. c", "a", ["Enter", "'x"], "1. a\n2. x\n3. b\n5. c"],
  ["renumbering takes another digit on one-line items", "8. a\n9. b\n10. c", "a", ["Enter", "'x"], "8. a\n9. x\n10. b\n11. c"],
  ["a list numbered 1. 1. stays so", "1. a\n1. b", "a", ["Enter", "'x"], "1. a\n1. x\n1. b"],
  ["renumbering a nested ordered list", "- x\n  1. a\n  2. b\n- y", "a", ["Enter", "'q"], "- x\n  1. a\n  2. q\n  3. b\n- y"],
  ["a shortcut reference link names its label", "x [foo] y\n\n[foo]: /url", "f", ["'Q"], "x [fQoo][foo] y\n\n[foo]: /url"],
  ["a collapsed reference link names its label", "[*foo* bar][]\n\n[*foo* bar]: /url", "b", ["'Q"], "[*foo* bQar][*foo* bar]\n\n[*foo* bar]: /url"],
  ["a full reference link keeps its label", "[foo][ref]\n\n[ref]: /url", "f", ["'Q"], "[fQoo][ref]\n\n[ref]: /url"],
  ["a letter before __strong__ writes it with stars", "_(__foo__)_", "(", ["'Q"], "_(Q**foo**)_"],
  ["a letter before _em_ writes it with stars", "__foo_", "_", ["'Q"], "_Q*foo*"],
  ["a deletion next to _em_ writes it with stars", "a _foo_ b", "foo", ["ArrowRight", "Backspace", "'Q"], "a *fooQ*b"],
  ["typing among a tab's columns writes that tab as spaces", "- foo\n\n\t\tbar", 8, ["'Q"], "- foo\n\n\t  Q  bar"],
  ["typing after a tab's columns keeps the tabs", "- foo\n\n\t\tbar", 10, ["'Q"], "- foo\n\n\t\tQbar"],
  ["typing in an empty fence in a quote opens its first line", "> ```\nfoo\n```", 2, ["'Q"], "> ```\n> Q\nfoo\n```"],
  ["typing in an empty fence opens its first line", "```\n```", 1, ["'Q"], "```\nQ\n```"],
  ["typing on a blank line of indented code", "    a\n  \n    b", 3, ["'Q"], "    a\n    Q\n    b"],
  ["enter after an item's first paragraph keeps its next paragraph in it", "* a\n* b\n\n  more\n", "b", ["Enter", "'x"], "* a\n* b\n\n  more\n\n* x\n"],
  ["enter after an ordered item's first paragraph renumbers after it", "1. a\n2. b\n\n   more\n3. c\n", "b", ["Enter", "'x"], "1. a\n2. b\n\n   more\n\n3. x\n4. c\n"],
  ["enter inside an item's first paragraph splits it", "* b1b2\n\n  more", "b1", ["Enter", "'x"], "* b1\n\n* xb2\n\n  more"],
  ["backspace in an empty first item leaves no blank line", "- a\n- b", "a", ["Backspace", "Backspace", "'x"], "x\n\n- b"],
  ["backspace in the empty only item", "- a", "a", ["Backspace", "Backspace", "'x"], "x"],
  ["backspace in an empty first item after a paragraph", "p\n\n1. a\n2. b", "a", ["Backspace", "Backspace", "'x"], "p\n\nx\n\n2. b"],
  ["enter in an empty first item of a loose list", "- a\n\n- b", "a", ["Backspace", "Enter", "'x"], "x\n\n- b"],
  ["backspace in an empty first item of a loose list", "- a\n\n- b\n- c", "a", ["Backspace", "Backspace", "'x"], "x\n\n- b\n- c"],
  ["enter after a math block's closing $$ starts a paragraph", "$$\nx = 1\n$$\n\nnext", "1\n$$", ["Enter", "'a", "Enter", "Backspace", "'b"], "$$\nx = 1\n$$\n\nab\n\nnext"],
  ["enter inside a math block is a line of it", "$$\nx = 1\n$$", "1", ["Enter", "'y"], "$$\nx = 1\ny\n$$"],
  ["backspace in an empty first item of a list in a quote", "> - a\n> - b", "a", ["Backspace", "Backspace", "'x"], "> x\n>\n> - b"],
  ["backspace in an empty first item of a list in a quote after text", "> p\n> - a\n> - b\n\nafter", "a", ["Backspace", "Backspace", "'x"], "> p\n>\n> x\n>\n> - b\n\nafter"],
  ["backspace in an empty first item of a nested list", "- a\n\n  - b\n  - c", "b", ["Backspace", "Backspace", "'x"], "- a\n\n  x\n\n  - c"],
  ["backspace takes back the nesting Tab showed", "- a", "a", ["Enter", "Tab", "Backspace", "'x"], "- a\n- x"],
  ["backspace in a nested first item keeps it apart from its parent's text", "- a\n  - b", "b", ["Home", "Backspace"], "- a\n\n    b"],
  ["backspace in a first item keeps it apart from a paragraph before", "p\n- a\n- b", "a", ["Home", "Backspace"], "p\n\na\n\n- b"],
  ["a closing $$ closes the math block", "", null, ["'$$", "Enter", "'x^2", "Enter", "'$$", "'q"], "$$\nx^2\n$$\n\nq"],
  ["a closing $$ then Enter", "", null, ["'$$", "Enter", "'x^2", "Enter", "'$$", "Enter", "'q"], "$$\nx^2\n$$\n\nq"],
  ["a letter after a math block's closing $$ starts a paragraph", "$$\nx\n$$\n\nnext", "x", ["ArrowRight", "End", "'q"], "$$\nx\n$$\n\nq\n\nnext"],
  ["a closing fence closes the code block", "", null, ["'```", "Enter", "'code", "Enter", "'```", "'q"], "```\ncode\n```\n\nq"],
  ["a closing tilde fence closes its block", "~~~~\na\n~~~~", "a", ["Enter", "'~~~~", "'q"], "~~~~\na\n~~~~\n\nq"],
  ["a shorter fence is code", "````\na\n````", "a", ["Enter", "'```", "'q"], "````\na\n```q\n````"],
  ["a closing fence closes an unclosed block", "```\na", "a", ["Enter", "'```", "'q"], "```\na\n```\n\nq"],
  ["enter in an empty middle item of a nested list lifts it", "- a\n  - b\n  - c\n  - d", "c", ["Backspace", "Enter", "'x"], "- a\n  - b\n- x\n  - d"],
  ["enter in an empty middle item of a nested ordered list", "1. a\n   1. b\n   2. c\n   3. d\n2. e", "c", ["Backspace", "Enter", "'x"], "1. a\n   1. b\n2. x\n   1. d\n3. e"],
  ["enter in an empty middle item of a nested list in a quote", "> - a\n>   - b\n>   - c\n>   - d", "c", ["Backspace", "Enter", "'x"], "> - a\n>   - b\n> - x\n>   - d"],
  ["backspace unwrapping an ordered item renumbers after it", "1. a\n2. b\n3. c\n4. d", "b", ["Home", "Backspace"], "1. a\n\nb\n\n2. c\n3. d"],
  ["backspace unwrapping the first ordered item renumbers from 1", "1. a\n2. b\n3. c", "a", ["Home", "Backspace"], "a\n\n1. b\n2. c"],
  ["backspace removing an empty ordered item renumbers after it", "1. a\n2. b\n3. c\n4. d", "b", ["Backspace", "Backspace"], "1. a\n2. c\n3. d"],
  ["backspace keeps a list numbered 1. 1.", "1. a\n1. b\n1. c", "b", ["Backspace", "Backspace"], "1. a\n1. c"],
  ["backspace renumbering stops where the numbers stop counting", "1. a\n2. b\n3. c\n7. d", "b", ["Backspace", "Backspace"], "1. a\n2. c\n7. d"],
  ["tab renumbers the items after it", "1. a\n2. b\n3. c\n4. d", "b", ["Tab"], "1. a\n   1. b\n2. c\n3. d"],
  ["tab takes a digit off a one-line item", "9. a\n10. b\n11. c", "b", ["Tab"], "9. a\n   1. b\n10. c"],
  ["shift tab renumbers both lists", "1. a\n   1. b\n   2. c\n   3. d\n2. e\n3. f", "b", ["Shift-Tab"], "1. a\n2. b\n   1. c\n   2. d\n3. e\n4. f"],
  ["shift tab of a later nested item", "1. a\n   1. b\n   2. c\n   3. d\n2. e", "c", ["Shift-Tab"], "1. a\n   1. b\n2. c\n   1. d\n3. e"],
  // An empty nested first item right after its parent's text: the view keeps it, the text gets it when typed in.
  ["backspace on a nested first item's last letter leaves the line out until typed", "- a\n  - b", "b", ["Backspace"], "- a"],
  ["backspace on a nested first item's last letter keeps the empty item", "- a\n  - b", "b", ["Backspace", "'c"], "- a\n  - c"],
  ["the empty nested item keeps a star marker", "- a\n  * b", "b", ["Backspace", "'c"], "- a\n  * c"],
  ["the empty nested item keeps a plus marker", "- a\n  +   b", "b", ["Backspace", "'c"], "- a\n  +   c"],
  ["the empty nested item keeps an ordered marker", "1. a\n   1. b\n2. e", "b", ["Backspace", "'c"], "1. a\n   1. c\n2. e"],
  ["the empty nested item before others", "- a\n  - b\n  - d", "b", ["Backspace", "'c"], "- a\n  - c\n  - d"],
  ["the empty nested item before others, alone", "- a\n  - b\n  - d", "b", ["Backspace"], "- a\n  - d"],
  ["the empty nested ordered item before others renumbers them", "- a\n  1. b\n  2. d\n  3. e", "b", ["Backspace"], "- a\n  1. d\n  2. e"],
  ["the empty nested ordered item before others, typed in", "- a\n  1. b\n  2. d\n  3. e", "b", ["Backspace", "'c"], "- a\n  1. c\n  2. d\n  3. e"],
  ["the empty nested item in a quote", "> - a\n>   - b", "b", ["Backspace", "'c"], "> - a\n>   - c"],
  ["a character the empty nested item would read as markup is escaped", "- a\n  - b", "b", ["Backspace", "'#"], "- a\n  - \\#"],
  ["backspace in the empty nested item takes it out", "- a\n  - b", "b", ["Backspace", "Backspace", "'x"], "- ax"],
  ["enter in the empty nested item takes it one level out", "- a\n  - b", "b", ["Backspace", "Enter", "'c"], "- a\n- c"],
  ["enter in the empty nested item of an ordered list", "1. a\n   - b\n   - d\n2. e", "b", ["Backspace", "Enter", "'c"], "1. a\n2. c\n   - d\n3. e"],
  ["shift tab in the empty nested item takes it one level out", "1. a\n   1. b\n2. c", "b", ["Backspace", "Shift-Tab", "'z"], "1. a\n2. z\n3. c"],
  ["tab then shift tab in the empty nested item", "1. a\n   1. b\n2. c", "b", ["Backspace", "Tab", "Shift-Tab", "'z"], "1. a\n2. z\n3. c"],
  ["undo brings the nested item back", "- a\n  - b", "b", ["Backspace", "Mod-z"], "- a\n  - b"],
  ["typing in the parent keeps the empty nested item", "- a\n  - b", "b", ["Backspace", "ArrowLeft", "'z", "ArrowRight", "'c"], "- az\n  - c"],
  // An empty middle item of a list in a quote: the list ends there, as at the top level.
  ["enter in an empty middle item of a list in a quote ends it there", "> - a\n> - b\n> - c", "b", ["Backspace", "Enter", "'x"], "> - a\n>\n> x\n>\n> - c"],
  ["enter in an empty middle item of a list in a quote, not typed in", "> - a\n> - b\n> - c", "b", ["Backspace", "Enter"], "> - a\n> - c"],
  ["enter in an empty middle item of an ordered list in a quote", "> 1. a\n> 2. b\n> 3. c", "b", ["Backspace", "Enter", "'x"], "> 1. a\n>\n> x\n>\n> 3. c"],
  ["enter in an empty middle item of a loose list in a quote", "> - a\n>\n> - b\n>\n> - c", "b", ["Backspace", "Enter", "'x"], "> - a\n>\n> x\n>\n> - c"],
  ["backspace after ending a list in a quote joins it again", "> - a\n> - b\n> - c", "b", ["Backspace", "Enter", "Backspace", "'x"], "> - ax\n> - c"],
  ["enter in an empty first item of a list in a quote", "> - a\n> - b", "a", ["Backspace", "Enter", "'x"], "> x\n>\n> - b"],
  // Typed closers in list items and quotes.
  ["a closing fence in a list item", "", null, ["'- ```", "Enter", "'code", "Enter", "'```", "'q"], "- ```\n  code\n  ```\n\n  q"],
  ["a closing fence in a quote", "", null, ["'> ```", "Enter", "'code", "Enter", "'```", "'q"], "> ```\n> code\n> ```\n>\n> q"],
  ["a closing $$ in a list item", "", null, ["'- $$", "Enter", "'x^2", "Enter", "'$$", "'q"], "- $$\n  x^2\n  $$\n\n  q"],
  ["a closing $$ in a quote then Enter", "", null, ["'> $$", "Enter", "'x^2", "Enter", "'$$", "Enter", "'q"], "> $$\n> x^2\n> $$\n>\n> q"],
  ["backspace in the paragraph after a math block in a list item takes it out", "- $$\n  x\n  $$\n- next", "x\n$$", ["Enter", "Backspace", "'y"], "- $$\n  x\n  $$\n\n  y\n\n- next"],
  ["enter after a closing fence in a quote leaves it", "", null, ["'> ```", "Enter", "'code", "Enter", "'```", "Enter", "'q"], "> ```\n> code\n> ```\n\nq"],
  ["a closing fence in a quote before more", "> ```\n> a\n> ```\n> more", "a", ["Enter", "'```", "'q"], "> ```\n> a\n> ```\n>\n> q\n>\n> more"],
  // Backspace right after a closing `$$` or fence.
  ["backspace right after a typed closing $$ gives the $ back", "", null, ["'$$", "Enter", "'x", "Enter", "'$$", "Backspace"], "$$\nx\n$\n$$"],
  ["backspace right after a typed closing fence gives the backtick back", "", null, ["'```", "Enter", "'x", "Enter", "'```", "Backspace"], "```\nx\n``\n```"],
  ["backspace right after a typed closing $$ in a list item", "", null, ["'- $$", "Enter", "'x", "Enter", "'$$", "Backspace", "'y"], "- $$\n  x\n  $y\n  $$"],
  ["backspace after a math block's closing $$ goes into the block", "$$\nx\n$$\n\nnext", "x\n$$", ["Backspace", "'y"], "$$\nxy\n$$\n\nnext"],
  ["backspace at the start of a paragraph after a math block joins it to the block's last line", "$$\nx\n$$\n\nnext *y*\n\nend", "next", ["Home", "Backspace"], "$$\nxnext *y*\n$$\n\nend"],
  ["backspace at the start of a paragraph after a code block joins it to the block's last line", "```\nx\n```\n\nnext\n\nend", "next", ["Home", "Backspace"], "```\nxnext\n```\n\nend"],
  ["blank lines ending an unclosed math block are its own", "$$\nx\n$$a\n\n\n", "$$a", ["Enter", "Backspace", "'b"], "$$\nx\n$$ab\n\n\n"],
];

for (const [name, text, at, steps, want] of CASES) {
  test(`writing: ${name}`, () => assert.equal(run(text, at, steps), want));
}

test("random keys on generated Markdown keep the view true and untouched blocks as they were", () => {
  fc.assert(fc.property(markdown, fc.nat(), keys, checkKeys), { numRuns: runs, seed });
});
test("writing: Backspace and Delete at a section's edge join the blocks on either side, as anywhere else", () => {
  const text = Array.from({ length: 120 }, (_, k) => `Para ${k}.`).join("\n\n");
  const back = new KeyboardEditor(text).cursorAfter("Para 50.");
  back.press("Home").press("Backspace");
  assert.equal(back.text, text.replace("Para 49.\n\nPara 50.", "Para 49.Para 50."));
  const forward = new KeyboardEditor(text).cursorAfter("Para 49.");
  forward.press("Delete");
  assert.equal(forward.text, text.replace("Para 49.\n\nPara 50.", "Para 49.Para 50."));
});
