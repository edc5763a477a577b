// A long document's fill (editors/mdsource/fill.ts): while the view shows the first blocks only, every change
// keeps its document a prefix of the text's blocks (the same nodes), so the fill appends exactly the rest.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { Node } from "prosemirror-model";
import { EditorState } from "prosemirror-state";
import { blockCount } from "../src/editors/mdsource/blocks";
import { shownPart } from "../src/editors/mdsource/fill";
import { docOf } from "../src/editors/mdsource/sections";
import { sameShown, SourceDoc } from "../src/editors/mdsource/sourcedoc";
import { corpus, noCorpus } from "./corpus";
import * as lazy from "./lazyassert";
import { textPositions } from "./keyboard";
import { appended, blockList } from "./viewblocks";

const BLOCKS = 40;
const TEXT = Array.from({ length: BLOCKS }, (_, k) => (k % 4 === 3 ? `- item ${k}\n- more ${k}` : `## Head ${k}\n\nSome *text* ${k}.`)).join("\n\n") + "\n";

/** The view's document after a change of children `from..to` to `nodes` (what the editor does with `shownPart`). */
function replaced(view: Node, change: { from: number; to: number; nodes: Node[] }): Node {
  const children = blockList(view);
  children.splice(change.from, change.to - change.from, ...change.nodes);
  return docOf(children);
}

function assertPrefix(view: Node, source: SourceDoc): void {
  assert.ok(blockCount(view) <= source.blockCount);
  blockList(view).forEach((node, k) => assert.equal(node, source.blockNode(k), `child ${k} is block ${k}`));
}

test("changes from elsewhere during the fill keep the view a prefix of the text's blocks", () => {
  // Inserts anywhere, among them ones that change how the rest parses (a fence never closed swallows it all).
  const insert = fc.constantFrom("x", "\n\n", "\n\n```\n", "## New\n\n", "- ", "\n\n> quote\n", "");
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(), fc.nat(12), insert), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: BLOCKS }), (edits, shown) => {
      const source = new SourceDoc(TEXT);
      let view = source.doc(shown);
      for (const [at, length, text] of edits) {
        const from = at % (source.length + 1);
        const to = Math.min(source.length, from + length);
        const change = source.remoteEdit([{ from, to, insert: text }]);
        const part = change && shownPart(change, blockCount(view));
        if (part) view = replaced(view, part);
        assertPrefix(view, source);
      }
      // The fill appends the rest: the whole document, as the text parses.
      const rest: Node[] = [];
      for (let k = blockCount(view); k < source.blockCount; k++) rest.push(source.blockNode(k));
      const whole = appended(view, rest);
      assert.ok(whole.eq(new SourceDoc(source.text).doc()));
    }),
    { seed: 20261202, numRuns: 150 },
  );
});

test("a change all after the shown part leaves the view alone; one across its end replaces up to it", () => {
  assert.equal(shownPart({ from: 5, to: 9 }, 5), null);
  assert.deepEqual(shownPart({ from: 3, to: 9 }, 5), { from: 3, to: 5 });
  assert.deepEqual(shownPart({ from: 1, to: 2 }, 5), { from: 1, to: 2 });
});

// --- the partial parse (editors/mdsource/partial.ts): the first part parsed before the view, the rest in parts ---

/** Pieces that run across blank lines, end at a cut's edge, or define references somewhere else than they are used. */
const piece = fc.constantFrom(
  "# Title",
  "A paragraph with *emphasis*, `code` and a [link](https://example.com).",
  "See [ref], [text][ref], [quoted], [fake], [cont] and [late].",
  "[ref]: https://example.com/ref \"Ref\"",
  "[ref]: https://example.com/second",
  "[late]:\n  https://example.com/late\n  'Late'",
  "> [quoted]: https://example.com/quoted",
  "- [listed]: https://example.com/listed\n\nUse [listed].",
  "```\n[fake]: https://example.com/fake\n```",
  "Paragraph\n[cont]: https://example.com/cont",
  "```python\ndef f():\n    pass\n\nx = 1\n\n```",
  "~~~~\n~~~\n\ninside\n~~~~",
  "``` js `x`\nnot a fence",
  "```\nunclosed to the end\n\nstill code",
  "<!--\na comment\n\nstill the comment\n-->",
  "<script>\nvar a;\n\nvar b;\n</script>",
  "<div>\nhtml block\n</div>",
  "<details>\n<summary>More</summary>\n\nInside.\n\n</details>",
  "$$\nx = 1\n\ny = 2\n$$",
  "$$ a $$",
  "- item\n\n  more of the item\n\n- another",
  "1. one\n\n2. two",
  "- a\n  ```\n  code\n\nafter",
  "> quote\n> more\n\n> another quote",
  "    indented code\n\n    more of it",
  "| a | b |\n|---|---|\n| 1 | 2 |",
  "[^1]: A note.\n\n    Its second paragraph.",
  "Setext\n---",
  "Under\n===",
  "***",
  "Text after a blank line.",
);

const longMarkdown = fc
  .tuple(fc.array(piece, { minLength: 2, maxLength: 16 }), fc.constantFrom("\n\n", "\n\n\n", "\n"), fc.boolean())
  .map(([pieces, gap, frontMatter]) => `${frontMatter ? "---\ntitle: x\n\nmore: y\n---\n\n" : ""}${pieces.join(gap)}\n`);

/** Every block of `source`, with its range (the view's document does not say where a block came from). */
function blocksOf(source: SourceDoc): { node: Node; range: [number, number] | null }[] {
  return Array.from({ length: source.blockCount }, (_, k) => ({ node: source.blockNode(k), range: source.blockRange(k) }));
}

function assertSameBlocks(actual: SourceDoc, expected: SourceDoc): void {
  const a = blocksOf(actual);
  const b = blocksOf(expected);
  assert.equal(a.length, b.length, "as many blocks as the whole parse");
  a.forEach((block, k) => {
    assert.deepEqual(block.range, b[k].range, `block ${k}'s range`);
    lazy.ok(block.node.eq(b[k].node), () => `block ${k}: ${JSON.stringify(block.node.toJSON())} is the whole parse's ${JSON.stringify(b[k].node.toJSON())}`);
  });
}

/** The blocks parsed so far are the whole parse's first (their places; their links once the references settle). */
function assertPrefixOfWhole(source: SourceDoc, whole: SourceDoc): void {
  assert.ok(source.blockCount <= whole.blockCount);
  for (let k = 0; k < source.blockCount; k++) {
    assert.deepEqual(source.blockRange(k), whole.blockRange(k), `block ${k}'s range, ${source.blockCount} parsed`);
    assert.equal(source.blockNode(k).type, whole.blockNode(k).type, `block ${k}'s kind`);
  }
}

test("a text parsed in parts, cut anywhere a cut may be, gives the whole text's parse", () => {
  fc.assert(
    fc.property(longMarkdown, fc.nat(80), fc.nat(40), (text, first, part) => {
      const whole = new SourceDoc(text);
      const source = new SourceDoc(text, first, part);
      assertPrefixOfWhole(source, whole);
      while (source.parsing) {
        source.parseMore(() => true);
        assertPrefixOfWhole(source, whole);
      }
      source.settleReferences();
      assertSameBlocks(source, whole);
      assert.equal(source.settleReferences().length, 0, "settled once");
    }),
    { numRuns: 400 },
  );
});

test("real Markdown files parsed in parts give their whole parse", { skip: noCorpus }, () => {
  for (const text of corpus) {
    for (const part of [0, 300]) {
      const source = new SourceDoc(text, part, part);
      source.parseMore();
      source.settleReferences();
      assertSameBlocks(source, new SourceDoc(text));
    }
  }
});

test("a reference defined below the first part resolves a link above it; one the first guess got wrong is shown anew", () => {
  const filler = Array.from({ length: 30 }, (_, k) => `Paragraph ${k} of the middle.`).join("\n\n");
  const text = `See [spec], [quoted] and [fake].\n\n${filler}\n\n[spec]: https://example.com/spec\n\n> [quoted]: https://example.com/q\n\n\`\`\`\n[fake]: https://example.com/fake\n\`\`\`\n`;
  const source = new SourceDoc(text, 10, 50);
  const href = (name: string) => {
    let found: string | null = null;
    source.blockNode(0).descendants((node) => {
      const link = node.marks.find((m) => m.type.name === "link");
      if (node.text === name && link) found = String(link.attrs.href);
    });
    return found;
  };
  assert.equal(source.blockCount, 1, "only the first paragraph is parsed");
  assert.equal(href("spec"), "https://example.com/spec", "a definition the scan finds resolves from the start");
  assert.equal(href("fake"), "https://example.com/fake", "the scan's guess: a definition in a fence");
  assert.equal(href("quoted"), null, "the scan misses a definition in a quote");
  const before = source.blockNode(0);
  source.parseMore();
  assert.deepEqual(source.settleReferences(), [0], "the first block is parsed again");
  assert.notEqual(source.blockNode(0), before);
  assert.equal(href("quoted"), "https://example.com/q");
  assert.equal(href("fake"), null);
  assertSameBlocks(source, new SourceDoc(text));
});

/** The document's children but the view's empty paragraphs (they have no text). */
function shownBlocks(doc: Node): Node[] {
  const nodes: Node[] = [];
  for (const child of blockList(doc)) if (!(child.type.name === "paragraph" && child.childCount === 0)) nodes.push(child);
  return nodes;
}

type Action =
  | { kind: "parse" }
  | { kind: "fill"; blocks: number }
  | { kind: "remote"; at: number; length: number; insert: string }
  | { kind: "type"; at: number; insert: string };

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: "parse" as const }) },
  { weight: 2, arbitrary: fc.nat(6).map((blocks) => ({ kind: "fill" as const, blocks })) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.nat(), fc.nat(12), fc.constantFrom("x", "\n\n", "\n\n```\n", "## New\n\n", "- ", "\n\n> quote\n", "", "\n\n[ref]: https://example.com/new\n\n", "<!--\n\n"))
      .map(([at, length, insert]) => ({ kind: "remote" as const, at, length, insert })),
  },
  { weight: 3, arbitrary: fc.tuple(fc.nat(), fc.constantFrom("a", " ", "`", "```", "[ref]", "*", "\\", "$$")).map(([at, insert]) => ({ kind: "type" as const, at, insert })) },
);

test("keys and changes from elsewhere while the text is parsed in parts land in the right bytes; the end is the whole parse", () => {
  fc.assert(
    fc.property(longMarkdown, fc.nat(60), fc.nat(30), fc.array(action, { minLength: 1, maxLength: 14 }), (start, first, part, actions) => {
      const source = new SourceDoc(start, first, part);
      let text = start;
      let view = source.doc(1);
      for (const step of actions) {
        if (step.kind === "parse") source.parseMore(() => true);
        else if (step.kind === "fill") {
          const more = blocksOf(source).slice(blockCount(view), blockCount(view) + step.blocks);
          view = appended(view, more.map((b) => b.node));
        } else if (step.kind === "remote") {
          const from = step.at % (source.length + 1);
          const to = Math.min(source.length, from + step.length);
          const change = source.remoteEdit([{ from, to, insert: step.insert }]);
          text = text.slice(0, from) + step.insert + text.slice(to);
          const shown = change && shownPart(change, blockCount(view));
          if (shown) view = replaced(view, shown);
        } else {
          const positions = textPositions(view);
          if (positions.length === 0) continue;
          const state = EditorState.create({ doc: view });
          const next = state.apply(state.tr.insertText(step.insert, positions[step.at % positions.length]));
          const change = source.personEdit(view, next.doc);
          view = next.doc;
          if (!change) continue;
          text = text.slice(0, change.span.from) + change.span.insert + text.slice(change.span.to);
          const adopt = change.adopt && shownPart(change.adopt, blockCount(view));
          if (adopt) view = replaced(view, adopt);
        }
        assert.equal(source.text, text, "the text is every change's bytes");
        assertPrefix(view, source);
      }
      // The fill's end: the rest parsed, the blocks the references changed shown anew, the rest appended.
      source.parseMore();
      for (const k of source.settleReferences()) if (k < blockCount(view)) view = replaced(view, { from: k, to: k + 1, nodes: [source.blockNode(k)] });
      assertPrefix(view, source);
      const rest = blocksOf(source).slice(blockCount(view)).map((b) => b.node);
      const filled = shownBlocks(appended(view, rest));
      const parsed = shownBlocks(new SourceDoc(source.text).doc());
      assert.equal(filled.length, parsed.length, "as many blocks as the whole text's parse");
      // The view keeps what the person typed as typed (spaces at a textblock's edge the parse does not show).
      filled.forEach((node, k) => assert.ok(sameShown(node, parsed[k]), `block ${k} is the whole text's parse`));
    }),
    { numRuns: 300 },
  );
});
