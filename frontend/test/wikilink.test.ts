// The wikilink parse rule (mdsource/wikilink.ts) in the WYSIWYG parse: every form, where it never matches
// (code spans and blocks, escapes, brackets inside), and its source bytes kept through edits around it.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Node } from "prosemirror-model";
import { EditorState, TextSelection } from "prosemirror-state";
import { parseBlocks } from "../src/mdsource/build";
import { SourceDoc } from "../src/mdsource/sourcedoc";
import { matchWikilink } from "../src/mdsource/wikilink";

interface Shown {
  raw: string;
  href: string;
  text: string;
}

/** The wikilink atoms of a text's WYSIWYG view, in order. */
function wikilinks(text: string): Shown[] {
  const found: Shown[] = [];
  for (const { node } of parseBlocks(text, 0).blocks) {
    node.descendants((child: Node) => {
      if (child.type.name === "raw_inline" && child.attrs.kind === "wikilink") {
        found.push({ raw: String(child.attrs.raw), href: String(child.attrs.href), text: String(child.attrs.text) });
      }
      return true;
    });
  }
  return found;
}

/** The plain text a paragraph shows (atoms as ⟨raw⟩). */
function shown(text: string): string {
  const parts: string[] = [];
  parseBlocks(text, 0).blocks[0].node.descendants((child: Node) => {
    if (child.isText) parts.push(child.text ?? "");
    else if (child.type.name === "raw_inline") parts.push(`⟨${String(child.attrs.raw)}⟩`);
    return true;
  });
  return parts.join("");
}

test("wikilink: every form, with the target it names and the words it shows", () => {
  assert.deepEqual(wikilinks("See [[notes]] now."), [{ raw: "[[notes]]", href: "notes", text: "notes" }]);
  assert.deepEqual(wikilinks("[[notes|my notes]]"), [{ raw: "[[notes|my notes]]", href: "notes", text: "my notes" }]);
  assert.deepEqual(wikilinks("[[notes#Second part]]"), [{ raw: "[[notes#Second part]]", href: "notes#Second part", text: "notes › Second part" }]);
  assert.deepEqual(wikilinks("[[notes#Second part|there]]"), [{ raw: "[[notes#Second part|there]]", href: "notes#Second part", text: "there" }]);
  assert.deepEqual(wikilinks("[[#Intro]]"), [{ raw: "[[#Intro]]", href: "#Intro", text: "Intro" }]);
  assert.deepEqual(wikilinks("[[sub/deep note]]"), [{ raw: "[[sub/deep note]]", href: "sub/deep note", text: "sub/deep note" }]);
  assert.deepEqual(wikilinks("[[ spaced |  alias  ]]"), [{ raw: "[[ spaced |  alias  ]]", href: "spaced", text: "alias" }]);
  // An empty alias shows the name; the pipe of a wikilink in a table cell is written `\|`.
  assert.deepEqual(wikilinks("[[a|]]"), [{ raw: "[[a|]]", href: "a", text: "a" }]);
  // (A cell's content is read with its pipes unescaped; the table writes them back escaped.)
  assert.deepEqual(wikilinks("| x |\n|---|\n| [[a\\|b]] |"), [{ raw: "[[a|b]]", href: "a", text: "b" }]);
  assert.deepEqual(wikilinks("中文[[文档]]中文"), [{ raw: "[[文档]]", href: "文档", text: "文档" }]);
  assert.deepEqual(
    wikilinks("[[a]] and **[[b]]** and [[c|d]]").map((w) => w.raw),
    ["[[a]]", "[[b]]", "[[c|d]]"],
  );
});

test("wikilink: not in code spans, code blocks, escapes, nor with brackets inside", () => {
  const none = [
    "`[[code]]`",
    "``a [[code]] b``",
    "```\n[[fenced]]\n```",
    "    [[indented code]]",
    "\\[[escaped]]",
    "\\[\\[escaped\\]\\]",
    "[[a [b] c]]",
    "[[a]b]]",
    "[[]]",
    "[[ ]]",
    "[[|alias]]",
    "[[#]]",
    "[[a\nb]]",
    "[[a`b]]",
    "[[a\\b]]",
    "[[unclosed",
    "[[unclosed]",
    "$[[math]]$",
    "<span title='[[html]]'>x</span>",
  ];
  for (const text of none) assert.deepEqual(wikilinks(text), [], text);
  // Around brackets: the wikilink is the innermost `[[...]]`, the other brackets are text.
  assert.equal(shown("[[[x]]]"), "[⟨[[x]]⟩]");
  assert.equal(shown("[[x]]]"), "⟨[[x]]⟩]");
  assert.equal(shown("x [[a]] `[[b]]` [[c]]"), "x ⟨[[a]]⟩ [[b]] ⟨[[c]]⟩");
  // A link's text holds no link: the outer brackets are text (as a link inside a link).
  assert.equal(shown("[see [[x]]](u.md)"), "[see ⟨[[x]]⟩](u.md)");
  // An Obsidian embed is not a construct of its own: a "!" and a wikilink.
  assert.equal(shown("![[image.png]]"), "!⟨[[image.png]]⟩");
});

test("wikilink matcher: bounded, the first ]] closes", () => {
  assert.deepEqual(matchWikilink("[[a]] [[b]]", 0), { end: 5, name: "a", heading: null, alias: null });
  assert.equal(matchWikilink("x[[a]]", 0), null);
  assert.equal(matchWikilink("[[a]]", 0, 4), null); // past the end it may use
  assert.equal(matchWikilink(`[[${"a".repeat(1001)}]]`, 0), null);
  assert.deepEqual(matchWikilink(`[[${"a".repeat(1000)}]]`, 0)?.end, 1004);
  assert.deepEqual(matchWikilink("[[n#h#i|a|b]]", 0), { end: 13, name: "n", heading: "h#i", alias: "a|b" });
  // A long line of "[[" with no closing costs little: each gives up at the next bracket.
  const text = "[[x ".repeat(20_000);
  const started = performance.now();
  assert.deepEqual(wikilinks(text), []);
  assert.ok(performance.now() - started < 5_000);
});

test("wikilink: its bytes come back exactly through edits around it", () => {
  const text = "Before [[readability|Read *this*]] after, and [[b#H]].\n\nNext paragraph.\n";
  const source = new SourceDoc(text);
  let state = EditorState.create({ doc: source.doc() });
  const type = (at: number, insert: string): void => {
    const tr = state.tr.setSelection(TextSelection.create(state.doc, at)).insertText(insert);
    const change = source.personEdit(state.doc, tr.doc);
    assert.ok(change, `typing ${insert} is a splice`);
    state = state.apply(tr);
  };
  type(1, "Now. "); // before it, in the same paragraph
  type(state.doc.child(0).content.size + 1, " End."); // after both, at the paragraph's end
  // Between the two wikilinks: after the first atom.
  let between = -1;
  state.doc.descendants((node, pos) => {
    if (between < 0 && node.type.name === "raw_inline" && node.attrs.kind === "wikilink") between = pos + node.nodeSize;
    return true;
  });
  type(between, " (x)");
  assert.equal(source.text, "Now. Before [[readability|Read *this*]] (x) after, and [[b#H]]. End.\n\nNext paragraph.\n");
});
