// The document's blocks: the view's nodes that are the text's top-level blocks, one each (mdsource/sourcedoc.ts).
//
// The view's document holds sections (mdsource/sections.ts), each a run of blocks: the blocks are the sections'
// children, at depth `BLOCK_DEPTH`. Everything that counts, finds or replaces "block k" asks here, so the
// document's outer structure is known in one place only.
//
// Only types are imported: the outline (editors/headings.ts) reads a document's blocks from the page's first chunk.
import type { Node, ResolvedPos } from "prosemirror-model";
import type { Transaction } from "prosemirror-state";

/** The depth of a block's node in the view's document (a position inside block `k` has `k`'s node at this depth). */
export const BLOCK_DEPTH = 2;

/** The blocks of a document, by index (a Fragment is one). */
export interface Blocks {
  readonly childCount: number;
  child(k: number): Node;
}

/** Where each section starts: its first block's index and its position; one entry more for the end. */
interface Index {
  firsts: number[];
  positions: number[];
}

const indices = new WeakMap<Node, Index>();

function indexOf(doc: Node): Index {
  let index = indices.get(doc);
  if (!index) {
    const firsts = [0];
    const positions = [0];
    doc.forEach((section) => {
      firsts.push(firsts[firsts.length - 1] + section.childCount);
      positions.push(positions[positions.length - 1] + section.nodeSize);
    });
    index = { firsts, positions };
    indices.set(doc, index);
  }
  return index;
}

/** The last index of `starts[0..last]` (ascending) whose value is at most `value`. */
function lastAtMost(starts: readonly number[], last: number, value: number): number {
  let lo = 0;
  let hi = last;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= value) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The section that holds block `k` (the last section for `k` past the end). */
function sectionOf(index: Index, k: number): number {
  return lastAtMost(index.firsts, index.firsts.length - 2, k);
}

/** The document's blocks. */
export function blocksOf(doc: Node): Blocks {
  return { childCount: blockCount(doc), child: (k) => blockAt(doc, k) };
}

export function blockCount(doc: Node): number {
  const { firsts } = indexOf(doc);
  return firsts[firsts.length - 1];
}

/** Block `k`'s node. */
export function blockAt(doc: Node, k: number): Node {
  const index = indexOf(doc);
  const s = sectionOf(index, k);
  return doc.child(s).child(k - index.firsts[s]);
}

/** The position before block `k` (`k` = the count: the end of the last block). */
export function blockPos(doc: Node, k: number): number {
  const index = indexOf(doc);
  const s = sectionOf(index, k);
  const section = doc.child(s);
  let pos = index.positions[s] + 1;
  for (let i = index.firsts[s]; i < k; i++) pos += section.child(i - index.firsts[s]).nodeSize;
  return pos;
}

/** Where blocks `from..to` are: from before `from` to after `to - 1` (they may be in several sections). */
export function blocksRange(doc: Node, from: number, to: number): [number, number] {
  const start = blockPos(doc, from);
  if (to <= from) return [start, start];
  const last = blockPos(doc, to - 1);
  return [start, last + blockAt(doc, to - 1).nodeSize];
}

/** The last section that starts at or before view position `pos` (the count of sections at the very end). */
function sectionAt(index: Index, pos: number): number {
  return lastAtMost(index.positions, index.positions.length - 1, pos);
}

/**
 * View position `pos` as a position of the document its blocks make without sections: what the app and the agents
 * are told (selection ranges), the sections being the view's own.
 */
export function flatPos(doc: Node, pos: number): number {
  const index = indexOf(doc);
  const s = sectionAt(index, pos);
  return pos === index.positions[s] ? pos - 2 * s : pos - 2 * s - 1;
}

/** The view position of `flat`, a position of the document without sections (`flatPos`). */
export function viewPos(doc: Node, flat: number): number {
  const index = indexOf(doc);
  const sections = index.positions.length - 1;
  let s = 0;
  while (s + 1 < sections && index.positions[s + 1] - 2 * (s + 1) <= flat) s++;
  return Math.min(flat + 2 * s + 1, index.positions[s + 1] - 1);
}

/** Whether `$pos` lies between blocks (not inside one). */
export function betweenBlocks($pos: ResolvedPos): boolean {
  return $pos.depth < BLOCK_DEPTH;
}

/** The index of the block `$pos` is in; between blocks, of the block after it (the count: after the last). */
export function blockIndex($pos: ResolvedPos): number {
  const { firsts } = indexOf($pos.doc);
  const s = $pos.index(0);
  if (s >= firsts.length - 1) return firsts[firsts.length - 1];
  return firsts[s] + ($pos.depth >= 1 ? $pos.index(1) : 0);
}

/** Calls `f` with each block, its position and index; from block `from` on (false from `f` stops). */
export function forEachBlock(doc: Node, f: (node: Node, pos: number, k: number) => boolean | void, from = 0): void {
  const index = indexOf(doc);
  for (let s = sectionOf(index, from); s < doc.childCount; s++) {
    const section = doc.child(s);
    let pos = index.positions[s] + 1;
    for (let i = 0; i < section.childCount; i++) {
      const node = section.child(i);
      const k = index.firsts[s] + i;
      if (k >= from && f(node, pos, k) === false) return;
      pos += node.nodeSize;
    }
  }
}

/** Calls `f` with each block that `from..to` touches, and its position. */
export function blocksTouching(doc: Node, from: number, to: number, f: (node: Node, pos: number) => void): void {
  doc.nodesBetween(from, to, (node, pos, parent) => {
    if (parent === doc) return true; // a section: its blocks
    f(node, pos);
    return false; // `f` looks inside the block if it needs to
  });
}

/**
 * `[first changed, old end, new end]` of the blocks of two documents: blocks are compared by identity (untouched
 * nodes are shared), whole sections first.
 */
export function changedBlocks(a: Node, b: Node): [number, number, number] {
  const countA = blockCount(a);
  const countB = blockCount(b);
  let s = 0;
  while (s < a.childCount && s < b.childCount && a.child(s) === b.child(s)) s++;
  let i = indexOf(a).firsts[s];
  while (i < countA && i < countB && blockAt(a, i) === blockAt(b, i)) i++;
  let sa = a.childCount;
  let sb = b.childCount;
  while (sa > s && sb > s && a.child(sa - 1) === b.child(sb - 1)) {
    sa--;
    sb--;
  }
  // The equal sections at the end hold the same blocks: as many from either end.
  const tail = Math.min(countA - indexOf(a).firsts[sa], countA - i, countB - i);
  let endA = countA - tail;
  let endB = countB - tail;
  while (endA > i && endB > i && blockAt(a, endA - 1) === blockAt(b, endB - 1)) {
    endA--;
    endB--;
  }
  return [i, endA, endB];
}

/**
 * Blocks `from..to` of `tr`'s document made siblings, in one section, for a replacement that compares them as one
 * run of nodes: the sections that hold them are joined (the blocks' nodes stay; mdsource/sections.ts parts them
 * again). Answers where they are.
 */
export function gatherBlocks(tr: Transaction, from: number, to: number): [number, number] {
  const doc = tr.doc;
  const index = indexOf(doc);
  const first = sectionOf(index, from);
  const last = sectionOf(index, Math.max(from, to - 1));
  // The last boundary first: the positions before it hold.
  for (let s = last; s > first; s--) tr.join(index.positions[s]);
  return blocksRange(tr.doc, from, to);
}
