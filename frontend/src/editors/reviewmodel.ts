// The review state of a document as the app sends it (`review` events, `review.list`), and where its
// changes are in the text an editor shows. The app owns the changes: the page only shows them and sends
// the person's verdicts. Ranges are code points of the app's text at `revision`; an editor may show that
// text with the person's unsent keystrokes on top, so ranges are mapped through those too.
import type { ChangeSet, Text } from "@codemirror/state";
import { isBasicPlane, UnitCounter } from "../shared/merge";

import type { ReviewChange, ReviewEvent } from "../wire.gen";

/** One pending change of an agent's: code points `[from, to)` hold its inserted text, `old` what it replaced. */
export type { ReviewChange };
/** A `review` event's payload: the ranges apply to the text at `revision`. */
export type ReviewState = ReviewEvent;

/** A change placed in the text an editor shows: UTF-16 offsets, `old` with "\n" line breaks. */
export interface ReviewMark {
  id: string;
  from: number;
  to: number;
  /** where the verdict buttons go: `to` before the line breaks the inserted text ends with (an added
   * paragraph's buttons end that paragraph, never start the block after it) */
  end: number;
  old: string;
  /** the agent as the person sees it (its client's name with its principal) */
  agent: string;
  tool: string;
}

/**
 * `changes` (code points of `synced`, the app's text at the event's revision) placed in the text the
 * editor shows: `synced` with `unsent` applied. The inserted range keeps what the person typed inside
 * it; typing right at its edges stays outside it. Changes come back in order, none overlapping.
 */
export function placeChanges(synced: Text, unsent: ChangeSet, changes: readonly ReviewChange[]): ReviewMark[] {
  const sorted = [...changes].sort((a, b) => a.from - b.from || a.to - b.to);
  const basic = isBasicPlane(synced);
  const units = basic ? null : new UnitCounter(synced);
  const limit = synced.length;
  const unit = (points: number): number => Math.min(units ? units.at(points) : points, limit);
  const marks: ReviewMark[] = [];
  let floor = 0;
  for (const change of sorted) {
    const from = Math.max(unit(Math.max(change.from, 0)), floor);
    const to = Math.max(unit(Math.max(change.to, change.from, 0)), from);
    const shownFrom = unsent.empty ? from : unsent.mapPos(from, 1);
    const shownTo = unsent.empty ? to : Math.max(unsent.mapPos(to, -1), shownFrom);
    const end = withoutTrailingBreaks(synced, from, to);
    const shownEnd = unsent.empty ? end : Math.min(Math.max(unsent.mapPos(end, -1), shownFrom), shownTo);
    marks.push({ id: change.id, from: shownFrom, to: shownTo, end: shownEnd, old: shownBreaks(change.old), agent: change.agent, tool: change.tool });
    floor = to;
  }
  return marks;
}

function withoutTrailingBreaks(text: Text, from: number, to: number): number {
  let end = to;
  while (end > from && /[\r\n]/.test(text.sliceString(end - 1, end))) end--;
  return end;
}

function shownBreaks(text: string): string {
  return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
}

/** The one-line summary the review bar shows. */
export function countLabel(count: number): string {
  return count === 1 ? "1 change" : `${count} changes`;
}

/** What the notice says when an agent just changed the document. */
export function noticeText(notice: NonNullable<ReviewState["notice"]>): string {
  const what = notice.count === 1 ? "1 change" : `${notice.count} changes`;
  return `${notice.principal} made ${what} with ${notice.tool}: review ${notice.count === 1 ? "it" : "them"} below.`;
}

/** Where the review bar is: the change it went to last (or the caret is in), and where that change starts. */
export interface ReviewPlace {
  id: string;
  /** Code points of the app's text (the `from` of the change when it was last seen). */
  from: number;
}

/**
 * The change `step` away from `place` among `changes` (in the text's order), wrapping around; -1 when there are
 * none. A place whose change is gone (judged) still says where it was: next is the first change at or after it,
 * previous the last one before it, so a verdict never makes the bar skip a change.
 */
export function stepAmong(changes: readonly ReviewPlace[], place: ReviewPlace | null, step: 1 | -1): number {
  const count = changes.length;
  if (count === 0) return -1;
  if (place === null) return step > 0 ? 0 : count - 1;
  const at = changes.findIndex((c) => c.id === place.id);
  if (at >= 0) return (at + step + count) % count;
  if (step > 0) {
    const next = changes.findIndex((c) => c.from >= place.from);
    return next >= 0 ? next : 0;
  }
  for (let k = count - 1; k >= 0; k--) if (changes[k].from < place.from) return k;
  return count - 1;
}

/** After a verdict given from the keyboard: the change now where the judged one was, else the last; -1: none left. */
export function settleAt(changes: readonly ReviewPlace[], place: ReviewPlace): number {
  const at = changes.findIndex((c) => c.id === place.id || c.from >= place.from);
  return at >= 0 ? at : changes.length - 1;
}

/** What the review bar says: where the person is ("2 of 4") once they went to a change, else how many there are. */
export function barLabel(count: number, index: number): string {
  return index >= 0 && index < count ? `${index + 1} of ${count}` : countLabel(count);
}
