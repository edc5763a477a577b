// Property tests of the WYSIWYG splice (run with `npm test`): random Markdown, random edit sequences
// in the view, and after each edit: the text outside the splice is byte-identical, a change inside
// one block touches only that block's bytes, and the text parses back to what the view shows.
// The same property on real files is sourcedoc.corpus.test.ts (its own file: the two test processes share the work).
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { EditorState } from "prosemirror-state";
import { blockAt } from "../src/editors/mdsource/blocks";
import { sameShown, SourceDoc } from "../src/editors/mdsource/sourcedoc";
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
