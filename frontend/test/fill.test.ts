// A long document's fill (editors/mdsource/fill.ts): while the view shows the first blocks only, every change
// keeps its document a prefix of the text's blocks (the same nodes), so the fill appends exactly the rest.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { Fragment, type Node } from "prosemirror-model";
import { shownPart } from "../src/editors/mdsource/fill";
import { SourceDoc } from "../src/editors/mdsource/sourcedoc";

const BLOCKS = 40;
const TEXT = Array.from({ length: BLOCKS }, (_, k) => (k % 4 === 3 ? `- item ${k}\n- more ${k}` : `## Head ${k}\n\nSome *text* ${k}.`)).join("\n\n") + "\n";

/** The view's document after a change of children `from..to` to `nodes` (what the editor does with `shownPart`). */
function replaced(view: Node, change: { from: number; to: number; nodes: Node[] }): Node {
  const children: Node[] = [];
  view.forEach((child) => children.push(child));
  children.splice(change.from, change.to - change.from, ...change.nodes);
  return view.type.create(null, Fragment.from(children));
}

function assertPrefix(view: Node, source: SourceDoc): void {
  assert.ok(view.childCount <= source.blockCount);
  for (let k = 0; k < view.childCount; k++) assert.equal(view.child(k), source.blockNode(k), `child ${k} is block ${k}`);
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
        const part = change && shownPart(change, view.childCount);
        if (part) view = replaced(view, part);
        assertPrefix(view, source);
      }
      // The fill appends the rest: the whole document, as the text parses.
      const rest: Node[] = [];
      for (let k = view.childCount; k < source.blockCount; k++) rest.push(source.blockNode(k));
      const whole = view.type.create(null, view.content.append(Fragment.from(rest)));
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
