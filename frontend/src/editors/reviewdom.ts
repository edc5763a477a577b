// What a pending change shows around its text, the same in both modes: the text it deleted, struck
// through (a widget: never part of the document's text), and its two verdict buttons. The page's
// review controller hears the buttons' clicks on the editor's host (see review.ts). What the widgets
// show is drawn by the style sheet from their attributes (`data-old`, the buttons' glyphs): the editor's
// text content, copying and finding stay the document's own.
import { el } from "../shared/dom";
import type { ReviewMark } from "./reviewmodel";

/** The deleted text of `mark`, struck through, where it was. */
export function deletedWidget(mark: ReviewMark): HTMLElement {
  return el("del", {
    class: "review-deleted",
    "data-review-id": mark.id,
    "data-old": mark.old,
    "aria-label": `deleted: ${mark.old}`,
    title: `Deleted by ${mark.agent} · ${mark.tool}`,
  });
}

/** "Accept change" and "Reject change" for `mark`, after its text. */
export function verdictWidget(mark: ReviewMark): HTMLElement {
  const who = `${mark.agent} · ${mark.tool}`;
  const button = (verdict: "accept" | "reject", label: string): HTMLElement =>
    el("button", {
      type: "button",
      class: `review-${verdict}`,
      "data-review-verdict": verdict,
      "data-review-id": mark.id,
      "aria-label": label,
      title: `${label} by ${who}`,
      contenteditable: "false",
    });
  return el(
    "span",
    { class: "review-verdicts", "data-review-id": mark.id, contenteditable: "false" },
    button("accept", "Accept change"),
    button("reject", "Reject change"),
  );
}
