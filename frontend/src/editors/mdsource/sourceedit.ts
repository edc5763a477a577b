// Edits that are written as text first: a command names the splice of the Markdown it means (the characters a
// person would type in source mode), and the view shows what that text parses to.
//
// `sourceEdit` projects the splice (SourceDoc.project: the parse of the region, nothing committed yet), turns
// the view's blocks there into the parsed ones by the smallest replacement (untouched nodes stay the same
// objects, the undo history gets one small step), puts the cursor at the text offset the command names, and
// tags the transaction with SOURCE_SPLICE: dispatching it commits exactly that splice (the engine still checks
// that the text parses to what the view shows).
import { Fragment, type Node } from "prosemirror-model";
import { type EditorState, TextSelection, type Transaction } from "prosemirror-state";
import type { EditorView } from "prosemirror-view";
import { blockCount, blockIndex, gatherBlocks } from "./blocks";
import { segmentsOf } from "./build";
import { schema } from "./schema";
import { positionIn, SOURCE_SPLICE, type SourceDoc, type Span } from "./sourcedoc";

const sources = new WeakMap<EditorView, () => SourceDoc>();

/** The WYSIWYG editor names the text behind its view (the commands read and splice it). */
export function registerSourceDoc(view: EditorView, source: () => SourceDoc): void {
  sources.set(view, source);
}

export function sourceDocOf(view: EditorView | undefined): SourceDoc | null {
  return view ? (sources.get(view)?.() ?? null) : null;
}

export interface EditOptions {
  /** The cursor's text offset after the splice (default: the end of the inserted text). */
  cursor?: number;
  /** An empty paragraph after the cursor's top-level block, the cursor in it (view only: no text yet). */
  paragraphAfter?: boolean;
  /** An empty paragraph after the cursor's textblock in its container, at the cursor's offset (a new quote line). */
  paragraphHere?: boolean;
  /** Marks the cursor carries on (default none: typing after a converted `**x**` is plain). */
  marks?: boolean;
}

/** `start..end` of `tr`'s document (no earlier step moved it) becomes `fresh`, by replacing only what differs. */
export function replaceDiff(tr: Transaction, start: number, end: number, fresh: Fragment): void {
  const old = tr.doc.slice(start, end).content;
  const diffStart = old.findDiffStart(fresh);
  const diffEnd = old.findDiffEnd(fresh);
  if (diffStart === null || !diffEnd) return;
  // Repeated content lets the two ends cross: move the end past the start (as ProseMirror's DOM reading does).
  const overlap = Math.max(0, diffStart - Math.min(diffEnd.a, diffEnd.b));
  const slice = tr.doc.type.create(null, fresh).slice(diffStart, diffEnd.b + overlap);
  tr.replace(start + diffStart, start + diffEnd.a + overlap, slice);
}

/** The transaction that shows the text after `span` (see the module comment), or null if it cannot be shown. */
export function sourceTransaction(state: EditorState, source: SourceDoc, span: Span, options: EditOptions = {}): Transaction | null {
  const projected = source.project(span);
  const nodes = projected.blocks.map((b) => b.node);
  const doc = state.doc;
  if (projected.to > blockCount(doc)) return null;
  const tr = state.tr;
  const [start, end] = gatherBlocks(tr, projected.from, projected.to);
  try {
    replaceDiff(tr, start, end, Fragment.from(nodes));
  } catch {
    return null;
  }
  const cursor = options.cursor ?? span.from + span.insert.length;
  const size = nodes.reduce((n, node) => n + node.nodeSize, 0);
  let pos = nodes.length ? positionIn(projected.blocks, (k) => nodes[k] ?? null, (k) => start + nodes.slice(0, k).reduce((n, node) => n + node.nodeSize, 0), cursor, -1, start + size) : start;
  pos = Math.max(0, Math.min(pos, tr.doc.content.size));
  let $pos = tr.doc.resolve(pos);
  if (options.paragraphHere && $pos.parent.isTextblock) {
    const after = $pos.after();
    tr.insert(after, schema.nodes.paragraph.create());
    pos = after + 1;
    const block = source.blockRange(projected.from)?.[0] ?? 0;
    const top = tr.doc.resolve(pos);
    const topFrom = projected.blocks[blockIndex(top) - projected.from]?.from ?? block;
    segmentsOf.set(top.parent, [{ pm: 0, pmEnd: 0, src: cursor - topFrom, srcEnd: cursor - topFrom, verbatim: false, marks: [] }]);
  } else if ($pos.parent.isTextblock) {
    const parsed = schema.nodes.doc.create(null, nodes).resolve(pos - start).parent;
    pos = withTypedSpaces(tr, source, span, projected.blocks, parsed, $pos.pos, cursor);
  }
  if (options.paragraphAfter) {
    // After the top-level block whose text holds the cursor (a rule has no textblock to be in).
    let k = 0;
    while (k + 1 < projected.blocks.length && projected.blocks[k + 1].from <= cursor) k++;
    let after = start;
    for (let j = 0; j <= k && j < nodes.length; j++) after += nodes[j].nodeSize;
    tr.insert(after, schema.nodes.paragraph.create());
    pos = after + 1;
  }
  tr.setSelection(TextSelection.near(tr.doc.resolve(Math.min(pos, tr.doc.content.size)), -1));
  // Typing after a converted `**x**` is plain (the marks at the cursor would carry the bold on).
  if (!options.marks && tr.selection.$head.marks().length > 0) tr.setStoredMarks([]);
  return tr.setMeta(SOURCE_SPLICE, span).scrollIntoView();
}

/**
 * Spaces before the cursor that the parse does not show (a new task item's `[ ] `, a line's trailing spaces):
 * the view shows them, as it does when the person types them (the engine gives them their source).
 */
function withTypedSpaces(tr: Transaction, source: SourceDoc, span: Span, blocks: { from: number; to: number }[], parsed: Node, pos: number, cursor: number): number {
  const $pos = tr.doc.resolve(pos);
  if ($pos.parentOffset !== $pos.parent.content.size) return pos;
  const text = sliceAfter(source, span, cursor);
  const spaces = /[ \t]+$/.exec(text)?.[0] ?? "";
  if (spaces === "") return pos;
  // Only spaces right after the textblock's last character in the text.
  const segments = segmentsOf.get(parsed) ?? [];
  const last = segments[segments.length - 1];
  const index = blocks.findIndex((b) => cursor >= b.from && cursor <= b.to + spaces.length);
  const from = index >= 0 ? blocks[index].from : null;
  if (!last || from === null || from + last.srcEnd !== cursor - spaces.length) return pos;
  tr.insertText(spaces, pos);
  return pos + spaces.length;
}

/** The text of the cursor's line before `cursor`, in the text after `span`. */
function sliceAfter(source: SourceDoc, span: Span, cursor: number): string {
  const delta = span.insert.length - (span.to - span.from);
  const text = (at: number, to: number): string => {
    // Offsets of the new text: before the span, inside it, after it.
    let out = "";
    for (let p = at; p < to; p++) {
      if (p < span.from) out += source.slice(p, p + 1);
      else if (p < span.from + span.insert.length) out += span.insert[p - span.from];
      else out += source.slice(p - delta, p - delta + 1);
    }
    return out;
  };
  const from = Math.max(0, cursor - 40);
  const before = text(from, cursor);
  return before.slice(before.lastIndexOf("\n") + 1);
}

/** Dispatch the text-first edit; false (nothing done) if it cannot be shown. */
export function applySourceEdit(view: EditorView, span: Span, options: EditOptions = {}): boolean {
  const source = sourceDocOf(view);
  if (!source) return false;
  const tr = sourceTransaction(view.state, source, span, options);
  if (!tr) return false;
  view.dispatch(tr);
  return true;
}
