// Markdown as you type: the characters a person types in WYSIWYG become the construct they spell, and the text
// holds exactly those characters.
//
// Until a construct is complete, what was typed is plain text of the view (the engine escapes it only where the
// parse would otherwise read markup: `\#`, `\*`). When it is complete (`# ` at the start of a paragraph, the
// closing `**` of `**bold**`, Enter after a fence) the rule names the splice that writes the characters as typed
// in place of their escaped form, and the view shows what that parses to. Ctrl+Z or Backspace right after a
// conversion gives the literal characters back.
import type { Node } from "prosemirror-model";
import { type Command, type EditorState, Plugin, PluginKey, TextSelection } from "prosemirror-state";
import type { EditorView } from "prosemirror-view";
import { BLOCK_DEPTH, betweenBlocks, blockIndex } from "./blocks";
import { isClosedMath, paragraphAfterMath } from "./commands";
import { continuation } from "./lines";
import { schema } from "./schema";
import { sourceDocOf, sourceTransaction } from "./sourceedit";
import type { Span } from "./sourcedoc";
import { paragraphAfterBlock, placeUnwritten, typeUnwritten, type Unwritten } from "./unwritten";

/** A conversion that Ctrl+Z or Backspace can still take back: the splice that restores the literal text. */
interface Converted {
  doc: Node;
  /** The text the conversion replaced (escaped as it was), then what the person typed to trigger it. */
  from: number;
  to: number;
  before: string;
  typed: string;
  /** What the view shows before the cursor once it is taken back. */
  literal: string;
  /** Or, for a block closed by its closing line typed: the text `from..to` had, and the caret's offset then. */
  restore?: { insert: string; cursor: number };
}

const key = new PluginKey<Converted | null>("vmark-inputrules");
const CONVERTED = "vmark.converted";

/** At the start of a paragraph, then a space: a heading, a list item, a quote. */
const BLOCK_START = /^(#{1,6}|[-*+]|\d{1,9}[.)]|>)$/;

/** Inline constructs, complete when their last character is typed (the text before the cursor ends with one). */
const INLINE: RegExp[] = [
  /(?<![*\\])\*\*([^*\s](?:[^*]*[^*\s])?)\*\*$/,
  /(?<![_\\\p{L}\p{N}])__([^_\s](?:[^_]*[^_\s])?)__$/u,
  /(?<![*\\])\*([^*\s](?:[^*]*[^*\s])?)\*$/,
  /(?<![_\\\p{L}\p{N}])_([^_\s](?:[^_]*[^_\s])?)_$/u,
  /(?<![~\\])~~([^~\s](?:[^~]*[^~\s])?)~~$/,
  /(?<![`\\])`([^`]+)`$/,
  /(?<![$\\])\$([^$\s](?:[^$]*[^$\s])?)\$$/,
  /(?<!!)\[([^\]\n]+)\]\(([^()\s]*)\)$/,
];
const CLOSERS = new Set(["*", "_", "~", "`", "$", ")"]);
const ATOM = "\ufffc";

export function inputRulesPlugin(): Plugin {
  return new Plugin<Converted | null>({
    key,
    state: {
      init: () => null,
      apply: (tr, value) => {
        const converted = tr.getMeta(CONVERTED) as Converted | undefined;
        if (converted) return { ...converted, doc: tr.doc };
        return tr.docChanged || tr.selectionSet ? null : value;
      },
    },
    props: {
      // The key that completes a construct is taken at its keydown, before the browser puts the character into
      // the page (the page's text and the view never disagree about where the next key goes); text input from
      // elsewhere (an input method, a virtual keyboard) comes through handleTextInput.
      handleKeyDown(view, event) {
        if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing || view.composing || event.key.length !== 1) return false;
        const { from, to } = view.state.selection;
        if (from !== to) return false;
        return closeRule(view, from, event.key) || inlineRule(view, from, event.key) || blockStartRule(view, from, event.key);
      },
      handleTextInput(view, from, to, text) {
        if (from !== to || view.composing) return false;
        return closeRule(view, from, text) || inlineRule(view, from, text) || blockStartRule(view, from, text);
      },
    },
  });
}

/** The textblock around `pos` when it takes Markdown typing (not code, not in a code mark), and the text before `pos`. */
function typingAt(state: EditorState, pos: number): { before: string; start: number; node: Node } | null {
  const $pos = state.doc.resolve(pos);
  const node = $pos.parent;
  if (!node.isTextblock || node.type.spec.code) return null;
  if ($pos.marks().some((m) => m.type.name === "code")) return null;
  return { before: node.textBetween(0, $pos.parentOffset, undefined, ATOM), start: $pos.start(), node };
}

function convert(view: EditorView, span: Span, typed: string, literal: string, options: { paragraphAfter?: boolean; cursor?: number } = {}): boolean {
  const source = sourceDocOf(view);
  if (!source) return false;
  const tr = sourceTransaction(view.state, source, span, options);
  if (!tr) return false;
  const before = source.slice(span.from, span.to);
  tr.setMeta(CONVERTED, { doc: tr.doc, from: span.from, to: span.from + span.insert.length, before, typed, literal } satisfies Converted);
  view.dispatch(tr);
  return true;
}

function blockStartRule(view: EditorView, pos: number, text: string): boolean {
  if (text !== " ") return false;
  const at = typingAt(view.state, pos);
  if (!at || at.node.type.name !== "paragraph" || !BLOCK_START.test(at.before)) return false;
  const source = sourceDocOf(view);
  const range = source?.textblockRange(view.state.doc, pos);
  const cursor = source?.offsetAt(view.state.doc, pos, -1);
  if (!source || !range || cursor == null) return false;
  return convert(view, { from: range[0], to: cursor, insert: `${at.before} ` }, " ", `${at.before} `);
}

function inlineRule(view: EditorView, pos: number, text: string): boolean {
  if (!CLOSERS.has(text)) return false;
  const at = typingAt(view.state, pos);
  if (!at) return false;
  const typed = at.before + text;
  for (const rule of INLINE) {
    const match = rule.exec(typed);
    if (!match || match[0].includes(ATOM)) continue;
    const start = at.start + match.index;
    // Only plain text becomes the construct: no marks (or atoms) inside what was typed.
    let plain = true;
    view.state.doc.nodesBetween(start, pos, (node) => {
      if (node.isInline && (!node.isText || node.marks.length > 0)) plain = false;
      return true;
    });
    if (!plain) continue;
    const source = sourceDocOf(view);
    const from = source?.offsetAt(view.state.doc, start, 1);
    const to = source?.offsetAt(view.state.doc, pos, -1);
    if (!source || from == null || to == null || to < from) continue;
    if (convert(view, { from, to, insert: match[0] }, text, match[0])) return true;
  }
  return false;
}

/**
 * A block's closing line typed where the block ends: `$$` on a math block's last line, a fence on a code block's
 * (at the top level, in a list item, in a quote). The block closes there, as a person typing it in source mode
 * means: the closing line Enter wrote after the opening goes (it would be left over, opening a block that takes in
 * what follows). After a code block's fence the caret goes to a paragraph after it (in its container); after a math
 * block's `$$` it stays on the `$$`, where a character typed starts a paragraph after the block (on the `$$` line it
 * would leave the block unclosed). Backspace right after gives the character back, and the closing line Enter wrote.
 */
function closeRule(view: EditorView, pos: number, text: string): boolean {
  const { state } = view;
  const $pos = state.doc.resolve(pos);
  const block = $pos.parent;
  const source = sourceDocOf(view);
  if (!source || betweenBlocks($pos) || !block.isTextblock || text.length !== 1) return false;
  const top = $pos.depth === BLOCK_DEPTH;
  const atEnd = $pos.parentOffset === block.content.size;
  if (atEnd && isClosedMath(block)) {
    if (/\s/.test(text)) return false;
    if (!top) return paragraphAfterMath(view, pos) && typeUnwritten(view, text);
    const tr = state.tr.insert($pos.after(), schema.nodes.paragraph.create(null, schema.text(text)));
    view.dispatch(tr.setSelection(TextSelection.create(tr.doc, $pos.after() + 1 + text.length)).scrollIntoView());
    return true;
  }
  const before = block.textContent.slice(0, $pos.parentOffset);
  const typedLine = before.slice(before.lastIndexOf("\n") + 1);
  const line = typedLine + text;
  const cursor = source.offsetAt(state.doc, pos, -1);
  const range = source.textblockRange(state.doc, pos);
  if (cursor == null || !range) return false;
  const cursorLine = source.lineAt(cursor);
  // The containers' prefix of the block's lines (`> `, a list item's indentation).
  const prefix = cursorLine.text.slice(0, cursor - cursorLine.from - typedLine.length);
  const next = source.line(cursorLine.number + 1);
  const inner = next?.text.startsWith(prefix) ? next.text.slice(prefix.length) : null;
  if (block.type.name === "raw_block" && block.attrs.kind === "math" && before.includes("\n") && line === "$$") {
    // The closer Enter wrote after `$$`: the block's last line, right after this one.
    if (!/^\n\$\$[ \t]*$/.test(block.textContent.slice($pos.parentOffset)) || !next || inner === null || next.to !== range[1]) return false;
    return close(view, { from: cursor, to: range[1], insert: text }, cursor + 1, null);
  }
  const fence = String(block.attrs.fence ?? "");
  if (!atEnd || block.type.name !== "code_block" || fence === "") return false;
  const closing = new RegExp(`^ {0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}[ \t]*$`);
  if (!closing.test(line)) return false;
  const closed = next !== null && inner !== null && closing.test(inner) && (!top || next.to <= (source.blockRange(blockIndex($pos))?.[1] ?? -1));
  const span = { from: cursor, to: closed && next ? next.to : cursor, insert: text };
  if (top) return close(view, span, cursor + 1, "top");
  const after = source.line(cursorLine.number + (closed ? 2 : 1));
  return close(view, span, cursor + 1, paragraphAfterBlock(block, prefix, after ? after.text : null));
}

/**
 * The closing splice, dispatched with what Backspace right after gives back; then a paragraph after the block
 * (`top`: the view's, at the top level; else an unwritten one in the block's container) or none.
 */
function close(view: EditorView, span: Span, cursor: number, paragraph: "top" | Unwritten | null): boolean {
  const source = sourceDocOf(view);
  const tr = source ? sourceTransaction(view.state, source, span, { cursor, paragraphAfter: paragraph === "top" }) : null;
  if (!source || !tr) return false;
  const restore = source.slice(span.from, span.to);
  const converted: Converted = { doc: tr.doc, from: span.from, to: span.from + span.insert.length, before: "", typed: "", literal: "", restore: { insert: restore, cursor: span.from } };
  if (paragraph === null || paragraph === "top") {
    view.dispatch(tr.setMeta(CONVERTED, converted));
    return true;
  }
  // After the code block in its container (the code block ends where the caret's textblock does).
  const at = tr.selection.$head.after();
  placeUnwritten(view, tr.setMeta(CONVERTED, converted), at, paragraph);
  return true;
}

/** Enter after a fence, a thematic break or `$$` alone in a paragraph: a code block, a rule, a math block. */
export const enterRule: Command = (state, _dispatch, view) => {
  const { $head, empty } = state.selection;
  if (!view || !empty || $head.parent.type.name !== "paragraph" || $head.parentOffset !== $head.parent.content.size) return false;
  const text = $head.parent.textContent;
  const source = sourceDocOf(view);
  const range = source?.textblockRange(state.doc, $head.pos);
  if (!source || !range) return false;
  const line = source.lineAt(range[0]);
  const cont = continuation(line.text.slice(0, range[0] - line.from));
  const fence = /^(`{3,}|~{3,})([^`\n]*)$/.exec(text);
  if (fence) {
    const insert = `${text}\n${cont}\n${cont}${fence[1]}`;
    return convert(view, { from: range[0], to: range[1], insert }, "", text, { cursor: range[0] + text.length + 1 + cont.length });
  }
  if (text === "$$") {
    const insert = `$$\n${cont}\n${cont}$$`;
    return convert(view, { from: range[0], to: range[1], insert }, "", text, { cursor: range[0] + 3 + cont.length });
  }
  if (/^(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$/.test(text) && $head.depth === BLOCK_DEPTH) {
    return convert(view, { from: range[0], to: range[1], insert: text }, "", text, { paragraphAfter: true });
  }
  return false;
};

/**
 * Ctrl+Z or Backspace right after a conversion: the literal characters back (escaped where the parse needs
 * it, as when they were typed), in place of the construct.
 */
export const undoInputRule: Command = (state, _dispatch, view) => {
  const converted = key.getState(state);
  const source = sourceDocOf(view);
  if (!converted || !view || !source || converted.doc !== state.doc) return false;
  if (converted.restore) {
    const span = { from: converted.from, to: converted.to, insert: converted.restore.insert };
    const tr = sourceTransaction(state, source, span, { cursor: converted.restore.cursor });
    if (tr) view.dispatch(tr);
    return tr !== null;
  }
  const typedForms = converted.typed === "" || converted.typed === " " ? [converted.typed] : [converted.typed, `\\${converted.typed}`];
  for (const typed of typedForms) {
    const insert = converted.before + typed;
    const span = { from: converted.from, to: converted.to, insert };
    const tr = sourceTransaction(state, source, span, { cursor: converted.from + insert.length });
    if (!tr) continue;
    const $head = tr.selection.$head;
    const shown = $head.parent.textBetween(0, $head.parentOffset, undefined, ATOM);
    if (!shown.endsWith(converted.literal) || $head.parent.type.name !== "paragraph") continue;
    if ($head.marks().length) continue;
    view.dispatch(tr);
    return true;
  }
  return false;
};
