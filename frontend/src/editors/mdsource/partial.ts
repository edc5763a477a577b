// Opening a long document: the first screens are parsed first, the rest in parts after the first frame
// (docs/wysiwyg-speed.md, "Opening"). `SourceDoc` holds the blocks of the text before a cut, and `PartialParse`
// parses the text after it, a part at a time.
//
// A cut is a line start where the parse of the text before it gives the first blocks of the whole text's parse
// and the parse of the text from it gives the rest (offsets shifted). CommonMark reads a text line by line,
// forward, so a line start is a cut when nothing open before it can take it in:
//
// - the line before it is blank: a paragraph, a table, an HTML block of kinds 6 and 7, a definition have ended;
// - the line itself starts at column 0 with no list marker and no `>`: every list item, quote, indented code
//   and footnote before it has ended too (a line after a blank one is never a lazy continuation);
// - no fence, `$$` block or HTML block of kinds 1 to 5 (a comment, `<script>`, ...) runs across it: those go on
//   across blank lines until their end. A scan of the lines guesses it; the parse of the part tells for sure (its
//   last block then runs to its end, unclosed), and the part is parsed again up to a later cut.
//
// Front matter is read only from the document's first line up to its closing line: the first part reaches past
// that line. Reference definitions (`[x]: url`) anywhere resolve `[x]` everywhere: the parts are parsed with the
// definitions a scan of the whole text finds (`guessReferences`), the parse records the ones it really meets,
// and once all is parsed the blocks whose links read otherwise with the real ones are parsed again
// (`SourceDoc.settleReferences`).
import type { Text } from "@codemirror/state";
import { type Block, type Env, markdown, parseBlocks } from "./build";
import { schema } from "./schema";

/** A part parsed in one go is at least this long (characters); the parse of a part is one piece of work. */
export const PART_CHARS = 8_000;

/** HTML blocks that run across blank lines until their end (CommonMark kinds 1 to 5): start, end. */
const HTML_RUNS: readonly [RegExp, RegExp][] = [
  [/^ {0,3}<(script|pre|style|textarea)(?=[\s>]|$)/i, /<\/(script|pre|style|textarea)>/i],
  [/^ {0,3}<!--/, /-->/],
  [/^ {0,3}<\?/, /\?>/],
  [/^ {0,3}<!\[CDATA\[/, /\]\]>/],
  [/^ {0,3}<![A-Za-z]/, />/],
];

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const CLOSING_FENCE = /^ {0,3}(`+|~+)[ \t\r]*$/;
const BLANK = /^[ \t\r]*$/;
/** A line that may follow a cut: not blank, at column 0, no list marker or quote (the first character tells). */
const CUT_LINE = /^[^ \t\r>\-+*0-9]/;

/** Whether `line` closes a fence opened by `fence` (its markup: "```", "~~~~"). */
function closesFence(line: string, fence: string): boolean {
  const m = CLOSING_FENCE.exec(line);
  return m !== null && m[1][0] === fence[0] && m[1].length >= fence.length;
}

/** What a line opens that runs across blank lines: the test of the line that closes it, or null. */
function opens(line: string): ((line: string) => boolean) | null {
  const fence = FENCE.exec(line);
  if (fence && !(fence[1][0] === "`" && fence[2].includes("`"))) return (next) => closesFence(next, fence[1]);
  for (const [start, end] of HTML_RUNS) {
    const m = start.exec(line);
    if (m) return end.test(line.slice(m[0].length)) ? null : (next) => end.test(next);
  }
  if (/^ {0,3}\$\$/.test(line)) {
    const trimmed = line.trim();
    return trimmed.length >= 4 && trimmed.endsWith("$$") ? null : (next) => next.trimEnd().endsWith("$$");
  }
  return null;
}

/**
 * The first line start at or after `min` in `src` (which starts at a cut, or at the document's start) that
 * looks like a cut (see the module comment), or -1. A guess: the parse up to it tells (`runsOpen`).
 */
export function nextCut(src: string, min: number): number {
  let open: ((line: string) => boolean) | null = null;
  let blank = false;
  for (let at = 0; at < src.length; ) {
    let end = src.indexOf("\n", at);
    if (end < 0) end = src.length;
    const line = src.slice(at, end);
    if (open) {
      if (open(line)) open = null;
      blank = false;
    } else {
      if (at >= min && blank && CUT_LINE.test(line)) return at;
      open = opens(line);
      blank = open === null && BLANK.test(line);
    }
    at = end + 1;
  }
  return -1;
}

/**
 * Whether the last block of a part (`source`: its text) runs open to the part's end: a fence, `$$` block or
 * HTML block of kinds 1 to 5 never closed, which in the whole text would go on past the cut (or, at the end of a
 * list, would hold the blank lines before it).
 */
export function runsOpen(block: Block, source: string): boolean {
  const node = block.node;
  let inner = node;
  while (!inner.isTextblock && inner.lastChild) inner = inner.lastChild;
  if (inner !== node) {
    // The last thing in a list (or a quote) at the part's end: an unclosed fence there takes the blank lines before
    // the cut in the whole text, and not at the part's end. Whether it is closed is not worth telling: the part
    // goes on to a later cut.
    if (inner.type === schema.nodes.code_block) return String(inner.attrs.fence) !== "";
    return inner.type === schema.nodes.raw_block && (inner.attrs.kind === "html" || inner.attrs.kind === "math");
  }
  const lines = source.split("\n");
  while (lines.length > 1 && BLANK.test(lines[lines.length - 1])) lines.pop();
  const first = lines[0];
  const last = lines[lines.length - 1];
  if (node.type === schema.nodes.code_block) {
    const fence = String(node.attrs.fence);
    return fence !== "" && (lines.length < 2 || !closesFence(last, fence));
  }
  if (node.type !== schema.nodes.raw_block) return false;
  if (node.attrs.kind === "math") {
    const closed = lines.length > 1 ? last.trimEnd().endsWith("$$") : first.trim().length >= 4 && first.trimEnd().endsWith("$$");
    return !closed;
  }
  if (node.attrs.kind !== "html") return false;
  for (const [start, end] of HTML_RUNS) {
    const m = start.exec(first);
    if (m) return !(lines.length > 1 ? end.test(last) : end.test(first.slice(m[0].length)));
  }
  return false;
}

/** Where the front matter of `text` ends (after its closing line), or 0: none. The first part reaches past it. */
export function frontMatterEnd(text: string, start: number): number {
  if (!/^---[ \t]*\r?(\n|$)/.test(text.slice(start, start + 8))) return 0;
  const closing = /\n[ \t]*(---|\.\.\.)[ \t]*\r?(\n|$)/g;
  closing.lastIndex = start;
  const m = closing.exec(text);
  return m ? m.index + m[0].length : 0;
}

/** A line that may start a reference definition (one not in a quote or a list item), read from its start. */
const DEFINITION = /^ {0,3}\[(?!\^)(?:[^[\]\\\n]|\\.)+\]:/;
const BLANK_LINE = /\n[ \t\r]*(\n|$)/g;

/**
 * The reference definitions of the whole text, guessed by a scan of its lines (each candidate up to the blank
 * line after it, parsed at block level): `[x]: url` in a fence, or continuing a paragraph, is taken too, and one
 * in a quote or a list is missed. The parse of the parts records the real ones; `settleReferences` mends.
 */
export function guessReferences(text: string): Record<string, unknown> {
  const parts: string[] = [];
  let covered = 0;
  // Every `]:` (far fewer than line starts: a scan of 5 MB takes a few ms), then its line read from its start.
  for (let at = text.indexOf("]:"); at >= 0; at = text.indexOf("]:", at + 2)) {
    const line = text.lastIndexOf("\n", at) + 1;
    if (line < covered || !DEFINITION.test(text.slice(line, at + 2))) continue;
    BLANK_LINE.lastIndex = line;
    const blank = BLANK_LINE.exec(text);
    covered = blank ? blank.index + 1 : text.length;
    parts.push(text.slice(line, covered));
  }
  return referencesOf(parts);
}

/** The references the definitions' sources define (the first definition of a label wins, as in a document). */
export function referencesOf(definitions: readonly string[]): Record<string, unknown> {
  if (definitions.length === 0) return {};
  const env: Env = {};
  const md = markdown();
  md.block.parse(definitions.join("\n\n"), md, env, []);
  return env.references ?? {};
}

/** The labels two reference maps define otherwise (or one only). */
export function differingLabels(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const labels = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...labels].filter((label) => JSON.stringify(a[label]) !== JSON.stringify(b[label]));
}

/**
 * Whether a block's source may hold a link to one of `labels` (normalized as markdown-it does: upper case,
 * spaces collapsed): it has a `]` and the longest word of one of them. Over-inclusive, never missing one.
 */
export function mayLink(source: string, labels: readonly string[]): boolean {
  if (!source.includes("]")) return false;
  const folded = source.toLowerCase().toUpperCase();
  return labels.some((label) => folded.includes(label.split(" ").reduce((a, b) => (b.length > a.length ? b : a), "")));
}

/** The text after the cut, parsed a part at a time (in document order). */
export class PartialParse {
  /** Where the text not parsed yet starts (a cut). */
  at: number;
  done = false;
  /** The env the parts are parsed with: the references guessed, and those met (`definitions`: their sources). */
  readonly env: Env;
  readonly definitions: string[] = [];
  /** The references the scan guessed (the parts add those they meet, for the parts after them). */
  readonly guess: Record<string, unknown>;
  private readonly documentStart: number;
  private least: number;

  constructor(
    text: string,
    start: number,
    first: number,
    /** The least length of a later part. */
    private readonly part = PART_CHARS,
  ) {
    this.at = start;
    this.documentStart = start;
    this.least = Math.max(first, frontMatterEnd(text, start) - start);
    this.guess = guessReferences(text);
    this.env = { documentStart: true, references: { ...this.guess } };
  }

  /** The text after the span `from..to` (replaced by `inserted` characters), which lies before the cut. */
  moved(from: number, to: number, inserted: number): void {
    if (!this.done && to <= this.at) this.at += inserted - (to - from);
  }

  /** The blocks of the next part of `text` (at least `part`, or the first part's length, long). */
  next(text: Text): Block[] {
    let min = this.least;
    this.least = this.part;
    for (;;) {
      const ahead = text.sliceString(this.at, this.at + 2 * min + this.part + 256);
      const found = nextCut(ahead, min);
      const last = found < 0 && this.at + ahead.length >= text.length;
      if (found < 0 && !last) {
        min = ahead.length; // no cut in it: a longer one
        continue;
      }
      const src = last ? ahead : ahead.slice(0, found);
      const definitions: string[] = [];
      const references = { ...this.env.references };
      const env: Env = { references, definitions, documentStart: this.at === this.documentStart };
      const { blocks } = parseBlocks(src, this.at, env);
      const end = blocks[blocks.length - 1];
      if (!last && end && runsOpen(end, text.sliceString(end.from, end.to))) {
        // Something open runs across the cut: the part goes on to a later cut.
        min = Math.max(found + 1, 2 * min);
        continue;
      }
      this.env.references = env.references ?? references;
      this.definitions.push(...definitions);
      this.at += src.length;
      this.done = last;
      return blocks;
    }
  }
}

/**
 * The blocks whose links may read otherwise with `references` (the real definitions) than with the guessed ones
 * they were parsed with (`labels`: the labels the two define otherwise), parsed again; they replace their entries
 * of `blocks`. Answers the indices of the blocks that changed. A block parses alone as in the text (its source is
 * whole lines, a cut before and after it for what matters here: its inline content); where it may not, the whole
 * text is parsed again.
 */
export function relink(blocks: Block[], text: Text, start: number, references: Record<string, unknown>, labels: readonly string[]): number[] {
  const changed: number[] = [];
  for (let k = 0; k < blocks.length; k++) {
    const block = blocks[k];
    const source = text.sliceString(block.from, block.to);
    if (!mayLink(source, labels)) continue;
    // A block that ends in something open (at the end of a list: a fence that holds the blank lines after it) does
    // not parse alone as in the text.
    if (runsOpen(block, source)) return union(changed, relinkWhole(blocks, text, start));
    const parsed = parseBlocks(source, block.from, { references: { ...references }, documentStart: block.from <= start }).blocks;
    const alone = parsed.length === 1 && parsed[0].from === block.from && parsed[0].to === block.to && parsed[0].node.type === block.node.type ? parsed[0] : null;
    if (!alone) return union(changed, relinkWhole(blocks, text, start));
    if (alone.node.eq(block.node)) continue;
    blocks[k] = alone;
    changed.push(k);
  }
  return changed;
}

function union(a: number[], b: number[]): number[] {
  return [...new Set([...a, ...b])].sort((x, y) => x - y);
}

function relinkWhole(blocks: Block[], text: Text, start: number): number[] {
  const whole = parseBlocks(text.sliceString(start), start, { documentStart: true }).blocks;
  const changed: number[] = [];
  const same = whole.length === blocks.length;
  for (let k = 0; k < Math.max(whole.length, blocks.length); k++) {
    if (same && whole[k].node.eq(blocks[k].node) && whole[k].from === blocks[k].from && whole[k].to === blocks[k].to) continue;
    changed.push(k);
  }
  const renewed = new Set(changed);
  const next = same ? blocks.map((b, k) => (renewed.has(k) ? whole[k] : b)) : whole;
  blocks.length = 0;
  for (const block of next) blocks.push(block);
  return changed;
}
