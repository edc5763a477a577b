// The marks a typed character takes where marks begin or end: one the text can hold there.
//
// ProseMirror gives a character typed at a boundary the marks of the text before it (at a textblock's start, of
// the text after it), less a link (it is not inclusive). In Markdown a mark nested in a link does not reach past
// the link: `[*foo* bar][]` has no place before `foo` that is emphasized but not linked, and `**a [*b*](u)**`
// none after `b` that is emphasized and strong but not linked. There the character takes the marks of the place
// in the text that keeps the most of them (`Q[*foo* bar][]`, `**a [*b*](u)Q**`): the letter goes where the text
// can say it, and only the letter is written.
import type { Mark } from "prosemirror-model";
import { Plugin, TextSelection } from "prosemirror-state";
import type { EditorView } from "prosemirror-view";
import { segmentsOf } from "./build";

/** The mark sets of the places in the text at content offset `at` of a textblock with these segments. */
export function marksAtBoundary(segments: readonly { pm: number; pmEnd: number; src: number; verbatim: boolean; marks: readonly Mark[] }[], at: number): (readonly Mark[])[] {
  const inside = segments.find((s) => s.pm < at && at < s.pmEnd);
  if (inside) return inside.verbatim ? [inside.marks] : [];
  const sets: (readonly Mark[])[] = [];
  for (const s of segments) if (s.src >= 0 && (s.pm === at || s.pmEnd === at)) sets.push(s.marks);
  return sets;
}

function sameMarks(a: readonly Mark[], b: readonly Mark[]): boolean {
  return a.length === b.length && a.every((m, i) => m.eq(b[i]));
}

/** The marks for a character typed at view position `pos` when ProseMirror's own have no place there, or null. */
export function typedMarks(view: EditorView, pos: number): readonly Mark[] | null {
  const { state } = view;
  if (state.storedMarks) return null; // the person chose them (Ctrl+B on an empty selection)
  const $pos = state.doc.resolve(pos);
  const parent = $pos.parent;
  if (!parent.isTextblock || parent.type.spec.code) return null;
  const segments = segmentsOf.get(parent);
  if (!segments || segments.some((s) => s.src < 0)) return null;
  const marks = $pos.marks();
  const sets = marksAtBoundary(segments, $pos.parentOffset);
  if (sets.length === 0 || sets.some((set) => sameMarks(set, marks))) return null;
  let best: readonly Mark[] | null = null;
  for (const set of sets) if (set.every((m) => m.isInSet(marks)) && (best === null || set.length > best.length)) best = set;
  return best;
}

/** Insert `text` at `from..to` with the marks the text can hold there; false where ProseMirror's own do. */
function typeWithSourceMarks(view: EditorView, from: number, to: number, text: string): boolean {
  if (from !== to || view.composing) return false;
  const marks = typedMarks(view, from);
  if (!marks) return false;
  const tr = view.state.tr.replaceWith(from, to, view.state.schema.text(text, marks));
  view.dispatch(tr.setSelection(TextSelection.create(tr.doc, from + text.length)).scrollIntoView());
  return true;
}

export function typedMarksPlugin(): Plugin {
  return new Plugin({
    props: {
      // At its keydown, as the input rules take theirs: the browser never puts the character into the wrong element.
      handleKeyDown(view, event) {
        if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing || view.composing || event.key.length !== 1) return false;
        const { from, to } = view.state.selection;
        return typeWithSourceMarks(view, from, to, event.key);
      },
      handleTextInput(view, from, to, text) {
        return typeWithSourceMarks(view, from, to, text);
      },
    },
  });
}
