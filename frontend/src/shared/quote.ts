// A quoted passage as a label names it (the Comments, History and Coherence panels).

/** A quote on one line, cut to `width` characters to fit a label. */
export function shortQuote(text: string, width = 40): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}
