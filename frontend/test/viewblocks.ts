// The blocks of a view's document (its sections' children, editors/mdsource/blocks.ts) as a list, and a view's
// document of a list of blocks: what the tests compare and build.
import type { Node } from "prosemirror-model";
import { forEachBlock } from "../src/editors/mdsource/blocks";
import { docOf } from "../src/editors/mdsource/sections";

export function blockList(doc: Node): Node[] {
  const nodes: Node[] = [];
  forEachBlock(doc, (node) => {
    nodes.push(node);
  });
  return nodes;
}

/** `doc` with `nodes` after its blocks. */
export function appended(doc: Node, nodes: readonly Node[]): Node {
  return docOf([...blockList(doc), ...nodes]);
}
