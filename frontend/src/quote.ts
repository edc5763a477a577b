// A quoted passage as a label names it (the Comments and History panels).

/** A quote on one line, cut to fit a label. */
export function shortQuote(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
}
