// Table commands of WYSIWYG: rows and columns added and taken out, a column aligned, Tab between cells, a table
// made by typing its header row, a new table. Each command makes its change of the view and, on the same
// transaction (SOURCE_SPLICE), the one splice of the text it means (tablesource.ts): the rows and cells it does
// not touch keep their bytes. The text's engine checks the splice like any other: the text after it must parse
// to exactly what the view shows.
import { keymap } from "prosemirror-keymap";
import type { Node } from "prosemirror-model";
import { type Command, type EditorState, Plugin, PluginKey, Selection, TextSelection, type Transaction } from "prosemirror-state";
import { INSERT_TABLE, TABLE_ACTIONS, type TableAction } from "../tableactions";
import { BLOCK_DEPTH, betweenBlocks, blockAt, blockCount, blockIndex, blockPos } from "./blocks";
import { parseBlocks } from "./build";
import { createMarkdown } from "./markdown";
import { schema } from "./schema";
import { SOURCE_SPLICE } from "./sourcedoc";
import {
  type Align,
  alignColumn,
  deleteColumn,
  deleteRow,
  insertColumn,
  insertRow,
  newTableText,
  rowCount,
  type Splice,
  tableLinesOf,
  type TableSource,
  tableSource,
  typedTable,
} from "./tablesource";

/** What the commands read of the text: the SourceDoc behind the view. */
export interface TableText {
  readonly length: number;
  slice(from: number, to: number): string;
  sourceRange(doc: Node, from: number, to: number): [number, number] | null;
}

interface TableConfig {
  text: () => TableText;
  /** A command that cannot do what it was asked says why (the page shows it). */
  refuse: (reason: string) => void;
}

const tableKey = new PluginKey<TableConfig>("vmark-tables");

/** Where the selection's head is in a table. */
export interface CellAt {
  table: Node;
  tablePos: number;
  row: number;
  column: number;
  /** The top-level block holding the table, and where it is. */
  top: Node;
  topPos: number;
}

export function cellAt(state: EditorState): CellAt | null {
  const { $head } = state.selection;
  for (let d = $head.depth; d > BLOCK_DEPTH + 1; d--) {
    if ($head.node(d).type !== schema.nodes.table_cell) continue;
    return {
      table: $head.node(d - 2),
      tablePos: $head.before(d - 2),
      row: $head.index(d - 2),
      column: $head.index(d - 1),
      top: $head.node(BLOCK_DEPTH),
      topPos: $head.before(BLOCK_DEPTH),
    };
  }
  return null;
}

let parser: ReturnType<typeof createMarkdown> | null = null;

/** The table of `at` as the text has it; null when its lines do not give the table the view shows. */
export function readTable(text: TableText, doc: Node, at: CellAt): TableSource | null {
  const range = text.sourceRange(doc, at.topPos, at.topPos + at.top.nodeSize);
  if (!range) return null;
  const [from, to] = range;
  const source = text.slice(from, to).replace(/\n+$/, "");
  // A top-level table is its block's lines (no parse needed); one in a list or a quote is the n-th table markdown-it
  // finds in the block (it knows where each line's own text starts).
  const table = (at.top === at.table ? ownLines(source, from) : null) ?? nested(source, from, at);
  if (!table) return null;
  const first = at.table.firstChild;
  const aligns = (at.table.attrs.aligns as string[]) ?? [];
  const same = rowCount(table) === at.table.childCount && first !== null && table.columns === first.childCount && table.aligns.every((a, k) => a === (aligns[k] ?? ""));
  return same ? table : null;
}

function ownLines(source: string, from: number): TableSource | null {
  const lines: { start: number; end: number }[] = [];
  let at = 0;
  for (const line of source.split("\n")) {
    lines.push({ start: at + (line.length - line.replace(/^[ \t]+/, "").length), end: at + line.length });
    at += line.length + 1;
  }
  return tableSource(source, from, lines);
}

function nested(source: string, from: number, at: CellAt): TableSource | null {
  let nth = -1;
  let seen = 0;
  at.top.descendants((node, pos) => {
    if (nth >= 0) return false;
    if (node.type !== schema.nodes.table) return true;
    if (at.topPos + 1 + pos === at.tablePos) nth = seen;
    seen++;
    return false;
  });
  parser ??= createMarkdown();
  const opens = parser.parse(source, {}).filter((t) => t.type === "table_open");
  const recorded = nth >= 0 ? tableLinesOf.get(opens[nth]) : undefined;
  return recorded ? tableSource(source, from, recorded) : null;
}

// --- positions in the view ---------------------------------------------------------------------------------------

function rowPos(table: Node, tablePos: number, row: number): number {
  let pos = tablePos + 1;
  for (let k = 0; k < row; k++) pos += table.child(k).nodeSize;
  return pos;
}

function cellPos(table: Node, tablePos: number, row: number, column: number): number {
  let pos = rowPos(table, tablePos, row) + 1;
  const node = table.child(row);
  for (let k = 0; k < column; k++) pos += node.child(k).nodeSize;
  return pos;
}

/** The text of cell `row`, `column` of the table at `tablePos` of `doc` selected (its end when it is empty). */
function selectCell(tr: Transaction, tablePos: number, row: number, column: number, whole: boolean): Transaction {
  const table = tr.doc.nodeAt(tablePos);
  if (!table) return tr;
  const r = Math.max(0, Math.min(row, table.childCount - 1));
  const c = Math.max(0, Math.min(column, table.child(r).childCount - 1));
  const pos = cellPos(table, tablePos, r, c);
  const size = table.child(r).child(c).content.size;
  return tr.setSelection(TextSelection.create(tr.doc, whole ? pos + 1 : pos + 1 + size, pos + 1 + size));
}

function emptyRow(aligns: string[]): Node {
  return schema.nodes.table_row.create(
    null,
    aligns.map((align) => schema.nodes.table_cell.create({ header: false, align })),
  );
}

// --- the commands -----------------------------------------------------------------------------------------------------

export type Refused = { refused: string };

/** The transaction of `action` at the selection (view change, splice and cursor), why it cannot be, or null outside a table. */
export function tableTransaction(state: EditorState, action: TableAction): Transaction | Refused | null {
  const at = cellAt(state);
  const config = tableKey.getState(state);
  if (!at || !config) return null;
  const table = readTable(config.text(), state.doc, at);
  if (!table) return { refused: "This table's text is not one the table commands can change: change it in source mode." };
  const tr = state.tr;
  const aligns = [...((at.table.attrs.aligns as string[]) ?? [])];
  const { row, column, tablePos } = at;
  const rows = at.table.childCount;
  const columns = aligns.length;
  let splice: Splice | null = null;
  switch (action) {
    case "rowAbove":
    case "rowBelow": {
      if (action === "rowAbove" && row === 0) return { refused: "The header row stays the first row: add a row below it." };
      const index = action === "rowAbove" ? row : row + 1;
      splice = insertRow(table, index);
      tr.insert(rowPos(at.table, tablePos, index), emptyRow(aligns));
      selectCell(tr, tablePos, index, column, false);
      break;
    }
    case "deleteRow": {
      if (rows === 1) return tableTransaction(state, "deleteTable");
      const planned = deleteRow(table, row);
      if ("refused" in planned) return planned;
      splice = planned;
      if (row === 0) {
        // The first body row becomes the header: its cells name the columns.
        const next = at.table.child(1);
        next.forEach((cell, _offset, k) => tr.setNodeMarkup(cellPos(at.table, tablePos, 1, k), undefined, { ...cell.attrs, header: true }));
      }
      const start = rowPos(at.table, tablePos, row);
      tr.delete(start, start + at.table.child(row).nodeSize);
      selectCell(tr, tablePos, Math.min(row, rows - 2), column, false);
      break;
    }
    case "columnLeft":
    case "columnRight": {
      const index = action === "columnLeft" ? column : column + 1;
      const planned = insertColumn(table, index);
      if (!planned) return null;
      splice = planned;
      for (let r = rows - 1; r >= 0; r--) tr.insert(cellPos(at.table, tablePos, r, index), schema.nodes.table_cell.create({ header: r === 0, align: "" }));
      aligns.splice(index, 0, "");
      tr.setNodeMarkup(tablePos, undefined, { ...at.table.attrs, aligns });
      selectCell(tr, tablePos, row, index, false);
      break;
    }
    case "deleteColumn": {
      if (columns === 1) return tableTransaction(state, "deleteTable");
      const planned = deleteColumn(table, column);
      if (planned === null) return null;
      if ("refused" in planned) return planned;
      splice = planned;
      for (let r = rows - 1; r >= 0; r--) {
        const pos = cellPos(at.table, tablePos, r, column);
        tr.delete(pos, pos + at.table.child(r).child(column).nodeSize);
      }
      aligns.splice(column, 1);
      tr.setNodeMarkup(tablePos, undefined, { ...at.table.attrs, aligns });
      selectCell(tr, tablePos, row, Math.min(column, columns - 2), false);
      break;
    }
    case "alignLeft":
    case "alignCenter":
    case "alignRight":
    case "alignNone": {
      const align: Align = action === "alignLeft" ? "left" : action === "alignCenter" ? "center" : action === "alignRight" ? "right" : "";
      splice = alignColumn(table, column, align);
      if (!splice) return tr; // already so
      aligns[column] = align;
      tr.setNodeMarkup(tablePos, undefined, { ...at.table.attrs, aligns });
      for (let r = 0; r < rows; r++) {
        const cell = at.table.child(r).child(column);
        tr.setNodeMarkup(cellPos(at.table, tablePos, r, column), undefined, { ...cell.attrs, align });
      }
      break;
    }
    case "deleteTable": {
      const planned = tableRemoval(config.text(), table, at, state);
      if ("refused" in planned) return planned;
      splice = planned;
      const end = tablePos + at.table.nodeSize;
      if (blockCount(state.doc) === 1 && at.top === at.table) tr.replaceWith(tablePos, end, schema.nodes.paragraph.create());
      else tr.delete(tablePos, end);
      tr.setSelection(Selection.near(tr.doc.resolve(Math.min(tablePos, tr.doc.content.size)), -1));
      break;
    }
  }
  if (!splice) return tr;
  return tr.setMeta(SOURCE_SPLICE, splice).scrollIntoView();
}

/**
 * The table's lines taken out. At the top level, with the blank lines that kept it apart from the block before
 * (or after) it; inside a list item or a quote, the lines alone (the blank lines there say whether a list is loose).
 */
function tableRemoval(text: TableText, table: TableSource, at: CellAt, state: EditorState): Splice | Refused {
  const first = table.lines[0];
  const last = table.lines[table.lines.length - 1];
  const $table = state.doc.resolve(at.tablePos);
  if (!betweenBlocks($table)) {
    if ($table.parent.childCount === 1 || $table.index() === 0) return { refused: "The table starts its list item or quote: delete it in source mode." };
    return { from: first.lineStart, to: Math.min(text.length, last.lineEnd + 1), insert: "" };
  }
  const WINDOW = 4096;
  const before = text.slice(Math.max(0, first.start - WINDOW), first.start);
  const gapBefore = before.length - before.replace(/[ \t\n]+$/, "").length;
  const nothingBefore = before.replace(/^\uFEFF/, "").trim() === "" && first.start - WINDOW <= 0;
  const after = text.slice(last.lineEnd, Math.min(text.length, last.lineEnd + WINDOW));
  // A block right on the next line (it ended the table) keeps the blank line before the table as its own.
  const blankAfter = after === "" || after.startsWith("\n\n") || after.replace(/^\n/, "").trim() === "";
  if (!nothingBefore) return blankAfter ? { from: first.start - gapBefore, to: last.lineEnd, insert: "" } : { from: first.start, to: last.lineEnd + 1, insert: "" };
  const gapAfter = after.length - after.replace(/^[ \t\n]+/, "").length;
  return { from: first.start, to: last.lineEnd + gapAfter, insert: "" };
}

/** A table command: refused ones say why (and take the key: nothing else is meant by it in a table). */
export function tableCommand(action: TableAction): Command {
  return (state, dispatch) => {
    const planned = tableTransaction(state, action);
    if (planned === null) return false;
    if ("refused" in planned) {
      if (dispatch) tableKey.getState(state)?.refuse(planned.refused);
      return true;
    }
    if (dispatch && planned.docChanged) dispatch(planned);
    return true;
  };
}

/** Whether `action` can be done where the selection is (what the menu offers), or why not. */
export function tableActionState(state: EditorState, action: TableAction): true | string {
  const planned = tableTransaction(state, action);
  if (planned === null) return "Put the cursor in a table first.";
  return "refused" in planned ? planned.refused : true;
}

// --- moving between cells ---------------------------------------------------------------------------------------------

/**
 * Tab / Shift+Tab: the next / previous cell, its text selected (typing replaces it, as in a spreadsheet); Tab in
 * the last cell adds a row in the table's style and goes into its first cell; Shift+Tab in the first one stays.
 */
export function cellStep(direction: 1 | -1): Command {
  return (state, dispatch) => {
    const at = cellAt(state);
    if (!at) return false;
    const columns = at.table.child(at.row).childCount;
    let row = at.row;
    let column = at.column + direction;
    if (column >= columns) [row, column] = [row + 1, 0];
    if (column < 0) [row, column] = [row - 1, at.table.child(Math.max(0, row - 1)).childCount - 1];
    if (row < 0) return true;
    if (row >= at.table.childCount) return addRowAndGo(state, dispatch, at, 0);
    if (dispatch) dispatch(selectCell(state.tr, at.tablePos, row, column, true).scrollIntoView());
    return true;
  };
}

/** Enter in a cell: the cell below; in the last row, a new row (Shift+Enter: nothing, a cell holds one line). */
export const cellBelow: Command = (state, dispatch) => {
  const at = cellAt(state);
  if (!at) return false;
  if (at.row + 1 >= at.table.childCount) return addRowAndGo(state, dispatch, at, at.column);
  if (dispatch) dispatch(selectCell(state.tr, at.tablePos, at.row + 1, at.column, false).scrollIntoView());
  return true;
};

function addRowAndGo(state: EditorState, dispatch: ((tr: Transaction) => void) | undefined, at: CellAt, column: number): boolean {
  const below = tableTransaction(state, "rowBelow");
  if (below === null) return false;
  if ("refused" in below) {
    if (dispatch) tableKey.getState(state)?.refuse(below.refused);
    return true;
  }
  if (dispatch) dispatch(selectCell(below, at.tablePos, at.row + 1, column, false));
  return true;
}

// --- a table made by typing its header row ---------------------------------------------------------------------------

/**
 * Enter at the end of a paragraph that is one row (`| a | b |`): the row becomes a table's header. Its delimiter
 * row (`| --- | --- |`, in the row's style) and one empty row are added to the text, the cursor goes into that
 * row's first cell.
 */
export const typedTableEnter: Command = (state, dispatch) => {
  const { $head, empty } = state.selection;
  const config = tableKey.getState(state);
  const paragraph = $head.parent;
  if (!config || !empty || paragraph.type !== schema.nodes.paragraph || $head.parentOffset !== paragraph.content.size || paragraph.content.size === 0) return false;
  const text = config.text();
  const start = $head.before();
  const range = text.sourceRange(state.doc, start + 1, start + paragraph.nodeSize - 1);
  if (!range) return false;
  // The row as the text has it, or as the view shows it: typed into a new paragraph, its pipes were written
  // escaped (`\|`, what shows a pipe in a paragraph); Enter means the row the person sees.
  let line = text.slice(range[0], range[1]);
  let typed = typedTable(line);
  const shown = plainText(paragraph);
  if (!typed && shown !== null && shown !== line) {
    line = shown;
    typed = typedTable(line);
  }
  if (!typed) return false;
  const node = parseBlocks(`${line}\n${typed.delimiter}\n${typed.row}`, 0).blocks[0]?.node;
  if (node?.type !== schema.nodes.table || node.childCount !== 2 || node.child(0).childCount !== typed.columns) return false;
  if (!dispatch) return true;
  const before = text.slice(Math.max(0, range[0] - 1000), range[0]);
  const prefix = before.slice(before.lastIndexOf("\n") + 1).replace(/[-+*]|\d+[.)]/g, (m) => " ".repeat(m.length));
  const rows = `\n${prefix}${typed.delimiter}\n${prefix}${typed.row}`;
  const splice: Splice = line === text.slice(range[0], range[1]) ? { from: range[1], to: range[1], insert: rows } : { from: range[0], to: range[1], insert: line + rows };
  const tr = state.tr.replaceWith(start, start + paragraph.nodeSize, node);
  selectCell(tr, start, 1, 0, false);
  dispatch(tr.setMeta(SOURCE_SPLICE, splice).scrollIntoView());
  return true;
};

/** A textblock's text when it is only text without marks (else null). */
function plainText(node: Node): string | null {
  let plain = true;
  node.forEach((child) => {
    plain = plain && child.isText && child.marks.length === 0;
  });
  return plain ? node.textContent : null;
}

// --- a new table -----------------------------------------------------------------------------------------------------

/**
 * A new table of `columns` × `rows` (a header row and `rows - 1` empty rows) after the top-level block of the
 * cursor, or in place of the empty paragraph the cursor is in; the cursor goes into its first header cell.
 */
export function insertTable(columns: number, rows: number): Command {
  return (state, dispatch) => {
    const config = tableKey.getState(state);
    if (!config) return false;
    if (!dispatch) return true;
    const { $head } = state.selection;
    const text = config.text();
    const index = Math.min(blockIndex($head), blockCount(state.doc) - 1);
    const top = blockAt(state.doc, index);
    const topPos = blockPos(state.doc, index);
    const replace = top.type === schema.nodes.paragraph && top.content.size === 0;
    const range = text.sourceRange(state.doc, topPos, topPos + top.nodeSize);
    if (!range) return false;
    const at = replace ? range[0] : range[0] + text.slice(range[0], range[1]).replace(/\n+$/, "").length;
    const body = newTableText(columns, rows);
    const node = parseBlocks(body, 0).blocks[0]?.node;
    if (!node) return false;
    const splice = blockInsertion(text, at, body);
    const tr = replace ? state.tr.replaceWith(topPos, topPos + top.nodeSize, node) : state.tr.insert(topPos + top.nodeSize, node);
    const tablePos = replace ? topPos : topPos + top.nodeSize;
    selectCell(tr, tablePos, 0, 0, false);
    dispatch(tr.setMeta(SOURCE_SPLICE, splice).scrollIntoView());
    return true;
  };
}

/** A new top-level block's text put at `at`, a blank line between it and the blocks before and after it. */
function blockInsertion(text: TableText, at: number, block: string): Splice {
  const WINDOW = 4096;
  const before = text.slice(Math.max(0, at - WINDOW), at).replace(/^\uFEFF/, "");
  const something = before.trim() !== "" || at - WINDOW > 0;
  const after = text.slice(at, Math.min(text.length, at + 2));
  const lead = something ? "\n\n" : "";
  const trail = after === "" || after === "\n" || after.startsWith("\n\n") ? "" : after.startsWith("\n") ? "\n" : "\n\n";
  return { from: at, to: at, insert: `${lead}${block}${trail}` };
}

/** A descriptor for a block menu (`/`): a 3×3 table. */
export const TABLE_BLOCK = {
  id: "table",
  label: "Table",
  detail: "3 × 3, with a header row",
  keywords: ["table", "grid", "gfm", "columns", "rows"],
  command: insertTable(3, 3),
} as const;

// --- the plugin ------------------------------------------------------------------------------------------------------

/** The table commands' keys, and what they read the text from. Put it before the other keymaps. */
export function tablePlugins(text: () => TableText, refuse: (reason: string) => void = () => {}): Plugin[] {
  const keys: Record<string, Command> = {
    Tab: cellStep(1),
    "Shift-Tab": cellStep(-1),
    Enter: (state, dispatch) => cellBelow(state, dispatch) || typedTableEnter(state, dispatch),
    "Shift-Enter": (state) => cellAt(state) !== null,
    [INSERT_TABLE.key]: insertTable(3, 3),
  };
  for (const spec of TABLE_ACTIONS) if (spec.key) keys[spec.key] = tableCommand(spec.action);
  return [
    new Plugin<TableConfig>({
      key: tableKey,
      state: { init: () => ({ text, refuse }), apply: (_tr, config) => config },
    }),
    keymap(keys),
  ];
}
