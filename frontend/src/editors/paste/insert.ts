// Markdown put into the WYSIWYG view at a selection, so that the text holds exactly that Markdown.
//
// The splice comes first: where the selection is in the text, and what goes there (the Markdown, its lines
// indented for the container the caret is in, set apart from the text around by blank lines where it becomes
// blocks of its own). The view then shows what that text parses to: the blocks around the selection (one
// real block more on each side, which the new text may join) are parsed again and replace the old ones,
// except those that come out equal. The transaction carries the splice (`SOURCE_SPLICE`), so the engine
// writes exactly it: the text after it parses to what the view shows. Blocks elsewhere keep their bytes.
import type { Node } from "prosemirror-model";
import { type EditorState, TextSelection, type Transaction } from "prosemirror-state";
import { BLOCK_DEPTH, betweenBlocks, blockAt, blockCount, blockPos } from "../mdsource/blocks";
import { replaceBlocks } from "../mdsource/sections";
import { type Block, parseBlocks } from "../mdsource/build";
import { schema } from "../mdsource/schema";
import { positionIn, SOURCE_SPLICE, type Span } from "../mdsource/sourcedoc";

/** What the insertion needs of the text behind the view (a `SourceDoc`). */
export interface SourceMap {
  readonly length: number;
  slice(from: number, to: number): string;
  sourceRange(doc: Node, from: number, to: number): [number, number] | null;
  /** What the view shows where the text takes `span` (SourceDoc.project): blocks `from..to` become `blocks`. */
  project(span: Span): { from: number; to: number; blocks: Block[] };
}

export interface Insertion {
  /** The replacement, with the caret at `caret`. */
  tr: Transaction;
  span: Span;
  /** The text offset right after the inserted Markdown. */
  caret: number;
}

/** How far back a line start is looked for (a longer line is taken to start there). */
const LINE_WINDOW = 8192;

/**
 * The transaction that puts `markdown` in place of view positions `from..to`, or null where the text has no
 * place for it (inside code, or where the view has no source), or where the blocks it joins reach past what a
 * long document's view shows yet (the caller finishes the fill and asks again, or pastes its own way).
 */
export function insertMarkdown(state: EditorState, source: SourceMap, markdown: string, from: number, to: number): Insertion | null {
  const planned = plan(state, source, markdown, from, to);
  if (!planned) return null;
  const { span } = planned;
  const doc = state.doc;
  // The parse of the text after the splice around it (the engine's check of the splice takes the same parse).
  const projected = source.project(span);
  if (projected.to > blockCount(doc)) return null; // past what a long document's view shows yet
  const parsed = projected.blocks.map((b) => b.node);
  if (parsed.length === 0) parsed.push(schema.nodes.paragraph.create());
  // Equal blocks at either end stay the view's own (the engine sees them unchanged).
  let first = projected.from;
  let last = projected.to - 1;
  let head = 0;
  let tail = parsed.length;
  while (first <= last && head < tail && blockAt(doc, first).eq(parsed[head])) {
    first++;
    head++;
  }
  while (last >= first && tail > head && blockAt(doc, last).eq(parsed[tail - 1])) {
    last--;
    tail--;
  }
  const tr = state.tr;
  replaceBlocks(tr, first, last + 1, parsed.slice(head, tail));
  // The caret right after the pasted text: where the parse puts that offset among the region's blocks.
  const after = tr.doc;
  const count = blockCount(after);
  const at = (k: number) => projected.from + k;
  const caret = positionIn(projected.blocks, (k) => (at(k) < count ? blockAt(after, at(k)) : null), (k) => blockPos(after, Math.min(at(k), count)), planned.caret, -1, after.content.size);
  tr.setSelection(TextSelection.near(after.resolve(Math.min(caret, after.content.size)), -1));
  tr.setMeta(SOURCE_SPLICE, span);
  tr.setMeta("uiEvent", "paste");
  return { tr, span, caret: planned.caret };
}

interface Planned {
  span: Span;
  caret: number;
}

function plan(state: EditorState, source: SourceMap, markdown: string, from: number, to: number): Planned | null {
  const doc = state.doc;
  const $from = doc.resolve(from);
  const $to = doc.resolve(to);
  if ($from.parent.type.spec.code || $to.parent.type.spec.code) return null;
  if (markdown.trim() === "") return null;
  // Markdown with a blank line is no single paragraph (without one, a parse tells): no need to parse it all.
  const blank = /\n[ \t]*\n/.test(markdown);
  const single = blank ? [] : parseBlocks(markdown, 0, { documentStart: false }).blocks.map((b) => b.node);
  const textblock = $from.sameParent($to) && $from.parent.isTextblock ? $from.parent : null;
  const range = viewOnlyParagraph($from, $to, source) ?? source.sourceRange(doc, from, to);
  if (!range) return null;
  const [a, b] = range;
  const oneParagraph = single.length === 1 && single[0].type === schema.nodes.paragraph;
  const inBlock = textblock !== null && textblock.content.size > 0;
  if (oneParagraph && inBlock) {
    const cont = continuation(source, doc, $from);
    const insert = inlineText(markdown, textblock, cont);
    return { span: { from: a, to: b, insert }, caret: a + insert.length };
  }
  if (textblock?.type === schema.nodes.table_cell || $from.node(Math.max($from.depth - 1, 0)).type === schema.nodes.table_row) return null;
  return blockPlan(source, doc, $from, $to, a, b, markdown, endsInParagraph(markdown, single));
}

/** Whether the Markdown's last block is a paragraph (its last part after a blank line is parsed alone). */
function endsInParagraph(markdown: string, parsed: Node[]): boolean {
  if (parsed.length) return parsed[parsed.length - 1].type === schema.nodes.paragraph;
  const last = markdown.split(/\n[ \t]*\n/).pop() ?? "";
  const blocks = parseBlocks(last, 0, { documentStart: false }).blocks;
  return blocks.length > 0 && blocks[blocks.length - 1].node.type === schema.nodes.paragraph;
}

/** A caret in a paragraph the view has and the text has not (an empty line of the view): its place between blocks. */
function viewOnlyParagraph($from: ReturnType<Node["resolve"]>, $to: ReturnType<Node["resolve"]>, source: SourceMap): [number, number] | null {
  if ($from.depth !== BLOCK_DEPTH || !$from.sameParent($to) || $from.parent.content.size !== 0) return null;
  const before = $from.before(BLOCK_DEPTH);
  const range = source.sourceRange($from.doc, before, before + $from.parent.nodeSize);
  return range && range[0] === range[1] ? range : null;
}

/** Markdown of one paragraph, as it goes into a textblock: its line breaks continued as the textblock's own. */
function inlineText(markdown: string, textblock: Node, cont: string): string {
  if (textblock.type === schema.nodes.table_cell) {
    // A cell is one line, and a bare pipe would end it.
    let out = "";
    for (let k = 0; k < markdown.length; k++) {
      const c = markdown[k];
      if (c === "\\" && k + 1 < markdown.length) {
        out += c + markdown[++k];
        continue;
      }
      out += c === "\n" ? " " : c === "|" ? "\\|" : c;
    }
    return out;
  }
  if (textblock.type === schema.nodes.heading && textblock.attrs.markup !== "=" && textblock.attrs.markup !== "-") return markdown.replace(/\n/g, " ");
  return markdown.replace(/\n/g, `\n${cont}`);
}

const CONTAINER = /^(?:[ \t]*(?:>[ \t]?|(?:[-+*]|\d{1,9}[.)])(?:[ \t]+|$)))*[ \t]*/;

/** The start of the line `at` is on (looked for at most `LINE_WINDOW` back). */
function lineStart(source: SourceMap, at: number): number {
  const from = Math.max(0, at - LINE_WINDOW);
  const cut = source.slice(from, at).lastIndexOf("\n");
  return cut < 0 ? from : from + cut + 1;
}

function lineEnd(source: SourceMap, at: number): number {
  const to = Math.min(source.length, at + LINE_WINDOW);
  const cut = source.slice(at, to).indexOf("\n");
  return cut < 0 ? to : at + cut;
}

/**
 * What a new line inside the caret's textblock starts with: its container's prefix (`> ` of a quote, the
 * indentation of a list item's content), from the textblock's first line. Nothing at the top level.
 */
function continuation(source: SourceMap, doc: Node, $pos: ReturnType<Node["resolve"]>): string {
  if ($pos.depth <= BLOCK_DEPTH) return "";
  const start = source.sourceRange(doc, $pos.start(), $pos.start());
  if (!start) return "";
  const prefix = CONTAINER.exec(source.slice(lineStart(source, start[0]), start[0]))?.[0] ?? "";
  return prefix.replace(/(?:[-+*]|\d{1,9}[.)])(?=[ \t]|$)/g, (marker) => " ".repeat(marker.length));
}

/**
 * Blocks into the text: in place of the selection, apart from the text before and after it by a blank line
 * (a textblock cut in two keeps its halves); a textblock the selection takes whole (or an empty one) is
 * replaced. A textblock's own markup (`# `, a closing `##`, a setext underline) stays with the half it belongs to.
 */
function blockPlan(
  source: SourceMap,
  doc: Node,
  $from: ReturnType<Node["resolve"]>,
  $to: ReturnType<Node["resolve"]>,
  a: number,
  b: number,
  markdown: string,
  lastIsParagraph: boolean,
): Planned {
  const top = $from.depth <= BLOCK_DEPTH && $to.depth <= BLOCK_DEPTH;
  const cont = continuation(source, doc, $from);
  const blank = cont.replace(/[ \t]+$/, "");
  const leadEmpty = betweenBlocks($from) || ($from.parent.isTextblock && $from.parentOffset === 0);
  const trailEmpty = betweenBlocks($to) || ($to.parent.isTextblock && $to.parentOffset === $to.parent.content.size);
  let cutA = a;
  let cutB = b;
  const blockOf = ($pos: typeof $from) => source.sourceRange(doc, $pos.before(BLOCK_DEPTH), $pos.after(BLOCK_DEPTH));
  if (leadEmpty && !betweenBlocks($from)) {
    if (top) cutA = Math.min(a, blockOf($from)?.[0] ?? a);
    else {
      const line = lineStart(source, a);
      cutA = Math.min(a, line + (CONTAINER.exec(source.slice(line, a))?.[0].length ?? 0));
    }
  }
  if (trailEmpty && !betweenBlocks($to)) {
    if (top) {
      let end = blockOf($to)?.[1] ?? b;
      while (end > b && source.slice(end - 1, end) === "\n") end--;
      cutB = Math.max(b, end);
    } else cutB = Math.max(b, lineEnd(source, b));
  }
  const body = markdown
    .split("\n")
    .map((line, k) => (k === 0 ? line : line === "" ? blank : cont + line))
    .join("\n");
  const sep = `\n${blank}\n${cont}`;
  let insert: string;
  let caret: number;
  if (leadEmpty && trailEmpty) {
    // Text left on the line before or after (the place of an empty line of the view, next to a block): apart.
    const before = source.slice(lineStart(source, cutA), cutA);
    const lead = before.slice(CONTAINER.exec(before)?.[0].length ?? 0) === "" ? "" : sep;
    const trail = source.slice(cutB, lineEnd(source, cutB)).trim() === "" ? "" : sep;
    insert = lead + body + trail;
    caret = lead.length + body.length;
  } else if (leadEmpty) {
    insert = body + sep + source.slice(cutA, a);
    caret = body.length;
  } else if (trailEmpty) {
    insert = source.slice(b, cutB) + sep + body;
    caret = insert.length;
  } else {
    insert = sep + body + sep;
    caret = sep.length + body.length;
  }
  // A paragraph right before or after would take the new first or last line in as its own (a lazy line).
  const lineBefore = cutA > 0 && source.slice(cutA - 1, cutA) === "\n" ? source.slice(lineStart(source, cutA - 1), cutA - 1) : "";
  if (leadEmpty && lineBefore.trim() !== "" && lineBefore.trim() !== blank.trim()) {
    insert = `${blank}\n${insert}`;
    caret += blank.length + 1;
  }
  const lineAfter = cutB < source.length && source.slice(cutB, cutB + 1) === "\n" ? source.slice(cutB + 1, lineEnd(source, cutB + 1)) : "";
  if (trailEmpty && lastIsParagraph && lineAfter.trim() !== "" && !/^[\s>]*(?:[-+*][ \t]|\d{1,9}[.)][ \t]|#{1,6}[ \t]|```|~~~)/.test(lineAfter)) {
    insert = `${insert}\n${blank}`;
  }
  return { span: { from: cutA, to: cutB, insert }, caret: cutA + caret };
}
