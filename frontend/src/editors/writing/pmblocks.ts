// Decorations that depend only on the text of the top-level block they are in (soft breaks): computed for the
// blocks on screen first (a long document's others as they come near it), then for the blocks a transaction
// touched only, so a keystroke costs the same in a long document as in a short one.
import type { Node } from "prosemirror-model";
import { Plugin, PluginKey } from "prosemirror-state";
import type { Mappable } from "prosemirror-transform";
import { Decoration, type DecorationAttrs, DecorationSet, type EditorView } from "prosemirror-view";
import { isFill } from "../mdsource/fill";
import { blockCount, blockIndex, blocksTouching, forEachBlock } from "../mdsource/blocks";

/** Adds the decorations of `node` (a top-level block at `pos`) to `out`. */
export type DecorateBlock = (node: Node, pos: number, out: Decoration[]) => void;

/** A document this long is decorated block by block as its blocks come near the screen. */
const LONG = 120_000;
/** How many top-level blocks above and below the screen are decorated before they show. */
const MARGIN_BLOCKS = 60;

/**
 * A plugin keeping `decorate`'s decorations of the top-level blocks. A short document has them all from the
 * start; a long one those of the blocks on and near the screen (and of every block an edit touched), the
 * others' added as scrolling brings them near: building a set of every block's decorations costs top-level
 * blocks × decorations. Decorations are drawing only: find, the selection and the agents' tools read the
 * document.
 */
export function blockDecorations(name: string, decorate: DecorateBlock, props: Plugin["props"] = {}): Plugin {
  const key = new PluginKey<DecorationSet>(name);
  /** The top-level blocks whose decorations the set has. */
  const decorated = new WeakSet<Node>();
  const decorateAll = (blocks: [Node, number][], out: Decoration[]): void => {
    for (const [node, pos] of blocks) {
      if (decorated.has(node)) continue;
      decorate(node, pos, out);
      decorated.add(node);
    }
  };
  return new Plugin<DecorationSet>({
    key,
    state: {
      init: (_config, state) => {
        const doc = state.doc;
        const out: Decoration[] = [];
        decorateAll(blocksBetween(doc, 0, doc.content.size < LONG ? blockCount(doc) : MARGIN_BLOCKS), out);
        return DecorationSet.create(doc, out);
      },
      apply(tr, old) {
        const near = tr.getMeta(key) as Decoration[] | undefined;
        let set = near ? old.add(tr.doc, near) : old; // blocks scrolled near: a meta-only transaction
        if (!tr.docChanged) return set;
        set = set.map(tr.mapping, tr.doc);
        const doc = tr.doc;
        // Blocks a long document's fill appends are decorated as they come near the screen, like the others.
        if (isFill(tr) && doc.content.size >= LONG) return set;
        const [from, to] = changedRange(tr.mapping.maps as readonly StepMap[], doc.content.size);
        if (from > to) return set;
        const out: Decoration[] = [];
        let start = doc.content.size;
        let end = 0;
        blocksTouching(doc, Math.max(from - 1, 0), Math.min(to + 1, doc.content.size), (node, pos) => {
          start = Math.min(start, pos);
          end = Math.max(end, pos + node.nodeSize);
          decorate(node, pos, out);
          decorated.add(node);
        });
        if (start >= end) return set;
        return set.remove(set.find(start, end)).add(doc, out);
      },
    },
    view: (view) => {
      const box = view.dom.closest<HTMLElement>(".editor");
      let frame = 0;
      const look = (): void => {
        frame = 0;
        if (view.isDestroyed || view.state.doc.content.size < LONG) return;
        const out: Decoration[] = [];
        decorateAll(shownBlocks(view, box), out);
        if (out.length) view.dispatch(view.state.tr.setMeta(key, out).setMeta("addToHistory", false));
      };
      const later = (): void => {
        if (frame === 0) frame = requestAnimationFrame(look);
      };
      box?.addEventListener("scroll", later, { passive: true });
      later();
      return {
        destroy: () => {
          box?.removeEventListener("scroll", later);
          cancelAnimationFrame(frame);
        },
      };
    },
    props: { ...props, decorations: (state) => key.getState(state) },
  });
}

/** Top-level blocks `from..to` (indices) of `doc`, with their positions. */
function blocksBetween(doc: Node, from: number, to: number): [Node, number][] {
  const blocks: [Node, number][] = [];
  forEachBlock(
    doc,
    (node, pos, index) => {
      if (index >= to) return false;
      blocks.push([node, pos]);
    },
    Math.min(from, blockCount(doc)),
  );
  return blocks;
}

/** The top-level blocks on the editor's screen and `MARGIN_BLOCKS` around them. */
function shownBlocks(view: EditorView, box: HTMLElement | null): [Node, number][] {
  const doc = view.state.doc;
  const screen = (box ?? document.documentElement).getBoundingClientRect();
  const left = view.dom.getBoundingClientRect().left + 1;
  const top = view.posAtCoords({ left, top: Math.max(screen.top, 0) + 1 })?.pos ?? 0;
  const bottom = view.posAtCoords({ left, top: Math.min(screen.bottom, window.innerHeight) - 1 })?.pos ?? doc.content.size;
  const first = blockIndex(doc.resolve(Math.min(top, doc.content.size)));
  const last = blockIndex(doc.resolve(Math.min(Math.max(top, bottom), doc.content.size)));
  return blocksBetween(doc, Math.max(0, first - MARGIN_BLOCKS), last + 1 + MARGIN_BLOCKS);
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
