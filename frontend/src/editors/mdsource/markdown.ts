// markdown-it set up for a view that must give every byte back: CommonMark + GFM tables and
// strikethrough, raw HTML, and our own rules for front matter, math, footnotes, wikilinks (`wikilink.ts`)
// and reference definitions (kept as tokens with line maps, where markdown-it would drop or move them).
//
// Inline tokens get source ranges too (markdown-it gives only block tokens a line map): every inline
// rule is wrapped to record where its tokens came from, in the inline content's coordinates.
import MarkdownIt from "markdown-it";
import type StateBlock from "markdown-it/lib/rules_block/state_block.mjs";
import type StateInline from "markdown-it/lib/rules_inline/state_inline.mjs";
import type Token from "markdown-it/lib/token.mjs";
import { recordTableLines } from "./tablesource";
import { wikilinkRule } from "./wikilink";

/** Where an inline token came from: `[from, to)` of its inline content string. */
export const inlineRange = new WeakMap<Token, [number, number]>();

/** Where the pending text of an inline state began (kept on the state: a map lookup per rule call costs). */
interface Ranged {
  vmarkPendingStart?: number;
}

export function createMarkdown(): MarkdownIt {
  const md = new MarkdownIt("default", { html: true, linkify: false, typographer: false });
  md.block.ruler.before("table", "front_matter", frontMatter, { alt: [] });
  md.block.ruler.before("fence", "math_block", mathBlock, { alt: ["paragraph", "reference", "blockquote", "list"] });
  md.block.ruler.before("reference", "footnote_def", footnoteDef, { alt: [] });
  keepReferences(md);
  recordTableLines(md);
  md.inline.ruler.before("escape", "math_inline", mathInline);
  md.inline.ruler.before("link", "footnote_ref", footnoteRef);
  md.inline.ruler.before("link", "wikilink", wikilinkRule);
  // Escapes and entities stay tokens of their own: their text is not their source.
  md.inline.ruler2.disable("fragments_join");
  md.core.ruler.disable("text_join");
  recordInlineRanges(md);
  return md;
}

// --- inline source ranges ---------------------------------------------------------------------------

function recordInlineRanges(md: MarkdownIt): void {
  const Base = md.inline.State;
  class RangedState extends Base {
    override pushPending(): Token {
      const start = (this as Ranged).vmarkPendingStart ?? 0;
      const token = super.pushPending();
      inlineRange.set(token, [start, start + token.content.length]);
      return token;
    }
  }
  md.inline.State = RangedState as typeof Base;
  const ruler = md.inline.ruler as unknown as { __rules__: { name: string; fn: InlineRule }[] };
  for (const rule of ruler.__rules__) md.inline.ruler.at(rule.name, ranged(rule.fn));
}

type InlineRule = (state: StateInline, silent: boolean) => boolean;

/** The rule, recording `[start, end)` on the tokens it pushed that no inner rule gave a range. */
function ranged(rule: InlineRule): InlineRule {
  return (state, silent) => {
    if (silent) return rule(state, silent);
    const start = state.pos;
    if (state.pending === "") (state as Ranged).vmarkPendingStart = start;
    const count = state.tokens.length;
    const ok = rule(state, silent);
    if (!ok || state.tokens.length === count) return ok;
    const pushed = state.tokens.slice(count).filter((t) => !inlineRange.has(t));
    const end = state.pos;
    // Emphasis and strikethrough push one text token per delimiter run piece: give each its own.
    if (pushed.length > 1 && pushed.every((t) => t.type === "text") && pushed.map((t) => t.content).join("") === state.src.slice(start, end)) {
      let at = start;
      for (const token of pushed) {
        inlineRange.set(token, [at, at + token.content.length]);
        at += token.content.length;
      }
    } else for (const token of pushed) inlineRange.set(token, [start, end]);
    return true;
  };
}

// --- block rules of our own ---------------------------------------------------------------------------

function lineText(state: StateBlock, line: number): string {
  return state.src.slice(state.bMarks[line] + state.tShift[line], state.eMarks[line]);
}

/** A token whose content is its lines' source (container prefixes removed), for a raw block. */
function pushRaw(state: StateBlock, type: string, start: number, end: number): void {
  const token = state.push(type, "", 0);
  token.map = [start, end];
  token.content = state.getLines(start, end, state.blkIndent, false);
  token.block = true;
  state.line = end;
}

/** `---` on the first line, up to a closing `---` or `...`. */
function frontMatter(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  // Only a parse of the document from its first line (not of a region of it) has front matter.
  if (startLine !== 0 || !(state.env as { documentStart?: boolean }).documentStart) return false;
  if (state.blkIndent !== 0 || state.tShift[0] !== 0) return false;
  if (!/^---[ \t]*$/.test(lineText(state, 0).replace(/^\uFEFF/, ""))) return false;
  let line = 1;
  while (line < endLine && !/^(---|\.\.\.)[ \t]*$/.test(lineText(state, line))) line++;
  if (line >= endLine) return false;
  if (!silent) pushRaw(state, "front_matter", startLine, line + 1);
  return true;
}

/**
 * `$$` display math, up to the line that ends with `$$`; unclosed, to the end (like a fence, so that
 * a part of the document parses as the whole does).
 */
function mathBlock(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine] - state.blkIndent >= 4) return false;
  const first = lineText(state, startLine);
  if (!first.startsWith("$$")) return false;
  let line = startLine;
  let closed = first.trimEnd().length >= 4 && first.trimEnd().endsWith("$$");
  while (!closed && line + 1 < endLine) {
    line++;
    if (!state.isEmpty(line) && state.sCount[line] < state.blkIndent) {
      line--;
      break;
    }
    closed = lineText(state, line).trimEnd().endsWith("$$");
  }
  if (!silent) pushRaw(state, "math_block", startLine, line + 1);
  return true;
}

/** `[^label]: text`, with its lazy and indented continuation lines. */
function footnoteDef(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine] - state.blkIndent >= 4) return false;
  if (!/^\[\^[^\]\s]+\]:/.test(lineText(state, startLine))) return false;
  let line = startLine + 1;
  for (; line < endLine; line++) {
    if (!state.isEmpty(line)) {
      if (state.sCount[line] - state.blkIndent >= 4) continue;
      if (/^\[\^[^\]\s]+\]:/.test(lineText(state, line))) break;
      if (state.isEmpty(line - 1)) break;
      continue;
    }
    const next = line + 1;
    if (next < endLine && !state.isEmpty(next) && state.sCount[next] - state.blkIndent >= 4) continue;
    break;
  }
  if (!silent) pushRaw(state, "footnote_def", startLine, line);
  return true;
}

/** Reference definitions become tokens (markdown-it keeps them only in `env`). */
function keepReferences(md: MarkdownIt): void {
  const ruler = md.block.ruler as unknown as { __rules__: { name: string; fn: BlockRule }[] };
  const reference = ruler.__rules__.find((r) => r.name === "reference");
  if (!reference) return;
  const original = reference.fn;
  md.block.ruler.at("reference", (state: StateBlock, startLine: number, endLine: number, silent: boolean) => {
    if (!original(state, startLine, endLine, silent)) return false;
    if (!silent) {
      const end = state.line;
      state.line = startLine;
      pushRaw(state, "reference_def", startLine, end);
      (state.env as { definitions?: string[] }).definitions?.push(state.tokens[state.tokens.length - 1].content);
    }
    return true;
  }, { alt: (reference as unknown as { alt: string[] }).alt });
}

type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean;

// --- inline rules of our own ------------------------------------------------------------------------

/** `$x$` and `$$x$$` in a line: the opener not before a space, the closer not after one nor before a digit. */
function mathInline(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  if (src.charCodeAt(start) !== 0x24) return false;
  const double = src.charCodeAt(start + 1) === 0x24;
  const open = double ? 2 : 1;
  const first = src.charAt(start + open);
  if (first === "" || /\s/.test(first) || (!double && first === "$")) return false;
  let at = start + open;
  while (at < state.posMax) {
    const found = src.indexOf(double ? "$$" : "$", at);
    if (found < 0 || found >= state.posMax) return false;
    if (src.charCodeAt(found - 1) === 0x5c) {
      at = found + 1;
      continue;
    }
    const after = src.charAt(found + open);
    if (/\s/.test(src.charAt(found - 1)) || (!double && /[0-9]/.test(after))) {
      at = found + 1;
      continue;
    }
    if (src.slice(start, found).includes("\n\n")) return false;
    if (!silent) {
      const token = state.push("math_inline", "", 0);
      token.content = src.slice(start + open, found);
      token.markup = src.slice(start, found + open);
    }
    state.pos = found + open;
    return true;
  }
  return false;
}

/** `[^label]`: a footnote reference (a definition's label is never a link). */
function footnoteRef(state: StateInline, silent: boolean): boolean {
  const match = /^\[\^([^\]\s]+)\]/.exec(state.src.slice(state.pos, Math.min(state.posMax, state.pos + 1000)));
  if (!match) return false;
  if (!silent) {
    const token = state.push("footnote_ref", "", 0);
    token.content = match[1];
    token.markup = match[0];
  }
  state.pos += match[0].length;
  return true;
}
