// Comment anchors in WYSIWYG mode: a ProseMirror plugin that highlights each thread's quote (class
// `pm-comment-anchor`). The app places anchors in the Markdown; the editor shows no Markdown, so each
// quote is looked for in the document's text (text nodes, blocks apart by "\n"), as typed or with its
// Markdown markers taken away, nearest to where the app placed it.
import type { Node } from "prosemirror-model";
import type { EditorState, Transaction } from "prosemirror-state";
import { Decoration, DecorationSet } from "prosemirror-view";
import { decorationLayer } from "./decorationlayer";
import { nearestOccurrence, shownBreaks } from "./anchors";
import type { CommentAnchor } from "./editor";

const layer = decorationLayer("vmark-comment-anchors");

/** A fresh plugin per editor; its decorations follow edits until the next `anchorTransaction`. */
export const anchorPlugin = layer.plugin;

/** The transaction that shows `anchors` (no change to the document, nothing to undo); null when it would change nothing. */
export function anchorTransaction(state: EditorState, anchors: CommentAnchor[]): Transaction | null {
  // No threads (a document's usual case, asked again on every change): nothing to read the document for.
  if (anchors.length === 0 && layer.shown(state) === DecorationSet.empty) return null;
  const flat = flatten(state.doc);
  const decorations: Decoration[] = [];
  for (const anchor of anchors) {
    for (const quote of candidates(anchor.quote)) {
      const at = quote === "" ? -1 : nearestOccurrence(flat.text, quote, anchor.from);
      if (at < 0) continue;
      const from = flat.position(at, false);
      const to = flat.position(at + quote.length, true);
      if (to > from) {
        decorations.push(Decoration.inline(from, to, { class: "pm-comment-anchor", "data-comment-id": anchor.id }));
      }
      break;
    }
  }
  return layer.transaction(state, decorations);
}

/** The quote as typed (line breaks shown as "\n", blank lines as one), then without Markdown markers. */
function candidates(quote: string): string[] {
  const typed = shownBreaks(quote).replace(/\n{2,}/g, "\n");
  const bare = typed
    .split("\n")
    .map((line) => line.replace(/^\s*(?:#{1,6}\s+|>\s?|[-*+]\s+|\d+[.)]\s+)/, ""))
    .join("\n")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[*_~`]/g, "");
  return bare === typed ? [typed] : [typed, bare];
}

/** A text segment of the document: `length` characters at `offset` of the flat text, from `pos` on. */
interface Segment {
  offset: number;
  pos: number;
  length: number;
}

interface Flat {
  text: string;
  /** The document position of flat-text offset `offset`; between segments, the next one's start or (`end`) the previous one's end. */
  position(offset: number, end: boolean): number;
}

function flatten(doc: Node): Flat {
  const parts: string[] = [];
  const segments: Segment[] = [];
  let length = 0;
  const push = (text: string): void => {
    parts.push(text);
    length += text.length;
  };
  doc.descendants((node, pos) => {
    if (node.isText) {
      segments.push({ offset: length, pos, length: node.text?.length ?? 0 });
      push(node.text ?? "");
    } else if ((node.isBlock || node.type.name === "hardbreak") && length > 0 && !parts[parts.length - 1].endsWith("\n")) {
      push("\n");
    }
    return true;
  });
  const position = (offset: number, end: boolean): number => {
    // The last segment starting at or before `offset` (binary search: segments are in order).
    let lo = 0;
    let hi = segments.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (segments[mid].offset <= offset) lo = mid;
      else hi = mid - 1;
    }
    const seg = segments[lo];
    if (!seg) return 0;
    const inside = offset - seg.offset;
    if (inside <= seg.length) return seg.pos + Math.max(inside, 0);
    // In the "\n" between blocks: the start of the next segment, or the end of this one.
    const next = segments[lo + 1];
    return end || !next ? seg.pos + seg.length : next.pos;
  };
  return { text: parts.join(""), position };
}
