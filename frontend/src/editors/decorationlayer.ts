// A layer of WYSIWYG decorations that the page sets whole (comment anchors, changes to review): a
// ProseMirror plugin per editor whose decorations follow edits until the next set, and the transaction
// that sets them. The app places these things in the Markdown; the callers turn them into view ranges.
import { type EditorState, Plugin, PluginKey, type Transaction } from "prosemirror-state";
import { type Decoration, DecorationSet } from "prosemirror-view";

export interface DecorationLayer {
  /** A fresh plugin for one editor (empty until the first `transaction`). */
  plugin(): Plugin<DecorationSet>;
  /** What the layer shows in `state` (to keep what stays the same when the next set is made). */
  shown(state: EditorState): DecorationSet;
  /** The transaction that shows `decorations` instead of the layer's last ones (no change to the document, nothing to undo). */
  transaction(state: EditorState, decorations: readonly Decoration[] | DecorationSet): Transaction;
}

/** A layer named `name` (its plugin key: one layer per name in an editor). */
export function decorationLayer(name: string): DecorationLayer {
  const key = new PluginKey<DecorationSet>(name);
  return {
    plugin: () =>
      new Plugin<DecorationSet>({
        key,
        state: {
          init: () => DecorationSet.empty,
          apply: (tr, set) => (tr.getMeta(key) as DecorationSet | undefined) ?? set.map(tr.mapping, tr.doc),
        },
        props: { decorations: (state) => key.getState(state) },
      }),
    shown: (state) => key.getState(state) ?? DecorationSet.empty,
    transaction: (state, decorations) => {
      const set = decorations instanceof DecorationSet ? decorations : DecorationSet.create(state.doc, [...decorations]);
      return state.tr.setMeta(key, set).setMeta("addToHistory", false);
    },
  };
}
