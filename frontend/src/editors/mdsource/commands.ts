// Structural editing in WYSIWYG, written as the Markdown a person would type in source mode.
//
// Every command here computes the splice of the text it means (a new list item with the list's own marker, a
// nested item indented to its parent's content column, a heading's `#`s removed) and lets `sourceEdit` show the
// parse of the result. Bytes the command does not mean to change are never rewritten: no escapes, markers,
// indentation or hard-break style of the person's text change. Where a command has nothing to say (a selection,
// a code block, a construct the text does not state plainly), it answers false and the next one runs.
import type { Node, ResolvedPos } from "prosemirror-model";
import { type Command, type EditorState, Plugin, PluginKey, TextSelection, type Transaction } from "prosemirror-state";
import { Decoration, DecorationSet, type EditorView } from "prosemirror-view";
import {
  blankLine,
  continuation,
  editLines,
  firstTextblock,
  isBlank,
  itemAt,
  type ItemSource,
  itemSource,
  lastTextblock,
  type LineEdit,
  nextMarker,
  spacesAt,
} from "./lines";
import { schema } from "./schema";
import { BLOCK_DEPTH, betweenBlocks, blockAt, blockCount, blockIndex } from "./blocks";
import { segmentsOf } from "./build";
import { applySourceEdit, sourceDocOf, sourceTransaction } from "./sourceedit";
import { SOURCE_SPLICE, SourceDoc, type Span } from "./sourcedoc";
import { leaveUnwritten, paragraphAfterBlock, placeUnwritten, removeUnwritten, unwritten, unwrittenAt } from "./unwritten";

/** The cursor in a textblock whose source is known: the text, the textblock's source and the cursor's offset. */
interface Here {
  view: EditorView;
  state: EditorState;
  source: SourceDoc;
  $pos: ResolvedPos;
  textblock: Node;
  /** The textblock's content `[from, to)` in the text. */
  range: [number, number];
  cursor: number;
}

const TASK = /^\[[ xX]\](?:[ \t]|$)/;

function here(state: EditorState, view: EditorView | undefined, emptyOnly = true): Here | null {
  const source = sourceDocOf(view);
  if (!source || !view) return null;
  const { selection } = state;
  if (emptyOnly && !selection.empty) return null;
  const $pos = selection.$head;
  const textblock = $pos.parent;
  if (!textblock.isTextblock || betweenBlocks($pos)) return null;
  const range = source.textblockRange(state.doc, $pos.pos);
  if (!range) return null;
  const cursor = source.offsetAt(state.doc, $pos.pos, -1);
  if (cursor === null) return null;
  return { view, state, source, $pos, textblock, range, cursor };
}

/** The depth of the innermost ancestor of `type`, or -1. */
function ancestor($pos: ResolvedPos, type: string): number {
  for (let d = $pos.depth; d > 0; d--) if ($pos.node(d).type.name === type) return d;
  return -1;
}

function isTask(textblock: Node): boolean {
  return textblock.type.name === "paragraph" && TASK.test(textblock.textBetween(0, Math.min(4, textblock.content.size)));
}

function edit(h: Here, span: Span, options: Parameters<typeof applySourceEdit>[2] = {}): boolean {
  return applySourceEdit(h.view, span, options);
}

// --- Enter ---------------------------------------------------------------------------------------------------

/** Enter in a list item: a new item with the list's own marker (`- [ ] ` in a task list); in an empty one, out. */
export const enterInList: Command = (state, _dispatch, view) => {
  const h = here(state, view);
  if (!h || h.textblock.type.name !== "paragraph") return false;
  const depth = h.$pos.depth - 1;
  if (h.$pos.node(depth).type.name !== "list_item") return false;
  const item = itemSource(h.source, state.doc, h.$pos, depth);
  if (!item) return false;
  const list = h.$pos.node(depth - 1);
  const index = h.$pos.index(depth - 1);
  const itemNode = h.$pos.node(depth);
  const text = h.textblock.textContent;
  const empty = itemNode.childCount === 1 && (text === "" || /^\[[ xX]\][ \t]*$/.test(text));
  if (empty) {
    if (depth > 1 && h.$pos.node(depth - 2).type.name === "list_item") return liftItem(h, depth, item);
    if (index === list.childCount - 1) return endList(h, depth, item);
    if (depth === BLOCK_DEPTH + 1) return splitList(h, depth, item);
    if (h.$pos.node(depth - 2).type.name === "blockquote") return index === 0 ? paragraphBeforeList(h, depth, item) : splitQuotedList(h, depth, item);
  }
  const outer = continuation(item.marker.outer);
  const loose = !list.attrs.tight;
  const task = isTask(itemNode.firstChild as Node) ? "[ ] " : "";
  // A list numbered `1.` `1.` `1.` stays so; otherwise the next number.
  const following = index + 1 < list.childCount ? itemAt(h.source, state.doc, list.child(index + 1), h.$pos.after(depth), list, index + 1) : null;
  const marker = following?.marker.marker === item.marker.marker ? item.marker.marker : nextMarker(item.marker.marker);
  const spacing = item.marker.spacing || " ";
  const blank = loose ? `\n${blankLine(item.marker.outer)}` : "";
  const insert = `${blank}\n${outer}${marker}${spacing}${task}`;
  const at = afterItem(h, depth, item) ?? h.cursor;
  const n = numberOf(marker);
  const numbers = n !== null && marker !== item.marker.marker ? renumbering(h, list, index, h.$pos.after(depth), n, n + 1) : [];
  return edit(h, withNumbers(h, { from: at, to: at, insert }, numbers), { cursor: at + insert.length });
};

/**
 * Enter at the end of an item's first paragraph when a blank line parts it from the item's next block
 * (`* b\n\n  more`): the new item goes after the whole item, which keeps its blocks. Split there, the new item
 * would start with an empty line and a blank one, and Markdown ends such an item at once (`more` would leave the
 * list). Null where the item is split at the caret.
 */
function afterItem(h: Here, depth: number, item: ItemSource): number | null {
  const itemNode = h.$pos.node(depth);
  if (itemNode.childCount < 2 || h.$pos.index(depth) !== 0 || h.$pos.parentOffset !== h.textblock.content.size) return null;
  const next = h.source.line(h.source.lineAt(h.range[1]).number + 1);
  if (!next || !isBlank(next.text)) return null;
  return h.source.line(item.last)?.to ?? null;
}

/** The number of an ordered marker (`3.` is 3), or null for a bullet. */
function numberOf(marker: string): number | null {
  const m = /^(\d+)[.)]$/.exec(marker);
  return m ? Number(m[1]) : null;
}

/** One number of an ordered item to write anew: `length` characters at text offset `at` become `text`. */
interface Renumber {
  at: number;
  length: number;
  text: string;
}

/**
 * The one renumbering rule (Enter, Backspace, Tab, Shift+Tab): the items of `list` after its child `index` (which
 * ends at view position `pos`) that count on from `expect` as written (`expect`, `expect + 1`, ...) get `to`,
 * `to + 1`, ... as Typora writes them. Only those numbers change; the first item that does not count on (or of more
 * than one line whose number would take another digit or lose one, moving its content) and every one after it keep
 * theirs, as CommonMark allows (it reads only a list's first number). A list numbered `1.` `1.` stays so.
 */
function renumbering(h: Here, list: Node, index: number, pos: number, expect: number, to: number): Renumber[] {
  const numbers: Renumber[] = [];
  if (list.type.name !== "ordered_list" || expect === to) return numbers;
  for (let k = index + 1; k < list.childCount; k++) {
    const item = list.child(k);
    const src = itemAt(h.source, h.state.doc, item, pos, list, k);
    const written = src ? /^(\d+)[.)]$/.exec(src.marker.marker)?.[1] : undefined;
    const next = String(to);
    const line = src ? h.source.line(src.first) : null;
    // Another digit moves the item's content one column: only an item of one line may take it.
    const fits = written !== undefined && (next.length === written.length || (src?.first === src?.last && item.childCount === 1));
    if (!src || !line || written === undefined || Number(written) !== expect || !fits) break;
    numbers.push({ at: line.from + src.markerCol, length: written.length, text: next });
    expect++;
    to++;
    pos += item.nodeSize;
  }
  return numbers;
}

/** `span` with the numbers after it written anew (each at or after `span.to`, in order). */
function withNumbers(h: Here, span: Span, numbers: Renumber[]): Span {
  let insert = span.insert;
  let at = span.to;
  for (const n of numbers) {
    if (n.at < at) continue;
    insert += h.source.slice(at, n.at) + n.text;
    at = n.at + n.length;
  }
  return { from: span.from, to: at, insert };
}

/**
 * The numbers of the items after the cursor's item (at `depth`) once it leaves its list (Backspace, Tab, Shift+Tab):
 * the items that counted on from it count on from the item before it (from 1 where it was the first).
 */
function numbersAfterRemoved(h: Here, depth: number, item: ItemSource, to?: number): Renumber[] {
  const n = numberOf(item.marker.marker);
  if (n === null) return [];
  return renumbering(h, h.$pos.node(depth - 1), h.$pos.index(depth - 1), h.$pos.after(depth), n + 1, to ?? n);
}

/** An empty last item: its line goes, and the cursor to a new paragraph after the list (or its top-level block). */
function endList(h: Here, depth: number, item: ItemSource): boolean {
  const list = h.$pos.node(depth - 1);
  if (depth - 1 === BLOCK_DEPTH && list.childCount === 1) {
    // The list is this one empty item: it becomes an empty paragraph (the text loses the list and its gap).
    const start = h.$pos.before(BLOCK_DEPTH);
    const tr = h.state.tr.replaceWith(start, start + list.nodeSize, schema.nodes.paragraph.create());
    h.view.dispatch(tr.setSelection(TextSelection.create(tr.doc, start + 1)).scrollIntoView());
    return true;
  }
  let previous = item.first - 1;
  while (previous > 0 && isBlank(h.source.line(previous)?.text ?? "x")) previous--;
  const from = h.source.line(previous);
  const to = h.source.line(item.last);
  if (!from || !to || previous < 1) return false;
  return edit(h, { from: from.to, to: to.to, insert: "" }, { paragraphAfter: true, cursor: from.to });
}

/**
 * An empty item before others in a top-level list: the list ends there. The item's line goes; the view shows the
 * items before it, an empty paragraph with the cursor, and the items after it as a list of their own. Until the
 * paragraph has text the text reads one list (the engine accepts that split: `splitLists` in sourcedoc.ts).
 */
function splitList(h: Here, depth: number, item: ItemSource): boolean {
  const list = h.$pos.node(depth - 1);
  const index = h.$pos.index(depth - 1);
  const itemNode = h.$pos.node(depth);
  const listStart = h.$pos.before(depth - 1);
  const itemAt = h.$pos.before(depth) - listStart - 1;
  let nextLine = item.last + 1;
  while (isBlank(h.source.line(nextLine)?.text ?? "x")) nextLine++;
  const next = h.source.line(nextLine);
  const own = h.source.line(item.first);
  const last = h.source.line(item.last);
  if (!next || !own || !last) return false;
  let span: Span;
  if (index === 0) span = { from: own.from, to: next.from, insert: "" };
  else {
    let previous = item.first - 1;
    while (previous > 0 && isBlank(h.source.line(previous)?.text ?? "x")) previous--;
    const end = h.source.line(previous);
    if (!end || previous < 1) return false;
    span = { from: end.to, to: last.to, insert: "" };
  }
  const number = /^[ \t]*(\d+)[.)]/.exec(next.text);
  let attrs = list.type.name === "ordered_list" && number ? { ...list.attrs, start: Number(number[1]) } : list.attrs;
  // From the first item the text's list is the rest alone: loose or tight as the rest reads (`- \n\n- b` is `- b`).
  if (index === 0) attrs = { ...attrs, tight: restTight(h, listStart, list, next.from) ?? attrs.tight };
  const nodes: Node[] = [];
  if (index > 0) nodes.push(list.copy(list.content.cut(0, itemAt)));
  nodes.push(schema.nodes.paragraph.create());
  nodes.push(list.type.create(attrs, list.content.cut(itemAt + itemNode.nodeSize)));
  const tr = h.state.tr.replaceWith(listStart, listStart + list.nodeSize, nodes);
  const cursor = listStart + (index > 0 ? nodes[0].nodeSize : 0) + 1;
  h.view.dispatch(tr.setSelection(TextSelection.create(tr.doc, cursor)).setMeta(SOURCE_SPLICE, span).scrollIntoView());
  return true;
}

/**
 * Enter in an unwritten paragraph (mdsource/unwritten.ts): an empty nested item goes one level out, as Enter in an
 * empty nested item does (a new item after its parent, which the text can say: `- a\n- `, its own list's items
 * after it nested under it); at the end of a top-level quote, out of it; elsewhere nothing yet.
 */
export const enterUnwritten: Command = (state, dispatch, view) => {
  const info = unwrittenAt(state);
  if (!info) return false;
  if (view && info.follows === "item" && removeUnwritten(state, dispatch, view)) enterInList(view.state, view.dispatch, view);
  else leaveUnwritten(state, dispatch, view);
  return true;
};

/**
 * An empty item before others in a list in a quote: the list ends there, as at the top level (`splitList`). The
 * item's line goes; the view shows an empty paragraph of the quote between the two parts of the list, which the
 * text writes with its first character, a blank line on both sides (`> - a\n>\n> x\n>\n> - c`).
 */
function splitQuotedList(h: Here, depth: number, item: ItemSource): boolean {
  const list = h.$pos.node(depth - 1);
  const itemNode = h.$pos.node(depth);
  const listStart = h.$pos.before(depth - 1);
  const itemAt = h.$pos.before(depth) - listStart - 1;
  let previous = item.first - 1;
  while (previous > 0 && isBlank(h.source.line(previous)?.text ?? "x")) previous--;
  const end = h.source.line(previous);
  const last = h.source.line(item.last);
  const next = h.source.line(item.last + 1);
  let following = item.last + 1;
  while (isBlank(h.source.line(following)?.text ?? "x")) following++;
  const nextItem = h.source.line(following);
  if (!end || !last || !next || !nextItem || previous < 1) return false;
  const number = /^[\s>]*(\d+)[.)]/.exec(nextItem.text);
  const attrs = list.type.name === "ordered_list" && number ? { ...list.attrs, start: Number(number[1]) } : list.attrs;
  const paragraph = schema.nodes.paragraph.create();
  const blank = blankLine(item.marker.outer);
  // A blank line after it, unless the list already has one there (a loose list).
  unwritten.set(paragraph, { before: `\n${blank}\n${continuation(item.marker.outer)}`, after: isBlank(next.text) ? "" : `\n${blank}`, replaced: "", follows: list.type.name });
  const nodes = [list.copy(list.content.cut(0, itemAt)), paragraph, list.type.create(attrs, list.content.cut(itemAt + itemNode.nodeSize))];
  const tr = h.state.tr.replaceWith(listStart, listStart + list.nodeSize, nodes);
  const span = { from: end.to, to: last.to, insert: "" };
  h.view.dispatch(tr.setSelection(TextSelection.create(tr.doc, listStart + nodes[0].nodeSize + 1)).setMeta(SOURCE_SPLICE, span).scrollIntoView());
  return true;
}

/** Whether the text of `list` (at `listStart`) from offset `from` reads as a tight list; null if it cannot say. */
function restTight(h: Here, listStart: number, list: Node, from: number): boolean | null {
  const end = lastTextblock(list, listStart);
  const range = end ? h.source.textblockRange(h.state.doc, end.pos) : null;
  if (!range || range[1] < from) return null;
  const rest = blockAt(new SourceDoc(h.source.slice(from, range[1])).doc(), 0);
  return rest?.type === list.type ? Boolean(rest.attrs.tight) : null;
}

/** Enter in a quote: a new paragraph of the quote; on its empty last line, out of the quote. */
export const enterInQuote: Command = (state, _dispatch, view) => {
  const h = here(state, view);
  if (!h || h.textblock.type.name !== "paragraph") return false;
  const depth = h.$pos.depth - 1;
  if (h.$pos.node(depth).type.name !== "blockquote") return false;
  const line = h.source.lineAt(h.cursor);
  const prefix = line.text.slice(0, Math.max(0, h.range[0] - line.from));
  const quote = /^(.*>[ \t]?)/.exec(prefix)?.[1] ?? /^(.*>[ \t]?)/.exec(line.text)?.[1];
  if (quote === undefined) return false;
  if (h.textblock.content.size === 0) {
    // The quote's empty new line: it goes, and the cursor leaves the quote.
    const quoteNode = h.$pos.node(depth);
    if (h.$pos.index(depth) !== quoteNode.childCount - 1 || quoteNode.childCount < 2) return false;
    let previous = line.number - 1;
    while (previous > 0 && isBlank(h.source.line(previous)?.text ?? "x")) previous--;
    const from = h.source.line(previous);
    if (!from || previous < 1) return false;
    return edit(h, { from: from.to, to: line.to, insert: "" }, { paragraphAfter: true, cursor: from.to });
  }
  const cont = continuation(quote);
  const atEnd = h.$pos.parentOffset === h.textblock.content.size;
  const insert = `\n${cont.trimEnd()}\n${cont}`;
  return edit(h, { from: h.cursor, to: h.cursor, insert }, { paragraphHere: atEnd });
};

/** Enter inside a paragraph or heading (not at its end): the rest becomes a paragraph of its own. */
export const splitTextblock: Command = (state, _dispatch, view) => {
  const h = here(state, view);
  if (!h || (h.textblock.type.name !== "paragraph" && h.textblock.type.name !== "heading")) return false;
  if (h.$pos.parentOffset === h.textblock.content.size || h.$pos.parentOffset === 0) return false;
  if (h.textblock.type.name === "heading" && h.textblock.attrs.markup !== "=" && h.textblock.attrs.markup !== "-") {
    const line = h.source.lineAt(h.cursor);
    const cont = continuation(line.text.slice(0, h.range[0] - line.from).replace(/#{1,6}[ \t]*$/, ""));
    // What follows the cursor on the heading's line (a closing `#` sequence stays with the heading).
    const rest = line.text.slice(h.cursor - line.from);
    const closing = /[ \t]+#+[ \t]*$/.exec(rest)?.[0] ?? "";
    const moved = rest.slice(0, rest.length - closing.length);
    return edit(h, { from: h.cursor, to: line.to, insert: `${closing}\n${cont.trimEnd()}\n${cont}${moved.replace(/^[ \t]+/, "")}` }, { cursor: h.cursor + closing.length + 2 + cont.trimEnd().length + cont.length });
  }
  const line = h.source.lineAt(h.range[0]);
  const cont = continuation(line.text.slice(0, h.range[0] - line.from));
  return edit(h, { from: h.cursor, to: h.cursor, insert: `\n${cont.trimEnd()}\n${cont}` });
};

/** Shift+Enter: a hard line break in the document's own style (`\` or two spaces where the file uses them). */
export const hardBreak: Command = (state, _dispatch, view) => {
  const h = here(state, view);
  if (!h) return false;
  if (h.textblock.type.spec.code) {
    view?.dispatch(state.tr.insertText("\n").scrollIntoView());
    return true;
  }
  if (h.textblock.type.name === "heading" || h.textblock.type.name === "table_cell") return true;
  const line = h.source.lineAt(h.range[0]);
  const cont = continuation(line.text.slice(0, h.range[0] - line.from));
  // The file's own style: two spaces where its breaks are written so (a line ending in them, text on the next).
  let breaks = 0;
  state.doc.descendants((node) => {
    if (node.type.name === "hard_break") breaks++;
    return breaks === 0;
  });
  const spaces = breaks > 0 && /\S {2,}\n[ \t>]*\S/.test(h.source.text) && !/\S\\\n[ \t>]*\S/.test(h.source.text);
  const raw = `${spaces ? "  " : "\\"}\n${cont}`;
  const span = { from: h.cursor, to: h.cursor, insert: raw };
  if (h.$pos.parentOffset < h.textblock.content.size) return edit(h, span);
  // At the end of its textblock the break is the view's until a line follows it (the text gets both then).
  const tr = state.tr.replaceSelectionWith(schema.nodes.hard_break.create({ raw }), false);
  h.view.dispatch(tr.setMeta(SOURCE_SPLICE, { from: h.cursor, to: h.cursor, insert: "" }).scrollIntoView());
  return true;
};

// --- Backspace ------------------------------------------------------------------------------------------------

/** Backspace at the start of a list item, heading or quote: a paragraph; at the start of a paragraph: joined. */
export const backspaceAtStart: Command = (state, _dispatch, view) => {
  const h = here(state, view);
  if (!h) return false;
  // An empty item Tab showed nested (not written yet): Backspace takes the nesting back, as a lift does.
  if (pendingKey.getState(state) === h.$pos.pos) {
    h.view.dispatch(state.tr.setMeta(pendingKey, null));
    return true;
  }
  const offset = h.$pos.parentOffset;
  const depth = h.$pos.depth - 1;
  const parent = h.$pos.node(depth);
  // A task item's `[ ] ` is its checkbox: Backspace right after it takes the checkbox away.
  if (parent.type.name === "list_item" && h.$pos.index(depth) === 0 && isTask(h.textblock) && (offset === 4 || offset === 0)) {
    const at = h.range[0];
    return edit(h, { from: at, to: at + 4, insert: "" }, { cursor: at });
  }
  if (offset !== 0) return false;
  if (h.textblock.type.name === "heading") return headingToParagraph(h);
  if (h.textblock.type.name !== "paragraph") return false;
  if (parent.type.name === "list_item" && h.$pos.index(depth) === 0) {
    const item = itemSource(h.source, state.doc, h.$pos, depth);
    if (!item) return false;
    // An empty item after another: it goes, the cursor to the end of the item before.
    if (parent.childCount === 1 && h.textblock.content.size === 0 && h.$pos.index(depth - 1) > 0) {
      const previous = h.$pos.posAtIndex(h.$pos.index(depth - 1) - 1, depth - 1);
      const end = lastTextblock(h.$pos.node(depth - 1).child(h.$pos.index(depth - 1) - 1), previous);
      const range = end ? h.source.textblockRange(state.doc, end.pos) : null;
      const line = h.source.line(item.last);
      if (range && line) return edit(h, withNumbers(h, { from: range[1], to: line.to, insert: "" }, numbersAfterRemoved(h, depth, item)), { cursor: range[1] });
    }
    // An empty first item of a top-level list: as Enter there (its line goes, an empty paragraph before the rest).
    // Unwrapped, its empty line would stay in the text as a blank one.
    if (parent.childCount === 1 && h.textblock.content.size === 0 && depth === BLOCK_DEPTH + 1) {
      return h.$pos.node(depth - 1).childCount === 1 ? endList(h, depth, item) : splitList(h, depth, item);
    }
    // In a quote or an item: an empty paragraph of it before the rest of the list.
    if (parent.childCount === 1 && h.textblock.content.size === 0 && depth > BLOCK_DEPTH + 1 && h.$pos.node(depth - 1).childCount > 1) {
      return paragraphBeforeList(h, depth, item);
    }
    return unwrapItem(h, depth, item);
  }
  if (parent.type.name === "blockquote" && h.$pos.index(depth) === 0) return unquoteTextblock(h, depth);
  return joinBackward(h);
};

/**
 * Backspace on the last character of a nested list's first item right after its parent's text (`- a\n  - b`): the
 * view keeps the empty item, which the text cannot say (`- a\n  -` is a heading `a`, `- a\n  *` the text `a *`).
 * Its line leaves the text (the items after it counted down, as when an item goes) and comes back as it was with
 * the first character typed in it (mdsource/unwritten.ts); Backspace again takes it out of the view too.
 */
export const backspaceEmptiesNestedItem: Command = (state, _dispatch, view) => {
  const h = here(state, view);
  if (!h || h.textblock.type.name !== "paragraph" || h.textblock.content.size !== 1 || h.$pos.parentOffset !== 1) return false;
  const depth = h.$pos.depth - 1;
  const itemNode = h.$pos.node(depth);
  if (depth < BLOCK_DEPTH + 2 || itemNode.type.name !== "list_item" || itemNode.childCount !== 1 || h.$pos.index(depth - 1) !== 0) return false;
  const parentDepth = depth - 2;
  const parent = h.$pos.node(parentDepth);
  const listIndex = h.$pos.index(parentDepth);
  if (parent.type.name !== "list_item" || listIndex === 0 || parent.child(listIndex - 1).type.name !== "paragraph") return false;
  const item = itemSource(h.source, state.doc, h.$pos, depth);
  const text = h.source.textblockRange(state.doc, h.$pos.posAtIndex(listIndex - 1, parentDepth) + 1);
  if (!item || !text) return false;
  const anchor = h.source.lineAt(text[1]);
  const last = h.source.line(item.last);
  // A blank line between them: the text says the empty item (`- a\n\n  -`), as the engine writes it.
  if (anchor.number !== item.first - 1 || !last) return false;
  const span = withNumbers(h, { from: anchor.to, to: last.to, insert: "" }, numbersAfterRemoved(h, depth, item));
  const tr = sourceTransaction(state, h.source, span, { cursor: anchor.to });
  if (!tr) return false;
  // The view keeps the empty item where it was: first in its list (the list too, if the text has none there now).
  const parentAt = tr.mapping.map(h.$pos.before(parentDepth), -1);
  const newParent = tr.doc.nodeAt(parentAt);
  if (newParent?.type.name !== "list_item" || newParent.childCount < listIndex) return false;
  let at = parentAt + 1;
  for (let k = 0; k < listIndex; k++) at += newParent.child(k).nodeSize;
  const paragraph = schema.nodes.paragraph.create();
  const emptyItem = itemNode.type.create(itemNode.attrs, paragraph);
  const list = h.$pos.node(depth - 1);
  const rest = listIndex < newParent.childCount ? newParent.child(listIndex) : null;
  if (rest && rest.type === list.type && list.childCount > 1) tr.insert(at + 1, emptyItem);
  else tr.insert(at, list.type.create(list.attrs, emptyItem));
  unwritten.set(paragraph, { before: h.source.slice(anchor.to, h.range[0]), after: h.source.slice(h.range[1], span.to), replaced: span.insert, follows: "item" });
  h.view.dispatch(tr.setSelection(TextSelection.create(tr.doc, at + 3)).scrollIntoView());
  return true;
};

/** The paragraph joined to the end of the textblock before it (the gap between them removed). */
function joinBackward(h: Here): boolean {
  const depth = h.$pos.depth - 1;
  const index = h.$pos.index(depth);
  if (index === 0) return false;
  const parent = h.$pos.node(depth);
  const prev = parent.child(index - 1);
  const prevStart = h.$pos.posAtIndex(index - 1, depth);
  if (prev.type.name === "horizontal_rule" && depth === BLOCK_DEPTH - 1) {
    const range = h.source.blockRange(blockIndex(h.$pos) - 1);
    if (!range) return false;
    return edit(h, { from: range[0], to: h.range[0], insert: "" }, { cursor: range[0] });
  }
  const target = lastTextblock(prev, prevStart);
  if (target && isClosedMath(target.node) && target.node.textContent.includes("\n")) return joinIntoMath(h, target.pos);
  if (!target || target.node.type.spec.code || target.node.type.name === "table_cell") return false;
  if (prev.type.name === "table" || prev.type.name === "code_block" || prev.type.name === "raw_block") return false;
  const end = h.source.textblockRange(h.state.doc, target.pos);
  if (!end || end[1] > h.range[0]) return false;
  return edit(h, { from: end[1], to: h.range[0], insert: "" }, { cursor: end[1] });
}

/**
 * The paragraph joined to the math block before it, as to a code block: its text goes to the end of the block's last
 * line, before the closing `$$` (after it, the `$$` would close nothing and the block would take in what follows).
 */
function joinIntoMath(h: Here, mathPos: number): boolean {
  const math = h.source.textblockRange(h.state.doc, mathPos);
  if (!math || math[1] > h.range[0]) return false;
  const closer = h.source.lineAt(math[1]);
  const end = closer.from - 1;
  const insert = h.source.slice(h.range[0], h.range[1]) + h.source.slice(end, closer.to);
  return edit(h, { from: end, to: h.range[1], insert }, { cursor: end });
}

/** A heading becomes a paragraph: its `#`s (or its underline) go, a blank line kept from its neighbours. */
function headingToParagraph(h: Here): boolean {
  const line = h.source.lineAt(h.range[0]);
  const setext = h.textblock.attrs.markup === "=" || h.textblock.attrs.markup === "-";
  if (setext) {
    const last = h.source.lineAt(h.range[1]);
    const underline = h.source.line(last.number + 1);
    if (!underline) return false;
    return edit(h, { from: last.to, to: underline.to, insert: "" }, { cursor: h.cursor });
  }
  const prefix = line.text.slice(0, h.range[0] - line.from);
  const hashes = /#{1,6}(?:[ \t]+|$)$/.exec(prefix);
  if (!hashes) return false;
  const start = line.from + hashes.index;
  const rest = line.text.slice(h.range[1] - line.from);
  const closing = /^[ \t]+#+[ \t]*$/.test(rest) ? rest.length : 0;
  const top = h.$pos.depth === BLOCK_DEPTH;
  const before = top && line.number > 1 && !isBlank(h.source.line(line.number - 1)?.text ?? "") ? "\n" : "";
  const next = h.source.line(line.number + 1);
  const after = top && next && !isBlank(next.text) ? "\n" : "";
  const text = line.text.slice(h.range[0] - line.from, h.range[1] - line.from);
  const cursor = start + before.length + (h.cursor - h.range[0]);
  return edit(h, { from: start, to: h.range[1] + closing, insert: `${before}${text}${after}` }, { cursor });
}

/** The paragraph leaves its quote: the innermost `>` of each of its lines goes. */
function unquoteTextblock(h: Here, _depth: number): boolean {
  const first = h.source.lineAt(h.range[0]);
  const last = h.source.lineAt(h.range[1]);
  const lead = (text: string, n: number): LineEdit | null => {
    const limit = n === first.number ? h.range[0] - first.from : (/^[\s>]*/.exec(text)?.[0].length ?? 0);
    const at = text.slice(0, limit).lastIndexOf(">");
    if (at < 0) return null;
    return { at, remove: text.charAt(at + 1) === " " ? 2 : 1, insert: "" };
  };
  const done = editLines(h.source, first.number, last.number, lead, h.cursor);
  return done ? edit(h, done.span, { cursor: done.cursor }) : false;
}

/**
 * A list item becomes what is outside it: at the top level a paragraph (its marker gone, its lines out-dented),
 * nested a paragraph of the parent item (its marker turned into spaces). A blank line keeps it apart from the
 * items before and after it.
 */
function unwrapItem(h: Here, depth: number, item: ItemSource): boolean {
  const done = unwrapSpan(h, depth, item);
  return done ? edit(h, done.span, { cursor: done.cursor }) : false;
}

function unwrapSpan(h: Here, depth: number, item: ItemSource): { span: Span; cursor: number } | null {
  const list = h.$pos.node(depth - 1);
  const index = h.$pos.index(depth - 1);
  const nested = depth > 1 && h.$pos.node(depth - 2).type.name === "list_item";
  const width = item.contentCol - item.markerCol;
  // Nested, the marker's columns stay as spaces, so that the item's lines keep their places; an empty item has none
  // to keep: what is typed goes at the parent item's content column, as a person would write it.
  const empty = item.first === item.last && h.$pos.node(depth).childCount === 1 && h.$pos.node(depth).firstChild?.content.size === 0;
  const markerEdit = (text: string, n: number): LineEdit | null => {
    if (n === item.first) return { at: item.markerCol, remove: width, insert: nested && !empty ? " ".repeat(width) : "" };
    if (nested || !spacesAt(text, item.markerCol, width)) return null;
    return { at: item.markerCol, remove: width, insert: "" };
  };
  const blank = blankLine(item.marker.outer);
  const prevBlank = isBlank(h.source.line(item.first - 1)?.text ?? "");
  const nextBlank = isBlank(h.source.line(item.last + 1)?.text ?? "");
  // The line before may be text (a parent item's paragraph, a paragraph before the list): the item's text would
  // continue it.
  const before = item.first > 1 && !prevBlank ? [blank] : [];
  const after = index < list.childCount - 1 && !nextBlank ? [blank] : [];
  const done = editLines(h.source, item.first, item.last, markerEdit, h.cursor, before, after);
  return done ? { span: withNumbers(h, done.span, numbersAfterRemoved(h, depth, item)), cursor: done.cursor } : null;
}

/**
 * An empty first item of a list in a quote (or of a nested list) becomes an empty paragraph of the quote (the parent
 * item) before the rest of the list: its line keeps the containers' prefix (`> `, where what is typed goes), a blank
 * line parts it from the list (`> x\n>\n> - b` once typed). The parse has no paragraph there until it has text: the
 * view holds it, as it holds a quote's new line.
 */
function paragraphBeforeList(h: Here, depth: number, item: ItemSource): boolean {
  const done = unwrapSpan(h, depth, item);
  if (!done) return false;
  const tr = sourceTransaction(h.state, h.source, done.span, { cursor: done.cursor });
  const top = h.source.blockRange(blockIndex(h.$pos));
  if (!tr || !top) return false;
  const at = h.$pos.before(depth - 1);
  if (!/_list$/.test(tr.doc.resolve(at).nodeAfter?.type.name ?? "")) return false;
  const paragraph = schema.nodes.paragraph.create();
  tr.insert(at, paragraph);
  segmentsOf.set(paragraph, [{ pm: 0, pmEnd: 0, src: done.cursor - top[0], srcEnd: done.cursor - top[0], verbatim: false, marks: [] }]);
  h.view.dispatch(tr.setSelection(TextSelection.create(tr.doc, at + 1)));
  return true;
}

// --- Tab / Shift+Tab ---------------------------------------------------------------------------------------------

/** Tab in a list item: it becomes the last child of the item before it, indented to that item's content column. */
export const sinkItem: Command = (state, _dispatch, view) => {
  const h = here(state, view, false);
  if (!h) return false;
  const depth = ancestor(h.$pos, "list_item");
  if (depth < 1) return false;
  const list = h.$pos.node(depth - 1);
  const index = h.$pos.index(depth - 1);
  if (index === 0) return true; // nothing to nest under: the key does nothing (it does not leave the editor)
  const itemNode = h.$pos.node(depth);
  const prevLast = list.child(index - 1).lastChild;
  if (itemNode.childCount === 1 && h.textblock.content.size === 0 && prevLast?.isTextblock) {
    // An empty item nested right after text would be that text's continuation (or a heading's underline, for
    // `-`): it is nested when the person types in it. Until then the view shows it nested.
    h.view.dispatch(state.tr.setMeta(pendingKey, h.$pos.pos));
    return true;
  }
  const done = sinkSpan(h, depth);
  return done ? edit(h, done.span, { cursor: done.cursor }) : true;
};

/** The splice that nests the item at `depth` under the item before it (null: the text does not say it plainly). */
function sinkSpan(h: Here, depth: number): { span: Span; cursor: number } | null {
  const state = h.state;
  const index = h.$pos.index(depth - 1);
  const list = h.$pos.node(depth - 1);
  const item = itemSource(h.source, state.doc, h.$pos, depth);
  const prevStart = h.$pos.posAtIndex(index - 1, depth - 1);
  const prev = itemAt(h.source, state.doc, list.child(index - 1), prevStart, list, index - 1);
  if (!item || !prev) return null;
  const pad = prev.contentCol - item.markerCol;
  if (pad <= 0) return null;
  // The item joins the list its new parent already has, with that list's marker; else it starts one.
  const sub = list.child(index - 1).lastChild;
  let marker = item.marker.marker;
  if (sub && (sub.type.name === "bullet_list" || sub.type.name === "ordered_list")) {
    marker = sub.type.name === "ordered_list" ? `${Number(sub.attrs.start) + sub.childCount}${sub.attrs.markup}` : String(sub.attrs.markup);
  } else if (/^\d/.test(marker)) marker = `1${marker.slice(-1)}`;
  const lineEdit = (text: string, n: number): LineEdit | null => {
    if (n === item.first) return { at: item.markerCol, remove: item.marker.marker.length, insert: " ".repeat(pad) + marker };
    if (text.trim() === "" || !spacesAt(text, item.markerCol, 0)) return null;
    if (text.length <= item.markerCol) return null;
    return { at: item.markerCol, remove: 0, insert: " ".repeat(pad + marker.length - item.marker.marker.length) };
  };
  const done = editLines(h.source, item.first, item.last, lineEdit, h.cursor);
  return done ? { span: withNumbers(h, done.span, numbersAfterRemoved(h, depth, item)), cursor: done.cursor } : null;
}

/** Where an empty item waits to be nested (the view position of its paragraph's content), or null. */
export const pendingKey = new PluginKey<number | null>("vmark-pending-indent");

/** The empty item Tab nested: shown nested, written nested with the first character typed in it. */
export function pendingIndentPlugin(): Plugin<number | null> {
  const typed = (view: EditorView, text: string): boolean => {
    const pending = pendingKey.getState(view.state);
    const h = here(view.state, view);
    if (pending == null || !h || h.$pos.pos !== pending || text.length !== 1) return false;
    const depth = ancestor(h.$pos, "list_item");
    const done = depth > 0 ? sinkSpan(h, depth) : null;
    if (!done) return false;
    const at = done.cursor - done.span.from;
    const span = { ...done.span, insert: done.span.insert.slice(0, at) + text + done.span.insert.slice(at) };
    return edit(h, span, { cursor: done.cursor + text.length });
  };
  return new Plugin<number | null>({
    key: pendingKey,
    state: {
      init: () => null,
      apply: (tr, value) => {
        const meta = tr.getMeta(pendingKey) as number | undefined;
        if (meta !== undefined) return meta;
        if (value === null || tr.docChanged || tr.selection.head !== value) return null;
        return value;
      },
    },
    props: {
      decorations(state) {
        const pending = pendingKey.getState(state);
        if (pending == null) return null;
        const $pos = state.doc.resolve(pending);
        const depth = ancestor($pos, "list_item");
        if (depth < 1) return null;
        const start = $pos.before(depth);
        return DecorationSet.create(state.doc, [Decoration.node(start, start + $pos.node(depth).nodeSize, { class: "md-pending-indent" })]);
      },
      handleKeyDown(view, event) {
        if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return false;
        return typed(view, event.key);
      },
      handleTextInput(view, _from, _to, text) {
        return typed(view, text);
      },
    },
  });
}

/** Shift+Tab in a list item: one level out (after its parent item), or out of the list at the top level. */
export const liftListItem: Command = (state, _dispatch, view) => {
  const h = here(state, view, false);
  if (!h) return false;
  const depth = ancestor(h.$pos, "list_item");
  if (depth < 1) return false;
  const item = itemSource(h.source, state.doc, h.$pos, depth);
  if (!item) return true;
  return liftItem(h, depth, item);
};

function liftItem(h: Here, depth: number, item: ItemSource): boolean {
  const outerDepth = depth - 2;
  if (outerDepth < 1 || h.$pos.node(outerDepth).type.name !== "list_item") {
    // At the top level (or in a quote): the item becomes a paragraph.
    const first = h.$pos.node(depth).firstChild;
    if (first?.type.name !== "paragraph") return true;
    const at = h.source.textblockRange(h.state.doc, h.$pos.before(depth) + 2);
    if (!at) return true;
    return unwrapItem(h, depth, item) || true;
  }
  const parentList = h.$pos.node(outerDepth - 1);
  const parent = itemAt(h.source, h.state.doc, h.$pos.node(outerDepth), h.$pos.before(outerDepth), parentList, h.$pos.index(outerDepth - 1));
  if (!parent) return true;
  const pad = item.markerCol - parent.markerCol;
  const marker = nextMarker(parent.marker.marker);
  const lineEdit = (text: string, n: number): LineEdit | null => {
    if (n === item.first) return { at: parent.markerCol, remove: pad + item.marker.marker.length, insert: marker };
    const shift = pad + item.marker.marker.length - marker.length;
    if (shift <= 0) return shift < 0 && text.trim() !== "" ? { at: parent.markerCol, remove: 0, insert: " ".repeat(-shift) } : null;
    return spacesAt(text, parent.markerCol, shift) ? { at: parent.markerCol, remove: shift, insert: "" } : null;
  };
  const done = editLines(h.source, item.first, item.last, lineEdit, h.cursor);
  if (!done) return true;
  // The items after it in its list now start a list of their own in it (from 1); the parent list's items after
  // it count on from its new number.
  const n = numberOf(marker);
  const parentNumbers = n === null ? [] : renumbering(h, parentList, h.$pos.index(outerDepth - 1), h.$pos.after(outerDepth), n, n + 1);
  const numbers = [...numbersAfterRemoved(h, depth, item, 1), ...parentNumbers];
  return edit(h, withNumbers(h, done.span, numbers), { cursor: done.cursor });
}

// --- leaving a block at the end of the document ---------------------------------------------------------------

/**
 * Ctrl+Enter, or ArrowDown at the end of a code block, table or quote that ends the document: an empty paragraph
 * after it (the view's: the text gets it when the person types).
 */
export function exitBlock(arrow: boolean): Command {
  return (state, dispatch) => {
    const { $head, empty } = state.selection;
    if (!empty || betweenBlocks($head)) return false;
    const top = $head.node(BLOCK_DEPTH);
    const kinds = ["code_block", "table", "blockquote", "raw_block", "bullet_list", "ordered_list"];
    if (!kinds.includes(top.type.name)) return false;
    const last = blockIndex($head) === blockCount(state.doc) - 1;
    if (arrow) {
      if (!last || !["code_block", "table", "blockquote", "raw_block"].includes(top.type.name)) return false;
      // Only from the block's last line: ArrowDown elsewhere moves as usual.
      if (!state.selection.$head.parent.isTextblock) return false;
      const textEnd = $head.end();
      if ($head.pos !== textEnd && $head.parent.textBetween($head.parentOffset, $head.parent.content.size).includes("\n")) return false;
      if ($head.parent !== lastTextblock(top, $head.before(BLOCK_DEPTH))?.node) return false;
    }
    if (dispatch) paragraphAfter(state, dispatch, $head.after(BLOCK_DEPTH));
    return true;
  };
}

/**
 * Enter right after the closing `$$` of a math block: an empty paragraph after it. The caret is past the math
 * there; a line break in the block's source would be a blank line after it (the view would not show it), and
 * what is typed next would stand on the fence's line, which then closes nothing and takes in what follows.
 */
export const enterAfterMath: Command = (state, dispatch, view) => {
  const { $head, empty } = state.selection;
  if (!empty || betweenBlocks($head)) return false;
  const block = $head.parent;
  if (!isClosedMath(block) || $head.parentOffset !== block.content.size) return false;
  if ($head.depth > BLOCK_DEPTH) return view ? paragraphAfterMath(view, $head.pos) : false;
  if (dispatch) paragraphAfter(state, dispatch, $head.after(BLOCK_DEPTH));
  return true;
};

/** An unwritten paragraph after the math block at `pos` in its container (a list item, a quote), the caret in it. */
export function paragraphAfterMath(view: EditorView, pos: number): boolean {
  const source = sourceDocOf(view);
  const $pos = view.state.doc.resolve(pos);
  const range = source?.textblockRange(view.state.doc, pos);
  if (!source || !range) return false;
  const first = source.lineAt(range[0]);
  const last = source.lineAt(range[1]);
  const after = source.line(last.number + 1);
  placeUnwritten(view, view.state.tr, $pos.after(), paragraphAfterBlock($pos.parent, first.text.slice(0, range[0] - first.from), after ? after.text : null));
  return true;
}

/**
 * Backspace right after a math block's closing `$$`: the caret goes to the end of the block's last line, as it is
 * after a closed code fence; the `$$` stays (a `$` deleted would leave the block unclosed, taking in the rest of
 * the document). Right after the `$$` was typed, Backspace gives that `$` back (`undoInputRule`).
 */
export const backspaceAfterMath: Command = (state, dispatch) => {
  const { $head, empty } = state.selection;
  if (!empty || betweenBlocks($head)) return false;
  const block = $head.parent;
  if (!isClosedMath(block) || $head.parentOffset !== block.content.size) return false;
  const text = block.textContent.trimEnd();
  const lastLine = text.lastIndexOf("\n");
  const at = lastLine >= 0 ? lastLine : text.length - 2;
  if (dispatch) dispatch(state.tr.setSelection(TextSelection.create(state.doc, $head.start() + at)).scrollIntoView());
  return true;
};

/** A math block whose last line is its closing `$$` (not one left open, taking in what follows). */
export function isClosedMath(block: Node): boolean {
  if (block.type.name !== "raw_block" || block.attrs.kind !== "math") return false;
  const text = block.textContent;
  const lastLine = text.slice(text.lastIndexOf("\n") + 1).trimEnd();
  return text.includes("\n") ? lastLine.endsWith("$$") : lastLine.length >= 4 && lastLine.endsWith("$$");
}

/** An empty paragraph at `after` (the view's: the text gets it when the person types), the caret in it. */
function paragraphAfter(state: EditorState, dispatch: (tr: Transaction) => void, after: number): void {
  const tr = state.tr.insert(after, schema.nodes.paragraph.create());
  dispatch(tr.setSelection(TextSelection.create(tr.doc, after + 1)).scrollIntoView());
}

// --- block commands -----------------------------------------------------------------------------------------------

/** Where the textblock's first line starts after its containers (before a heading's `#`s). */
function blockStart(h: Here): number {
  const line = h.source.lineAt(h.range[0]);
  const prefix = line.text.slice(0, h.range[0] - line.from);
  if (h.textblock.type.name === "heading") return line.from + prefix.replace(/#{1,6}(?:[ \t]+|$)$/, "").length;
  return h.range[0];
}

/** An empty paragraph the text does not have yet: replaced by `node` (the engine writes it), the cursor in it. */
function replaceEmpty(state: EditorState, view: EditorView | undefined, nodes: Node[], cursorIn = 0, offset: number | null = null): boolean {
  const { $head } = state.selection;
  if ($head.parent.type.name !== "paragraph" || $head.parent.content.size !== 0) return false;
  const source = sourceDocOf(view);
  if (!view || !source || source.textblockRange(state.doc, $head.pos)) return false;
  const start = $head.before();
  const tr = state.tr.replaceWith(start, start + $head.parent.nodeSize, nodes);
  let pos = start;
  for (let k = 0; k < cursorIn; k++) pos += nodes[k].nodeSize;
  // The cursor at the end of the new block's first textblock (after a task's `[ ] `), or at `offset` in it.
  const first = firstTextblock(nodes[cursorIn], pos);
  const at = first ? first.pos + (offset ?? first.node.content.size) : pos + 1;
  view.dispatch(tr.setSelection(TextSelection.near(tr.doc.resolve(at))).scrollIntoView());
  return true;
}

/** Ctrl+1..6: the textblock becomes a heading of that level; Ctrl+0 (level 0): a paragraph. */
export function setHeading(level: number): Command {
  return (state, _dispatch, view) => {
    const h = here(state, view, false);
    if (!h) {
      if (level === 0) return false;
      return replaceEmpty(state, view, [schema.nodes.heading.create({ level, markup: "#".repeat(level) })]);
    }
    const { textblock } = h;
    if (level === 0) return textblock.type.name === "heading" ? headingToParagraph(h) : textblock.type.name === "paragraph";
    const hashes = "#".repeat(level);
    if (textblock.type.name === "paragraph") {
      return edit(h, { from: h.range[0], to: h.range[0], insert: `${hashes} ` }, { cursor: h.cursor + level + 1 });
    }
    if (textblock.type.name !== "heading") return false;
    if (textblock.attrs.markup === "=" || textblock.attrs.markup === "-") {
      const last = h.source.lineAt(h.range[1]);
      const underline = h.source.line(last.number + 1);
      if (!underline) return false;
      const inner = h.source.slice(h.range[0], last.to);
      return edit(h, { from: h.range[0], to: underline.to, insert: `${hashes} ${inner}` }, { cursor: h.cursor + level + 1 });
    }
    const start = blockStart(h);
    const old = String(textblock.attrs.markup).length;
    return edit(h, { from: start, to: start + old, insert: hashes }, { cursor: h.cursor + level - old });
  };
}

export type ListKind = "bullet" | "ordered" | "task";

/** The bullet, ordered or task list command: the textblock into an item, or (in such an item) out of the list. */
export function toggleList(kind: ListKind): Command {
  return (state, _dispatch, view) => {
    const h = here(state, view, false);
    if (!h) {
      const item = schema.nodes.list_item.create(null, schema.nodes.paragraph.create(null, kind === "task" ? schema.text("[ ] ") : null));
      const list = kind === "ordered" ? schema.nodes.ordered_list.create({ markup: "." }, item) : schema.nodes.bullet_list.create({ markup: "-" }, item);
      return replaceEmpty(state, view, [list]);
    }
    if (h.textblock.type.spec.code || h.textblock.type.name === "table_cell") return false;
    const depth = h.$pos.depth - 1;
    const inItem = h.$pos.node(depth).type.name === "list_item" && h.$pos.index(depth) === 0;
    if (inItem) {
      const item = itemSource(h.source, state.doc, h.$pos, depth);
      if (!item) return false;
      const ordered = /^\d/.test(item.marker.marker);
      const task = isTask(h.textblock);
      if (kind === "task") {
        if (task) return edit(h, { from: h.range[0], to: h.range[0] + 4, insert: "" }, { cursor: Math.max(h.range[0], h.cursor - 4) });
        return edit(h, { from: h.range[0], to: h.range[0], insert: "[ ] " }, { cursor: h.cursor + 4 });
      }
      if ((kind === "ordered") === ordered && !task) return unwrapItem(h, depth, item);
      return relabelList(h, depth, kind);
    }
    const start = blockStart(h);
    const marker = kind === "ordered" ? "1. " : kind === "task" ? "- [ ] " : "- ";
    return edit(h, { from: start, to: start, insert: marker }, { cursor: h.cursor + marker.length });
  };
}

/** Every item of the cursor's list gets the other kind's marker (its lines re-indented to the new content column). */
function relabelList(h: Here, depth: number, kind: ListKind): boolean {
  const list = h.$pos.node(depth - 1);
  const listStart = h.$pos.before(depth - 1);
  const items: ItemSource[] = [];
  let pos = listStart + 1;
  for (let k = 0; k < list.childCount; k++) {
    const found = itemAt(h.source, h.state.doc, list.child(k), pos, list, k);
    if (!found) return false;
    items.push(found);
    pos += list.child(k).nodeSize;
  }
  const markers = items.map((_item, k) => (kind === "ordered" ? `${k + 1}.` : "-"));
  const firstOf = new Map(items.map((item, k) => [item.first, k]));
  let current = -1;
  const lineEdit = (text: string, n: number): LineEdit | null => {
    const k = firstOf.get(n);
    if (k !== undefined) {
      current = k;
      const item = items[k];
      return { at: item.markerCol, remove: item.marker.marker.length, insert: markers[k] };
    }
    if (current < 0) return null;
    const item = items[current];
    const shift = markers[current].length - item.marker.marker.length;
    if (text.trim() === "" || shift === 0) return null;
    if (shift > 0) return spacesAt(text, item.markerCol, item.contentCol - item.markerCol) ? { at: item.markerCol, remove: 0, insert: " ".repeat(shift) } : null;
    return spacesAt(text, item.markerCol, -shift) ? { at: item.markerCol, remove: -shift, insert: "" } : null;
  };
  const done = editLines(h.source, items[0].first, items[items.length - 1].last, lineEdit, h.cursor);
  return done ? edit(h, done.span, { cursor: done.cursor }) : false;
}

/** The quote command: the textblock's lines quoted, or (in a quote) the quote's lines unquoted. */
export const toggleQuote: Command = (state, _dispatch, view) => {
  const h = here(state, view, false);
  if (!h) return replaceEmpty(state, view, [schema.nodes.blockquote.create(null, schema.nodes.paragraph.create())]);
  if (h.textblock.type.spec.code || h.textblock.type.name === "table_cell") return false;
  const quoteDepth = ancestor(h.$pos, "blockquote");
  if (quoteDepth > 0) {
    const quote = h.$pos.node(quoteDepth);
    const start = h.$pos.before(quoteDepth);
    const first = h.source.textblockRange(state.doc, start + 2);
    const end = lastTextblock(quote, start);
    const last = end ? h.source.textblockRange(state.doc, end.pos) : null;
    if (!first || !last) return false;
    const firstLine = h.source.lineAt(first[0]);
    const column = firstLine.text.slice(0, first[0] - firstLine.from).lastIndexOf(">");
    const lineEdit = (text: string): LineEdit | null => {
      const at = text.slice(0, column + 1).lastIndexOf(">");
      return at >= 0 && /^[\s>]*$/.test(text.slice(0, at)) ? { at, remove: text.charAt(at + 1) === " " ? 2 : 1, insert: "" } : null;
    };
    const done = editLines(h.source, firstLine.number, h.source.lineAt(last[1]).number, lineEdit, h.cursor);
    return done ? edit(h, done.span, { cursor: done.cursor }) : false;
  }
  const start = blockStart(h);
  const firstLine = h.source.lineAt(start);
  const column = start - firstLine.from;
  const lineEdit = (text: string, n: number): LineEdit | null =>
    n === firstLine.number || spacesAt(text, 0, column) ? { at: column, remove: 0, insert: "> " } : null;
  const done = editLines(h.source, firstLine.number, h.source.lineAt(h.range[1]).number, lineEdit, h.cursor);
  return done ? edit(h, done.span, { cursor: done.cursor }) : false;
};

/** The paragraph's text as a fenced block (`fence` and `close` around it): a code or a math block. */
function fenced(open: string, close: string, empty: () => Node[], offset: number | null): Command {
  return (state, _dispatch, view) => {
    const h = here(state, view, false);
    if (!h) return replaceEmpty(state, view, empty(), 0, offset);
    if (h.textblock.type.name !== "paragraph") return false;
    const line = h.source.lineAt(h.range[0]);
    const cont = continuation(line.text.slice(0, h.range[0] - line.from));
    const body = h.textblock.textContent.split("\n").join(`\n${cont}`);
    const insert = `${open}\n${cont}${body}\n${cont}${close}`;
    return edit(h, { from: h.range[0], to: h.range[1], insert }, { cursor: h.range[0] + open.length + 1 + cont.length + body.length });
  };
}

export const codeBlock: Command = fenced("```", "```", () => [schema.nodes.code_block.create({ info: "", fence: "```" })], 0);

export const mathBlock: Command = fenced("$$", "$$", () => [schema.nodes.raw_block.create({ kind: "math" }, schema.text("$$\n\n$$"))], 3);

/** A thematic break after the cursor's top-level block (in an empty paragraph: in its place), then a paragraph. */
export const thematicBreak: Command = (state, _dispatch, view) => {
  const source = sourceDocOf(view);
  if (!source || !view) return false;
  const { $head } = state.selection;
  if (betweenBlocks($head)) return false;
  const empty = $head.parent.type.name === "paragraph" && $head.parent.content.size === 0 && $head.depth === BLOCK_DEPTH;
  if (empty && replaceEmpty(state, view, [schema.nodes.horizontal_rule.create({ markup: "---" }), schema.nodes.paragraph.create()], 1)) return true;
  const range = source.blockRange(blockIndex($head));
  if (!range || range[1] <= range[0]) return false;
  return applySourceEdit(view, { from: range[1], to: range[1], insert: "\n\n---" }, { paragraphAfter: true });
};

export function isEditable(view: EditorView | undefined): boolean {
  return Boolean(view?.editable);
}
