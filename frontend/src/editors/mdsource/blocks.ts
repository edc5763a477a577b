// The document's blocks: the view's nodes that are the text's top-level blocks, one each (mdsource/sourcedoc.ts).
//
// They are the children of the view's document at depth `BLOCK_DEPTH`. Everything that counts, finds or replaces
// "block k" asks here, so the document's outer structure is known in one place only.
//
// Only types are imported: the outline (editors/headings.ts) reads a document's blocks from the page's first chunk.
import type { Node, ResolvedPos } from "prosemirror-model";
import type { Transaction } from "prosemirror-state";

/** The depth of a block's node in the view's document (a position inside block `k` has `k`'s node at this depth). */
export const BLOCK_DEPTH = 1;

/** The blocks of a document, by index (a Fragment is one). */
export interface Blocks {
  readonly childCount: number;
  child(k: number): Node;
}

/** The document's blocks. */
export function blocksOf(doc: Node): Blocks {
  return doc.content;
}

export function blockCount(doc: Node): number {
  return doc.childCount;
}

/** Block `k`'s node. */
export function blockAt(doc: Node, k: number): Node {
  return doc.child(k);
}

/** The position before block `k` (`k` = the count: the end of the last block). */
export function blockPos(doc: Node, k: number): number {
  let pos = 0;
  for (let i = 0; i < k; i++) pos += doc.child(i).nodeSize;
  return pos;
}

/** Where blocks `from..to` are: from before `from` to after `to - 1`. */
export function blocksRange(doc: Node, from: number, to: number): [number, number] {
  const start = blockPos(doc, from);
  let end = start;
  for (let k = from; k < to; k++) end += doc.child(k).nodeSize;
  return [start, end];
}

/** Whether `$pos` lies between blocks (not inside one). */
export function betweenBlocks($pos: ResolvedPos): boolean {
  return $pos.depth < BLOCK_DEPTH;
}

/** The index of the block `$pos` is in; between blocks, of the block after it (the count: after the last). */
export function blockIndex($pos: ResolvedPos): number {
  return $pos.index(0);
}

/** The node of the block `$pos` is in (null between blocks). */
export function blockOf($pos: ResolvedPos): Node | null {
  return betweenBlocks($pos) ? null : $pos.node(BLOCK_DEPTH);
}

/** Calls `f` with each block, its position and index; from block `from` on (false from `f` stops). */
export function forEachBlock(doc: Node, f: (node: Node, pos: number, k: number) => boolean | void, from = 0): void {
  let pos = blockPos(doc, from);
  for (let k = from; k < doc.childCount; k++) {
    const node = doc.child(k);
    if (f(node, pos, k) === false) return;
    pos += node.nodeSize;
  }
}

/** Calls `f` with each block that `from..to` touches, and its position. */
export function blocksTouching(doc: Node, from: number, to: number, f: (node: Node, pos: number) => void): void {
  doc.nodesBetween(from, to, (node, pos) => {
    f(node, pos);
    return false; // `f` looks inside the block if it needs to
  });
}

/** Blocks `from..to` of `tr`'s document replaced by `nodes` (the same objects). Answers where they now are. */
export function replaceBlocks(tr: Transaction, from: number, to: number, nodes: readonly Node[]): [number, number] {
  const [start, end] = blocksRange(tr.doc, from, to);
  tr.replaceWith(start, end, nodes);
  return [start, start + nodes.reduce((n, node) => n + node.nodeSize, 0)];
}

/**
 * Blocks `from..to` of `tr`'s document made siblings (with the places right before and after them), for a replacement
 * that compares them as one run of nodes. Answers where they are.
 */
export function gatherBlocks(tr: Transaction, from: number, to: number): [number, number] {
  return blocksRange(tr.doc, from, to);
}

/** `nodes` after the document's last block. */
export function appendBlocks(tr: Transaction, nodes: readonly Node[]): void {
  tr.insert(tr.doc.content.size, nodes);
}
