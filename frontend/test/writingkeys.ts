// Random key sequences (writing.test.ts on generated Markdown, writing.corpus.test.ts on real files, two files so
// the two test processes share the work): after each key the view is true to the text, and the key changed only the
// blocks around the caret.
import fc from "fast-check";
import { blockIndex } from "../src/editors/mdsource/blocks";
import { KeyboardEditor, textPositions } from "./keyboard";
import * as lazy from "./lazyassert";
import { assertTrue } from "./writingview";

const KEYS = [
  ..."ab *_#-`[]>1.$~".split("").map((c) => `'${c}`),
  "Enter",
  "Enter",
  "Backspace",
  "Backspace",
  "Tab",
  "Shift-Tab",
  "Shift-Enter",
  "ArrowLeft",
  "ArrowRight",
  "Home",
  "End",
  "Mod-z",
  "Ctrl-Digit2",
  "Ctrl-Digit0",
  "Ctrl-Shift-Digit8",
  "Ctrl-Shift-Digit7",
  "Ctrl-Shift-Digit9",
  "Ctrl-Alt-KeyQ",
  "Ctrl-Alt-KeyC",
  "Mod-Enter",
];

const PIECES = [
  "# Title",
  "A paragraph with *emphasis*, __strong__, `code`, [[wiki]] and a [link](https://example.com \"t\").",
  "Line one  \nline two\\\nline three",
  "- one\n- two\n  - nested",
  "* star\n* items",
  "1. first\n2) other",
  "10. ten\n11. eleven",
  "1. one\n   1. sub\n   2. sub two\n2. two\n3. three",
  "> 1. quoted\n>    - nested\n> 2. two",
  "- [ ] task\n- [x] done",
  "> quote with **bold**\n> and more",
  "> - quoted\n> - list",
  "```python\nprint('x')\n```",
  "    indented code",
  "---",
  "| a | b |\n|:--|--:|\n| 1 | 2 |",
  "<details>\n<summary>More</summary>\n\nInside.\n\n</details>",
  "Math $a^2$ and \\$5 and snake_case_name.",
  "$$\nx = 1\n$$",
  "A footnote[^1] here.\n\n[^1]: The note.",
  "[ref]: https://example.com/ref",
  "- a\n  - b\n  - c",
  "- a\n  1. b\n  2. c\n- d",
  "> - a\n> - b\n> - c",
  "> - a\n>   * b",
  "- ```\n  code\n  ```",
  "> $$\n> x\n> $$",
  "Text &amp; entities, \\* escapes and <b>html</b>.",
];

export const markdown = fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 6 }).map((pieces) => `${pieces.join("\n\n")}\n`);
export const keys = fc.array(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 14 });


/**
 * After each key: the view is what the text reads, and the key changed only the blocks around the caret (the
 * caret's top-level block and its neighbours, which a join or a split reaches); an undo may change where the
 * undone edit was.
 */
export function checkKeys(text: string, start: number, sequence: string[]): void {
  const editor = new KeyboardEditor(text);
  const positions = textPositions(editor.state.doc);
  if (positions.length === 0) return;
  editor.cursorAt(positions[start % positions.length]);
  for (const key of sequence) {
    const before = editor.text;
    const blocks = (editor.source as unknown as { blocks: { from: number; to: number }[] }).blocks;
    const index = blockIndex(editor.state.selection.$head);
    const region = [blocks[Math.max(0, index - 1)]?.from ?? 0, blocks[Math.min(blocks.length - 1, index + 1)]?.to ?? before.length];
    if (key.startsWith("'")) editor.type(key.slice(1));
    else editor.press(key);
    const label = () => `${JSON.stringify(text)} keys ${JSON.stringify(sequence)} at ${key}`;
    assertTrue(editor, label);
    const after = editor.text;
    if (after === before || key === "Mod-z") continue;
    let from = 0;
    while (from < before.length && from < after.length && before[from] === after[from]) from++;
    let end = 0;
    while (end < before.length - from && end < after.length - from && before[before.length - 1 - end] === after[after.length - 1 - end]) end++;
    const to = before.length - end;
    lazy.ok(from >= Math.min(region[0], before.length) - 2 && to <= region[1] + 2, () => `${label()}: the change ${from}..${to} reaches past the blocks around the caret ${region[0]}..${region[1]}`);
  }
}

export const seed = process.env.WRITING_SEED === "random" ? undefined : Number(process.env.WRITING_SEED ?? 20261202);
export const runs = Number(process.env.WRITING_RUNS ?? 250);
