// What one version of a document changed from the one before it, word by word (jsdiff's
// `diffWordsWithSpace`), for the History panel. The common head and tail are cut off first: an agent's
// one-word edit of a long document diffs a few words, not the whole text.
import { diffWordsWithSpace } from "diff";

export interface WordPart {
  kind: "same" | "added" | "removed";
  text: string;
}

/** How much unchanged text is kept beside a change when a diff is shown (the rest is elided). */
export const CONTEXT = 60;

/** `before` to `after` as unchanged, removed and added runs (removed before added where both). */
export function wordDiff(before: string, after: string): WordPart[] {
  if (before === after) return before === "" ? [] : [{ kind: "same", text: before }];
  let head = 0;
  const max = Math.min(before.length, after.length);
  while (head < max && before.charCodeAt(head) === after.charCodeAt(head)) head++;
  let tail = 0;
  while (tail < max - head && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)) tail++;
  // Back to word edges, so that a changed word is diffed whole ("cat" -> "car" is one word replaced).
  while (head > 0 && isWord(before.charCodeAt(head - 1))) head--;
  while (tail > 0 && isWord(before.charCodeAt(before.length - tail))) tail--;
  const parts: WordPart[] = [];
  const push = (kind: WordPart["kind"], text: string): void => {
    if (text === "") return;
    const last = parts[parts.length - 1];
    if (last?.kind === kind) last.text += text;
    else parts.push({ kind, text });
  };
  push("same", before.slice(0, head));
  for (const change of diffWordsWithSpace(before.slice(head, before.length - tail), after.slice(head, after.length - tail))) {
    push(change.added ? "added" : change.removed ? "removed" : "same", change.value);
  }
  push("same", before.slice(before.length - tail));
  return slid(parts);
}

/** How far a slid run may move: the text it may move through is cut to this much on each side. */
const SLIDE_REACH = 200;

/**
 * Each run added or removed between two unchanged ones, moved through the text around it to where it reads
 * best when an equal one exists (the diff "slide" heuristic, as the app's review does): starting a line, then
 * ending with a line break, so an added line is shown as that whole line, not the end of one line and the
 * start of the next. The texts stay the same.
 */
function slid(parts: WordPart[]): WordPart[] {
  for (let k = 1; k + 1 < parts.length; k++) {
    const [prev, part, next] = [parts[k - 1], parts[k], parts[k + 1]];
    if (part.kind === "same" || prev.kind !== "same" || next.kind !== "same") continue;
    const lead = prev.text.slice(-SLIDE_REACH);
    const around = lead + part.text + next.text.slice(0, SLIDE_REACH);
    const n = part.text.length;
    const textStart = k === 1 && lead.length === prev.text.length; // position 0 of `around` starts the text
    const score = (at: number): number =>
      (at === 0 ? (textStart ? 2 : 0) : around[at - 1] === "\n" ? 2 : 0) + (around[at + n - 1] === "\n" ? 1 : 0);
    let at = lead.length;
    while (at > 0 && around[at - 1] === around[at + n - 1]) at--;
    let best = lead.length;
    for (; ; at++) {
      if (score(at) > score(best)) best = at;
      if (at + n >= around.length || around[at] !== around[at + n]) break;
    }
    if (best === lead.length) continue;
    const shift = best - lead.length;
    prev.text = prev.text.slice(0, prev.text.length - lead.length) + around.slice(0, best);
    part.text = around.slice(best, best + n);
    next.text = around.slice(best + n) + next.text.slice(SLIDE_REACH);
    if (shift !== 0 && prev.text === "") parts.splice(--k, 1);
  }
  return parts.filter((part) => part.text !== "");
}

/** Words (runs of letters and digits) added and removed: a word changed counts once each way. */
export function wordCounts(parts: readonly WordPart[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const part of parts) {
    const words = part.text.match(/[\p{L}\p{N}_]+/gu)?.length ?? 0;
    if (part.kind === "added") added += words;
    if (part.kind === "removed") removed += words;
  }
  return { added, removed };
}

/** The diff as shown: long unchanged runs keep `CONTEXT` characters beside each change, "…" between. */
export function elided(parts: readonly WordPart[], context = CONTEXT): WordPart[] {
  return parts.map((part, k) => {
    if (part.kind !== "same" || part.text.length <= 2 * context + 1) return part;
    const first = k === 0;
    const last = k === parts.length - 1;
    if (first && last) return part;
    const lead = first ? "" : part.text.slice(0, context);
    const trail = last ? "" : part.text.slice(-context);
    return { kind: "same", text: `${lead}${first ? "" : " "}…${last ? "" : " "}${trail}` };
  });
}

function isWord(code: number): boolean {
  return /[\p{L}\p{N}_]/u.test(String.fromCharCode(code));
}
