// Focus mode and typewriter mode in WYSIWYG.
//
// Focus mode: the block the caret is in stands out, the rest is dimmed (writing.css). The block is the innermost
// textblock (a paragraph, a heading, a code block), or the whole table in a table; it is `focus-current`, and the
// top-level block around it `focus-path` (a list or a quote stays lit around its current paragraph only).
//
// Typewriter mode: while the person works with the keyboard, every change of the text or the caret scrolls so the
// caret's line is in the middle of the editor (the style sheet pads the text so its first and last lines can be
// too). A click (and what follows it until the next key) never scrolls: the text stays where the person clicked.
import type { EditorState } from "prosemirror-state";
import { Plugin, PluginKey } from "prosemirror-state";
import { Decoration, DecorationSet, type EditorView } from "prosemirror-view";
import { BLOCK_DEPTH, betweenBlocks } from "../mdsource/blocks";
import { editorScroller } from "../../shared/live";
import { onPrefs, prefs } from "./prefs";

const key = new PluginKey<DecorationSet>("vmark-focus");
/** A transaction that only says the preferences changed (the view draws again). */
export const PREFS_CHANGED = "vmark-writing-prefs";

function focusDecorations(state: EditorState): DecorationSet {
  if (!prefs.focus) return DecorationSet.empty;
  const $head = state.selection.$head;
  if (betweenBlocks($head)) {
    const node = state.doc.nodeAt($head.pos);
    if (!node) return DecorationSet.empty;
    const whole = Decoration.node($head.pos, $head.pos + node.nodeSize, { class: "focus-path focus-current" });
    return DecorationSet.create(state.doc, [whole]);
  }
  let depth = $head.depth;
  for (let d = depth; d >= BLOCK_DEPTH; d--) {
    if ($head.node(d).type.spec.tableRole === "table") {
      depth = d;
      break;
    }
  }
  const current = Decoration.node($head.before(depth), $head.after(depth), { class: "focus-current" });
  const path = Decoration.node($head.before(BLOCK_DEPTH), $head.after(BLOCK_DEPTH), { class: "focus-path" });
  return DecorationSet.create(state.doc, depth === BLOCK_DEPTH ? [Decoration.node($head.before(BLOCK_DEPTH), $head.after(BLOCK_DEPTH), { class: "focus-path focus-current" })] : [path, current]);
}

/** Scroll so the caret's line is in the middle of the editor. */
export function centerCaret(view: EditorView): void {
  const box = editorScroller(view); // the caret's line goes to its middle
  if (!box) return;
  const head = view.state.selection.head;
  let coords: { top: number; bottom: number };
  try {
    coords = view.coordsAtPos(head);
  } catch {
    return; // no place on screen (a node the view does not draw)
  }
  const rect = box.getBoundingClientRect();
  const delta = (coords.top + coords.bottom) / 2 - (rect.top + box.clientHeight / 2);
  if (Math.abs(delta) >= 1) box.scrollTop += delta;
}

export function focusPlugin(): Plugin<DecorationSet> {
  /** The person's last input in the editor was a key (not the mouse): changes centre the caret. The caret moves
   * by keys are read from the page's selection a little later, so this holds until the next click. */
  let keyed = false;
  return new Plugin<DecorationSet>({
    key,
    state: {
      init: (_config, state) => focusDecorations(state),
      apply: (tr, set, _old, state) =>
        tr.docChanged || tr.selectionSet || tr.getMeta(PREFS_CHANGED) ? focusDecorations(state) : set.map(tr.mapping, tr.doc),
    },
    props: {
      decorations: (state) => key.getState(state),
      handleDOMEvents: {
        keydown: () => {
          keyed = true;
          return false;
        },
        compositionend: () => {
          keyed = true;
          return false;
        },
        mousedown: () => {
          keyed = false;
          return false;
        },
      },
    },
    view: (view) => {
      // The preferences changed: the view draws again (decorations, the root's attributes).
      const stop = onPrefs(() => {
        if (!view.isDestroyed) view.dispatch(view.state.tr.setMeta(PREFS_CHANGED, true));
      });
      return {
        update(view, before) {
          const moved = view.state.doc !== before.doc || !view.state.selection.eq(before.selection);
          if (moved && keyed && prefs.typewriter) centerCaret(view);
        },
        destroy: stop,
      };
    },
  });
}
