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

/** The transaction that shows `marks` (no change to the document, nothing to undo). */
export function reviewTransaction(state: EditorState, marks: readonly ReviewMark[], toView: ToView): Transaction {
  const size = state.doc.content.size;
  const decorations: Decoration[] = [];
  for (const mark of marks) {
    // A pure deletion sits after the text before it; an insertion starts at the text it inserted.
    const empty = mark.to === mark.from;
    const from = Math.min(toView(mark.from, empty ? -1 : 1), size);
    const to = empty ? from : Math.max(Math.min(toView(mark.to, -1), size), from);
    const widget = (pos: number, dom: HTMLElement, side: number, part: string): Decoration =>
      Decoration.widget(pos, dom, { side, key: `${mark.id}:${part}:${mark.old.length}`, ignoreSelection: true, stopEvent: () => true });
    if (mark.old !== "") decorations.push(widget(from, deletedWidget(mark), -1, "old"));
    if (to > from) decorations.push(Decoration.inline(from, to, { class: "pm-review-insert", "data-review-id": mark.id }));
    decorations.push(widget(to, verdictWidget(mark), 1, "verdicts"));
  }
  return layer.transaction(state, decorations);
}
