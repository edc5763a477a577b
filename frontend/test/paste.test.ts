// Unit tests of paste (run with `npm test`): HTML from each kind of source into nodes and clean Markdown
// (fixtures in test/fixtures/paste: NAME.html is what the source puts on the clipboard, NAME.md the Markdown
// it must become), plain text made literal, and Markdown spliced into a document as exactly its characters.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import fc from "fast-check";
import { Window } from "happy-dom";
import type { Node } from "prosemirror-model";
import { EditorState, TextSelection } from "prosemirror-state";
import { parseBlocks } from "../src/editors/mdsource/build";
import { sectionsPlugin } from "../src/editors/mdsource/sections";
import { SourceDoc } from "../src/editors/mdsource/sourcedoc";
import { htmlToBlocks, isCodeEditorCopy, parseHtml, styleOf } from "../src/editors/paste/html";
import { insertMarkdown } from "../src/editors/paste/insert";
import { blocksToMarkdown, relax, shape } from "../src/editors/paste/markdown";
import { literalBlocks } from "../src/editors/paste/plain";
import { blockList } from "./viewblocks";

const FIXTURES = join(import.meta.dirname, "fixtures/paste");
const window = new Window();

function body(html: string): ParentNode {
  return parseHtml(html, new window.DOMParser() as unknown as DOMParser);
}

function markdownOf(html: string, doc = new SourceDoc("").doc()): string {
  return blocksToMarkdown(htmlToBlocks(body(html), styleOf(doc)));
}

for (const name of readdirSync(FIXTURES).filter((n) => n.endsWith(".html") && n !== "vscode.html")) {
  test(`HTML from ${name.replace(/\.html$/, "")} becomes its Markdown, which reads back as the same blocks`, () => {
    const html = readFileSync(join(FIXTURES, name), "utf8");
    const want = readFileSync(join(FIXTURES, name.replace(/\.html$/, ".md")), "utf8").replace(/\n$/, "");
    const blocks = htmlToBlocks(body(html));
    const written = blocksToMarkdown(blocks);
    assert.equal(written, want);
    const parsed = parseBlocks(written, 0).blocks.map((b) => shape(b.node));
    assert.deepEqual(parsed, blocks.map(shape));
    assert.doesNotMatch(written, /data:|style=|class=|mso-|docs-internal|&nbsp;|\u00a0/);
  });
}

test("a code editor's copy is text (its Markdown is the plain text), a word processor's is not", () => {
  assert.equal(isCodeEditorCopy(body(readFileSync(join(FIXTURES, "vscode.html"), "utf8"))), true);
  assert.equal(isCodeEditorCopy(body(readFileSync(join(FIXTURES, "google-docs.html"), "utf8"))), false);
  assert.equal(isCodeEditorCopy(body("<p>one</p>")), false);
});

test("the document's own list marker and emphasis style", () => {
  const doc = new SourceDoc("* one\n* two\n\n2) x\n\n_em_ and __strong__\n").doc();
  assert.deepEqual(styleOf(doc), { bullet: "*", ordered: ")", em: "_", strong: "__" });
  assert.equal(markdownOf("<ul><li>a</li></ul><ol><li>b</li></ol><p><i>c</i> <b>d</b></p>", doc), "* a\n\n1) b\n\n_c_ __d__");
  // Inside a word, `_` is no emphasis: those marks take `*` (the Markdown still reads as the HTML did).
  assert.equal(markdownOf("<p>un<i>believ</i>able and <b>a</b>b</p>", doc), "un*believ*able and **a**b");
  assert.deepEqual(styleOf(new SourceDoc("plain\n").doc()), { bullet: "-", ordered: ".", em: "*", strong: "**" });
});

test("noise goes: styles, empty spans, comments, runs of nbsp, spaces at the edges of emphasis", () => {
  const html =
    '<!--StartFragment--><style>p{color:red}</style><p class="x" style="margin:0"><span></span>Hello&nbsp;&nbsp;&nbsp;<b> big </b><span style="color:red">world</span>&nbsp;</p><p>&nbsp;</p><p><o:p></o:p></p><!--EndFragment-->';
  assert.equal(markdownOf(html), "Hello **big** world");
  assert.equal(markdownOf('<p><a href="javascript:alert(1)">x</a> <a href="#sec">y</a> <img src="blob:abc" alt="b"></p>'), "x [y](#sec)");
  assert.equal(markdownOf("<ul><li>a</li></ul><ul><li>b</li></ul>"), "- a\n\n* b");
  assert.equal(markdownOf("<ol><li><p>a</p><p>more</p></li><li>b</li></ol>"), "1. a\n\n   more\n\n2. b");
  assert.equal(markdownOf("<table><tr><td>only cell</td></tr></table>"), "only cell");
  assert.equal(markdownOf('<table><tr><td colspan="2">wide</td></tr><tr><td>a<br>b</td><td>c</td></tr><tr><td></td><td></td></tr></table>'), "| wide | b   |\n| ---- | --- |\n| a b  | c   |".replace("| b   |", "|     |"));
});

test("escapes only where a parse would read markup", () => {
  assert.equal(relax("a\\_b 5 \\> 3 AT\\&T \\&amp; a \\* b \\*x\\*", true), "a_b 5 > 3 AT&T \\&amp; a * b \\*x\\*");
  assert.equal(markdownOf("<p>[not a link] and $5 or x|y, 1 &lt; 2 &amp; &lt;b&gt;</p>"), "[not a link] and $5 or x|y, 1 < 2 & \\<b>");
  assert.equal(markdownOf("<p>[a](b) and $x$ and *y*</p>"), "\\[a\\](b) and \\$x\\$ and \\*y\\*");
  assert.equal(markdownOf("<p># no heading</p><p>1. no list</p><p>- no item</p>"), "\\# no heading\n\n1\\. no list\n\n\\- no item");
});

test("plain text pasted literally: paragraphs as they read, escaped only where needed", () => {
  const text = "# not a heading\n  *not emphasis*   \nsnake_case & 5 > 3\n\n\n- not a list\n\t1. nor this";
  const written = blocksToMarkdown(literalBlocks(text));
  assert.equal(written, "\\# not a heading\n\\*not emphasis\\*\nsnake_case & 5 > 3\n\n\\- not a list\n1\\. nor this");
  const paragraphs = parseBlocks(written, 0).blocks.map((b) => b.node);
  assert.deepEqual(
    paragraphs.map((p) => [p.type.name, p.textContent, p.firstChild?.marks.length]),
    [
      ["paragraph", "# not a heading\n*not emphasis*\nsnake_case & 5 > 3", 0],
      ["paragraph", "- not a list\n1. nor this", 0],
    ],
  );
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom(..."ab *_`[]()<>&#!-+=|$\\~.1\n \t:") }), (raw) => {
      const blocks = literalBlocks(raw);
      const back = parseBlocks(blocksToMarkdown(blocks), 0).blocks.map((b) => shape(b.node));
      assert.deepEqual(back, blocks.map(shape));
    }),
    { numRuns: 300 },
  );
});

/** `marked` with `¦` for the caret (two for a selection): the text after `markdown` is pasted there. */
function paste(marked: string, markdown: string): string {
  const text = marked.replace(/¦/g, "");
  const source = new SourceDoc(text);
  const doc = source.doc();
  const offsets: number[] = [];
  for (let at = marked.indexOf("¦"); at >= 0; at = marked.indexOf("¦", at + 1)) offsets.push(at - offsets.length);
  const [from, to] = offsets.map((offset) => source.viewPosition(doc, offset, -1));
  const state = EditorState.create({ doc, selection: TextSelection.create(doc, from, to ?? from) });
  const insertion = insertMarkdown(state, source, markdown, state.selection.from, state.selection.to);
  assert.ok(insertion, `no place for the paste in ${JSON.stringify(marked)}`);
  const change = source.personEdit(doc, insertion.tr.doc, insertion.span);
  // The engine wrote exactly the planned splice, and the view already showed its parse.
  assert.deepEqual(change?.span, insertion.span);
  assert.equal(change?.adopt, null);
  assert.equal(source.text.slice(insertion.span.from, insertion.span.from + insertion.span.insert.length), insertion.span.insert);
  // The caret is where the text, once written, puts the end of the pasted Markdown.
  assert.equal(insertion.tr.selection.head, source.viewPosition(insertion.tr.doc, insertion.caret, -1), JSON.stringify([marked, markdown]));
  return source.text;
}

/** Where a paste goes, by place: the text with the caret, the Markdown pasted, the text after it. */
const PLACES: [string, [string, string, string][]][] = [
  [
    "Markdown pasted into a paragraph: inline at the caret, blocks split it",
    [
      ["# Title\n\nHello ¦world\n\nEnd\n", "**bold** text", "# Title\n\nHello **bold** textworld\n\nEnd\n"],
      ["# Title\n\nHello ¦world\n\nEnd\n", "# New\n\n- a\n- b", "# Title\n\nHello \n\n# New\n\n- a\n- b\n\nworld\n\nEnd\n"],
      ["# Title\n\nHello world¦\n\nEnd\n", "# New\n\n- a\n- b", "# Title\n\nHello world\n\n# New\n\n- a\n- b\n\nEnd\n"],
      ["# Title\n\n¦Hello world\n\nEnd\n", "# New\n\n- a\n- b", "# Title\n\n# New\n\n- a\n- b\n\nHello world\n\nEnd\n"],
      ["a ¦b¦ c\n", "*x*", "a *x* c\n"],
      ["one\n\n¦two\n\nthree¦\n", "# new", "one\n\n# new\n"],
      ["¦", "# Title\n\n- a\n- b", "# Title\n\n- a\n- b"],
      ["text¦\n", "![image](assets/image.png)", "text![image](assets/image.png)\n"],
    ],
  ],
  [
    "a heading keeps its markup on its own side of the cut",
    [
      ["# Ti¦tle\n\nEnd\n", "para\n\nmore", "# Ti\n\npara\n\nmore\n\ntle\n\nEnd\n"],
      ["# Title¦\nnext line\n", "para\n\nmore", "# Title\n\npara\n\nmore\n\nnext line\n"],
      ["# Title ##¦\n\nnext\n", "para\n\nmore", "# Title ##\n\npara\n\nmore\n\nnext\n"],
      ["Setext¦\n===\n\nnext\n", "- a\n- b", "Setext\n===\n\n- a\n- b\n\nnext\n"],
      ["# ¦Title\n", "para\n\nmore", "para\n\nmore\n\n# Title\n"],
    ],
  ],
  [
    "in a list item or a quote, the pasted lines continue the container",
    [
      ["- one\n- tw¦o\n- three\n", "x\n\ny", "- one\n- tw\n\n  x\n\n  y\n\n  o\n- three\n"],
      ["- one\n- two¦\n- three\n", "```\ncode\n```", "- one\n- two\n\n  ```\n  code\n  ```\n- three\n"],
      ["- one\n- ¦two\n- three\n", "```\ncode\n```", "- one\n- ```\n  code\n  ```\n\n  two\n- three\n"],
      ["> quote ¦here\n", "a\n\nb", "> quote \n>\n> a\n>\n> b\n>\n> here\n"],
      ["> quote here¦\n", "a\nb", "> quote herea\n> b\n"],
      ["- item¦\n", "line1\nline2", "- itemline1\n  line2\n"],
      ["| a | b |\n| - | - |\n| 1¦x | 2 |\n", "p|q", "| a | b |\n| - | - |\n| 1p\\|qx | 2 |\n"],
    ],
  ],
];

for (const [title, cases] of PLACES) {
  test(title, () => {
    for (const [marked, markdown, want] of cases) assert.equal(paste(marked, markdown), want, JSON.stringify([marked, markdown]));
  });
}

test("the blocks around a paste keep their bytes", () => {
  const before = "Intro  with  odd   spacing\\\nand a break\n\n* star  list\n+ plus\n\n```\ncode\n```\n\n";
  const after = "\n\nTail *emph* __strong__\n";
  const text = paste(`${before}Mid¦dle${after}`, "## Pasted\n\n| a | b |\n| - | - |\n| 1 | 2 |");
  assert.ok(text.startsWith(before) && text.endsWith(after), text);
});

test("a long paste goes straight into sections of its own; the blocks around it keep their nodes and sections", () => {
  const paras = (name: string, n: number) => Array.from({ length: n }, (_, k) => `${name} ${k}`);
  const text = `${paras("Old", 150).join("\n\n")}\n`;
  const source = new SourceDoc(text);
  const doc = source.doc();
  assert.deepEqual(sectionSizes(doc), [50, 50, 50]);
  const caret = source.viewPosition(doc, text.indexOf("Old 9") + "Old 9".length, -1);
  const state = EditorState.create({ doc, selection: TextSelection.create(doc, caret), plugins: [sectionsPlugin()] });
  const insertion = insertMarkdown(state, source, paras("New", 130).join("\n\n"), caret, caret);
  assert.ok(insertion);
  const { state: after, transactions } = state.applyTransaction(insertion.tr);
  assert.equal(transactions.length, 1, "no parting afterwards (balance)");
  // The ten blocks before keep their section, new ones fill it to 50; the forty after end the last new section.
  assert.deepEqual(sectionSizes(after.doc), [10 + 40, 40, 40, 10 + 40, 50, 50]);
  const old = blockList(doc);
  const now = blockList(after.doc);
  for (let k = 0; k < 10; k++) assert.equal(now[k], old[k]);
  for (let k = 10; k < 150; k++) assert.equal(now[k + 130], old[k]);
  assert.equal(after.doc.child(4), doc.child(1));
  assert.equal(after.doc.child(5), doc.child(2));
  const change = source.personEdit(doc, after.doc, insertion.span);
  assert.deepEqual(change?.span, insertion.span);
  assert.equal(source.text, `${paras("Old", 10).join("\n\n")}\n\n${paras("New", 130).join("\n\n")}\n\n${paras("Old", 150).slice(10).join("\n\n")}\n`);
});

function sectionSizes(doc: Node): number[] {
  const sizes: number[] = [];
  doc.forEach((section) => sizes.push(section.childCount));
  return sizes;
}

test("a paste whose blocks reach past what a long document's view shows yet waits for the whole view", () => {
  const text = "# One\n\nfirst\n\nsecond\n\nthird\n";
  const source = new SourceDoc(text);
  // The view shows the first two blocks, as during a fill: the paste at the end of "first" joins "second".
  const part = source.doc(2);
  const caret = source.viewPosition(part, text.indexOf("first") + "first".length, -1);
  assert.equal(insertMarkdown(EditorState.create({ doc: part }), source, "- a\n- b", caret, caret), null);
  const whole = source.doc();
  const insertion = insertMarkdown(EditorState.create({ doc: whole }), source, "- a\n- b", caret, caret);
  assert.ok(insertion);
  source.personEdit(whole, insertion.tr.doc, insertion.span);
  assert.equal(source.text, "# One\n\nfirst\n\n- a\n- b\n\nsecond\n\nthird\n");
});
