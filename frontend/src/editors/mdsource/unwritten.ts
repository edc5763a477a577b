// What the view shows before the text can say it, written with the first character typed in it.
//
// Markdown has no way to say an empty nested item right after its parent's text (`- a\n  -` is a heading `a`,
// `- a\n  *` the text `a *`), nor an empty paragraph between two parts of a list in a quote (the text reads one
// list until the paragraph has text). The view holds such an empty paragraph (the engine's check accepts it:
// `shownChildren` in sourcedoc.ts); this module remembers how its text is written and writes it with the first
// character typed in it: `before`, the character, `after`, right after the line of the textblock before it, where
// the text holds `replaced` (the numbers the items after an item left out counted down to). Backspace in it takes
// it out of the view (the text already is without it); Enter in an empty item takes it one level out
// (`enterUnwritten` in commands.ts).
import type { Node } from "prosemirror-model";
import { type Command, type EditorState, Plugin, TextSelection, type Transaction } from "prosemirror-state";
import type { EditorView } from "prosemirror-view";
import { BLOCK_DEPTH } from "./blocks";
import { continuation, isBlank } from "./lines";
import { schema } from "./schema";
import { escapeText } from "./serialize";
import { SOURCE_SPLICE, type SourceDoc } from "./sourcedoc";
import { sourceDocOf, sourceTransaction } from "./sourceedit";

export interface Unwritten {
  before: string;
  after: string;
  replaced: string;
  /** Where it stands: an empty nested first item's paragraph, or a paragraph after a block of this type. */
  follows: "item" | string;
}

/** The view's empty paragraphs the text does not have yet, with how each is written. */
export const unwritten = new WeakMap<Node, Unwritten>();

/**
 * The unwritten paragraph the caret is in, where it still stands as it was made (a paragraph moved by another
 * command, a nested item lifted, is the engine's to write, not this module's).
 */
export function unwrittenAt(state: EditorState): Unwritten | null {
  const { $head, empty } = state.selection;
  const info = unwritten.get($head.parent);
  if (!info || !empty || $head.depth < BLOCK_DEPTH + 1) return null;
  const depth = $head.depth - 1;
  const index = $head.index(depth);
  if (info.follows !== "item") return index > 0 && $head.node(depth).child(index - 1).type.name === info.follows ? info : null;
  const item = $head.node(depth);
  if (depth < BLOCK_DEPTH + 2 || item.type.name !== "list_item" || item.childCount !== 1 || $head.index(depth - 1) !== 0) return null;
  const parent = $head.node(depth - 2);
  const at = $head.index(depth - 2);
  return parent.type.name === "list_item" && at > 0 && parent.child(at - 1).type.name === "paragraph" ? info : null;
}

/** Where an unwritten paragraph's text goes: the end of the line of the textblock before it (its closing fence's, for code). */
function anchorOf(doc: Node, source: SourceDoc, pos: number): number | null {
  const $pos = doc.resolve(pos);
  if ($pos.depth < BLOCK_DEPTH + 1) return null;
  const start = $pos.before();
  let previous: { node: Node; pos: number } | null = null;
  doc.nodesBetween($pos.before(BLOCK_DEPTH), start, (node, at) => {
    if (node.isTextblock && at + node.nodeSize <= start) previous = { node, pos: at + 1 };
    return !node.isTextblock;
  });
  const found = previous as { node: Node; pos: number } | null;
  if (!found) return null;
  const range = source.textblockRange(doc, found.pos);
  if (!range) return null;
  let line = source.lineAt(range[1]);
  const fence = found.node.type.name === "code_block" ? String(found.node.attrs.fence ?? "") : "";
  const closing = fence ? source.line(line.number + 1) : null;
  if (closing?.text.replace(/^[\s>]*/, "").startsWith(fence)) line = closing;
  return line.to;
}

/** The text typed into an unwritten paragraph, written (plain, else escaped: the view must show what was typed). */
export function typeUnwritten(view: EditorView, text: string): boolean {
  const { state } = view;
  const { $head } = state.selection;
  const info = unwrittenAt(state);
  const source = sourceDocOf(view);
  if (!info || !source || text === "" || text.includes("\n")) return false;
  const at = anchorOf(state.doc, source, $head.pos);
  if (at === null || source.slice(at, at + info.replaced.length) !== info.replaced) return false;
  for (const form of new Set([text, escapeText(text, "")])) {
    const insert = `${info.before}${form}${info.after}`;
    const cursor = at + info.before.length + form.length;
    const tr = sourceTransaction(state, source, { from: at, to: at + info.replaced.length, insert }, { cursor });
    const shown = tr?.selection.$head.parent;
    if (!tr || shown?.type.name !== "paragraph" || shown.textContent !== text) continue;
    view.dispatch(tr);
    return true;
  }
  return false;
}

/**
 * Backspace in an unwritten paragraph: out of the view, the caret to the end of the textblock before it. An empty
 * item goes with its list if it was all of it; a paragraph between two parts of a list joins them again.
 */
export const removeUnwritten: Command = (state, _dispatch, view) => {
  const { $head } = state.selection;
  const source = sourceDocOf(view);
  const info = unwrittenAt(state);
  if (!view || !info || !source) return false;
  const at = anchorOf(state.doc, source, $head.pos);
  if (at === null) return false;
  const tr = state.tr;
  const depth = $head.depth - 1;
  const container = $head.node(depth);
  let caret = $head.before();
  if (info.follows === "item") {
    const list = $head.node(depth - 1);
    const [from, to] = list.childCount === 1 ? [$head.before(depth - 1), $head.after(depth - 1)] : [$head.before(depth), $head.after(depth)];
    tr.delete(from, to);
    caret = from;
  } else {
    const index = $head.index(depth);
    const before = index > 0 ? container.child(index - 1) : null;
    const after = index + 1 < container.childCount ? container.child(index + 1) : null;
    if (before && after && before.type === after.type && /_list$/.test(before.type.name)) {
      const start = $head.posAtIndex(index - 1, depth);
      tr.replaceWith(start, start + before.nodeSize + $head.parent.nodeSize + after.nodeSize, before.copy(before.content.append(after.content)));
      caret = start + before.nodeSize - 1;
    } else tr.delete($head.before(), $head.after());
  }
  const selection = TextSelection.near(tr.doc.resolve(Math.min(caret, tr.doc.content.size)), -1);
  view.dispatch(tr.setSelection(selection).setMeta(SOURCE_SPLICE, { from: at, to: at, insert: "" }).scrollIntoView());
  return true;
};

/**
 * Enter in an unwritten paragraph that ends a top-level quote: out of it, as on a quote's empty new line, to an
 * empty paragraph after the quote (the view's until typed in).
 */
export const leaveUnwritten: Command = (state, _dispatch, view) => {
  const { $head } = state.selection;
  const source = sourceDocOf(view);
  const info = unwrittenAt(state);
  if (!view || !info || !source || info.follows === "item" || $head.depth !== BLOCK_DEPTH + 1 || $head.index(BLOCK_DEPTH) !== $head.node(BLOCK_DEPTH).childCount - 1) return false;
  const at = anchorOf(state.doc, source, $head.pos);
  if (at === null) return false;
  const tr = state.tr.delete($head.before(), $head.after());
  const after = tr.mapping.map($head.after(BLOCK_DEPTH));
  tr.insert(after, schema.nodes.paragraph.create());
  view.dispatch(tr.setSelection(TextSelection.create(tr.doc, after + 1)).setMeta(SOURCE_SPLICE, { from: at, to: at, insert: "" }).scrollIntoView());
  return true;
};

/**
 * An unwritten empty paragraph at `pos` of `tr`'s document, the caret in it: dispatched. Its text is written with
 * the first character typed in it (`info`); until then the text does not change.
 */
export function placeUnwritten(view: EditorView, tr: Transaction, pos: number, info: Unwritten): void {
  const paragraph = schema.nodes.paragraph.create();
  unwritten.set(paragraph, info);
  tr.insert(pos, paragraph);
  if (!tr.getMeta(SOURCE_SPLICE)) {
    const source = sourceDocOf(view);
    // Only the paragraph is new in the document: the text's blocks are still its top-level blocks.
    const at = source ? anchorOf(tr.doc, source, pos + 1) : null;
    if (at !== null) tr.setMeta(SOURCE_SPLICE, { from: at, to: at, insert: "" });
  }
  view.dispatch(tr.setSelection(TextSelection.create(tr.doc, pos + 1)).scrollIntoView());
}

/** How the text writes a paragraph after `block`, whose lines start with `prefix`: apart from it and from `next` (the line after it). */
export function paragraphAfterBlock(block: Node, prefix: string, next: string | null): Unwritten {
  const cont = continuation(prefix);
  const blank = cont.trimEnd();
  return { before: `\n${blank}\n${cont}`, after: next === null || isBlank(next) ? "" : `\n${blank}`, replaced: "", follows: block.type.name };
}

export function unwrittenPlugin(): Plugin {
  return new Plugin({
    props: {
      handleKeyDown(view, event) {
        if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing || event.key.length !== 1) return false;
        return typeUnwritten(view, event.key);
      },
      handleTextInput(view, _from, _to, text) {
        return typeUnwritten(view, text);
      },
    },
  });
}
