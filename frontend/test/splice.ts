// The WYSIWYG splice's property (sourcedoc.test.ts on generated Markdown, sourcedoc.corpus.test.ts on real files,
// two files so the two test processes share the work): random edit sequences in the view, and after each edit the
// text outside the splice is byte-identical, a change inside one block touches only that block's bytes, and the
// text parses back to what the view shows.
import assert from "node:assert/strict";
import fc from "fast-check";
import { joinBackward, splitBlock } from "prosemirror-commands";
import { liftListItem, sinkListItem, splitListItem } from "prosemirror-schema-list";
import type { Node } from "prosemirror-model";
import { EditorState, TextSelection, type Transaction } from "prosemirror-state";
import { blockIndex } from "../src/editors/mdsource/blocks";
import { schema } from "../src/editors/mdsource/schema";
import { sameShown, SourceDoc } from "../src/editors/mdsource/sourcedoc";
import { textPositionAt } from "./keyboard";
import { blockList } from "./viewblocks";

/** Markdown built from pieces real files use, so the generator reaches every construct. */
const piece = fc.constantFrom(
  "# Title",
  "Setext\n===",
  "A paragraph with *emphasis*, __strong__, `code` and a [link](https://example.com \"title\").",
  "Line one  \nline two\\\nline three",
  "- one\n- two\n  - nested",
  "* star\n* items",
  "1. first\n2) second",
  "1) a\n2) b",
  "> quote with **bold**\n> and more",
  "```python\nprint('x')\n```",
  "~~~\ntilde fence\n~~~",
  "    indented code",
  "---",
  "***",
  "| a | b |\n|:--|--:|\n| 1 | 2 |",
  "<details>\n<summary>More</summary>\n\nInside.\n\n</details>",
  "<!-- a comment -->",
  "Math $a^2 + b^2$ and \\$5.",
  "$$\nx = \\frac{1}{2}\\,y\n$$",
  "A footnote[^1] here.\n\n[^1]: The note.",
  "[ref]: https://example.com/ref \"Ref\"",
  "See [ref] and [text][ref] and ![img](a.png) and ![t](b.png \"T\").",
  "<https://example.com> and <b>inline html</b> &amp; \\* escapes",
  "- [ ] task\n- [x] done",
  "Trailing spaces   ",
  "Text with ~~strike~~ and _under_ and 😀.",
);

export const markdown = fc
  .tuple(fc.array(piece, { minLength: 1, maxLength: 8 }), fc.constantFrom("\n\n", "\n\n\n", "\n"), fc.boolean(), fc.boolean())
  .map(([pieces, gap, frontMatter, finalNewline]) => {
    const body = pieces.join(gap);
    return `${frontMatter ? "---\ntitle: x\n---\n\n" : ""}${body}${finalNewline ? "\n" : ""}`;
  });


type Op =
  | { kind: "insert"; text: string }
  | { kind: "delete"; length: number }
  | { kind: "enter" }
  | { kind: "join" }
  | { kind: "list"; command: "split" | "sink" | "lift" };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom("a", " ", "*", "_", "`", "#", "[", "]", "\\", "1.", "-", "|", "$", "<", "é", "😀", "x y").map((text) => ({ kind: "insert" as const, text })) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 5 }).map((length) => ({ kind: "delete" as const, length })) },
  { weight: 1, arbitrary: fc.constant({ kind: "enter" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "join" as const }) },
  { weight: 1, arbitrary: fc.constantFrom("split", "sink", "lift").map((command) => ({ kind: "list" as const, command: command as "split" | "sink" | "lift" })) },
);

const LIST_COMMANDS = {
  split: splitListItem(schema.nodes.list_item),
  sink: sinkListItem(schema.nodes.list_item),
  lift: liftListItem(schema.nodes.list_item),
};


function transaction(state: EditorState, at: number, edit: Op): Transaction | null {
  const placed = state.apply(state.tr.setSelection(TextSelection.create(state.doc, at)));
  let tr: Transaction | null = null;
  const take = (t: Transaction) => {
    tr = t;
  };
  if (edit.kind === "insert") return placed.tr.insertText(edit.text);
  if (edit.kind === "delete") {
    const end = Math.min(at + edit.length, placed.doc.resolve(at).end());
    return end > at ? placed.tr.delete(at, end) : null;
  }
  if (edit.kind === "list") LIST_COMMANDS[edit.command](placed, take);
  else if (edit.kind === "enter") splitBlock(placed, take);
  else if (placed.doc.resolve(at).parentOffset === 0) joinBackward(placed, take);
  return tr;
}

function shownBlocks(doc: Node): Node[] {
  const nodes: Node[] = [];
  for (const child of blockList(doc)) if (!(child.type.name === "paragraph" && child.childCount === 0)) nodes.push(child);
  return nodes;
}

export function check(text: string, edits: [number, Op][]): void {
  const source = new SourceDoc(text);
  let state = EditorState.create({ doc: source.doc() });
  for (const [choice, edit] of edits) {
    const at = textPositionAt(state.doc, choice);
    if (at === null) return;
    const tr = transaction(state, at, edit);
    if (!tr || !tr.docChanged) continue;
    const before = source.text;
    const block = (source as unknown as { blocks: { from: number; to: number }[] }).blocks[blockIndex(state.doc.resolve(at))];
    const next = state.apply(tr);
    const change = source.personEdit(state.doc, next.doc);
    if (!change) continue;
    const { from, to, insert } = change.span;
    assert.equal(source.text, before.slice(0, from) + insert + before.slice(to), "only the span changed");
    if ((edit.kind === "insert" || edit.kind === "delete") && !change.adopt) {
      assert.ok(from >= block.from && to <= block.to, `an edit inside a block stays inside its bytes (${from}..${to} of ${block.from}..${block.to})`);
    }
    const shown = change.adopt ? source.doc() : next.doc;
    const parsed = new SourceDoc(source.text).doc();
    const a = shownBlocks(shown);
    const b = shownBlocks(parsed);
    assert.equal(a.length, b.length, "the text parses to as many blocks as the view shows");
    a.forEach((node, k) => assert.ok(sameShown(node, b[k]), `block ${k} parses back to what the view shows`));
    state = change.adopt ? EditorState.create({ doc: source.doc() }) : next;
  }
}

export const edits = fc.array(fc.tuple(fc.nat(), op), { minLength: 1, maxLength: 10 });

// `make test` runs the same cases every time (SPLICE_SEED picks others: SPLICE_SEED=random for a new seed each
// run). A fixed seed keeps CI's answer about the code, not about luck; exploring is a run with other seeds.
// SPLICE_SEED=2065538999 found a reference definition joined into a list item (fixed: a definition at any
// depth re-parses the whole text). SPLICE_SEED=-1551663017 with SPLICE_RUNS=1500 found Enter at the start of a
// table's first cell (an empty paragraph before the table), then typing there: the text went after the block
// before, not where the paragraph is (fixed: it goes right before the table).
export const seed = process.env.SPLICE_SEED === "random" ? undefined : Number(process.env.SPLICE_SEED ?? 20261201);
