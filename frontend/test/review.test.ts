// Unit tests of the review's pure parts (issue 17): placing the app's change ranges (code points of its
// text) in the text an editor shows, in source mode (UTF-16, unsent keystrokes mapped in) and in
// WYSIWYG (view positions through the source-keeping parse); the History panel's word diff.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ChangeSet } from "@codemirror/state";
import fc from "fast-check";
import { EditorState } from "prosemirror-state";
import { elided, wordCounts, wordDiff } from "../src/panels/history/historydiff";
import { SourceDoc } from "../src/editors/mdsource/sourcedoc";
import { textOf } from "../src/shared/merge";
import { barLabel, countLabel, noticeText, placeChanges, type ReviewChange, settleAt, stepAmong } from "../src/editors/reviewmodel";

function change(id: string, from: number, to: number, old = ""): ReviewChange {
  return { id, revision: "r1", principal: "alice", agent: "alice", tool: "document.edit", from, to, old, at: "2026-12-01T00:00:00Z" };
}

const none = (length: number): ChangeSet => ChangeSet.empty(length);

test("source mode: code points are UTF-16 offsets where the text has no astral characters", () => {
  const text = textOf("one two three\nfour");
  const marks = placeChanges(text, none(text.length), [change("b", 14, 18, "4"), change("a", 4, 7, "2")]);
  assert.deepEqual(
    marks.map((m) => [m.id, m.from, m.to, m.old]),
    [
      ["a", 4, 7, "2"],
      ["b", 14, 18, "4"],
    ],
  );
  assert.equal(marks[0].agent, "alice");
  assert.equal(marks[0].tool, "document.edit");
});

test("source mode: astral characters take two UTF-16 units; a deletion is an empty range; old CRLF shows as LF", () => {
  const shown = "😀 cat 😀 dog";
  const text = textOf(shown);
  // code points: 😀=0, " "=1, "cat"=2..5, " "=5, 😀=6, " "=7, "dog"=8..11
  const marks = placeChanges(text, none(text.length), [change("a", 2, 5), change("b", 8, 8, "a\r\nb")]);
  assert.deepEqual(marks.map((m) => [m.from, m.to]), [
    [3, 6],
    [10, 10],
  ]);
  assert.equal(shown.slice(marks[0].from, marks[0].to), "cat");
  assert.equal(marks[1].old, "a\nb");
});

test("source mode: unsent keystrokes are mapped in; typing at a change's edge stays outside it, inside it is kept", () => {
  const text = textOf("alpha beta gamma");
  const unsent = ChangeSet.of(
    [
      { from: 0, insert: "X" }, // before every change: shifts them
      { from: 6, insert: "<" }, // at the start of "beta": outside
      { from: 8, insert: "e" }, // inside "beta"
      { from: 10, insert: ">" }, // at its end: outside
    ],
    text.length,
  );
  const shown = unsent.apply(text).toString();
  assert.equal(shown, "Xalpha <beeta> gamma");
  const [mark] = placeChanges(text, unsent, [change("a", 6, 10)]);
  assert.equal(shown.slice(mark.from, mark.to), "beeta");
  // A change the person deleted whole is an empty range where it was.
  const gone = ChangeSet.of([{ from: 6, to: 10 }], text.length);
  const [empty] = placeChanges(text, gone, [change("a", 6, 10, "b")]);
  assert.deepEqual([empty.from, empty.to], [6, 6]);
});

test("source mode: ranges past the text are clamped, overlapping ones kept apart, in order", () => {
  const text = textOf("short");
  const marks = placeChanges(text, none(text.length), [change("a", 2, 40), change("b", 3, 4), change("c", -5, 1)]);
  for (const m of marks) assert.ok(0 <= m.from && m.from <= m.to && m.to <= 5, JSON.stringify(m));
  for (let k = 1; k < marks.length; k++) assert.ok(marks[k - 1].to <= marks[k].from);
  assert.deepEqual(marks.map((m) => m.id), ["c", "a", "b"]);
});

test("the verdict buttons go before the line breaks an inserted text ends with, mapped through unsent keys", () => {
  const text = textOf("# Plan\n\nA new paragraph.\n\n## Later\n");
  const [word, para] = placeChanges(text, none(text.length), [change("p", 8, 26), change("w", 2, 6)]);
  assert.deepEqual([para.from, para.to, para.end], [8, 26, 24]); // "A new paragraph." ends at 24
  const gap = placeChanges(text, none(text.length), [change("g", 24, 26)])[0];
  assert.deepEqual([gap.from, gap.to, gap.end], [24, 26, 24]); // only breaks: at its start
  assert.deepEqual([word.from, word.to, word.end], [2, 6, 6]); // no break: at its end
  const unsent = ChangeSet.of([{ from: 0, insert: "X" }, { from: 24, insert: "!" }], text.length);
  const [shown] = placeChanges(text, unsent, [change("p", 8, 26)]);
  assert.deepEqual([shown.from, shown.to, shown.end], [9, 28, 25]); // typed right at the end stays after the buttons
  const crlf = textOf("a\r\nb\r\n\r\nc");
  assert.equal(placeChanges(crlf, none(crlf.length), [change("b", 3, 8)])[0].end, 4);
});

/** The view's text between the view positions of source range `from..to` (what the highlight covers). */
function shownBetween(source: string, from: number, to: number): string {
  const doc = new SourceDoc(source);
  const state = EditorState.create({ doc: doc.doc() });
  const a = doc.viewPosition(state.doc, from, 1);
  const b = doc.viewPosition(state.doc, to, -1);
  return state.doc.textBetween(a, Math.max(a, b), "\n");
}

function rangeOf(source: string, word: string, nth = 0): [number, number] {
  let at = -1;
  for (let k = 0; k <= nth; k++) at = source.indexOf(word, at + 1);
  assert.ok(at >= 0, `${word} in ${source}`);
  return [at, at + word.length];
}

test("WYSIWYG: a changed word in a paragraph, a list item, a table cell, a heading and a quote covers just that word", () => {
  const cases: [string, string, number][] = [
    ["A long paragraph with one changed word in the middle of it.\n", "changed", 0],
    ["# Title\n\n- one\n- two\n  - nested three\n", "two", 0],
    ["| a | b |\n|:--|--:|\n| one | two |\n", "two", 0],
    ["## A heading word\n\ntext\n", "heading", 0],
    ["> quote with word\n> and more\n", "more", 0],
    ["1. first\n2. second item\n", "item", 0],
    ["Text with *emphasis* and `code` here.\n", "here", 0],
    ["😀 astral before the word\n", "word", 0],
  ];
  for (const [source, word, nth] of cases) {
    const [from, to] = rangeOf(source, word, nth);
    assert.equal(shownBetween(source, from, to), word, source);
  }
});

test("WYSIWYG: markup that shows nothing maps to the text beside it", () => {
  const source = "Some *big* words.\n";
  // The range with its asterisks covers the shown word without them.
  assert.equal(shownBetween(source, source.indexOf("*big*"), source.indexOf("*big*") + 5), "big");
  // A whole new list item (marker and all) covers its text.
  const list = "- one\n- two\n- added item\n";
  assert.equal(shownBetween(list, list.indexOf("- added"), list.length - 1), "added item");
  // A new paragraph inserted with its blank line covers that paragraph.
  const paras = "First.\n\nInserted paragraph.\n\nLast.\n";
  assert.equal(shownBetween(paras, paras.indexOf("\n\nInserted"), paras.indexOf("\n\nLast")), "Inserted paragraph.");
});

test("WYSIWYG: view positions are valid and never go backwards as the offset grows (any Markdown)", () => {
  const piece = fc.constantFrom(
    "# Title",
    "A paragraph with *emphasis*, __strong__, `code` and a [link](https://example.com).",
    "- one\n- two\n  - nested",
    "1. first\n2) second",
    "> quote with **bold**\n> and more",
    "```python\nprint('x')\n```",
    "---",
    "| a | b |\n|:--|--:|\n| 1 | 2 |",
    "<details>\n<summary>More</summary>\n\nInside.\n\n</details>",
    "Math $a^2$ and \\$5.",
    "[ref]: https://example.com/ref",
    "Text with ~~strike~~ and 😀.",
  );
  fc.assert(
    fc.property(fc.array(piece, { minLength: 1, maxLength: 6 }), (pieces) => {
      const source = `${pieces.join("\n\n")}\n`;
      const doc = new SourceDoc(source);
      const view = EditorState.create({ doc: doc.doc() }).doc;
      for (const bias of [-1, 1] as const) {
        let last = 0;
        for (let offset = 0; offset <= source.length; offset++) {
          const pos = doc.viewPosition(view, offset, bias);
          assert.ok(pos >= 0 && pos <= view.content.size, `${offset} -> ${pos} of ${view.content.size}`);
          assert.ok(pos >= last, `offset ${offset} (bias ${bias}) went back from ${last} to ${pos} in ${JSON.stringify(source)}`);
          last = pos;
        }
      }
    }),
    { numRuns: 60 },
  );
});

test("word diff: a changed word in a long paragraph is one word removed and one added", () => {
  const before = "The quick brown fox jumps over the lazy dog.";
  const after = "The quick brown cat jumps over the lazy dog.";
  assert.deepEqual(wordDiff(before, after), [
    { kind: "same", text: "The quick brown " },
    { kind: "removed", text: "fox" },
    { kind: "added", text: "cat" },
    { kind: "same", text: " jumps over the lazy dog." },
  ]);
  assert.deepEqual(wordCounts(wordDiff(before, after)), { added: 1, removed: 1 });
  assert.deepEqual(wordCounts(wordDiff("a, b.", "a; b!")), { added: 0, removed: 0 }); // punctuation is no word
  assert.deepEqual(wordCounts(wordDiff("", "# Two words, 3 here.")), { added: 4, removed: 0 });
  assert.deepEqual(wordDiff("same", "same"), [{ kind: "same", text: "same" }]);
  assert.deepEqual(wordDiff("", ""), []);
  assert.deepEqual(wordDiff("", "new text"), [{ kind: "added", text: "new text" }]);
  // A word whose head matches is still diffed whole.
  assert.deepEqual(wordDiff("a cat b", "a car b").filter((p) => p.kind !== "same"), [
    { kind: "removed", text: "cat" },
    { kind: "added", text: "car" },
  ]);
});

test("word diff: the parts give back both texts (any texts)", () => {
  const words = fc.array(fc.constantFrom("a", "b", "cat", " ", "\n", "é", "😀", ".", "the"), { maxLength: 30 }).map((w) => w.join(""));
  fc.assert(
    fc.property(words, words, (before, after) => {
      const parts = wordDiff(before, after);
      assert.equal(parts.filter((p) => p.kind !== "added").map((p) => p.text).join(""), before);
      assert.equal(parts.filter((p) => p.kind !== "removed").map((p) => p.text).join(""), after);
      for (let k = 1; k < parts.length; k++) assert.notEqual(parts[k].kind, parts[k - 1].kind);
    }),
  );
});

test("word diff: long unchanged runs are cut to their context beside a change", () => {
  const same = "x".repeat(500);
  const shown = elided(wordDiff(`${same} old ${same}`, `${same} new ${same}`), 10);
  assert.deepEqual(shown.map((p) => p.kind), ["same", "removed", "added", "same"]);
  assert.equal(shown[0].text, `… ${"x".repeat(9)} `);
  assert.equal(shown[3].text, ` ${"x".repeat(9)} …`);
});

test("review bar texts and stepping through changes", () => {
  assert.equal(countLabel(1), "1 change");
  assert.equal(countLabel(3), "3 changes");
  assert.equal(noticeText({ principal: "alice", tool: "document.edit", count: 1 }), "alice made 1 change with document.edit: review it below.");
  assert.equal(noticeText({ principal: "bob", tool: "workflow.apply_patch", count: 2 }), "bob made 2 changes with workflow.apply_patch: review them below.");
  const four = [
    { id: "a", from: 2 },
    { id: "b", from: 10 },
    { id: "c", from: 20 },
    { id: "d", from: 30 },
  ];
  assert.equal(stepAmong([], null, 1), -1);
  assert.equal(stepAmong(four, null, 1), 0);
  assert.equal(stepAmong(four, null, -1), 3);
  assert.equal(stepAmong(four, { id: "b", from: 10 }, 1), 2);
  assert.equal(stepAmong(four, { id: "d", from: 30 }, 1), 0); // around to the first
  assert.equal(stepAmong(four, { id: "a", from: 2 }, -1), 3);
  // "b" accepted: next is the change after where it was ("c"), previous the one before it ("a").
  const left = four.filter((c) => c.id !== "b");
  assert.equal(stepAmong(left, { id: "b", from: 10 }, 1), 1);
  assert.equal(stepAmong(left, { id: "b", from: 10 }, -1), 0);
  assert.equal(stepAmong(left, { id: "z", from: 40 }, 1), 0); // nothing after it: around
  assert.equal(stepAmong(left, { id: "z", from: 1 }, -1), 2); // nothing before it: around
  assert.equal(settleAt(left, { id: "b", from: 10 }), 1);
  assert.equal(settleAt(left, { id: "z", from: 99 }), 2);
  assert.equal(settleAt([], { id: "z", from: 1 }), -1);
  assert.equal(barLabel(4, 1), "2 of 4");
  assert.equal(barLabel(4, -1), "4 changes");
  assert.equal(barLabel(1, -1), "1 change");
});

test("an added or removed line in History is that whole line where an equal diff says so", () => {
  const before = "- one item\n- two item\n";
  const after = "- one item\n- new item\n- two item\n";
  assert.deepEqual(wordDiff(before, after), [
    { kind: "same", text: "- one item\n" },
    { kind: "added", text: "- new item\n" },
    { kind: "same", text: "- two item\n" },
  ]);
  assert.deepEqual(wordDiff(after, before), [
    { kind: "same", text: "- one item\n" },
    { kind: "removed", text: "- new item\n" },
    { kind: "same", text: "- two item\n" },
  ]);
  // Where the words are not a line, they stay where the diff put them.
  assert.deepEqual(wordDiff("The step is slow.", "The step is very slow."), [
    { kind: "same", text: "The step is " },
    { kind: "added", text: "very " },
    { kind: "same", text: "slow." },
  ]);
});

test("sliding keeps the texts of History's diff", () => {
  const text = fc.array(fc.constantFrom("a", "b", " ", "\n", "-"), { maxLength: 30 }).map((chars) => chars.join(""));
  fc.assert(
    fc.property(text, text, (before, after) => {
      const parts = wordDiff(before, after);
      assert.equal(parts.filter((p) => p.kind !== "added").map((p) => p.text).join(""), before);
      assert.equal(parts.filter((p) => p.kind !== "removed").map((p) => p.text).join(""), after);
      assert.ok(parts.every((p) => p.text !== ""));
    }),
  );
});
