// Two texts line by line (unchanged, removed, added), for the Coherence panel's pinned-context diff.

export interface DiffLine {
  kind: "same" | "added" | "removed";
  text: string;
}

/** The most cells of the LCS table one diff may fill (16 MB); a larger changed middle is shown whole. */
const MAX_CELLS = 4_000_000;

/** Lines of `before` and `after`: unchanged, removed (only in `before`) and added (only in `after`). */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = lines(before);
  const b = lines(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  return [
    ...a.slice(0, start).map((text) => line("same", text)),
    ...changed(a.slice(start, endA), b.slice(start, endB)),
    ...a.slice(endA).map((text) => line("same", text)),
  ];
}

/** A longest-common-subsequence diff; in a change, removed lines come before added ones. */
function changed(a: string[], b: string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_CELLS) return [...a.map((t) => line("removed", t)), ...b.map((t) => line("added", t))];
  const w = m + 1;
  // lcs[i * w + j]: the LCS length of a[i..] and b[j..]
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push(line("same", a[i++]));
      j++;
    } else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) out.push(line("removed", a[i++]));
    else out.push(line("added", b[j++]));
  }
  while (i < n) out.push(line("removed", a[i++]));
  while (j < m) out.push(line("added", b[j++]));
  return out;
}

function line(kind: DiffLine["kind"], text: string): DiffLine {
  return { kind, text };
}

function lines(text: string): string[] {
  if (text === "") return [];
  const parts = text.split(/\r\n|\r|\n/);
  if (parts[parts.length - 1] === "") parts.pop(); // a final line break ends the last line, it starts none
  return parts;
}
