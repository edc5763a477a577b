// The wikilink parse rule (mdsource/wikilink.ts) in the WYSIWYG parse: every form, where it never matches
// (code spans and blocks, escapes, brackets inside), and its source bytes kept through edits around it; which
// file a wikilink names (wikilinks.ts) and what a link's destination names (links.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Node } from "prosemirror-model";
import { EditorState, TextSelection } from "prosemirror-state";
import { blockAt } from "../src/editors/mdsource/blocks";
import { parseBlocks } from "../src/editors/mdsource/build";
import { SourceDoc } from "../src/editors/mdsource/sourcedoc";
import { matchWikilink } from "../src/editors/mdsource/wikilink";
import { findHeading, headingSlug, hoverText, linkTarget } from "../src/editors/links";
import { newWikilinkPath, resolveWikilink, wikilinkMatches, wikilinkOptions } from "../src/editors/wikilinks";

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
  type(2, "Now. "); // before it, in the same paragraph (in the first section)
  type(blockAt(state.doc, 0).content.size + 2, " End."); // after both, at the paragraph's end
  // Between the two wikilinks: after the first atom.
  let between = -1;
  state.doc.descendants((node, pos) => {
    if (between < 0 && node.type.name === "raw_inline" && node.attrs.kind === "wikilink") between = pos + node.nodeSize;
    return true;
  });
  type(between, " (x)");
  assert.equal(source.text, "Now. Before [[readability|Read *this*]] (x) after, and [[b#H]]. End.\n\nNext paragraph.\n");
});

// --- which file a wikilink names, and what a link's destination names ------------------------------------------
const ROOT = "/w";
const FILES = ["index.md", "Notes.md", "a/deep.md", "b/deep.md", "a/x/deep.md", "a/x/page.md", "todo.txt", "Release 1.2.md", "c/d/deep.md"].map((path) => ({ root: ROOT, path }));

test("wikilink resolution: by name in any folder, case-insensitively, the nearest first", () => {
  assert.equal(resolveWikilink("notes", "/w/index.md", FILES), "/w/Notes.md");
  assert.equal(resolveWikilink("NOTES.md", "/w/index.md", FILES), "/w/Notes.md");
  assert.equal(resolveWikilink("todo.txt", null, FILES), "/w/todo.txt");
  assert.equal(resolveWikilink("todo", null, FILES), null); // a name without a suffix means name.md
  assert.equal(resolveWikilink("Release 1.2", null, FILES), "/w/Release 1.2.md");
  assert.equal(resolveWikilink("missing", "/w/index.md", FILES), null);
  // Several deep.md: the fewest folder steps from the document's folder, then the shallower, then by path.
  assert.deepEqual(wikilinkMatches("deep", "/w/index.md", FILES), ["/w/a/deep.md", "/w/b/deep.md", "/w/a/x/deep.md", "/w/c/d/deep.md"]);
  assert.equal(resolveWikilink("deep", "/w/a/x/page.md", FILES), "/w/a/x/deep.md");
  assert.equal(resolveWikilink("deep", "/w/b/other.md", FILES), "/w/b/deep.md");
  assert.equal(resolveWikilink("deep", "/w/c/d/e/f.md", FILES), "/w/c/d/deep.md");
  // A path names the file whose path ends with it at a folder boundary.
  assert.equal(resolveWikilink("x/deep", "/w/index.md", FILES), "/w/a/x/deep.md");
  assert.equal(resolveWikilink("b/deep", "/w/a/x/page.md", FILES), "/w/b/deep.md");
  assert.equal(resolveWikilink("d/deep", "/w/index.md", FILES), "/w/c/d/deep.md");
  assert.equal(resolveWikilink("eep", "/w/index.md", FILES), null);
  assert.equal(resolveWikilink("", "/w/index.md", FILES), null);
  // A new file goes beside the document.
  assert.equal(newWikilinkPath("New page", "/w/a/x/page.md", null), "/w/a/x/New page.md");
  assert.equal(newWikilinkPath("list.txt", "/w/index.md", null), "/w/list.txt");
  assert.equal(newWikilinkPath("n", null, "/w"), "/w/n.md");
  assert.equal(newWikilinkPath("n", null, null), null);
});

test("wikilink completion: fuzzy over the workspace, inserting the shortest name that resolves", () => {
  const options = wikilinkOptions("dee", "/w/index.md", FILES);
  assert.deepEqual(
    options.map((o) => [o.label, o.detail, o.insert]),
    [
      ["deep", "a/deep.md", "deep"],
      ["deep", "b/deep.md", "b/deep"],
      ["deep", "a/x/deep.md", "x/deep"],
      ["deep", "c/d/deep.md", "d/deep"],
    ],
  );
  assert.deepEqual(wikilinkOptions("tod", "/w/index.md", FILES).map((o) => o.insert), ["todo.txt"]);
  assert.equal(wikilinkOptions("", "/w/index.md", FILES).length, FILES.length);
  assert.deepEqual(wikilinkOptions("zzz", "/w/index.md", FILES), []);
});

test("link destinations: files, headings, the web, and schemes that are refused", () => {
  assert.deepEqual(linkTarget("notes.md"), { kind: "file", path: "notes.md", heading: null, written: "notes.md" });
  assert.deepEqual(linkTarget("sub/My%20Notes.md#Second%20part"), { kind: "file", path: "sub/My Notes.md", heading: "Second part", written: "sub/My%20Notes.md#Second%20part" });
  assert.deepEqual(linkTarget("../up?x=1"), { kind: "file", path: "../up.md", heading: null, written: "../up?x=1" });
  assert.deepEqual(linkTarget("/abs/file.txt"), { kind: "file", path: "/abs/file.txt", heading: null, written: "/abs/file.txt" });
  assert.deepEqual(linkTarget("#intro"), { kind: "heading", heading: "intro" });
  assert.deepEqual(linkTarget("https://example.com/a#b"), { kind: "web", url: "https://example.com/a#b" });
  assert.deepEqual(linkTarget(" HTTP://x.y "), { kind: "web", url: "HTTP://x.y" });
  for (const [href, scheme] of [["javascript:alert(1)", "javascript"], ["data:text/html,x", "data"], ["file:///etc/passwd", "file"], ["mailto:a@b.c", "mailto"], ["//evil.example/x", "//"]]) {
    assert.deepEqual(linkTarget(href), { kind: "refused", scheme, written: href });
  }
  assert.equal(hoverText(linkTarget("javascript:alert(1)")), "javascript:alert(1) — VMark does not open javascript: links");
  assert.equal(hoverText(linkTarget("notes.md#part")), "notes.md#part — Ctrl+click to open");
});

test("headings: GitHub's slugs (repeats numbered), else the heading's words", () => {
  assert.equal(headingSlug("Second part"), "second-part");
  assert.equal(headingSlug("What's new? (v2.0)"), "whats-new-v20");
  assert.equal(headingSlug("  中文 标题！"), "中文-标题");
  assert.equal(headingSlug("a_b - c"), "a_b---c");
  const headings = ["Intro", "Setup", "Setup", "Other Words"].map((text, at) => ({ level: 2, text, at }));
  assert.equal(findHeading(headings, "setup")?.at, 1);
  assert.equal(findHeading(headings, "setup-1")?.at, 2);
  assert.equal(findHeading(headings, "Other  words")?.at, 3);
  assert.equal(findHeading(headings, "other-words")?.at, 3);
  assert.equal(findHeading(headings, "missing"), null);
});
