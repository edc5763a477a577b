// Splices that keep what a change in a textblock would otherwise undo, tried after the change spliced straight into
// the source (`directSplices` in sourcedoc.ts) and before the textblock is written anew:
//
// - A shortcut or collapsed reference link (`[ref]`, `[ref][]`) names its definition by its text: when the text
//   changes, the link names its label (`[rQef][ref]`), so it still resolves.
// - An underscore delimiter right next to a typed letter is intraword (`(Q__foo__)` is no strong): the emphasis
//   takes asterisks (`(Q**foo**)`), which CommonMark reads inside a word.
//
// Each is one splice covering the change and the bytes it keeps; the engine checks it like every other.
import type { Mark, Node } from "prosemirror-model";
import { columnAfter, type Segment } from "./build";
import type { Span } from "./sourcedoc";

type Slice = (from: number, to: number) => string;

/** The runs `[from, to)` of content positions of `node` that carry `mark`. */
function runsOf(node: Node, mark: Mark): [number, number][] {
  const runs: [number, number][] = [];
  node.forEach((child, offset) => {
    if (!mark.isInSet(child.marks)) return;
    const last = runs[runs.length - 1];
    if (last && last[1] === offset) last[1] = offset + child.nodeSize;
    else runs.push([offset, offset + child.nodeSize]);
  });
  return runs;
}

/** A reference link named by its text (`[ref]`, `[ref][]`) at content position `at` of `node`, or null. */
function namedByText(node: Node, at: number): Mark | null {
  const near = [node.childAfter(at).node, at > 0 ? node.childBefore(at).node : null];
  for (const child of near) {
    const link = child?.marks.find((m) => m.type.name === "link");
    if (link && (link.attrs.tail === "" || link.attrs.tail === "[]") && link.attrs.label !== null) return link;
  }
  return null;
}

/**
 * The direct splices of a change inside a reference link named by its text, with the link's label written after
 * its text (`[ref]` → `[rQef][ref]`, `[ref][]` → `[rQef][ref]`).
 */
export function labelSplices(old: Node, fresh: Node, segments: readonly Segment[], base: number, direct: readonly Span[], slice: Slice): Span[] {
  const start = old.content.findDiffStart(fresh.content);
  if (start === null || direct.length === 0) return [];
  const link = namedByText(old, start) ?? namedByText(fresh, start);
  if (!link) return [];
  const run = runsOf(old, link).find(([from, to]) => from <= start && start <= to);
  if (!run) return [];
  const close = segments.find((s) => s.pm === run[1] && s.pmEnd === s.pm && s.src >= 0 && /^\](?:\[\])?$/.test(slice(base + s.src, base + s.srcEnd)));
  const open = [...segments].reverse().find((s) => s.pm === run[0] && s.pmEnd === s.pm && s.src >= 0 && slice(base + s.src, base + s.srcEnd) === "[");
  if (!close || !open) return [];
  const label = `][${String(link.attrs.label)}]`;
  return direct
    .filter((d) => d.from >= base + open.srcEnd && d.to <= base + close.src)
    .map((d) => ({ from: d.from, to: base + close.srcEnd, insert: d.insert + slice(d.to, base + close.src) + label }));
}

function sameMarks(a: readonly Mark[], b: readonly Mark[]): boolean {
  return a.length === b.length && a.every((m, i) => m.eq(b[i]));
}

const WORD = /[\p{L}\p{N}]/u;

/** A run of underscore delimiters in the source (markdown-it gives each delimiter character of `__` its token). */
interface Run {
  src: number;
  srcEnd: number;
  text: string;
  /** The marks outside it: before an opening run, after a closing one. */
  before: readonly Mark[];
  after: readonly Mark[];
}

function underscoreRuns(segments: readonly Segment[], slice: Slice, base: number): Run[] {
  const runs: Run[] = [];
  let last: Segment | null = null;
  for (const s of segments) {
    const text = s.pm === s.pmEnd && s.src >= 0 ? slice(base + s.src, base + s.srcEnd) : "";
    const run = runs[runs.length - 1];
    if (!/^_+$/.test(text)) last = null;
    else if (run && last && last.pm === s.pm && last.srcEnd === s.src) {
      run.srcEnd = s.srcEnd;
      run.text += text;
      run.after = s.marks;
      last = s;
    } else {
      runs.push({ src: s.src, srcEnd: s.srcEnd, text, before: s.marks, after: s.marks });
      last = s;
    }
  }
  return runs;
}

/**
 * The direct splices that put a letter or digit right next to an underscore delimiter (`_(Q__foo__)_`, or a
 * deletion that brings one there: `_foo_ b` less its space), with that emphasis's delimiters (both of them) written
 * as asterisks: `_(Q**foo**)_`, `*foo*b`.
 */
export function delimiterSplices(segments: readonly Segment[], base: number, direct: readonly Span[], slice: Slice): Span[] {
  const runs = underscoreRuns(segments, slice, base);
  const spans: Span[] = [];
  for (const d of direct) {
    let pair: [Run, Run] | null = null;
    // The characters next to the splice once it is made (a deletion brings the text's own together).
    const left = d.insert === "" ? slice(d.from - 1, d.from) : d.insert.slice(-1);
    const right = d.insert === "" ? slice(d.to, d.to + 1) : d.insert.charAt(0);
    const open = WORD.test(left) ? runs.findIndex((r) => base + r.src === d.to) : -1;
    if (open >= 0) {
      const o = runs[open];
      const close = runs.slice(open + 1).find((r) => r.text === o.text && sameMarks(r.after, o.before));
      if (close) pair = [o, close];
    }
    const closing = pair === null && WORD.test(right) ? runs.map((r) => base + r.srcEnd).lastIndexOf(d.from) : -1;
    if (closing >= 0) {
      const c = runs[closing];
      const o = runs
        .slice(0, closing)
        .reverse()
        .find((r) => r.text === c.text && sameMarks(r.before, c.after));
      if (o) pair = [o, c];
    }
    if (!pair) continue;
    const stars = (r: Run): Span => ({ from: base + r.src, to: base + r.srcEnd, insert: "*".repeat(r.srcEnd - r.src) });
    const edits = [d, stars(pair[0]), stars(pair[1])].sort((a, b) => a.from - b.from || a.to - b.to);
    const from = edits[0].from;
    const to = Math.max(...edits.map((e) => e.to));
    let insert = "";
    let at = from;
    for (const e of edits) {
      insert += slice(at, e.from) + e.insert;
      at = e.to;
    }
    spans.push({ from, to, insert: insert + slice(at, to) });
  }
  return spans;
}

/**
 * Where two versions of a textblock's content differ: from `start` to `endA` in `old`, to `endB` in `fresh`.
 * Repeated content lets the ends cross: the end moves past the start (as ProseMirror's DOM reading does).
 */
export function changedRange(old: Node, fresh: Node): { start: number; endA: number; endB: number } | null {
  const start = old.content.findDiffStart(fresh.content);
  const ends = old.content.findDiffEnd(fresh.content);
  if (start === null || !ends) return null;
  const overlap = Math.max(0, start - Math.min(ends.a, ends.b));
  return { start, endA: ends.a + overlap, endB: ends.b + overlap };
}

// --- code blocks ----------------------------------------------------------------------------------------------------

/** What the code splices read of the text. */
export interface TextReader {
  slice(from: number, to: number): string;
  /** The start of the line around offset `at`. */
  lineStart(at: number): number;
}

/**
 * What a line of this code block's content starts with in the text: the containers' prefixes and the block's
 * indentation, read from a line that has content (a blank line of indented code has none of it). Null if none.
 */
export function codeContinuation(old: Node, segments: readonly Segment[], base: number, text: TextReader): string | null {
  for (let k = 0; k + 1 < segments.length; k++) {
    const s = segments[k];
    const next = segments[k + 1];
    if (s.pmEnd - s.pm !== 1 || s.src < 0 || !next.verbatim || next.pmEnd === next.pm) continue;
    const src = text.slice(base + s.src, base + s.srcEnd);
    if (src.startsWith("\n")) return src.slice(1);
  }
  const first = segments[0];
  if (!first || first.src < 0) return null;
  const lineStart = text.lineStart(base + first.src);
  if (old.attrs.fence) {
    // A fence's content lines start with what the fence's own line has before the fence.
    const fenceLineStart = text.lineStart(Math.max(0, lineStart - 1));
    const fenceLine = lineStart > 0 ? text.slice(fenceLineStart, lineStart - 1) : "";
    const at = fenceLine.indexOf(String(old.attrs.fence));
    if (old.content.size === 0) {
      const line = text.slice(lineStart, base + first.src);
      const own = line.indexOf(String(old.attrs.fence));
      return own >= 0 ? containerSpaces(line.slice(0, own)) : null;
    }
    return at >= 0 ? containerSpaces(fenceLine.slice(0, at)) : null;
  }
  return text.slice(lineStart, base + first.src);
}

/** A line's container prefix as the lines inside them continue it: list markers as spaces, quote markers kept. */
function containerSpaces(prefix: string): string {
  return prefix.replace(/[-+*]|\d+[.)]/g, (m) => " ".repeat(m.length));
}

/**
 * Splices of a change in a code block that the straight splice cannot write:
 * - typing into an empty fenced block (`> ```` with no line inside): a new line after the fence, with the
 *   containers' prefixes (`> ```\n> Q`), and no closing fence the person did not type;
 * - typing on a blank line of the content: the line gets the prefix a content line needs (`    Q`), and the
 *   other blank lines stay as they are;
 * - typing among the spaces a tab stands for (`\t\tbar` in a list item shows `  bar`): only that tab is written
 *   as the spaces it stood for, around what was typed.
 */
export function codeSplices(old: Node, fresh: Node, segments: readonly Segment[], base: number, text: TextReader, continuation: string): Span[] {
  if (!old.type.spec.code) return [];
  const changed = changedRange(old, fresh);
  if (!changed) return [];
  const { start, endA, endB } = changed;
  const lines = (s: string) => s.replace(/\n/g, `\n${continuation}`);
  const typed = fresh.textBetween(start, endB);
  if (old.content.size === 0 && old.attrs.fence && segments.length === 1 && segments[0].src >= 0) {
    const at = base + segments[0].src;
    if (text.slice(at, at + 1) !== "" && text.slice(at, at + 1) !== "\n") return [];
    return [{ from: at, to: at, insert: `\n${continuation}${lines(typed)}` }];
  }
  const content = old.textContent;
  const spans: Span[] = [];
  if (endA === start && (start === 0 || content[start - 1] === "\n") && (start === content.length || content[start] === "\n")) {
    const blank = segments.find((s) => s.pm === start && s.pmEnd === start && s.src >= 0);
    if (blank) {
      const at = base + blank.src;
      const line = text.slice(text.lineStart(at), at);
      if (continuation.length > line.length && continuation.startsWith(line)) spans.push({ from: at, to: at, insert: continuation.slice(line.length) + lines(typed) });
    }
  }
  const tab = segments.find((s) => !s.verbatim && s.src >= 0 && s.pmEnd > s.pm && s.pm <= start && start < s.pmEnd && endA <= s.pmEnd);
  if (tab && /^[ \t]+$/.test(text.slice(base + tab.src, base + tab.srcEnd))) {
    const lineStart = text.lineStart(base + tab.src);
    const contentCol = columnAfter(text.slice(lineStart, base + tab.srcEnd)) - (tab.pmEnd - tab.pm);
    const target = contentCol + (start - tab.pm);
    let col = columnAfter(text.slice(lineStart, base + tab.src));
    for (let at = base + tab.src; at < base + tab.srcEnd; at++) {
      const next = columnAfter(text.slice(at, at + 1), col);
      if (next > target) {
        const rest = fresh.textBetween(start, tab.pmEnd + (endB - endA));
        spans.push({ from: at, to: base + tab.srcEnd, insert: " ".repeat(target - col) + lines(rest) });
        break;
      }
      col = next;
    }
  }
  return spans;
}
