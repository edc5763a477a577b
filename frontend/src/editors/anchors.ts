// Comment anchors in the editors: where each thread's quoted span is in the text the editor shows,
// and the source editor's highlight of them (class `cm-comment-anchor`, mapped through edits until
// the next thread listing places them again). The WYSIWYG highlight is in pmanchors.ts, loaded with
// Milkdown.
import { StateEffect, StateField, type Extension } from "@codemirror/state";
import { Decoration, type DecorationSet, EditorView } from "@codemirror/view";
import type { CommentAnchor } from "./editor";
import { hasSurrogate, utf16Offset } from "../shared/merge";

/** A placed anchor: UTF-16 offsets into the text an editor shows. */
export interface Placed {
  id: string;
  from: number;
  to: number;
}

/** Line breaks as editors show them ("\n"), however the file stores them. */
export function shownBreaks(text: string): string {
  return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
}

/**
 * Where `anchor` is in `text` (the source editor's text, "\n" line breaks). The app counts code
 * points of its own text, whose line breaks may be "\r\n": when the converted span does not hold
 * the quote, the quote's occurrence nearest to it is taken instead; a quote that is not there at
 * all (the app re-anchored the thread on similar text) keeps the converted span, clamped.
 */
export function placeInText(text: string, anchor: CommentAnchor, astral = hasSurrogate(text)): Placed | null {
  const clamp = (points: number): number => Math.min(Math.max(astral ? utf16Offset(text, points) : points, 0), text.length);
  let from = clamp(anchor.from);
  let to = Math.max(from, clamp(anchor.to));
  const quote = shownBreaks(anchor.quote);
  if (quote !== "" && text.slice(from, to) !== quote) {
    const at = nearestOccurrence(text, quote, from);
    if (at >= 0) [from, to] = [at, at + quote.length];
  }
  return to > from ? { id: anchor.id, from, to } : null;
}

/** The start of the occurrence of `needle` in `haystack` closest to `near`, or -1. */
export function nearestOccurrence(haystack: string, needle: string, near: number): number {
  let best = -1;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    if (best < 0 || Math.abs(at - near) < Math.abs(best - near)) best = at;
    if (at > near) break; // later ones are only farther
  }
  return best;
}

// --- source mode (CodeMirror) -------------------------------------------------------------------

const setAnchors = StateEffect.define<Placed[]>();

const anchorMark = (id: string): Decoration =>
  Decoration.mark({ class: "cm-comment-anchor", attributes: { "data-comment-id": id } });

const anchorField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(set, tr) {
    let next = set.map(tr.changes);
    for (const effect of tr.effects) {
      if (effect.is(setAnchors)) next = Decoration.set(effect.value.map((p) => anchorMark(p.id).range(p.from, p.to)), true);
    }
    return next;
  },
  provide: (field) => EditorView.decorations.from(field),
});

/** The source editor's extension that shows anchors. */
export const sourceAnchors: Extension = anchorField;

/** The effect that shows `anchors` in a source editor whose text `shown` gives (read only if there are any). */
export function sourceAnchorEffect(anchors: CommentAnchor[], shown: () => string): StateEffect<Placed[]> {
  if (anchors.length === 0) return setAnchors.of([]);
  const text = shown();
  const astral = hasSurrogate(text);
  const placed = anchors.map((a) => placeInText(text, a, astral)).filter((p): p is Placed => p !== null);
  return setAnchors.of(placed);
}
