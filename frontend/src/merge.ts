// Text-level helpers: the one changed span between two texts, and a three-way merge of the
// page's unsent keystrokes with a change that came from elsewhere (an agent, another window).
import { ChangeSet, Text } from "@codemirror/state";

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

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function changesOf(base: string, other: string): ChangeSet {
  const span = diffSpan(base, other);
  return ChangeSet.of(span ? [span] : [], base.length);
}

/**
 * `local` and `remote` both started from `base`: the remote change mapped over the local one,
 * applied to `local`. Keystrokes the app has not seen yet survive an agent's write elsewhere.
 */
export function merge3(base: string, local: string, remote: string): string {
  if (local === base) return remote;
  if (remote === base || remote === local) return local;
  const mine = changesOf(base, local);
  const theirs = changesOf(base, remote).map(mine);
  return theirs.apply(Text.of(local.split("\n"))).toString();
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

export function hasSurrogate(text: string): boolean {
  return /[\uD800-\uDFFF]/.test(text);
}
