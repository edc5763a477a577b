// A GFM table as the text has it: its lines, each row's cells as byte ranges, and the style the person wrote it
// in (outer pipes or not, padding, aligned columns). The table commands (tables.ts) compute their splices here:
// a new row line, one delimiter cell rewritten, one cell added to or taken from each row line; every byte they
// do not mean to change stays where it is. The rules are markdown-it's (rules_block/table.mjs): a row is split
// at every `|` not right after a backslash, one empty piece at each end is an outer pipe's, and the header
// row's cells make the columns.
import type MarkdownIt from "markdown-it";
import type StateBlock from "markdown-it/lib/rules_block/state_block.mjs";
import type Token from "markdown-it/lib/token.mjs";

/** A piece of the text: `from..to` (UTF-16 offsets). */
export interface Range {
  from: number;
  to: number;
}

/** One replaced span of the text (the shape of sourcedoc.ts's `Span`). */
export interface Splice {
  from: number;
  to: number;
  insert: string;
}

export type Align = "" | "left" | "center" | "right";

// --- where markdown-it found each table line --------------------------------------------------------------

/** A table line in the parsed string: its own text from `start` (container prefixes excluded) to `end`. */
export interface TableLine {
  start: number;
  end: number;
}

/** The lines (header, delimiter, body rows) of every table a recording parser parsed, by its `table_open`. */
export const tableLinesOf = new WeakMap<Token, TableLine[]>();

type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean;

/** Make `md`'s table rule record where each table line's own text starts (inside a quote or a list item too). */
export function recordTableLines(md: MarkdownIt): void {
  const rules = (md.block.ruler as unknown as { __rules__: { name: string; fn: BlockRule; alt: string[] }[] }).__rules__;
  const rule = rules.find((r) => r.name === "table");
  if (!rule) return;
  const original = rule.fn;
  const recording: BlockRule = (state, startLine, endLine, silent) => {
    const count = state.tokens.length;
    if (!original(state, startLine, endLine, silent)) return false;
    if (!silent && state.tokens[count]?.type === "table_open") {
      const lines: TableLine[] = [];
      for (let line = startLine; line < state.line; line++) lines.push({ start: state.bMarks[line] + state.tShift[line], end: state.eMarks[line] });
      tableLinesOf.set(state.tokens[count], lines);
    }
    return true;
  };
  md.block.ruler.at("table", recording, { alt: [...rule.alt] });
}

// --- rows ----------------------------------------------------------------------------------------------------

/** A row line: its cells between the separators (padding included) and whether it has outer pipes. */
export interface RowLine {
  /** Where its line starts (a quote's `>` or a list's indentation before `start`). */
  lineStart: number;
  /** Where the row's text starts. */
  start: number;
  /** Where it ends, trailing whitespace excluded. */
  end: number;
  /** Where the line ends (before its line break). */
  lineEnd: number;
  lead: boolean;
  trail: boolean;
  cells: Range[];
}

const SPACE = /\s/;

/** Row `text[start..lineEnd]` split as markdown-it splits it (`lineStart`: where its line starts). */
export function splitRow(text: string, lineStart: number, start: number, lineEnd: number): RowLine {
  // markdown-it trims the line with String.prototype.trim: what `\s` matches.
  let from = start;
  while (from < lineEnd && SPACE.test(text[from])) from++;
  let end = lineEnd;
  while (end > from && SPACE.test(text[end - 1])) end--;
  const pipes: number[] = [];
  for (let at = from; at < end; at++) if (text[at] === "|" && (at === from || text[at - 1] !== "\\")) pipes.push(at);
  const pieces: Range[] = [];
  let at = from;
  for (const pipe of pipes) {
    pieces.push({ from: at, to: pipe });
    at = pipe + 1;
  }
  pieces.push({ from: at, to: end });
  const lead = pieces.length > 1 && pieces[0].to === pieces[0].from;
  if (lead) pieces.shift();
  const last = pieces[pieces.length - 1];
  let trail = false;
  if (pipes.length > 0 && last !== undefined && last.from === last.to) {
    pieces.pop();
    // A lone "|" is both: its row has no cells (the view shows them all empty).
    trail = !(lead && pipes.length === 1);
  }
  return { lineStart, start: from, end, lineEnd, lead, trail, cells: pieces };
}

/**
 * What a cell's inline content is made of: markdown-it drops the backslash of every escaped pipe. Pieces of the
 * content (`content` offset, `length`) and where each one is in the text (`source`).
 */
export function cellContent(text: string, cell: Range): { content: string; pieces: { content: number; length: number; source: number }[] } {
  let from = cell.from;
  let to = cell.to;
  while (from < to && SPACE.test(text[from])) from++;
  while (to > from && SPACE.test(text[to - 1])) to--;
  const pieces: { content: number; length: number; source: number }[] = [];
  let content = "";
  let at = from;
  for (let k = from; k < to; k++) {
    if (text[k] === "|" && k > from && text[k - 1] === "\\" && k - 1 >= at) {
      pieces.push({ content: content.length, length: k - 1 - at, source: at });
      content += text.slice(at, k - 1);
      at = k;
    }
  }
  pieces.push({ content: content.length, length: to - at, source: at });
  content += text.slice(at, to);
  return { content, pieces };
}

/** Where a person's first key in an empty cell goes: after the separator's one space of padding. */
export function emptyCellCaret(text: string, cell: Range): number {
  return cell.to > cell.from && text[cell.from] === " " ? cell.from + 1 : cell.from;
}

// --- a table in the text -------------------------------------------------------------------------------------

/** A table as its text has it. Offsets are the whole text's; `text` is the part of it from `base` that holds it. */
export interface TableSource {
  text: string;
  base: number;
  /** Header, delimiter, then the body rows. */
  lines: RowLine[];
  columns: number;
  aligns: Align[];
}

/** The table whose lines markdown-it recorded, in `text` (which starts at offset `base` of the whole text). */
export function tableSource(text: string, base: number, recorded: TableLine[]): TableSource | null {
  if (recorded.length < 2) return null;
  const lines = recorded.map((line) => {
    const lineStart = text.lastIndexOf("\n", line.start - 1) + 1;
    const row = splitRow(text, lineStart, line.start, line.end);
    return shift(row, base);
  });
  const aligns = lines[1].cells.map((c) => alignOf(text.slice(c.from - base, c.to - base).trim()));
  const columns = lines[0].cells.length;
  if (columns === 0 || columns !== aligns.length) return null;
  return { text, base, lines, columns, aligns };
}

function shift(row: RowLine, by: number): RowLine {
  const move = (r: Range): Range => ({ from: r.from + by, to: r.to + by });
  return { ...row, lineStart: row.lineStart + by, start: row.start + by, end: row.end + by, lineEnd: row.lineEnd + by, cells: row.cells.map(move) };
}

function alignOf(rule: string): Align {
  const left = rule.startsWith(":");
  const right = rule.endsWith(":") && rule.length > 1;
  if (left && right) return "center";
  if (right) return "right";
  return left ? "left" : "";
}

function slice(table: TableSource, from: number, to: number): string {
  return table.text.slice(from - table.base, to - table.base);
}

/** The row lines: the header (row 0) and the body rows (1...), as the view counts rows. */
export function rowLine(table: TableSource, row: number): RowLine {
  return table.lines[row === 0 ? 0 : row + 1];
}

export function rowCount(table: TableSource): number {
  return table.lines.length - 1;
}

// --- the table's style ---------------------------------------------------------------------------------------

/** How the person wrote the table: what a new row or column copies. */
export interface TableStyle {
  /** Every line has the same cells at the same columns on screen: new cells get the column's width. */
  aligned: boolean;
  /** Display width of each column's cells (when aligned). */
  widths: number[];
  /** A space between a pipe and a cell's text, on the left and the right (0 or 1), in rows and in the delimiter. */
  padLeft: number;
  padRight: number;
  ruleLeft: number;
  ruleRight: number;
}

export function styleOf(table: TableSource): TableStyle {
  const raw = (r: Range) => slice(table, r.from, r.to);
  const rows = table.lines.filter((_, k) => k !== 1);
  const [padLeft, padRight] = padding(rows, raw);
  const [ruleLeft, ruleRight] = padding([table.lines[1]], raw);
  const shape = (line: RowLine) => `${line.lead}|${line.trail}|${line.cells.map((c) => displayWidth(raw(c))).join(",")}`;
  const first = shape(table.lines[0]);
  const aligned = table.lines.every((line) => line.cells.length === table.columns && shape(line) === first);
  const widths = table.lines[0].cells.map((c) => displayWidth(raw(c)));
  return { aligned, widths, padLeft, padRight, ruleLeft, ruleRight };
}

/** Whether most cells with text have a space after the pipe before them / before the pipe after them. */
function padding(lines: RowLine[], raw: (r: Range) => string): [number, number] {
  let left = 0;
  let right = 0;
  let cells = 0;
  for (const line of lines) {
    line.cells.forEach((cell, k) => {
      const text = raw(cell);
      if (text.trim() === "") return;
      cells++;
      // A first cell without an outer pipe has nothing before it (likewise the last one).
      if (/^\s/.test(text) || (k === 0 && !line.lead)) left++;
      if (/\s$/.test(text) || (k === line.cells.length - 1 && !line.trail)) right++;
    });
  }
  if (cells === 0) return [1, 1];
  return [left * 2 >= cells ? 1 : 0, right * 2 >= cells ? 1 : 0];
}

/** Columns a string takes on screen in a monospace font: East Asian wide and full-width characters take two. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x300) width += 1;
    else if (/\p{Mn}|\p{Me}|\u200B|\u200D|\uFE0F/u.test(ch)) width += 0;
    else if (
      (code >= 0x1100 && code <= 0x115f) ||
      (code >= 0x2e80 && code <= 0xa4cf) ||
      (code >= 0xac00 && code <= 0xd7a3) ||
      (code >= 0xf900 && code <= 0xfaff) ||
      (code >= 0xfe30 && code <= 0xfe4f) ||
      (code >= 0xff00 && code <= 0xff60) ||
      (code >= 0xffe0 && code <= 0xffe6) ||
      (code >= 0x1f300 && code <= 0x1faff) ||
      (code >= 0x20000 && code <= 0x3fffd)
    )
      width += 2;
    else width += 1;
  }
  return width;
}

function padStart(cell: string, pad: number): string {
  return /^\s/.test(cell) ? cell : " ".repeat(pad) + cell;
}

function padEnd(cell: string, pad: number): string {
  return /\s$/.test(cell) ? cell : cell + " ".repeat(pad);
}

/** An empty cell of column `column` (a new column is `width` wide when the table is aligned). */
function emptyCell(style: TableStyle, column: number | null): string {
  if (style.aligned) return " ".repeat(column === null ? style.padLeft + 3 + style.padRight : style.widths[column]);
  return " ".repeat(style.padLeft + style.padRight);
}

/** The delimiter cell of a new column (no alignment). */
function ruleCell(style: TableStyle): string {
  const dashes = style.aligned ? Math.max(1, style.padLeft + 3 + style.padRight - style.ruleLeft - style.ruleRight) : 3;
  return `${" ".repeat(style.ruleLeft)}${"-".repeat(dashes)}${" ".repeat(style.ruleRight)}`;
}

/** A row's text from its cells (as they are written): outer pipes where the row has them or an empty edge cell needs one. */
function joinRow(lead: boolean, cells: string[], trail: boolean, header: boolean): string {
  // A row without cells (every one shown empty) is a lone pipe: an empty line would end the table.
  if (cells.length === 0) return "|";
  let before = lead;
  let after = trail;
  // Without a pipe before it an empty first cell is no cell (markdown-it drops an empty piece at each end).
  if (!before && cells[0].trim() === "") before = true;
  if (!after && cells[cells.length - 1].trim() === "") after = true;
  // A header row needs a pipe to be one: a lone cell gets one after it.
  if (header && !before && !after && cells.length === 1) return `${cells[0]}${/\s$/.test(cells[0]) ? "" : " "}|`;
  return `${before ? "|" : ""}${cells.join("|")}${after ? "|" : ""}`;
}

// --- splices -----------------------------------------------------------------------------------------------------

/** Changes of several lines as one splice: from the first change to the last, the text between them as it is. */
function combine(table: TableSource, edits: Splice[]): Splice | null {
  const sorted = edits.filter((e) => e.from !== e.to || e.insert !== "").sort((a, b) => a.from - b.from);
  if (sorted.length === 0) return null;
  let insert = "";
  let at = sorted[0].from;
  for (const edit of sorted) {
    insert += slice(table, at, edit.from) + edit.insert;
    at = edit.to;
  }
  return { from: sorted[0].from, to: at, insert };
}

/** A row line rewritten as `cells` (the pieces between its pipes): only what differs is replaced. */
function rewriteRow(table: TableSource, line: RowLine, cells: string[], header: boolean, lead = line.lead): Splice {
  const old = slice(table, line.start, line.end);
  const fresh = joinRow(lead, cells, line.trail, header);
  let head = 0;
  while (head < old.length && head < fresh.length && old[head] === fresh[head]) head++;
  let tail = 0;
  while (tail < old.length - head && tail < fresh.length - head && old[old.length - 1 - tail] === fresh[fresh.length - 1 - tail]) tail++;
  return { from: line.start + head, to: line.end - tail, insert: fresh.slice(head, fresh.length - tail) };
}

function cellTexts(table: TableSource, line: RowLine): string[] {
  return line.cells.map((c) => slice(table, c.from, c.to));
}

/** A new line after line `after` of the table (its prefix, a quote's `>` or indentation, copied). */
function lineAfter(table: TableSource, after: number, row: string): Splice {
  const line = table.lines[after];
  const below = table.lines[after + 1] ?? line;
  // The line below holds the prefix a row has (the header's line may start with a list marker).
  const prefix = slice(table, below.lineStart, below.start).replace(/[-+*]|\d+[.)]/g, (m) => " ".repeat(m.length));
  return { from: line.lineEnd, to: line.lineEnd, insert: `\n${prefix}${row}` };
}

/** A new empty row that becomes row `row` of the view (1 = the first body row), in the style of the rows near it. */
export function insertRow(table: TableSource, row: number): Splice {
  const style = styleOf(table);
  const rows = rowCount(table);
  const reference = rowLine(table, row - 1 >= 1 ? row - 1 : rows > 1 ? 1 : 0);
  const cells = Array.from({ length: table.columns }, (_, c) => emptyCell(style, c));
  return lineAfter(table, row, joinRow(reference.lead, cells, reference.trail, false));
}

export type Refusal = { refused: string };

/**
 * Row `row` taken out. The header (row 0) gives its place to the first body row (its cells become the column
 * names); a table with only its header row is taken out whole (`deleteTable`).
 */
export function deleteRow(table: TableSource, row: number): Splice | Refusal {
  const lines = table.lines;
  if (row > 0) {
    const k = row + 1;
    if (k + 1 < lines.length) return { from: lines[k].lineStart, to: lines[k + 1].lineStart, insert: "" };
    return { from: lines[k - 1].lineEnd, to: lines[k].lineEnd, insert: "" };
  }
  if (lines.length < 3) return { refused: "The table has only its header row: delete the table instead." };
  const next = lines[2];
  if (next.cells.length > table.columns) return { refused: "The first row has more cells than the header: change it in source mode first." };
  const style = styleOf(table);
  const cells = cellTexts(table, next);
  while (cells.length < table.columns) cells.push(emptyCell(style, cells.length));
  const header = joinRow(next.lead, cells, next.trail, true);
  const delimiter = slice(table, lines[1].lineStart, lines[1].lineEnd);
  return { from: lines[0].start, to: next.lineEnd, insert: `${header}\n${delimiter}` };
}

/** A new empty column at index `column` (0 = before the first). */
export function insertColumn(table: TableSource, column: number): Splice | null {
  const style = styleOf(table);
  const edits = table.lines.map((line, k) => {
    const cells = cellTexts(table, line);
    // A short row shows empty cells where it has none: it needs no new one past its end.
    if (column > cells.length) return { from: line.start, to: line.start, insert: "" };
    // Without outer pipes, the cell that stops being the first (last) one gets the padding a pipe has next to it.
    if (column === 0 && !line.lead && cells.length > 0) cells[0] = padStart(cells[0], k === 1 ? style.ruleLeft : style.padLeft);
    if (column === cells.length && !line.trail && cells.length > 0) cells[column - 1] = padEnd(cells[column - 1], k === 1 ? style.ruleRight : style.padRight);
    let cell = k === 1 ? ruleCell(style) : emptyCell(style, null);
    // A new delimiter cell at a row's edge without a pipe has no padding there.
    if (k === 1 && column === 0 && !line.lead) cell = cell.trimStart();
    if (k === 1 && column === cells.length && !line.trail) cell = cell.trimEnd();
    cells.splice(column, 0, cell);
    return rewriteRow(table, line, cells, k === 0);
  });
  return combine(table, edits);
}

/** What may start a block of its own at a line's start (a list, a quote, a heading, a fence, HTML, math, a rule). */
const BLOCK_START = /^\s*([-+*>#`~<$_]|\d{1,9}[.)](\s|$))/;

/**
 * Column `column` taken out of every row that has it. A row with cells past the header's keeps them past it (it
 * loses one cell as the header does), a short row without that cell stays as it is.
 */
export function deleteColumn(table: TableSource, column: number): Splice | Refusal | null {
  if (table.columns < 2) return { refused: "The table has only this column: delete the table instead." };
  const edits = table.lines.map((line, k) => {
    const cells = cellTexts(table, line);
    if (column >= cells.length) return { from: line.start, to: line.start, insert: "" };
    cells.splice(column, 1);
    // Without outer pipes, the cell that becomes the first (last) one loses the padding its pipe had.
    if (column === 0 && !line.lead && cells.length > 0 && cells[0].trim() !== "") cells[0] = cells[0].trimStart();
    if (column === cells.length && !line.trail && cells.length > 0 && cells[column - 1].trim() !== "") cells[column - 1] = cells[column - 1].trimEnd();
    // A row whose line would now start a block of its own (`- x` a list, `# x` a heading) ends the table: a pipe first.
    const lead = line.lead || (column === 0 && k !== 1 && cells.length > 0 && BLOCK_START.test(cells[0]));
    if (lead && !line.lead) cells[0] = ` ${cells[0]}`;
    return rewriteRow(table, line, cells, k === 0, lead);
  });
  return combine(table, edits);
}

/** Column `column` aligned: its delimiter cell's colons changed, its dashes as wide as they were where they can be. */
export function alignColumn(table: TableSource, column: number, align: Align): Splice | null {
  const line = table.lines[1];
  const cell = line.cells[column];
  const raw = slice(table, cell.from, cell.to);
  const core = raw.trim();
  const lead = raw.slice(0, raw.length - raw.trimStart().length);
  const left = align === "left" || align === "center";
  const right = align === "right" || align === "center";
  const dashes = Math.max(1, core.length - (left ? 1 : 0) - (right ? 1 : 0));
  const fresh = `${left ? ":" : ""}${"-".repeat(dashes)}${right ? ":" : ""}`;
  const at = cell.from + lead.length;
  if (fresh === core) return null;
  return { from: at, to: at + core.length, insert: fresh };
}

/** The text of a new table: a header row and `rows - 1` body rows of empty cells, `| --- |` under the header. */
export function newTableText(columns: number, rows: number): string {
  const row = `|${"     |".repeat(columns)}`;
  const rule = `|${" --- |".repeat(columns)}`;
  return [row, rule, ...Array.from({ length: rows - 1 }, () => row)].join("\n");
}

/**
 * A row typed in a paragraph (`| a | b |`) made a table's header: the delimiter row under it and one empty row,
 * both in the typed row's style. Null when the line is no such row (a pipe at its start and at its end, cells).
 */
export function typedTable(line: string): { delimiter: string; row: string; columns: number } | null {
  if (!line.startsWith("|") || line.includes("\n")) return null;
  const row = splitRow(line, 0, 0, line.length);
  if (row.cells.length === 0 || !row.lead || !row.trail) return null;
  const raws = row.cells.map((c) => line.slice(c.from, c.to));
  const padded = raws.filter((r) => r.trim() !== "");
  const left = padded.length === 0 || padded.filter((r) => /^\s/.test(r)).length * 2 >= padded.length ? 1 : 0;
  const right = padded.length === 0 || padded.filter((r) => /\s$/.test(r)).length * 2 >= padded.length ? 1 : 0;
  const rule = raws.map(() => `${" ".repeat(left)}---${" ".repeat(right)}`);
  const empty = raws.map(() => " ".repeat(left + right));
  return { delimiter: joinRow(true, rule, true, false), row: joinRow(true, empty, true, false), columns: raws.length };
}
