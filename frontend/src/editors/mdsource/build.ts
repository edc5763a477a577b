// From Markdown text to ProseMirror nodes that remember where they came from.
//
// `parseBlocks` parses a text and answers its top-level blocks, each a node with its source range.
// Every textblock also gets its segments: which stretch of its content came from which source bytes,
// and whether those bytes are the content itself (`verbatim`: plain text typed as it shows) or markup
// (an escape, a soft break with its indentation, an atom). An edit inside verbatim text can then be
// spliced into the source without re-serializing anything.
import type MarkdownIt from "markdown-it";
import type Token from "markdown-it/lib/token.mjs";
import type { Mark, Node } from "prosemirror-model";
import { createMarkdown, inlineRange } from "./markdown";
import { schema } from "./schema";
import { cellContent, emptyCellCaret, rowLine, type TableSource, tableLinesOf, tableSource } from "./tablesource";
import { type Wikilink, wikilinkLabel, wikilinkTarget } from "./wikilink";

/** A stretch of a textblock's content: positions `pm..pmEnd` inside it, source `src..srcEnd` (block-relative). */
export interface Segment {
  pm: number;
  pmEnd: number;
  src: number;
  srcEnd: number;
  verbatim: boolean;
  marks: readonly Mark[];
}

/** A top-level block: its node and its source `from..to` (the text's offsets; no trailing line break, but for the blank lines that end an unclosed fence or `$$`, which are its content). */
export interface Block {
  node: Node;
  from: number;
  to: number;
}

export interface Parsed {
  blocks: Block[];
}

/** Segments of every textblock built here (offsets relative to its top-level block's `from`). */
export const segmentsOf = new WeakMap<Node, Segment[]>();

let md: MarkdownIt | null = null;

/** The one markdown-it set up for the view (markdown.ts). */
export function markdown(): MarkdownIt {
  md ??= createMarkdown();
  return md;
}

export interface Env {
  references?: Record<string, unknown>;
  /** The text parsed starts the document (it may have front matter). */
  documentStart?: boolean;
  /** Where given, the source of each reference definition the parse meets is added, in order (partial.ts). */
  definitions?: string[];
}

/**
 * The top-level blocks of `text` (its offsets shifted by `base`). `env.references` may hold the whole
 * document's reference definitions, so that a part of it resolves its reference links as the whole does.
 */
export function parseBlocks(text: string, base: number, env: Env = {}): Parsed {
  const tokens = markdown().parse(text, env);
  const lines = new Lines(text);
  const blocks: Block[] = [];
  const builder = new Builder(lines);
  let i = 0;
  while (i < tokens.length) {
    const end = closing(tokens, i);
    const token = tokens[i];
    const map = token.map ?? [0, 0];
    const from = lines.start(map[0]);
    const to = lines.contentEnd(map[1]);
    builder.base = from;
    const node = builder.block(tokens, i, end);
    blocks.push({ node, from: from + base, to: Math.max(from, to, codeEnd(node, from)) + base });
    i = end + 1;
  }
  return { blocks };
}

/**
 * Where the content of a code or raw block ends in the text (`from`: the block's start), past its last non-blank
 * line when that content ends in blank lines: an unclosed fence or `$$` runs to the end of the text, its blank
 * lines are lines of its content, and its source range holds them (an edit of them is an edit of the block).
 */
function codeEnd(node: Node, from: number): number {
  if (!node.type.spec.code || !node.textContent.endsWith("\n")) return from;
  const last = (segmentsOf.get(node) ?? []).filter((s) => s.src >= 0).pop();
  return last ? from + last.srcEnd : from;
}

/** Index of the token closing the one at `i` (itself for a single token). */
function closing(tokens: Token[], i: number): number {
  if (tokens[i].nesting !== 1) return i;
  let depth = 0;
  for (let j = i; j < tokens.length; j++) {
    depth += tokens[j].nesting;
    if (depth === 0) return j;
  }
  return tokens.length - 1;
}

/** Line starts of a text. */
class Lines {
  private starts: number[] = [0];

  constructor(readonly text: string) {
    for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) this.starts.push(at + 1);
  }

  start(line: number): number {
    return line < this.starts.length ? this.starts[line] : this.text.length;
  }

  /** End of line `line`'s text (before its "\n"). */
  end(line: number): number {
    const next = line + 1 < this.starts.length ? this.starts[line + 1] - 1 : this.text.length;
    return Math.max(this.start(line), next);
  }

  /** End of the last non-blank line before `endLine` (a block's map end is exclusive). */
  contentEnd(endLine: number): number {
    let line = Math.min(endLine, this.starts.length) - 1;
    while (line > 0 && this.text.slice(this.start(line), this.end(line)).trim() === "") line--;
    return line >= 0 ? this.end(line) : 0;
  }

  line(line: number): string {
    return this.text.slice(this.start(line), this.end(line));
  }
}

/** The column after `text` (tabs stop every 4 columns, as CommonMark reads them), from column `col`. */
export function columnAfter(text: string, col = 0): number {
  for (const ch of text) col = ch === "\t" ? col + 4 - (col % 4) : col + 1;
  return col;
}

/**
 * Content lines to source offsets: content line `j` starts at `content[j]` of the content string and
 * at `source[j]` of the text (null where the line is not the source's bytes). A line may begin with
 * `spaces[j]` spaces that a tab stands for (a tab partly taken by a list's or a quote's indentation,
 * `- foo\n\n\t\tbar`): they come from the whitespace at `spacesFrom[j]`, and `source[j]` is where the
 * line's own bytes start after them.
 */
class ContentMap {
  constructor(
    private content: number[],
    private lengths: number[],
    private source: (number | null)[],
    private spaces: number[] = [],
    private spacesFrom: number[] = [],
  ) {}

  /** The source offset of content offset `at`, or null (inside the spaces a tab stands for: none of its own). */
  map(at: number): number | null {
    let j = this.content.length - 1;
    while (j > 0 && this.content[j] > at) j--;
    const src = this.source[j];
    const rel = at - this.content[j];
    if (src === null || rel > this.lengths[j]) return null;
    const spaces = this.spaces[j] ?? 0;
    if (spaces === 0) return src + rel;
    if (rel === 0) return this.spacesFrom[j];
    return rel < spaces ? null : src + (rel - spaces);
  }

  /** How many spaces a tab stands for at the start of the content line that starts at content offset `at`. */
  tabSpaces(at: number): number {
    const j = this.content.indexOf(at);
    return j >= 0 ? (this.spaces[j] ?? 0) : 0;
  }

  /**
   * Content lines aligned with source lines `first...`: each line is its source line's suffix (container
   * prefixes and indentation removed), the last one also trimmed at its end (a paragraph's content).
   */
  static align(content: string, lines: Lines, first: number, trimmedEnd: boolean): ContentMap {
    const parts = content.split("\n");
    const starts: number[] = [];
    const lengths: number[] = [];
    const sources: (number | null)[] = [];
    const spaces: number[] = [];
    const spacesFrom: number[] = [];
    let at = 0;
    parts.forEach((part, j) => {
      starts.push(at);
      lengths.push(part.length);
      at += part.length + 1;
      const line = lines.line(first + j);
      const lineStart = lines.start(first + j);
      const last = j === parts.length - 1;
      const trailing = last && trimmedEnd ? line.length - line.replace(/[ \t]+$/, "").length : 0;
      const offset = line.length - trailing - part.length;
      const ok = offset >= 0 && line.startsWith(part, offset);
      const expanded = ok ? null : tabExpansion(line, part, trailing);
      sources.push(ok ? lineStart + offset : expanded ? lineStart + expanded.own : null);
      spaces.push(expanded?.spaces ?? 0);
      spacesFrom.push(expanded ? lineStart + expanded.from : 0);
    });
    return new ContentMap(starts, lengths, sources, spaces, spacesFrom);
  }

  /** One content line found in source line `line` at or after column `from` (table cells). */
  static within(content: string, lines: Lines, line: number, from: number): ContentMap {
    const text = lines.line(line);
    const found = content === "" ? -1 : text.indexOf(content, from);
    return new ContentMap([0], [content.length], [found >= 0 ? lines.start(line) + found : null]);
  }
}

/**
 * A content line that begins with spaces a tab of its source line stands for: how many (`spaces`), the offset of
 * the first whitespace character that holds them (`from`), and where the line's own bytes start (`own`). Null if
 * the line is not of that kind.
 */
function tabExpansion(line: string, part: string, trailing: number): { spaces: number; from: number; own: number } | null {
  const spaces = part.length - part.trimStart().length;
  const rest = part.slice(spaces);
  const own = line.length - trailing - rest.length;
  if (spaces === 0 || own < 0 || !line.startsWith(rest, own)) return null;
  let start = own;
  while (start > 0 && (line[start - 1] === " " || line[start - 1] === "\t")) start--;
  const contentCol = columnAfter(line.slice(0, own)) - spaces;
  let col = columnAfter(line.slice(0, start));
  for (let k = start; k < own; k++) {
    const next = columnAfter(line[k], col);
    if (next > contentCol) return line.slice(k, own).includes("\t") && col <= contentCol ? { spaces, from: k, own } : null;
    col = next;
  }
  return null;
}

class Builder {
  base = 0;

  constructor(private lines: Lines) {}

  /** The node of tokens `start..end` (an open/close pair or one token). */
  block(tokens: Token[], start: number, end: number): Node {
    const token = tokens[start];
    const map = token.map ?? [0, 0];
    switch (token.type) {
      case "paragraph_open":
        return this.textblock(schema.nodes.paragraph, {}, tokens[start + 1], map[0], true);
      case "heading_open":
        return this.heading(tokens, start, map);
      case "blockquote_open": {
        const content = this.children(tokens, start + 1, end);
        return schema.nodes.blockquote.create(null, content.length ? content : [this.emptyItem(map[0])]);
      }
      case "bullet_list_open":
      case "ordered_list_open":
        return this.list(tokens, start, end);
      case "list_item_open": {
        const content = this.children(tokens, start + 1, end);
        // An item whose marker line is empty before a nested block (a list, a fence) has an empty first line
        // to type on, as an empty item has.
        const first = tokens[start + 1];
        const later = first && first.type !== "paragraph_open" && (first.map?.[0] ?? map[0]) > map[0];
        if (content.length === 0 || later) content.unshift(this.emptyItem(map[0]));
        return schema.nodes.list_item.create(null, content);
      }
      case "fence":
        return this.code(token, { info: token.info, fence: token.markup }, map[0] + 1);
      case "code_block":
        return this.code(token, { info: "", fence: "" }, map[0]);
      case "hr":
        return schema.nodes.horizontal_rule.create({ markup: this.lines.line(map[0]).trim() });
      case "table_open":
        return this.table(tokens, start, end);
      default:
        return this.raw(token, map);
    }
  }

  /**
   * The paragraph of an empty item (or quote): no content, but a place in the text (after the marker and one
   * space), so that what the person types there goes right after the marker.
   */
  private emptyItem(line: number): Node {
    const node = schema.nodes.paragraph.create();
    const text = this.lines.line(line);
    const trailing = text.length - text.trimEnd().length;
    this.emptyAt(node, this.lines.start(line) + text.length - trailing + (trailing > 0 ? 1 : 0));
    return node;
  }

  /** An empty textblock's one segment: where its content would be in the text. */
  private emptyAt(node: Node, at: number): void {
    segmentsOf.set(node, [{ pm: 0, pmEnd: 0, src: at - this.base, srcEnd: at - this.base, verbatim: false, marks: [] }]);
  }

  private children(tokens: Token[], start: number, end: number): Node[] {
    const nodes: Node[] = [];
    let i = start;
    while (i < end) {
      const close = closing(tokens, i);
      nodes.push(this.block(tokens, i, close));
      i = close + 1;
    }
    return nodes;
  }

  private heading(tokens: Token[], start: number, map: [number, number]): Node {
    const token = tokens[start];
    const setext = token.markup === "=" || token.markup === "-";
    const attrs = {
      level: Number(token.tag.slice(1)),
      markup: token.markup,
      underline: setext ? this.lines.line(map[1] - 1) : "",
    };
    const inline = tokens[start + 1];
    if (setext) return this.textblock(schema.nodes.heading, attrs, inline, map[0], true);
    const line = this.lines.line(map[0]);
    const after = line.indexOf(token.markup) + token.markup.length;
    const node = this.inlineBlock(schema.nodes.heading, attrs, inline, ContentMap.within(inline.content, this.lines, map[0], after));
    if (node.content.size === 0) this.emptyAt(node, this.lines.start(map[0]) + after + (/[ \t]/.test(line.charAt(after)) ? 1 : 0));
    return node;
  }

  private list(tokens: Token[], start: number, end: number): Node {
    const token = tokens[start];
    const items = this.children(tokens, start + 1, end);
    const tight = tokens.slice(start, end).some((t) => t.type === "paragraph_open" && t.hidden) || !tokens.slice(start, end).some((t) => t.type === "paragraph_open");
    if (token.type === "bullet_list_open") return schema.nodes.bullet_list.create({ markup: token.markup, tight }, items);
    const first = tokens[start + 1];
    return schema.nodes.ordered_list.create({ start: Number(first?.info || token.attrGet("start") || 1), markup: token.markup, tight }, items);
  }

  private code(token: Token, attrs: Record<string, unknown>, firstLine: number): Node {
    const content = token.content.endsWith("\n") ? token.content.slice(0, -1) : token.content;
    const node = this.textContent(schema.nodes.code_block, attrs, content, ContentMap.align(content, this.lines, firstLine, false));
    // A fence with no line inside it: its place is the end of the opening fence (what is typed goes on a new line).
    if (token.type === "fence" && token.content === "") this.emptyAt(node, this.lines.end(firstLine - 1));
    return node;
  }

  private raw(token: Token, map: [number, number]): Node {
    const kinds: Record<string, string> = {
      html_block: "html",
      front_matter: "front_matter",
      math_block: "math",
      footnote_def: "footnote",
      reference_def: "reference",
    };
    const kind = kinds[token.type] ?? "other";
    let content = token.content.endsWith("\n") ? token.content.slice(0, -1) : token.content;
    let contentMap = ContentMap.align(content, this.lines, map[0], false);
    if (!(token.type in kinds)) {
      // Something the view does not know: its lines as they are.
      content = this.lines.text.slice(this.lines.start(map[0]), this.lines.contentEnd(map[1]));
      contentMap = ContentMap.align(content, this.lines, map[0], false);
    }
    return this.textContent(schema.nodes.raw_block, { kind }, content, contentMap);
  }

  private table(tokens: Token[], start: number, end: number): Node {
    const rows: Node[] = [];
    const aligns: string[] = [];
    const recorded = tableLinesOf.get(tokens[start]);
    const source = recorded ? tableSource(this.lines.text, 0, recorded) : null;
    for (let i = start + 1; i < end; i++) {
      if (tokens[i].type !== "tr_open") continue;
      const line = tokens[i].map?.[0] ?? 0;
      const cells: Node[] = [];
      let column = 0;
      let cursor = 0;
      for (let j = i + 1; tokens[j].type !== "tr_close"; j++) {
        const cell = tokens[j];
        if (cell.type !== "th_open" && cell.type !== "td_open") continue;
        const style = cell.attrGet("style") ?? "";
        const align = /text-align:(\w+)/.exec(style)?.[1] ?? "";
        if (cell.type === "th_open") aligns[column] = align;
        const inline = tokens[j + 1];
        const attrs = { header: cell.type === "th_open", align };
        const exact = source ? this.tableCell(source, rows.length, column, inline, attrs) : null;
        if (exact) cells.push(exact);
        else {
          const cmap = ContentMap.within(inline.content, this.lines, line, cursor);
          const found = cmap.map(0);
          if (found !== null) cursor = found - this.lines.start(line) + inline.content.length;
          cells.push(this.inlineBlock(schema.nodes.table_cell, attrs, inline, cmap));
        }
        column++;
      }
      rows.push(schema.nodes.table_row.create(null, cells));
    }
    return schema.nodes.table.create({ aligns }, rows);
  }

  /**
   * A cell from its own bytes between the row's pipes (tablesource.ts splits rows as markdown-it does); an empty
   * one remembers where typing goes. Null where the row has no such cell (a short row shows it empty).
   */
  private tableCell(source: TableSource, row: number, column: number, inline: Token, attrs: Record<string, unknown>): Node | null {
    if (row >= source.lines.length - 1) return null;
    const range = rowLine(source, row).cells[column];
    if (!range) return null;
    const { content, pieces } = cellContent(this.lines.text, range);
    if (content !== inline.content) return null;
    const cmap = new ContentMap(
      pieces.map((p) => p.content),
      pieces.map((p) => p.length),
      pieces.map((p) => p.source),
    );
    const node = this.inlineBlock(schema.nodes.table_cell, attrs, inline, cmap);
    if (content === "") {
      const at = emptyCellCaret(this.lines.text, range) - this.base;
      segmentsOf.set(node, [{ pm: 0, pmEnd: 0, src: at, srcEnd: at, verbatim: false, marks: [] }]);
    }
    return node;
  }

  /** A code or raw block: its content is one run of text, verbatim where its lines are. */
  private textContent(type: typeof schema.nodes.code_block, attrs: Record<string, unknown>, content: string, map: ContentMap): Node {
    const node = type.create(attrs, content ? schema.text(content) : null);
    const segments: Segment[] = [];
    let at = 0;
    for (const part of content.split("\n")) {
      // Spaces a tab stands for (`\t` partly taken by a list's indentation) are markup: the tab is their source.
      const spaces = map.tabSpaces(at);
      if (spaces > 0) this.pushSegment(segments, map, at, at + spaces, spaces, false, []);
      this.pushSegment(segments, map, at + spaces, at + part.length, part.length - spaces, true, [], part.slice(spaces));
      if (at + part.length < content.length) this.pushSegment(segments, map, at + part.length, at + part.length + 1, 1, true, []);
      at += part.length + 1;
    }
    segmentsOf.set(node, segments);
    return node;
  }

  private textblock(type: typeof schema.nodes.paragraph, attrs: Record<string, unknown>, inline: Token, firstLine: number, trimmed: boolean): Node {
    return this.inlineBlock(type, attrs, inline, ContentMap.align(inline.content, this.lines, firstLine, trimmed));
  }

  /** A textblock of inline tokens, with the segments saying where each piece came from. */
  private inlineBlock(type: typeof schema.nodes.paragraph, attrs: Record<string, unknown>, inline: Token, map: ContentMap): Node {
    const inlines = new Inlines(this, map, inline.content);
    inlines.add(inline.children ?? []);
    const node = type.create(attrs, inlines.nodes);
    segmentsOf.set(node, inlines.segments);
    return node;
  }

  /** Record `[from, to)` of the content as `size` positions of the node; verbatim if the source is the same text. */
  pushSegment(segments: Segment[], map: ContentMap, from: number, to: number, size: number, verbatim: boolean, marks: readonly Mark[], expect?: string): void {
    const src = map.map(from);
    const srcEnd = map.map(to);
    const pm = segments.length ? segments[segments.length - 1].pmEnd : 0;
    if (src === null || srcEnd === null) {
      segments.push({ pm, pmEnd: pm + size, src: -1, srcEnd: -1, verbatim: false, marks });
      return;
    }
    const exact = verbatim && srcEnd - src === size && (expect === undefined || this.lines.text.slice(src, srcEnd) === expect);
    segments.push({ pm, pmEnd: pm + size, src: src - this.base, srcEnd: srcEnd - this.base, verbatim: exact, marks });
  }

  get text(): string {
    return this.lines.text;
  }
}

/** The inline content of one textblock being built. */
class Inlines {
  nodes: Node[] = [];
  segments: Segment[] = [];
  private marks: readonly Mark[] = [];
  /** The marks before each open construct: its close gives them back (emphasis nests in emphasis). */
  private opened: { name: string; before: readonly Mark[] }[] = [];

  constructor(
    private builder: Builder,
    private map: ContentMap,
    /** The inline content the tokens' ranges refer to (container prefixes removed). */
    private src: string,
  ) {}

  add(tokens: Token[]): void {
    for (let i = 0; i < tokens.length; i++) i = this.token(tokens, i);
  }

  private range(token: Token): [number, number] {
    return inlineRange.get(token) ?? [0, 0];
  }

  private source(token: Token): string {
    const [from, to] = this.range(token);
    const a = this.map.map(from);
    const b = this.map.map(to);
    return a === null || b === null ? token.markup || token.content : this.builder.text.slice(a, b);
  }

  private text(text: string, from: number, to: number, verbatim: boolean): void {
    if (text === "") return;
    this.nodes.push(schema.text(text, this.marks));
    this.builder.pushSegment(this.segments, this.map, from, to, text.length, verbatim, this.marks, text);
  }

  private atom(node: Node, token: Token): void {
    const [from, to] = this.range(token);
    // An atom inside emphasis or a link carries its marks (a break in `*a  \nb*` is part of the emphasis).
    this.nodes.push(this.marks.length ? node.mark(this.marks) : node);
    this.builder.pushSegment(this.segments, this.map, from, to, node.nodeSize, false, this.marks);
  }

  /** Markup that shows as nothing (an emphasis delimiter): a segment of no size. */
  private markup(token: Token): void {
    const [from, to] = this.range(token);
    this.builder.pushSegment(this.segments, this.map, from, to, 0, false, this.marks);
  }

  /** Handle `tokens[i]`; answers the index of the last token it used. */
  private token(tokens: Token[], i: number): number {
    const token = tokens[i];
    const [from, to] = this.range(token);
    switch (token.type) {
      case "text":
        if (token.content === "") this.markup(token);
        else this.text(token.content, from, to, true);
        return i;
      case "text_special":
        this.text(token.content, from, to, false);
        return i;
      case "softbreak":
        this.text("\n", from, to, false);
        return i;
      case "hardbreak": {
        // A break of two (or more) spaces keeps them: they are its source, not the text's before it.
        let start = from;
        for (let src = this.map.map(start - 1); start > 0 && src !== null && this.builder.text.charAt(src) === " "; src = this.map.map(start - 1)) start--;
        const a = this.map.map(start);
        const b = this.map.map(to);
        const raw = a === null || b === null ? this.source(token) : this.builder.text.slice(a, b);
        this.nodes.push(schema.nodes.hard_break.create({ raw }, null, this.marks));
        this.builder.pushSegment(this.segments, this.map, start, to, 1, false, this.marks);
        return i;
      }
      case "code_inline":
        this.code(token, from, to);
        return i;
      case "em_open":
      case "strong_open":
      case "s_open":
        this.markup(token);
        this.open(token.type === "em_open" ? "em" : token.type === "strong_open" ? "strong" : "strike", { markup: token.markup });
        return i;
      case "em_close":
      case "strong_close":
      case "s_close":
        this.close(token.type === "em_close" ? "em" : token.type === "strong_close" ? "strong" : "strike");
        this.markup(token);
        return i;
      case "link_open":
        return this.link(tokens, i);
      case "link_close":
        this.close("link");
        return i;
      case "image":
        this.atom(schema.nodes.image.create({ src: token.attrGet("src") ?? "", alt: token.content, title: token.attrGet("title"), raw: this.source(token) }), token);
        return i;
      case "html_inline":
        this.atom(schema.nodes.raw_inline.create({ kind: "html", raw: token.content }), token);
        return i;
      case "math_inline":
        this.atom(schema.nodes.raw_inline.create({ kind: "math", raw: token.markup }), token);
        return i;
      case "footnote_ref":
        this.atom(schema.nodes.raw_inline.create({ kind: "footnote", raw: token.markup }), token);
        return i;
      case "wikilink": {
        const link = token.meta as Wikilink;
        this.atom(schema.nodes.raw_inline.create({ kind: "wikilink", raw: token.markup, href: wikilinkTarget(link), text: wikilinkLabel(link) }), token);
        return i;
      }
      default:
        this.atom(schema.nodes.raw_inline.create({ kind: "other", raw: this.source(token) }), token);
        return i;
    }
  }

  private code(token: Token, from: number, to: number): void {
    const markup = token.markup;
    const inner = from + markup.length;
    // The span's content is its source with line breaks shown as spaces, one space stripped at each end when
    // both ends have one: character for character the source, but for the line breaks (markup, as soft breaks).
    const raw = this.src.slice(inner, to - markup.length);
    const spaced = raw.replace(/\n/g, " ");
    let start = inner;
    if (spaced !== token.content && spaced.length >= 2 && spaced.startsWith(" ") && spaced.endsWith(" ") && spaced.slice(1, -1) === token.content) start = inner + 1;
    const exact = spaced.slice(start - inner, start - inner + token.content.length) === token.content;
    const outside = this.marks;
    this.open("code", { markup });
    this.builder.pushSegment(this.segments, this.map, from, start, 0, false, outside);
    if (!exact || !raw.includes("\n")) this.text(token.content, start, start + token.content.length, exact);
    else {
      let at = 0;
      for (const piece of token.content.split(" ")) {
        // Pieces between spaces: a space that is a line break in the source is markup, any other is text.
        if (at > 0) this.text(" ", start + at - 1, start + at, this.src.charAt(start + at - 1) === " ");
        this.text(piece, start + at, start + at + piece.length, true);
        at += piece.length + 1;
      }
    }
    this.builder.pushSegment(this.segments, this.map, start + token.content.length, to, 0, false, outside);
    this.close("code");
  }

  private link(tokens: Token[], i: number): number {
    const token = tokens[i];
    const source = this.source(token);
    if (token.markup === "autolink") {
      const end = tokens.findIndex((t, j) => j > i && t.type === "link_close");
      const text = tokens.slice(i + 1, end).map((t) => t.content).join("");
      this.atom(schema.nodes.raw_inline.create({ kind: "autolink", raw: source, href: token.attrGet("href") ?? "", text }), token);
      return end;
    }
    // The link's text ends where its children end; what follows the "]" is kept as written.
    const close = tokens.findIndex((t, j) => j > i && t.type === "link_close" && t.level === token.level);
    const label = labelEnd(source);
    const tail = label >= 0 ? source.slice(label + 1) : null;
    // A shortcut or collapsed reference names its definition by its text: kept to write it back if the text changes.
    const text = label >= 0 && (tail === "" || tail === "[]") ? source.slice(1, label) : null;
    const [from] = this.range(token);
    this.builder.pushSegment(this.segments, this.map, from, from + 1, 0, false, this.marks);
    this.open("link", { href: token.attrGet("href") ?? "", title: token.attrGet("title"), tail, label: text });
    this.add(tokens.slice(i + 1, close));
    this.close("link");
    const [, to] = this.range(token);
    this.builder.pushSegment(this.segments, this.map, label >= 0 ? from + label : to, to, 0, false, this.marks);
    return close;
  }

  /**
   * A construct opens its mark. Inside one of the same kind (`*a _b_ c*`, `*a [*b*](u) c*`) the outer mark goes on:
   * the view has one emphasis, as it shows one.
   */
  private open(name: "em" | "strong" | "strike" | "link" | "code", attrs: Record<string, unknown>): void {
    this.opened.push({ name, before: this.marks });
    const mark = schema.marks[name].create(attrs);
    if (!this.marks.some((m) => m.type === mark.type)) this.marks = mark.addToSet(this.marks);
  }

  /** The construct closes: the marks are again those before it opened (an outer emphasis goes on after it). */
  private close(name: string): void {
    let k = this.opened.length - 1;
    while (k >= 0 && this.opened[k].name !== name) k--;
    if (k < 0) {
      this.marks = this.marks.filter((m) => m.type.name !== name);
      return;
    }
    this.marks = this.opened[k].before;
    this.opened.length = k;
  }
}

/** Index of the "]" that closes a link's text `[...]` in its source (brackets nest, escapes count). */
function labelEnd(source: string): number {
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (ch === "\\") i++;
    else if (ch === "`") {
      const run = /^`+/.exec(source.slice(i))?.[0] ?? "`";
      const end = source.indexOf(run, i + run.length);
      if (end > 0) i = end + run.length - 1;
    } else if (ch === "[") depth++;
    else if (ch === "]" && --depth === 0) return i;
  }
  return -1;
}
