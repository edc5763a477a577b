// Decorations that depend only on the text of the top-level block they are in (soft breaks, where spelling is
// not checked): computed for the whole document once, then for the blocks a transaction touched only, so a
// keystroke costs the same in a long document as in a short one.
import type { Node } from "prosemirror-model";
import { Plugin, PluginKey } from "prosemirror-state";
import type { Mappable } from "prosemirror-transform";
import { Decoration, DecorationSet, type DecorationAttrs } from "prosemirror-view";
import { idleSlices } from "../idle";

/** Adds the decorations of `node` (a top-level block at `pos`) to `out`. */
export type DecorateBlock = (node: Node, pos: number, out: Decoration[]) => void;

/** The decorations, and where the top-level blocks not decorated yet start (the document's size: none left). */
interface Decorated {
  set: DecorationSet;
  todo: number;
}

/** The first screens of a document are decorated before it shows; the rest in idle time. */
const FIRST_SCREENS = 30_000;

/**
 * `decorate`'s decorations of the top-level blocks `from..` (from a block's start), until `done()`: added
 * to `set` block by block (a set made of a long document's decorations at once costs top-level blocks ×
 * decorations), any the blocks had replaced. Gives where it stopped (the document's size: at its end).
 */
function decorateFrom(set: DecorationSet, doc: Node, decorate: DecorateBlock, from: number, done: (at: number) => boolean): Decorated {
  // An edit may have joined the block there with the one before it: from that block's start.
  const $from = doc.resolve(Math.min(from, doc.content.size));
  let at = $from.depth > 0 ? $from.before(1) : from;
  while (at < doc.content.size && !done(at)) {
    const node = doc.resolve(at).nodeAfter;
    if (!node) break;
    const out: Decoration[] = [];
    decorate(node, at, out);
    set = set.remove(set.find(at, at + node.nodeSize));
    if (out.length) set = set.add(doc, out);
    at += node.nodeSize;
  }
  return { set, todo: Math.min(at, doc.content.size) };
}

/** A plugin keeping `decorate`'s decorations of every top-level block. */
export function blockDecorations(name: string, decorate: DecorateBlock, props: Plugin["props"] = {}): Plugin {
  const key = new PluginKey<Decorated>(name);
  return new Plugin<Decorated>({
    key,
    state: {
      init: (_config, state) => {
        const small = state.doc.content.size < 4 * FIRST_SCREENS;
        return decorateFrom(DecorationSet.empty, state.doc, decorate, 0, (at) => !small && at >= FIRST_SCREENS);
      },
      apply(tr, old) {
        const later = tr.getMeta(key) as Decorated | undefined;
        if (later) return later; // an idle slice, made from this transaction's document
        if (!tr.docChanged) return old;
        const mapped = old.set.map(tr.mapping, tr.doc);
        const todo = Math.min(tr.mapping.map(old.todo, -1), tr.doc.content.size);
        const doc = tr.doc;
        const [from, to] = changedRange(tr.mapping.maps as readonly StepMap[], doc.content.size);
        if (from > to) return { set: mapped, todo };
        const out: Decoration[] = [];
        let start = doc.content.size;
        let end = 0;
        doc.nodesBetween(Math.max(from - 1, 0), Math.min(to + 1, doc.content.size), (node, pos) => {
          start = Math.min(start, pos);
          end = Math.max(end, pos + node.nodeSize);
          decorate(node, pos, out);
          return false; // top-level blocks: `decorate` walks inside them
        });
        if (start >= end) return { set: mapped, todo };
        return { set: mapped.remove(mapped.find(start, end)).add(doc, out), todo };
      },
    },
    view: idleSlices(
      (view) => (key.getState(view.state)?.todo ?? Infinity) < view.state.doc.content.size,
      (view, until) => {
        const state = key.getState(view.state);
        if (!state) return;
        const next = decorateFrom(state.set, view.state.doc, decorate, state.todo, () => performance.now() > until);
        view.dispatch(view.state.tr.setMeta(key, next).setMeta("addToHistory", false));
      },
    ),
    props: { ...props, decorations: (state) => key.getState(state)?.set },
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
