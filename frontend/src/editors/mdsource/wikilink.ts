// Wikilinks, Obsidian's syntax: `[[name]]`, `[[name|alias]]`, `[[name#heading]]`, `[[name#heading|alias]]`,
// `[[#heading]]` (a heading of the same document). One matcher, used by the WYSIWYG parse (a markdown-it
// inline rule, before `link`), the source mode's parse (a Lezer inline parser) and the Python scanner's
// twin (`vmark.text.wikilink`), so every view agrees on what is a wikilink:
//
// - it opens with `[[` and ends at the first `]]` on the same line (at most MAX_INNER characters inside);
// - inside there is no `[`, `]`, backtick (a code span wins) nor line break, and a backslash only as `\|`
//   (the pipe of a wikilink in a table cell);
// - the name, or else the heading, is not blank.
//
// Code spans and code blocks never hold one (their rules run first, and a code block's text is not inline
// content); `\[[` is an escaped bracket and then `[`, not a wikilink.
import type StateInline from "markdown-it/lib/rules_inline/state_inline.mjs";

/** The longest inside of a wikilink looked at (a line of `[[` without a closing `]]` costs no more). */
export const MAX_INNER = 1000;

export interface Wikilink {
  /** Where it ends (after `]]`) in the string it was matched in. */
  end: number;
  /** The file it names (`folder/name` or `name`, trimmed), "" for a heading of the same document. */
  name: string;
  /** The heading after `#` (trimmed), or null. */
  heading: string | null;
  /** The words shown instead of the name (after `|`, trimmed), or null. */
  alias: string | null;
}

/** The wikilink starting at `pos` of `src` (ending by `max`), or null. */
export function matchWikilink(src: string, pos: number, max: number = src.length): Wikilink | null {
  if (src.charCodeAt(pos) !== 0x5b || src.charCodeAt(pos + 1) !== 0x5b) return null;
  const start = pos + 2;
  const limit = Math.min(max, start + MAX_INNER + 2);
  let close = -1;
  // Up to the first "]]", giving up at what cannot be inside one (so a stray "[[" costs a few characters).
  for (let at = start; at < limit - 1; at++) {
    const ch = src.charCodeAt(at);
    if (ch === 0x5d) {
      if (src.charCodeAt(at + 1) !== 0x5d) return null;
      close = at;
      break;
    }
    if (ch === 0x5b || ch === 0x60 || ch === 0x0a || ch === 0x0d) return null;
    if (ch === 0x5c && src.charCodeAt(at + 1) !== 0x7c) return null;
  }
  if (close < 0) return null;
  const inner = src.slice(start, close);
  const pipe = inner.indexOf("|");
  let target = pipe < 0 ? inner : inner.slice(0, pipe);
  if (target.endsWith("\\")) target = target.slice(0, -1);
  const alias = pipe < 0 ? null : inner.slice(pipe + 1).trim() || null;
  const hash = target.indexOf("#");
  const name = (hash < 0 ? target : target.slice(0, hash)).trim();
  const heading = hash < 0 ? null : target.slice(hash + 1).trim();
  if (name === "" && !heading) return null;
  return { end: close + 2, name, heading: heading || null, alias };
}

/** What a wikilink shows: its alias, else its name (and heading), as Obsidian shows it. */
export function wikilinkLabel(link: Pick<Wikilink, "name" | "heading" | "alias">): string {
  if (link.alias) return link.alias;
  if (!link.heading) return link.name;
  return link.name ? `${link.name} › ${link.heading}` : link.heading;
}

/** The target a wikilink names: `name`, `name#heading` or `#heading`. */
export function wikilinkTarget(link: Pick<Wikilink, "name" | "heading">): string {
  return link.heading ? `${link.name}#${link.heading}` : link.name;
}

/** The markdown-it rule: a `wikilink` token whose `markup` is its source, exactly. */
export function wikilinkRule(state: StateInline, silent: boolean): boolean {
  const found = matchWikilink(state.src, state.pos, state.posMax);
  if (!found) return false;
  if (!silent) {
    const token = state.push("wikilink", "", 0);
    token.markup = state.src.slice(state.pos, found.end);
    token.meta = found;
  }
  state.pos = found.end;
  return true;
}
