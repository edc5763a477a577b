// The WYSIWYG page's per-transaction work done for the changed part only (issues 25 and 26): each incremental
// result must equal the one made from the whole document, after any edit.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Text } from "@codemirror/state";
import fc from "fast-check";
import type { Node } from "prosemirror-model";
import { EditorState, TextSelection, type Transaction } from "prosemirror-state";
import type { DecorationSet } from "prosemirror-view";
import { findKey, findMatches, findPlugin } from "../src/editors/mdsource/find";
import { highlightKey, highlightPending, laterMeta, richPlugin } from "../src/editors/mdsource/rich";
import { blockCount, blockPos } from "../src/editors/mdsource/blocks";
import { SourceDoc } from "../src/editors/mdsource/sourcedoc";
import { pmHeadings } from "../src/editors/headings";
import type { ReviewMark } from "../src/editors/reviewmodel";
import { reviewPlugin, reviewTransaction } from "../src/editors/reviewpm";
import { counts, countsOfRope } from "../src/page/statusbar";

const SAMPLE = [
  "# Title one",
  "Some text with a cat and another cat.",
  "- a list item with cat\n- second item\n  ## heading in a list",
  "> quoted cat\n> # quoted heading",
  "```js\nconst cat = 1; // cat\n```",
  "| a | cat |\n| - | --- |\n| cat | x |",
  "## Second heading\n\nCatalogue of CATS, cat-like.",
].join("\n\n");

// A fixed seed keeps `npm test` calm; INCREMENTAL_SEED=random (or a number) and INCREMENTAL_RUNS explore more.
const seed = process.env.INCREMENTAL_SEED === "random" ? undefined : Number(process.env.INCREMENTAL_SEED ?? 20261202);
const runs = (n: number): number => Math.ceil((n * Number(process.env.INCREMENTAL_RUNS ?? 100)) / 100);

function docOf(text: string): Node {
  return new SourceDoc(text).doc();
}

/** A random edit of the document: text typed, a range deleted, or a block split, at valid places. */
const edit = fc.record({ kind: fc.constantFrom("type", "delete", "split"), at: fc.nat(), span: fc.nat({ max: 12 }), text: fc.constantFrom("cat", "x", "Cat ", "ca", "t", "# ") });

function applyEdit(state: EditorState, e: { kind: string; at: number; span: number; text: string }): Transaction | null {
  const size = state.doc.content.size;
  const positions: number[] = [];
  state.doc.descendants((node, pos) => {
    if (node.isTextblock) for (let k = 0; k <= node.content.size; k++) positions.push(pos + 1 + k);
    return !node.isTextblock;
  });
  if (positions.length === 0) return null;
  const from = positions[e.at % positions.length];
  try {
    if (e.kind === "type") return state.tr.insertText(e.text, from);
    if (e.kind === "split") return state.tr.split(from);
    return state.tr.delete(from, Math.min(size, from + e.span));
  } catch {
    return null;
  }
}

function shownFinds(set: DecorationSet | undefined): string[] {
  return (set?.find() ?? []).map((d) => `${d.from}-${d.to}:${JSON.stringify((d as unknown as { type: { attrs: unknown } }).type.attrs)}`).sort();
}

test("find: after any edits, the matches and their highlighting equal a search of the whole document", () => {
  fc.assert(
    fc.property(fc.constantFrom("cat", "Cat", "a", "item"), fc.boolean(), fc.nat(), fc.array(edit, { maxLength: 8 }), (query, matchCase, current, edits) => {
      let state = EditorState.create({ doc: docOf(SAMPLE), plugins: [findPlugin()] });
      state = state.apply(state.tr.setMeta(findKey, { query, matchCase, current: current % 7 }));
      for (const e of edits) {
        const tr = applyEdit(state, e);
        if (!tr) continue;
        state = state.apply(tr);
        const got = findKey.getState(state);
        const fresh = EditorState.create({ doc: state.doc, plugins: [findPlugin()] });
        const want = findKey.getState(fresh.apply(fresh.tr.setMeta(findKey, { query, matchCase, current: got?.current })));
        assert.deepEqual(got?.matches, findMatches(state.doc, query, matchCase));
        assert.deepEqual(shownFinds(got?.decorations), shownFinds(want?.decorations));
        assert.equal(got?.current, want?.current);
      }
    }),
    { numRuns: runs(150), seed },
  );
});

test("find: a match right after the current one keeps its highlight when an edit above moves both", () => {
  let state = EditorState.create({ doc: docOf("# Title\n\nwith aat\n"), plugins: [findPlugin()] });
  state = state.apply(state.tr.setMeta(findKey, { query: "a", matchCase: false, current: 0 }));
  state = state.apply(state.tr.insertText("# ", 2)); // the first block's start, in the first section
  const got = findKey.getState(state);
  assert.deepEqual(got?.matches, [{ from: 16, to: 17 }, { from: 17, to: 18 }]);
  assert.deepEqual(shownFinds(got?.decorations), ['16-17:{"class":"md-find-match current"}', '17-18:{"class":"md-find-match"}']);
});

test("status bar: the counts of a rope after edits equal the counts of its text", () => {
  const line = fc.stringMatching(/^[a-zé中 '’_.-]{0,30}$/);
  fc.assert(
    fc.property(fc.array(line, { minLength: 1, maxLength: 300 }), fc.array(fc.tuple(fc.nat(), fc.nat({ max: 50 }), fc.array(line, { minLength: 1, maxLength: 40 })), { maxLength: 6 }), (lines, edits) => {
      let text = Text.of(lines);
      assert.deepEqual(countsOfRope(text), counts(text.toString()));
      for (const [at, length, insert] of edits) {
        const from = at % (text.length + 1);
        text = text.replace(from, Math.min(text.length, from + length), Text.of(insert));
        assert.deepEqual(countsOfRope(text), counts(text.toString()));
      }
    }),
    { numRuns: runs(100), seed },
  );
});

test("status bar: counting a long rope can stop at a deadline and go on where it stopped", () => {
  const text = Text.of(Array.from({ length: 20_000 }, (_, k) => `line ${k} with some words, 中文`));
  assert.equal(countsOfRope(text, performance.now() - 1), null);
  let got = null;
  for (let slices = 0; got === null && slices < 10_000; slices++) got = countsOfRope(text, performance.now() + 1);
  assert.deepEqual(got, counts(text.toString()));
});

/** The outline's headings read from the whole document, as the outline did before it read block by block. */
function headingsOfWhole(doc: Node): { level: number; text: string; at: number }[] {
  const headings: { level: number; text: string; at: number }[] = [];
  doc.descendants((node, pos) => {
    if (node.type.name === "heading") headings.push({ level: Number(node.attrs.level), text: node.textContent, at: pos });
    return !node.isTextblock;
  });
  return headings;
}

test("outline: the headings after edits, read block by block, equal those of the whole document", () => {
  fc.assert(
    fc.property(fc.array(edit, { maxLength: 10 }), (edits) => {
      let state = EditorState.create({ doc: docOf(SAMPLE) });
      assert.deepEqual(pmHeadings(state.doc), headingsOfWhole(state.doc));
      for (const e of edits) {
        const tr = applyEdit(state, e);
        if (!tr) continue;
        state = state.apply(tr);
        assert.deepEqual(pmHeadings(state.doc), headingsOfWhole(state.doc));
      }
    }),
    { numRuns: runs(100), seed },
  );
});

test("outline: a heading typed at the end of a long document is listed, with its position", () => {
  const blocks = Array.from({ length: 3000 }, (_, k) => (k % 100 === 0 ? `## Part ${k}` : `Paragraph ${k} of words.`));
  const source = new SourceDoc(blocks.join("\n\n"));
  let state = EditorState.create({ doc: source.doc() });
  assert.equal(pmHeadings(state.doc).length, 30);
  const end = blockPos(state.doc, blockCount(state.doc)); // after the last block, in the last section
  state = state.apply(state.tr.insert(end, state.schema.nodes.heading.create({ level: 1 }, state.schema.text("The end"))));
  const headings = pmHeadings(state.doc);
  assert.equal(headings.length, 31);
  assert.deepEqual(headings[30], { level: 1, text: "The end", at: end });
});

function mark(id: string, from: number, to: number, old = ""): ReviewMark {
  return { id, from, to, old, agent: "alice", tool: "document.edit" } as ReviewMark;
}

function shownReview(set: DecorationSet | undefined): string[] {
  return (set?.find() ?? []).map((d) => `${d.from}-${d.to}:${String((d.spec as { shows?: string }).shows)}`).sort();
}

test("review: each set of marks shows exactly its decorations, those that stay the same objects", () => {
  const text = "# Title\n\nOne two three four five six.\n\nAnother paragraph here.\n";
  const source = new SourceDoc(text);
  const toView = (offset: number, bias: -1 | 1): number => source.viewPosition(state.doc, offset, bias);
  let state = EditorState.create({ doc: source.doc(), plugins: [reviewPlugin()] });
  const sets = [[mark("a", 13, 16)], [mark("a", 13, 16), mark("b", 40, 47, "old")], [mark("b", 40, 47, "old")], [mark("b", 40, 47, "older")], []];
  let before: DecorationSet | undefined;
  for (const marks of sets) {
    state = state.apply(reviewTransaction(state, marks, toView));
    const got = state.plugins[0].getState(state) as DecorationSet;
    const fresh = EditorState.create({ doc: state.doc, plugins: [reviewPlugin()] });
    const want = fresh.plugins[0].getState(fresh.apply(reviewTransaction(fresh, marks, toView))) as DecorationSet;
    assert.deepEqual(shownReview(got), shownReview(want));
    if (before) {
      // A decoration that is still wanted where it was is the same one (`find` gives copies of the same type).
      const types = new Set(got.find().map((d) => (d as unknown as { type: unknown }).type));
      const kept = before.find().filter((d) => types.has((d as unknown as { type: unknown }).type));
      const same = shownReview(before).filter((s) => shownReview(got).includes(s));
      assert.equal(kept.length, same.length);
    }
    before = got;
  }
  assert.equal(before?.find().length, 0);
});

/** Many code blocks, as a paste of a long page brings them (more decorations than an edit adds at once). */
const CODE_PASTE = Array.from({ length: 70 }, (_, n) => `\`\`\`js\nconst cat${n} = [1, "two", 3.5]; // n\nfunction f${n}(a) { return a + ${n}; }\n\`\`\``).join("\n\n");

function shownHighlight(state: EditorState): string[] {
  return (highlightKey.getState(state)?.set.find() ?? []).map((d) => `${d.from}-${d.to}:${JSON.stringify((d as unknown as { type: { attrs: unknown } }).type.attrs)}`).sort();
}

/** One idle slice of the highlighting, as `highlightLater` dispatches it. */
function idleSlice(state: EditorState): EditorState {
  const meta = laterMeta(state, Infinity);
  return meta ? state.apply(state.tr.setMeta(highlightKey, meta).setMeta("addToHistory", false)) : state;
}

test("code highlighting: after any edits (pastes of many code blocks too) and the idle slices, it equals the whole document's", () => {
  const pasted = docOf(CODE_PASTE).content;
  const step = fc.oneof(
    edit.map((e) => ({ ...e, paste: false, idle: false })),
    fc.record({ at: fc.nat(), head: fc.nat(), idle: fc.boolean() }).map((e) => ({ ...e, kind: "paste", span: 0, text: "", paste: true })),
    fc.constant({ kind: "idle", at: 0, span: 0, text: "", paste: false, idle: true }),
  );
  fc.assert(
    fc.property(fc.array(step, { maxLength: 8 }), (steps) => {
      let state = EditorState.create({ doc: docOf(SAMPLE + "\n\n" + CODE_PASTE.slice(0, 400)), plugins: [richPlugin()] });
      for (const s of steps) {
        if (s.kind === "idle") {
          state = idleSlice(state);
          continue;
        }
        let tr: Transaction | null;
        if (s.paste) {
          const boundaries: number[] = [];
          state.doc.forEach((_node, offset) => boundaries.push(offset));
          tr = state.tr.insert(boundaries[s.at % boundaries.length], pasted);
          const head = (s as { head?: number }).head ?? 0;
          tr.setSelection(TextSelection.near(tr.doc.resolve(head % (tr.doc.content.size + 1))));
        } else tr = applyEdit(state, s);
        if (!tr) continue;
        state = state.apply(tr);
      }
      for (let k = 0; k < 1000 && highlightPending(state); k++) state = idleSlice(state);
      assert.equal(highlightPending(state), false);
      const fresh = EditorState.create({ doc: state.doc, plugins: [richPlugin()] });
      assert.deepEqual(shownHighlight(state), shownHighlight(fresh));
    }),
    { numRuns: runs(40), seed },
  );
});

test("code highlighting: a paste of many code blocks highlights those near the caret at once, the others in idle slices", () => {
  let state = EditorState.create({ doc: docOf("# Title\n\nText."), plugins: [richPlugin()] });
  const tr = state.tr.insert(state.doc.content.size, docOf(CODE_PASTE).content);
  state = state.apply(tr.setSelection(TextSelection.atEnd(tr.doc)));
  const waiting = highlightKey.getState(state)?.later ?? [];
  assert.ok(waiting.length > 0 && waiting.length < 70, `${waiting.length} blocks left for later`);
  const last = state.doc.lastChild;
  const lastStart = state.doc.content.size - (last?.nodeSize ?? 0);
  assert.ok(highlightKey.getState(state)?.set.find(lastStart, state.doc.content.size).length, "the block at the caret is highlighted");
  assert.equal(highlightKey.getState(state)?.set.find(0, 40).length, 0, "the first pasted block waits");
  let slices = 0;
  while (highlightPending(state)) {
    state = idleSlice(state);
    slices++;
  }
  assert.ok(slices >= 1);
  const fresh = EditorState.create({ doc: state.doc, plugins: [richPlugin()] });
  assert.deepEqual(shownHighlight(state), shownHighlight(fresh));
});
