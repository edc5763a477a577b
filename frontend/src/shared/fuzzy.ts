// Fuzzy matching of what a person types against a file path or a command's name (quick open, the
// palette, the `[[` list).

/** A fuzzy match of `query` in `text` (its characters in order): a score, higher is better, or null. */
export function fuzzyScore(query: string, text: string): number | null {
  const q = query.toLowerCase().replace(/\s+/g, "");
  if (q === "") return 0;
  const t = text.toLowerCase();
  const nameStart = t.lastIndexOf("/") + 1;
  // Matched from the start of the text, and from the start of the file's own name: the better counts.
  const whole = scoreFrom(q, t, 0, nameStart);
  const inName = nameStart > 0 ? scoreFrom(q, t, nameStart, nameStart) : null;
  if (whole === null && inName === null) return null;
  return Math.max(whole ?? -Infinity, inName ?? -Infinity) - t.length * 0.01;
}

function scoreFrom(q: string, t: string, from: number, nameStart: number): number | null {
  let score = 0;
  let at = from;
  let run = 0;
  for (const ch of q) {
    const found = t.indexOf(ch, at);
    if (found < 0) return null;
    run = found === at && at > from ? run + 1 : found === at ? 1 : 0;
    score += 1 + run * 3;
    const before = found === 0 ? "/" : t[found - 1];
    if ("/-_. ".includes(before)) score += 4; // the start of a word or of a path segment
    if (found >= nameStart) score += 2; // in the file's own name
    score -= Math.min(found - at, 10) * 0.1;
    at = found + 1;
  }
  if (t.slice(nameStart).startsWith(q)) score += 10;
  return score;
}
