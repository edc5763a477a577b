// The top-level block that holds the cursor is always laid out.
//
// style.css lets the page skip style and layout of top-level blocks off screen (`content-visibility: auto`). A
// block just made (Enter's new paragraph, a new table) has not been laid out when the cursor goes into it, and
// Chrome places the first key typed there by the layout it does not have yet: `xy` came out `yx`, a key typed into
// a new table's cell landed outside it. The cursor's block carries `pm-caret-block`, which style.css lays out; it
// is on the element from the moment the element exists, so the first key already finds a layout.
import { type EditorState, Plugin } from "prosemirror-state";
import { Decoration, DecorationSet } from "prosemirror-view";
import { BLOCK_DEPTH, betweenBlocks } from "./blocks";

export const CARET_BLOCK = "pm-caret-block";

function caretBlock(state: EditorState): DecorationSet {
  const { $head } = state.selection;
  if (betweenBlocks($head)) {
    // A node selection of a top-level block (an image, a rule): the node itself.
    const node = state.doc.nodeAt($head.pos);
    return node ? DecorationSet.create(state.doc, [Decoration.node($head.pos, $head.pos + node.nodeSize, { class: CARET_BLOCK })]) : DecorationSet.empty;
  }
  const from = $head.before(BLOCK_DEPTH);
  return DecorationSet.create(state.doc, [Decoration.node(from, $head.after(BLOCK_DEPTH), { class: CARET_BLOCK })]);
}

export function caretBlockPlugin(): Plugin {
  return new Plugin({
    props: { decorations: caretBlock },
  });
}
