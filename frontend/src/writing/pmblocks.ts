// Decorations that depend only on the text of the top-level block they are in (soft breaks, where spelling is
// not checked): computed for the whole document once, then for the blocks a transaction touched only, so a
// keystroke costs the same in a long document as in a short one.
import type { Node } from "prosemirror-model";
import { Plugin, PluginKey } from "prosemirror-state";
import type { Mappable } from "prosemirror-transform";
import { Decoration, DecorationSet, type DecorationAttrs } from "prosemirror-view";

/** Adds the decorations of `node` (a top-level block at `pos`) to `out`. */
export type DecorateBlock = (node: Node, pos: number, out: Decoration[]) => void;

/** A plugin keeping `decorate`'s decorations of every top-level block. */
export function blockDecorations(name: string, decorate: DecorateBlock, props: Plugin["props"] = {}): Plugin<DecorationSet> {
  const key = new PluginKey<DecorationSet>(name);
  // Block by block: a set made of a long document's decorations at once costs (top-level blocks × decorations).
  const all = (doc: Node): DecorationSet => {
    let set = DecorationSet.empty;
    doc.forEach((node, pos) => {
      const out: Decoration[] = [];
      decorate(node, pos, out);
      if (out.length) set = set.add(doc, out);
    });
    return set;
  };
  return new Plugin<DecorationSet>({
    key,
    state: {
      init: (_config, state) => all(state.doc),
      apply(tr, set) {
        if (!tr.docChanged) return set;
        const mapped = set.map(tr.mapping, tr.doc);
        const doc = tr.doc;
        const [from, to] = changedRange(tr.mapping.maps as readonly StepMap[], doc.content.size);
        if (from > to) return mapped;
        const out: Decoration[] = [];
        let start = doc.content.size;
        let end = 0;
        doc.nodesBetween(Math.max(from - 1, 0), Math.min(to + 1, doc.content.size), (node, pos) => {
          start = Math.min(start, pos);
          end = Math.max(end, pos + node.nodeSize);
          decorate(node, pos, out);
          return false; // top-level blocks: `decorate` walks inside them
        });
        if (start >= end) return mapped;
        return mapped.remove(mapped.find(start, end)).add(doc, out);
      },
    },
    props: { ...props, decorations: (state) => key.getState(state) },
  });
}

/** Each text node inside `node` (content starting at `contentStart`) with its position; `skip` leaves a subtree out. */
export function eachText(node: Node, contentStart: number, visit: (text: Node, pos: number) => void, skip: (node: Node) => boolean = () => false): void {
  node.forEach((child, offset) => {
    const pos = contentStart + offset;
    if (child.isText) visit(child, pos);
    else if (!child.isLeaf && !skip(child)) eachText(child, pos + 1, visit, skip);
  });
}

/** An inline decoration of `from..to` with `attrs`. */
export function inline(from: number, to: number, attrs: DecorationAttrs): Decoration {
  return Decoration.inline(from, to, attrs);
}

interface StepMap extends Mappable {
  forEach(f: (oldStart: number, oldEnd: number, newStart: number, newEnd: number) => void): void;
}

/** What a transaction's steps touched, as a range of its final document (each step's range mapped by the later ones). */
function changedRange(maps: readonly StepMap[], size: number): [number, number] {
  let from = size;
  let to = 0;
  maps.forEach((map, index) => {
    map.forEach((_oldStart, _oldEnd, newStart, newEnd) => {
      let start = newStart;
      let end = newEnd;
      for (let k = index + 1; k < maps.length; k++) {
        start = maps[k].map(start, -1);
        end = maps[k].map(end, 1);
      }
      from = Math.min(from, start);
      to = Math.max(to, end);
    });
  });
  return [from, to];
}
