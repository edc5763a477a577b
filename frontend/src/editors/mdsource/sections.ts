// Sections: the view's document groups its blocks in runs of some 50, each a `section` node drawn as a plain
// `div.pm-section` with `content-visibility: auto` (style.css).
//
// Why: after an edit that moves the blocks below it, Chrome re-checks every child of the editor's element that has
// `content-visibility: auto` on each frame (its intersection observer, layout, prepaint, hit testing, paint). With
// 5,000 blocks that was most of a key's cost; with a hundred sections it is a sixteenth (docs/wysiwyg-speed.md,
// bench/bench_blocks.py).
//
// A section is the view's grouping only: the text never has it, the SourceDoc never sees it (it compares and
// splices the blocks, mdsource/blocks.ts), the clipboard's text, serialization and the agents' tools read the
// blocks. Where sections are made and kept between `MIN` and `MAX` blocks:
// - the document built from the parse (`docOf`) and the fill's appended blocks (`appendBlocks`): runs of `SIZE`;
// - a replacement of blocks that span sections joins those sections first (`gatherBlocks` in blocks.ts); a long
//   run of new blocks (a paste) goes straight into sections of its own, in the replacement's own step
//   (`replaceBlocks`), not into one section that `balance` parts afterwards;
// - Backspace or Delete at a section's edge, or a key with a selection across sections, joins the two sections
//   first (`sectionEdges`), so that the commands see the blocks on either side as siblings, as before;
// - after any change, `balance` splits a section grown past `MAX` and joins one shrunk below `MIN` to a
//   neighbour. Splits and joins are steps of their own that only move section boundaries: every block keeps its
//   node (its identity is how the SourceDoc knows it untouched), positions map through them, and they are no
//   step of the undo history.
import { Fragment, type Node, Slice } from "prosemirror-model";
import { type EditorState, Plugin, type Transaction } from "prosemirror-state";
import type { EditorView } from "prosemirror-view";
import { betweenBlocks, gatherBlocks } from "./blocks";
import { schema } from "./schema";

/** Blocks per section as made; sections are parted past `MAX` and joined below `MIN`. */
const SIZE = 50;
const MIN = 25;
const MAX = 100;

/** `nodes` in sections of `SIZE`. */
function sectioned(nodes: readonly Node[]): Node[] {
  const sections: Node[] = [];
  for (let k = 0; k < nodes.length; k += SIZE) sections.push(schema.nodes.section.create(null, Fragment.from(nodes.slice(k, k + SIZE) as Node[])));
  return sections;
}

/** The view's document of `nodes` (the text's blocks). */
export function docOf(nodes: readonly Node[]): Node {
  return schema.nodes.doc.create(null, sectioned(nodes.length ? nodes : [schema.nodes.paragraph.create()]));
}

/** The blocks of a slice's content: the sections' children where it holds sections. */
export function unsectioned(content: Fragment): Node[] {
  const nodes: Node[] = [];
  content.forEach((node) => {
    if (node.type === schema.nodes.section) node.forEach((block) => nodes.push(block));
    else nodes.push(node);
  });
  return nodes;
}

/**
 * `nodes` after the document's last block, in sections of their own after the last one (`balance` joins a short one
 * to its neighbour): what maps the document's end (rich.ts's highlighting left for idle time) stays before them.
 */
export function appendBlocks(tr: Transaction, nodes: readonly Node[]): void {
  if (nodes.length) tr.insert(tr.doc.content.size, sectioned(nodes));
}

/**
 * Blocks `from..to` of `tr`'s document replaced by `nodes` (the same objects). Answers where they now are (from
 * before the first to after the last; between them, a run of `SIZE` or more is in sections of its own).
 */
export function replaceBlocks(tr: Transaction, from: number, to: number, nodes: readonly Node[]): [number, number] {
  const [start, end] = gatherBlocks(tr, from, to);
  // Blocks that were a whole section go with it (a section is never empty).
  if (nodes.length === 0) {
    tr.deleteRange(start, end);
    return [start, start];
  }
  const slice = sectionedSlice(tr.doc, start, end, nodes);
  tr.replace(start, end, slice);
  return [start, start + slice.size];
}

/**
 * `nodes` as the slice that replaces `start..end` (between blocks of one section). A section that would grow past
 * `MAX` is parted at once, as `balance` would part it, and in the same step: the blocks before `start` keep their
 * section (and with it their DOM: ProseMirror reuses a node's DOM only under the same parent), joined by new blocks
 * up to `SIZE`; the blocks after `end` end the last section; the new blocks between are in runs of about `SIZE`.
 * Positions before and after the range map as through any replacement, and no block is touched but the new ones.
 */
function sectionedSlice(doc: Node, start: number, end: number, nodes: readonly Node[]): Slice {
  const $start = doc.resolve(start);
  const section = $start.parent;
  const head = $start.index(1);
  const tail = section.childCount - doc.resolve(end).index(1);
  const count = nodes.length;
  if (head + count + tail <= MAX || count < SIZE) return new Slice(Fragment.from(nodes as Node[]), 0, 0);
  // At least one new block on either side (the slice's open sections are never empty).
  const first = Math.min(Math.max(SIZE - head, 1), count - 1);
  let last = Math.min(Math.max(SIZE - tail, 1), count - first);
  let middle = count - first - last;
  if (middle < MIN) {
    last += middle; // a run too short of its own: with the last section (`balance` parts it if that is too long)
    middle = 0;
  }
  const runs = [nodes.slice(0, first)];
  const parts = Math.round(middle / SIZE);
  const per = parts ? Math.ceil(middle / parts) : 0;
  for (let k = first; k < first + middle; k += per) runs.push(nodes.slice(k, Math.min(k + per, first + middle)));
  runs.push(nodes.slice(first + middle));
  // Open at both ends: the first run joins the blocks before `start`, the last those after `end`.
  return new Slice(Fragment.from(runs.map((run) => schema.nodes.section.create(null, Fragment.from(run)))), 1, 1);
}

/** The steps that keep every section between `MIN` and `MAX` blocks (none: `tr` unchanged). */
function balance(tr: Transaction): void {
  // From the end: the positions of the sections before hold.
  const starts: number[] = [];
  tr.doc.forEach((_section, offset) => starts.push(offset));
  for (let s = tr.doc.childCount - 1; s >= 0; s--) {
    const doc = tr.doc;
    const section = doc.child(s);
    const start = starts[s];
    if (section.childCount > MAX) {
      const parts = Math.round(section.childCount / SIZE);
      const per = Math.ceil(section.childCount / parts);
      // Parted at block boundaries, the last cut first.
      const cuts: number[] = [];
      let pos = start + 1;
      section.forEach((block, _offset, k) => {
        if (k > 0 && k % per === 0) cuts.push(pos);
        pos += block.nodeSize;
      });
      for (const cut of cuts.reverse()) tr.split(cut);
    } else if (section.childCount < MIN && doc.childCount > 1) {
      // Joined to the smaller neighbour (the one before, at the end); parted again above if that made it too long.
      const before = s > 0 ? doc.child(s - 1).childCount : Infinity;
      const after = s + 1 < doc.childCount ? doc.child(s + 1).childCount : Infinity;
      tr.join(before <= after ? start : start + section.nodeSize);
      // Joined to the one after: the joined section is looked at again (joined to the one before, it is next).
      if (before > after) s++;
    }
  }
}

/** Sections kept balanced after every change (a transaction of their own, not in the undo history). */
export function sectionsPlugin(): Plugin {
  return new Plugin({
    appendTransaction(trs, _old, state) {
      // Not right after the joins for a key: the key's command is to see them joined.
      if (!trs.some((tr) => tr.docChanged) || trs.every((tr) => !tr.docChanged || tr.getMeta(JOINED))) return null;
      const tr = state.tr;
      balance(tr);
      return tr.docChanged ? tr.setMeta("addToHistory", false) : null;
    },
    props: {
      handleKeyDown(view, event) {
        joinAtEdges(view, event);
        return false; // the key goes on to the commands, which see the sections joined
      },
    },
  });
}

/**
 * Before a key: a selection across sections, or Backspace at the start of a section's first block (Delete at the
 * end of its last), joins the sections on either side, so that the commands and ProseMirror's own joins see the
 * blocks there as siblings (a join of two sections would be all Backspace did).
 */
function joinAtEdges(view: EditorView, event: KeyboardEvent): void {
  const cuts = edgeCuts(view.state, event.key);
  if (cuts.length === 0) return;
  const tr = view.state.tr;
  for (const cut of cuts.reverse()) tr.join(cut);
  view.dispatch(tr.setMeta("addToHistory", false).setMeta(JOINED, true));
}

/** A transaction of joins for a key (`joinAtEdges`). */
const JOINED = "vmark.sectionsJoined";

/** The boundaries between sections the key needs joined (in document order). */
function edgeCuts(state: EditorState, key: string): number[] {
  const { $from, $to, empty } = state.selection;
  const doc = state.doc;
  const cuts: number[] = [];
  if (!empty) {
    for (let s = $from.index(0) + 1; s <= $to.index(0) && s < doc.childCount; s++) cuts.push($from.posAtIndex(s, 0));
    return cuts;
  }
  if (betweenBlocks($from)) return cuts;
  const s = $from.index(0);
  const section = doc.child(s);
  if (key === "Backspace" && s > 0 && $from.index(1) === 0 && $from.pos === firstTextPos(section, $from.posAtIndex(0, 1))) cuts.push($from.posAtIndex(s, 0));
  if (key === "Delete" && s + 1 < doc.childCount && $from.index(1) === section.childCount - 1 && $from.pos === lastTextPos(section, $from.posAtIndex(section.childCount - 1, 1))) cuts.push($from.posAtIndex(s + 1, 0));
  return cuts;
}

/** The first position in a textblock at the start of the section's first block (`at`: the block's position). */
function firstTextPos(section: Node, at: number): number {
  let node = section.firstChild;
  let pos = at;
  while (node && !node.isTextblock && node.firstChild) {
    node = node.firstChild;
    pos += 1;
  }
  return pos + 1;
}

/** The last position in a textblock at the end of the section's last block (`at`: the block's position). */
function lastTextPos(section: Node, at: number): number {
  let node = section.lastChild;
  let end = at + (node?.nodeSize ?? 0);
  while (node && !node.isTextblock && node.lastChild) {
    node = node.lastChild;
    end -= 1;
  }
  return end - 1;
}
