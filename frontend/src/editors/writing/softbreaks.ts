// Soft line breaks in WYSIWYG: a line break inside a paragraph (a "\n" in its text, kept byte for byte) is
// shown as a space, as every Markdown renderer shows it. The editor needs `white-space: pre-wrap` (spaces typed
// must show), which would draw the "\n" as a new line; each one gets a one-character inline decoration whose
// `white-space: normal` (writing.css) makes the browser draw that character as a space. The text, the caret's
// steps and typing around it stay the editor's own: only the drawing changes.
//
// The browser draws such a character as a space but, typing next to it, "rebalances" the whitespace around the
// caret: it would turn the line break into a no-break space in the DOM, and the editor would read that back as
// the person's edit. So text typed or deleted right beside a soft break is applied by the editor itself (input
// rules first, as for any typing), never by the browser.
//
// Code blocks and raw blocks (front matter, HTML, math) keep their line breaks: they are `code` textblocks.
import type { Node } from "prosemirror-model";
import type { Plugin, Transaction } from "prosemirror-state";
import type { Decoration, EditorView } from "prosemirror-view";
import { blockDecorations, eachText, inline } from "./pmblocks";

const SOFT_BREAK = { class: "md-soft-break" };
const isCode = (node: Node): boolean => node.isTextblock && Boolean(node.type.spec.code);

/** The soft breaks of a top-level block at `pos`. */
function breaksIn(block: Node, pos: number, out: Decoration[]): void {
  if (isCode(block)) return;
  eachText(
    block,
    pos + 1,
    (text, at) => {
      const value = text.text ?? "";
      for (let k = value.indexOf("\n"); k >= 0; k = value.indexOf("\n", k + 1)) out.push(inline(at + k, at + k + 1, SOFT_BREAK));
    },
    isCode,
  );
}

/** The plugin: soft breaks drawn as spaces, typing beside them done by the editor. */
export function softBreakPlugin(): Plugin {
  return blockDecorations("vmark-soft-breaks", breaksIn, {
    handleDOMEvents: { beforeinput: (view, event) => typedBesideBreak(view, event) },
  });
}

/** How far from a soft break the browser's whitespace handling reaches (characters on either side). */
const NEAR = 2;

/** Typing or deleting within `NEAR` characters of a soft break, done by the editor (true: it was). */
function typedBesideBreak(view: EditorView, event: InputEvent): boolean {
  if (event.isComposing || view.composing) return false; // an input method's text is the browser's to place
  const { state } = view;
  const { $from, $to, from, to, empty } = state.selection;
  if (!$from.sameParent($to) || !$from.parent.isTextblock || $from.parent.type.spec.code) return false;
  const parent = $from.parent;
  const before = parent.textBetween(Math.max($from.parentOffset - NEAR, 0), $from.parentOffset, "\ufffc", "\ufffc");
  const after = parent.textBetween($to.parentOffset, Math.min($to.parentOffset + NEAR, parent.content.size), "\ufffc", "\ufffc");
  if (!before.includes("\n") && !after.includes("\n")) return false;
  let tr: Transaction;
  if (event.inputType === "insertText" && event.data) {
    const text = event.data;
    event.preventDefault();
    if (view.someProp("handleTextInput", (f) => f(view, from, to, text, () => state.tr.insertText(text, from, to)))) return true;
    tr = state.tr.insertText(text, from, to);
  } else if (event.inputType === "deleteContentBackward" || event.inputType === "deleteContentForward") {
    if (empty) {
      const back = event.inputType === "deleteContentBackward";
      const text = back
        ? parent.textBetween(0, $from.parentOffset, "\ufffc", "\ufffc")
        : parent.textBetween($from.parentOffset, parent.content.size, "\ufffc", "\ufffc");
      const size = graphemeSize(text, back);
      // At a block's edge (joining blocks) or next to an inline node, the editor's own commands apply.
      if (size === 0 || text.slice(back ? -size : 0, back ? undefined : size).includes("\ufffc")) return false;
      event.preventDefault();
      tr = back ? state.tr.delete(from - size, from) : state.tr.delete(from, from + size);
    } else {
      event.preventDefault();
      tr = state.tr.deleteSelection();
    }
  } else return false;
  view.dispatch(tr.scrollIntoView());
  return true;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** The length (UTF-16 units) of the last (`back`) or first grapheme of `text`; 0 when it is empty. */
function graphemeSize(text: string, back: boolean): number {
  if (text === "") return 0;
  if (!back) return [...graphemes.segment(text.slice(0, 16))][0]?.segment.length ?? 0;
  const tail = text.slice(-16); // a grapheme cluster is rarely longer; cut where the segmenter starts one
  const parts = [...graphemes.segment(tail)];
  return parts[parts.length - 1]?.segment.length ?? 0;
}
