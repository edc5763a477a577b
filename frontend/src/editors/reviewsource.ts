// Pending changes in source mode (CodeMirror): the inserted text highlighted (`cm-review-insert`), the
// deleted text struck through before it, the verdict buttons after it. The decorations follow edits
// until the next `review` state for the text shown places them again.
import { StateEffect, StateField, type Extension, type Range, type Text } from "@codemirror/state";
import { Decoration, type DecorationSet, EditorView, WidgetType } from "@codemirror/view";
import { deletedWidget, verdictWidget } from "./reviewdom";
import type { ReviewMark } from "./reviewmodel";

const setReview = StateEffect.define<ReviewMark[]>();

class MarkWidget extends WidgetType {
  constructor(
    private mark: ReviewMark,
    private make: (mark: ReviewMark) => HTMLElement,
    private part: string,
  ) {
    super();
  }

  eq(other: MarkWidget): boolean {
    return other.part === this.part && other.mark.id === this.mark.id && other.mark.old === this.mark.old;
  }

  toDOM(): HTMLElement {
    return this.make(this.mark);
  }
}

function decorations(marks: readonly ReviewMark[], doc: Text): DecorationSet {
  const ranges: Range<Decoration>[] = [];
  for (const mark of marks) {
    if (mark.old !== "") ranges.push(Decoration.widget({ widget: new MarkWidget(mark, deletedWidget, "old"), side: -1, reviewId: mark.id }).range(mark.from));
    if (mark.to > mark.from) {
      ranges.push(Decoration.mark({ class: "cm-review-insert", attributes: { "data-review-id": mark.id } }).range(mark.from, mark.to));
    }
    const verdicts = Decoration.widget({ widget: new MarkWidget(mark, verdictWidget, "verdicts"), side: 1, reviewId: mark.id });
    ranges.push(verdicts.range(Math.min(mark.end, doc.length)));
  }
  return Decoration.set(ranges, true);
}

const reviewField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(set, tr) {
    let next = set.map(tr.changes);
    for (const effect of tr.effects) if (effect.is(setReview)) next = decorations(effect.value, tr.state.doc);
    return next;
  },
  provide: (field) => EditorView.decorations.from(field),
});

/** The source editor's extension that shows pending changes. */
export const sourceReview: Extension = reviewField;

export function sourceReviewEffect(marks: ReviewMark[]): StateEffect<ReviewMark[]> {
  return setReview.of(marks);
}

/** Scroll change `id` (its verdict buttons) into the middle of the view; false when the view shows no such change. */
export function revealSourceReview(view: EditorView, id: string): boolean {
  let at = -1;
  view.state.field(reviewField).between(0, view.state.doc.length, (from, _to, deco) => {
    if ((deco.spec as { reviewId?: string }).reviewId !== id) return;
    at = from;
    return false;
  });
  if (at < 0) return false;
  view.dispatch({ effects: EditorView.scrollIntoView(at, { y: "center" }) });
  return true;
}
