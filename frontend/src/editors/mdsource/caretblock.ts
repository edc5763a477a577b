// The section and the top-level block that hold the cursor are always laid out.
//
// style.css lets the page skip style and layout of sections off screen (`content-visibility: auto`). A block or a
// section just made (Enter's new paragraph, a new table, a section parted in two) has not been laid out when the
// cursor goes into it, and Chrome places the first key typed there by the layout it does not have yet: `xy` came
// out `yx`, a key typed into a new table's cell landed outside it. The cursor's section carries
// `pm-caret-section`, which style.css lays out, and its block `pm-caret-block`; they are on the elements from the
// moment the elements exist, so the first key already finds a layout.
import type { EditorState } from "prosemirror-state";
import { Plugin } from "prosemirror-state";
import { Decoration, DecorationSet } from "prosemirror-view";
import { BLOCK_DEPTH, betweenBlocks } from "./blocks";

export const CARET_BLOCK = "pm-caret-block";
const CARET_SECTION = "pm-caret-section";

function caretBlock(state: EditorState): DecorationSet {
  const { $head } = state.selection;
  const doc = state.doc;
  const s = Math.min($head.index(0), doc.childCount - 1);
  const sectionPos = $head.posAtIndex(s, 0);
  const section = Decoration.node(sectionPos, sectionPos + doc.child(s).nodeSize, { class: CARET_SECTION });
  if (betweenBlocks($head)) {
    // A node selection of a top-level block (an image, a rule): the node itself.
    const node = $head.depth === BLOCK_DEPTH - 1 ? doc.nodeAt($head.pos) : null;
    return DecorationSet.create(doc, node ? [section, Decoration.node($head.pos, $head.pos + node.nodeSize, { class: CARET_BLOCK })] : [section]);
  }
  const from = $head.before(BLOCK_DEPTH);
  return DecorationSet.create(doc, [section, Decoration.node(from, $head.after(BLOCK_DEPTH), { class: CARET_BLOCK })]);
}

export function caretBlockPlugin(): Plugin {
  return new Plugin({
    props: { decorations: caretBlock },
  });
}
