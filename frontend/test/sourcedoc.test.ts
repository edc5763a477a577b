// Property tests of the WYSIWYG splice (run with `npm test`): random Markdown, random edit sequences
// in the view, and after each edit: the text outside the splice is byte-identical, a change inside
// one block touches only that block's bytes, and the text parses back to what the view shows.
// The same property on real files is sourcedoc.corpus.test.ts (its own file: the two test processes share the work).
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { EditorState } from "prosemirror-state";
import { blockAt } from "../src/editors/mdsource/blocks";
import { schema } from "../src/editors/mdsource/schema";
import { sourceTransaction } from "../src/editors/mdsource/sourceedit";
import { sameShown, SourceDoc, type Span } from "../src/editors/mdsource/sourcedoc";
import { corpus, noCorpus } from "./corpus";
import { check, edits, markdown, seed } from "./splice";

test("random edits of generated Markdown keep every untouched byte", () => {
  fc.assert(fc.property(markdown, edits, check), { numRuns: Number(process.env.SPLICE_RUNS ?? 300), seed });
});

test("a view that is not edited changes no byte of any corpus file", { skip: noCorpus }, () => {
  for (const text of corpus) {
    const source = new SourceDoc(text);
    const state = EditorState.create({ doc: source.doc() });
    assert.equal(source.personEdit(state.doc, state.doc), null);
    assert.equal(source.text, text);
  }
});

test("a rejected candidate's whole parse leaves the text's reference definitions alone", () => {
  // `$$` typed at a line's start is tried unescaped first: a math block to the end, no definition left. The
  // escaped splice is the one taken; `[ref]` typed after it must still be written as the view shows it.
  const source = new SourceDoc('Setext\n---\n\n# Title\n\n[ref]: https://example.com/ref "Ref"\n\n# Title\n');
  let view = source.doc();
  for (const typed of ["$$", "[ref]"]) {
    const state = EditorState.create({ doc: view });
    const next = state.apply(state.tr.insertText(typed, 2));
    const change = source.personEdit(view, next.doc);
    view = change?.adopt ? source.doc() : next.doc;
  }
  assert.ok(sameShown(blockAt(view, 0), blockAt(new SourceDoc(source.text).doc(), 0)), source.text);
});

test("a projection's parse serves the check of its own splice on its own text only", () => {
  const text = "first para\n\nsecond para\n\nthird para\n";
  const heading: Span = { from: 0, to: 0, insert: "# " };
  // Projected, dispatched: the check takes the projection's parse, and the text and the view agree.
  const source = new SourceDoc(text);
  const state = EditorState.create({ doc: source.doc() });
  const tr = sourceTransaction(state, source, heading);
  assert.ok(tr);
  assert.ok(source.personEdit(state.doc, tr.doc, heading));
  assert.equal(source.text, "# first para\n\nsecond para\n\nthird para\n");
  assert.ok(source.doc().eq(new SourceDoc(source.text).doc()));
  // Projected, not dispatched, then an agent's edit that the view does not show (a trailing space): the same
  // splice later is parsed on the text it then has, or the blocks' places would be one byte off.
  const other = new SourceDoc(text);
  const view = other.doc();
  assert.ok(sourceTransaction(EditorState.create({ doc: view }), other, heading));
  other.remoteEdit([{ from: 10, to: 10, insert: " " }]);
  const titled = EditorState.create({ doc: view }).tr.setBlockType(2, 2, schema.nodes.heading, { level: 1, markup: "#" }).doc;
  other.personEdit(view, titled, heading);
  const typed = EditorState.create({ doc: titled }).apply(EditorState.create({ doc: titled }).tr.insertText("X", 25));
  other.personEdit(titled, typed.doc);
  assert.equal(other.text, "# first para \n\nsecond paraX\n\nthird para\n");
});
