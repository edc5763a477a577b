// Change sets between the page and the app. Editors count UTF-16 units, the app counts code points:
// a change travels as spans `[from, to, insert]` in code points of the text it applies to, sorted and
// non-overlapping, all relative to that text (CodeMirror's ChangeSet semantics). Converting costs
// nothing on a text known to hold no astral character (most documents); the knowledge follows each
// change (`applyChanges`), so a keystroke never scans a 5 MB document.
import { ChangeSet, type ChangeSpec, Text } from "@codemirror/state";
import { diffWordsWithSpace } from "diff";

/** `[from, to, insert]`: code points `from..to` of the text before became `insert`. */
export type WireSpan = [number, number, string];

export interface Span {
  from: number;
  to: number;
  insert: string;
}

/** The single span that turns `a` into `b` (common prefix and suffix kept), or null if equal. */
export function diffSpan(a: string, b: string): Span | null {
  if (a === b) return null;
  const max = Math.min(a.length, b.length);
  let start = 0;
  while (start < max && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a.charCodeAt(endA - 1) === b.charCodeAt(endB - 1)) {
    endA--;
    endB--;
  }
  // Never split a surrogate pair.
  if (start > 0 && isHighSurrogate(a.charCodeAt(start - 1))) start--;
  if (endA < a.length && isLowSurrogate(a.charCodeAt(endA))) {
    endA++;
    endB++;
  }
  return { from: start, to: endA, insert: b.slice(start, endB) };
}

/** The change from `a` to `b` as one span: the fallback when the app sends a whole text. */
export function diffChanges(a: string, b: string): ChangeSet {
  const span = diffSpan(a, b);
  return ChangeSet.of(span ? [span] : [], a.length);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** UTF-16 offset (what editors count) to a code point offset (what the app counts). */
export function codePointOffset(text: string, utf16: number): number {
  let points = 0;
  for (let i = 0; i < utf16 && i < text.length; i++) {
    if (!(isHighSurrogate(text.charCodeAt(i)) && isLowSurrogate(text.charCodeAt(i + 1)))) points++;
  }
  return points;
}

/** Code point offset (what the app counts) to a UTF-16 offset into `text`. */
export function utf16Offset(text: string, points: number): number {
  // Most documents have no astral characters: then the two agree.
  if (!hasSurrogate(text)) return points;
  let i = 0;
  for (let n = 0; n < points && i < text.length; n++) {
    i += isHighSurrogate(text.charCodeAt(i)) && isLowSurrogate(text.charCodeAt(i + 1)) ? 2 : 1;
  }
  return i;
}

const SURROGATE = /[\uD800-\uDFFF]/;

export function hasSurrogate(text: string): boolean {
  return SURROGATE.test(text);
}

/** Texts known to hold no astral characters: there UTF-16 offsets are code point offsets. */
const basicPlane = new WeakMap<Text, boolean>();

/** Whether `doc` holds no astral character (scanned once per text not derived by `inheritBasicPlane`). */
export function isBasicPlane(doc: Text): boolean {
  let known = basicPlane.get(doc);
  if (known === undefined) {
    known = true;
    for (const iter = doc.iter(); !iter.next().done; ) {
      if (SURROGATE.test(iter.value)) {
        known = false;
        break;
      }
    }
    basicPlane.set(doc, known);
  }
  return known;
}

/** `after` is `before` with `changes` applied: it is basic when `before` was and nothing astral came in. */
export function inheritBasicPlane(before: Text, changes: ChangeSet, after: Text): void {
  if (basicPlane.get(before) !== true || basicPlane.has(after)) return;
  let basic = true;
  changes.iterChanges((_fa, _ta, _fb, _tb, inserted) => {
    if (basic && SURROGATE.test(inserted.toString())) basic = false;
  });
  basicPlane.set(after, basic);
}

/** `changes` applied to `doc` (a tree edit, no copy of the text), keeping what is known of its plane. */
export function applyChanges(doc: Text, changes: ChangeSet): Text {
  if (changes.empty) return doc;
  const after = changes.apply(doc);
  inheritBasicPlane(doc, changes, after);
  return after;
}

/** A text as editors hold it (every line break "\n"). */
export function textOf(text: string): Text {
  return Text.of(text.split("\n"));
}

/** `changes` of `doc` as the app's spans: code points of `doc`, in order. */
export function toSpans(doc: Text, changes: ChangeSet): WireSpan[] {
  const basic = isBasicPlane(doc);
  const points = new PointCounter(doc);
  const spans: WireSpan[] = [];
  changes.iterChanges((fromA, toA, _fromB, _toB, inserted) => {
    const from = basic ? fromA : points.at(fromA);
    const to = basic ? toA : points.at(toA);
    spans.push([from, to, inserted.toString()]);
  });
  return spans;
}

/** The app's spans (code points of `doc`, in order) as a ChangeSet of `doc`. */
export function fromSpans(doc: Text, spans: WireSpan[]): ChangeSet {
  const basic = isBasicPlane(doc);
  const units = new UnitCounter(doc);
  const specs = spans.map(([from, to, insert]) => ({
    from: basic ? from : units.at(from),
    to: basic ? to : units.at(to),
    insert,
  }));
  return ChangeSet.of(specs, doc.length);
}

/** Code points before increasing UTF-16 offsets of a text: each slice counted once. */
class PointCounter {
  private unit = 0;
  private point = 0;

  constructor(private doc: Text) {}

  at(unit: number): number {
    this.point += codePointOffset(this.doc.sliceString(this.unit, unit), unit - this.unit);
    this.unit = unit;
    return this.point;
  }
}

/** UTF-16 offsets of increasing code point offsets of a text: each slice read once. */
export class UnitCounter {
  private unit = 0;
  private point = 0;

  constructor(private doc: Text) {}

  at(point: number): number {
    const ahead = point - this.point;
    // `ahead` code points take at most twice as many UTF-16 units.
    const slice = this.doc.sliceString(this.unit, Math.min(this.doc.length, this.unit + 2 * ahead));
    this.unit += utf16Offset(slice, ahead);
    this.point = point;
    return this.unit;
  }
}

/** A change this long (replaced plus inserted, UTF-16 units) or longer is not split into words: it stays as the app sent it. */
const REFINE_UNITS = 20_000;

/**
 * `changes` (of `doc`) with each change split into the words it really changes: an agent's `document.write`
 * arrives as one span from its first difference to its last, and the editor's undo history keeps the person's
 * own steps only outside what a change replaces. The same text results.
 */
export function refineChanges(doc: Text, changes: ChangeSet): ChangeSet {
  const specs: ChangeSpec[] = [];
  let refined = false;
  changes.iterChanges((fromA, toA, _fromB, _toB, inserted) => {
    const insert = inserted.toString();
    if (fromA === toA || insert === "" || toA - fromA + insert.length >= REFINE_UNITS) {
      specs.push({ from: fromA, to: toA, insert });
      return;
    }
    refined = true;
    let at = fromA;
    let pending: { from: number; to: number; insert: string } | null = null;
    for (const part of diffWordsWithSpace(doc.sliceString(fromA, toA), insert)) {
      if (!part.added && !part.removed) {
        if (pending) specs.push(pending);
        pending = null;
        at += part.value.length;
        continue;
      }
      pending ??= { from: at, to: at, insert: "" };
      if (part.removed) {
        at += part.value.length;
        pending.to = at;
      } else pending.insert += part.value;
    }
    if (pending) specs.push(pending);
  });
  return refined ? ChangeSet.of(specs, doc.length) : changes;
}
