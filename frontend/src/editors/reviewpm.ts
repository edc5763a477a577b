// Pending changes in WYSIWYG mode: a ProseMirror plugin with the same three parts as source mode
// (`pm-review-insert` over the inserted text, the deleted text struck through before it, the verdict
// buttons after it). The app places changes in the Markdown; `toView` turns those offsets into view
// positions (markup that shows nothing maps to the text beside it).
import type { EditorState, Transaction } from "prosemirror-state";
import { Decoration } from "prosemirror-view";
import { decorationLayer } from "./decorationlayer";
import { deletedWidget, verdictWidget } from "./reviewdom";
import type { ReviewMark } from "./reviewmodel";

const layer = decorationLayer("vmark-review");

/** A fresh plugin per editor; its decorations follow edits until the next `reviewTransaction`. */
export const reviewPlugin = layer.plugin;

/** Where each change is in the view: its inserted range's view positions. */
export type ToView = (offset: number, bias: -1 | 1) => number;

/**
 * The transaction that shows `marks` (no change to the document, nothing to undo). The decorations shown
 * already where they belong stay the same objects and only the others are removed or added, so the view
 * redraws the changes that moved and compares no more than their parts of the document.
 */
export function reviewTransaction(state: EditorState, marks: readonly ReviewMark[], toView: ToView): Transaction {
  const size = state.doc.content.size;
  const wanted = new Map<string, Decoration>();
  const want = (decoration: Decoration): void => {
    wanted.set(identity(decoration), decoration);
  };
  for (const mark of marks) {
    // A pure deletion sits after the text before it; an insertion starts at the text it inserted.
    const empty = mark.to === mark.from;
    const from = Math.min(toView(mark.from, empty ? -1 : 1), size);
    const to = empty ? from : Math.max(Math.min(toView(mark.to, -1), size), from);
    const end = mark.end >= mark.to ? to : Math.max(Math.min(toView(mark.end, -1), size), from);
    // `key` tells the view a widget is the same; `shows` is everything its DOM is drawn from.
    const shows = JSON.stringify([mark.id, mark.old, mark.agent, mark.tool]);
    const widget = (pos: number, dom: () => HTMLElement, side: number, part: string): Decoration =>
      Decoration.widget(pos, dom, { side, key: `${mark.id}:${part}:${mark.old.length}`, shows: `${part}:${shows}`, ignoreSelection: true, stopEvent: () => true });
    if (mark.old !== "") want(widget(from, () => deletedWidget(mark), -1, "old"));
    if (to > from) want(Decoration.inline(from, to, { class: "pm-review-insert", "data-review-id": mark.id }, { shows: `insert:${mark.id}` }));
    want(widget(end, () => verdictWidget(mark), 1, "verdicts"));
  }
  const shown = layer.shown(state);
  const stale: Decoration[] = [];
  for (const decoration of shown.find()) {
    if (wanted.delete(identity(decoration))) continue; // shown as it should be
    stale.push(decoration);
  }
  return layer.transaction(state, shown.remove(stale).add(state.doc, [...wanted.values()]));
}

/** What makes two of these decorations the same: what they show, and where. */
function identity(decoration: Decoration): string {
  return `${String((decoration.spec as { shows?: string }).shows)}@${decoration.from}-${decoration.to}`;
}
