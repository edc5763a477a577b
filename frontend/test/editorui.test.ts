// Unit tests of the editor's pure helpers (issue 18): fuzzy matching, headings, counts, image addresses,
// the task and find scans of the view, and the TeX of math sources.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { headingsOf } from "../src/editors/headings";
import { fuzzyScore } from "../src/shared/fuzzy";
import { imageAddress } from "../src/shared/renderctx";
import { counts, readingTime } from "../src/page/statusbar";
import { findMatches } from "../src/editors/mdsource/find";
import { SourceDoc } from "../src/editors/mdsource/sourcedoc";
import { listChange } from "../src/panels/outline";

test("fuzzy: the characters in order match, a name's start and runs rank first", () => {
  assert.equal(fuzzyScore("xyz", "notes/c.md"), null);
  assert.ok(fuzzyScore("ntc", "notes/c.md") !== null);
  const files = ["docs/readme.md", "notes/todo.md", "archive/old-todo-list.md", "todo.md"];
  const ranked = [...files].sort((a, b) => (fuzzyScore("todo", b) ?? -1e9) - (fuzzyScore("todo", a) ?? -1e9));
  assert.deepEqual(ranked.slice(0, 2), ["todo.md", "notes/todo.md"]);
  assert.equal(fuzzyScore("", "anything"), 0);
  fc.assert(
    fc.property(fc.string(), fc.string(), (a, b) => {
      // Any text matches itself and everything it is a part of.
      assert.ok(fuzzyScore(a, a) !== null);
      assert.ok(fuzzyScore(a, b + a + b) !== null);
    }),
  );
});

test("headings: ATX and setext, not in fences or front matter, markup stripped", () => {
  const text = "---\ntitle: x\n# not\n---\n# One *big*\n\ntext\n\n```\n# code\n```\n\nTwo\n---\n\n- item\n---\n\n### Three ###\n#seven\n";
  assert.deepEqual(headingsOf(text), [
    { level: 1, text: "One big", at: 5 },
    { level: 2, text: "Two", at: 13 },
    { level: 3, text: "Three", at: 19 },
  ]);
  assert.deepEqual(headingsOf("~~~\n# a\n~~~~\n# b\n"), [{ level: 1, text: "b", at: 4 }]);
});

test("counts: words (a CJK character is one), characters without line breaks, reading time", () => {
  assert.deepEqual(counts("Hello, world!\nit's 2 o'clock"), { words: 5, characters: 27 });
  assert.deepEqual(counts("中文字 and más"), { words: 5, characters: 11 });
  assert.deepEqual(counts(""), { words: 0, characters: 0 });
  assert.equal(readingTime(0), "no reading time");
  assert.equal(readingTime(10), "1 min read");
  assert.equal(readingTime(2300), "10 min read");
});

test("image addresses: relative to the document, through the window's /files/, only https from the web", () => {
  const ctx = { window: "main", docPath: "/ws/notes/a.md" };
  assert.equal(imageAddress("pic.png", ctx), "/files/main/ws/notes/pic.png");
  assert.equal(imageAddress("../img/my%20pic.png", ctx), "/files/main/ws/img/my%20pic.png");
  assert.equal(imageAddress("./a/./b.png?x=1#y", ctx), "/files/main/ws/notes/a/b.png");
  assert.equal(imageAddress("/abs/x.png", ctx), "/files/main/abs/x.png");
  assert.equal(imageAddress("file:///abs/x.png", ctx), "/files/main/abs/x.png");
  assert.equal(imageAddress("https://example.org/x.png", ctx), "https://example.org/x.png");
  assert.equal(imageAddress("http://example.org/x.png", ctx), null);
  assert.equal(imageAddress("javascript:alert(1)", ctx), null);
  assert.equal(imageAddress("x.png", { window: "main", docPath: null }), null);
  assert.equal(imageAddress("", ctx), null);
  assert.equal(imageAddress("../../../../etc/passwd.png", ctx), "/files/main/etc/passwd.png"); // the server's scope refuses it
  assert.equal(imageAddress("a.png", { window: "doc 1", docPath: "/w/x.md" }), "/files/doc%201/w/a.png");
});

test("find: matches inside textblocks map to view positions that hold the query", () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom("cat", "Cat", "dog", " ", "*cat*", "`cat`", "\n\n", "# ", "- "), { minLength: 1, maxLength: 20 }),
      fc.boolean(),
      (parts, matchCase) => {
        const doc = new SourceDoc(parts.join("")).doc();
        for (const m of findMatches(doc, "cat", matchCase)) {
          const found = doc.textBetween(m.from, m.to);
          assert.equal(matchCase ? found : found.toLowerCase(), "cat");
        }
      },
    ),
  );
});

test("outline: the items an update redraws turn the old list into the new one, the common start and end kept", () => {
  assert.equal(listChange(["1 a", "2 b"], ["1 a", "2 b"]), null);
  assert.deepEqual(listChange(["1 a"], ["1 a", "2 b", "2 c"]), { start: 1, removed: 0, added: 2 }); // the fill appends
  assert.deepEqual(listChange(["1 a", "2 b", "2 c"], ["1 a", "2 bx", "2 c"]), { start: 1, removed: 1, added: 1 });
  fc.assert(
    fc.property(fc.array(fc.constantFrom("a", "b", "c")), fc.array(fc.constantFrom("a", "b", "c")), (before, after) => {
      const change = listChange(before, after);
      if (change === null) return assert.deepEqual(before, after);
      const { start, removed, added } = change;
      assert.ok(start >= 0 && removed >= 0 && added >= 0 && removed + added > 0);
      const made = [...before.slice(0, start), ...after.slice(start, start + added), ...before.slice(start + removed)];
      assert.deepEqual(made, after);
    }),
  );
});
