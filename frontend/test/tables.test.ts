// Tests of the WYSIWYG table commands (run with `npm test`): each command's exact bytes on tables written in
// several styles, and properties over generated tables and command sequences: every command's splice is the one
// the text's engine takes (the text after it parses to exactly what the view shows), the cells it did not touch
// keep their bytes, and undo (redo) gives back the text before (after) byte for byte.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { history, redo, undo } from "prosemirror-history";
import type { Node } from "prosemirror-model";
import { type Command, EditorState, TextSelection, type Transaction } from "prosemirror-state";
import { blockAt, forEachBlock } from "../src/editors/mdsource/blocks";
import { segmentsOf } from "../src/editors/mdsource/build";
import { sameShown, SOURCE_SPLICE, SourceDoc, type Span } from "../src/editors/mdsource/sourcedoc";
import { cellStep, insertTable, tableCommand, tablePlugins, TABLE_BLOCK, typedTableEnter } from "../src/editors/mdsource/tables";
import { splitRow } from "../src/editors/mdsource/tablesource";
import { SpliceHistory } from "../src/editors/mdsource/undosplice";
import { TABLE_ACTIONS, type TableAction } from "../src/editors/tableactions";
import { blockList } from "./viewblocks";

/** The editor's way with a transaction (wysiwyg.ts): the view takes it, the text takes its splice. */
class Editor {
  source: SourceDoc;
  state: EditorState;
  private journal = new SpliceHistory();
  refusals: string[] = [];
  /** Each transaction's meta splice and the splice the engine made of it. */
  splices: { meant: Span | null; made: Span | null; adopted: boolean }[] = [];

  constructor(text: string) {
    this.source = new SourceDoc(text);
    this.state = EditorState.create({
      doc: this.source.doc(),
      plugins: [...tablePlugins(() => this.source, (reason) => this.refusals.push(reason)), history()],
    });
  }

  dispatch = (tr: Transaction): void => {
    const before = this.state;
    this.state = before.apply(tr);
    if (!tr.docChanged) return;
    const length = this.source.length;
    const meant = (tr.getMeta(SOURCE_SPLICE) as Span | undefined) ?? null;
    const preferred = meant ?? this.journal.preferred(tr, before.doc, this.state.doc, this.source);
    const change = this.source.personEdit(before.doc, this.state.doc, preferred);
    this.journal.record(tr, before.doc, this.state.doc, change && { ...change, adopted: change.adopt !== null }, length);
    this.splices.push({ meant: preferred, made: change?.span ?? null, adopted: Boolean(change?.adopt) });
    if (change?.adopt) throw new Error(`the engine did not take the view's change: ${JSON.stringify(change.span)}`);
  };

  run(command: Command): boolean {
    return command(this.state, this.dispatch);
  }

  /** Put the cursor at the end of cell `row`, `column` of table `nth`. */
  cell(row: number, column: number, nth = 0): void {
    const pos = cellPosition(this.state.doc, nth, row, column);
    const cell = this.state.doc.nodeAt(pos);
    this.dispatch(this.state.tr.setSelection(TextSelection.create(this.state.doc, pos + 1 + (cell?.content.size ?? 0))));
  }

  type(text: string): void {
    this.dispatch(this.state.tr.insertText(text));
  }

  get text(): string {
    return this.source.text;
  }

  /** The last transaction's splice was the one its command meant. */
  assertSpliced(): void {
    const last = this.splices[this.splices.length - 1];
    assert.ok(last, "no transaction");
    assert.deepEqual(last.made, last.meant, "the engine made another splice than the command meant");
  }

  /** The text parses to exactly what the view shows. */
  assertParsesToView(): void {
    const parsed = new SourceDoc(this.text).doc();
    const shown = (doc: Node) => {
      const nodes: Node[] = [];
      for (const n of blockList(doc)) if (!(n.type.name === "paragraph" && n.childCount === 0)) nodes.push(n);
      return nodes;
    };
    const a = shown(this.state.doc);
    const b = shown(parsed);
    assert.equal(a.length, b.length, `blocks: view ${a.length}, text ${b.length}`);
    a.forEach((n, k) => assert.ok(sameShown(n, b[k]), `block ${k}: view ${n.toString()} text ${b[k].toString()}`));
  }
}

function tables(doc: Node): { node: Node; pos: number }[] {
  const found: { node: Node; pos: number }[] = [];
  doc.descendants((node, pos) => {
    if (node.type.name === "table") found.push({ node, pos });
    return node.type.name !== "table";
  });
  return found;
}

function cellPosition(doc: Node, nth: number, row: number, column: number): number {
  const { node, pos } = tables(doc)[nth];
  let at = pos + 1;
  for (let r = 0; r < row; r++) at += node.child(r).nodeSize;
  at += 1;
  for (let c = 0; c < column; c++) at += node.child(row).child(c).nodeSize;
  return at;
}

function act(action: TableAction): Command {
  return tableCommand(action);
}

/** `text` after `action` with the cursor in cell `row`, `column`; undo and redo checked on the way. */
function after(text: string, action: TableAction, row: number, column: number): string {
  const editor = new Editor(text);
  editor.cell(row, column);
  editor.run(act(action));
  if (editor.refusals.length) return `refused: ${editor.refusals[0]}`;
  editor.assertSpliced();
  editor.assertParsesToView();
  const result = editor.text;
  editor.run(undo);
  assert.equal(editor.text, text, `undo of ${action}`);
  editor.run(redo);
  assert.equal(editor.text, result, `redo of ${action}`);
  return result;
}

const ALIGNED = "Intro\n\n| Left     |  Center  |    Right |\n|:---------|:--------:|---------:|\n| alpha    |   beta   |    gamma |\n| delta    |   eps    |     zeta |\n\nAfter\n";
const COMPACT = "| a | b |\n| --- | --- |\n| 1 | 2 |\n";
const PIPELESS = "a | b\n--- | ---\n1 | 2\n";
const TIGHT = "|a|b|\n|-|-|\n|1|2|\n";
const ESCAPED = "| x \\| y | `a\\|b` |\n| --- | --- |\n| 1 | 2 |\n";

test("rows: a new one in the table's style, every other line as it was", () => {
  assert.equal(
    after(ALIGNED, "rowBelow", 1, 1),
    "Intro\n\n| Left     |  Center  |    Right |\n|:---------|:--------:|---------:|\n| alpha    |   beta   |    gamma |\n|          |          |          |\n| delta    |   eps    |     zeta |\n\nAfter\n",
  );
  assert.equal(after(ALIGNED, "rowAbove", 1, 0).split("\n")[4], "|          |          |          |");
  assert.equal(after(ALIGNED, "rowBelow", 0, 2).split("\n")[4], "|          |          |          |");
  assert.equal(after(COMPACT, "rowBelow", 1, 0), "| a | b |\n| --- | --- |\n| 1 | 2 |\n|  |  |\n");
  assert.equal(after(COMPACT, "rowAbove", 1, 0), "| a | b |\n| --- | --- |\n|  |  |\n| 1 | 2 |\n");
  assert.equal(after(TIGHT, "rowBelow", 1, 1), "|a|b|\n|-|-|\n|1|2|\n| | |\n");
  // Without outer pipes an empty first cell needs one: the new row has them, the others keep theirs.
  assert.equal(after(PIPELESS, "rowBelow", 1, 1), "a | b\n--- | ---\n1 | 2\n|  |  |\n");
  assert.equal(after(ESCAPED, "rowBelow", 0, 0), "| x \\| y | `a\\|b` |\n| --- | --- |\n|  |  |\n| 1 | 2 |\n");
  assert.equal(after(COMPACT, "rowAbove", 0, 0), "refused: The header row stays the first row: add a row below it.");
});

test("rows: deleting one takes its line; the header gives its place to the first row", () => {
  assert.equal(after(ALIGNED, "deleteRow", 2, 1), "Intro\n\n| Left     |  Center  |    Right |\n|:---------|:--------:|---------:|\n| alpha    |   beta   |    gamma |\n\nAfter\n");
  assert.equal(after(ALIGNED, "deleteRow", 1, 1), "Intro\n\n| Left     |  Center  |    Right |\n|:---------|:--------:|---------:|\n| delta    |   eps    |     zeta |\n\nAfter\n");
  assert.equal(after(ALIGNED, "deleteRow", 0, 0), "Intro\n\n| alpha    |   beta   |    gamma |\n|:---------|:--------:|---------:|\n| delta    |   eps    |     zeta |\n\nAfter\n");
  assert.equal(after(ESCAPED, "deleteRow", 0, 1), "| 1 | 2 |\n| --- | --- |\n");
  assert.equal(after(PIPELESS, "deleteRow", 0, 1), "1 | 2\n--- | ---\n");
  // A short first row is filled up to the header's columns when it becomes the header.
  assert.equal(after("| a | b | c |\n|---|---|---|\n| 1 |\n| 2 | 3 | 4 |\n", "deleteRow", 0, 0), "| 1 |  |  |\n|---|---|---|\n| 2 | 3 | 4 |\n");
  // Only the header row left: the table goes.
  assert.equal(after("Before\n\n| a | b |\n|---|---|\n\nAfter\n", "deleteRow", 0, 0), "Before\n\nAfter\n");
  assert.equal(
    after("| a | b |\n|---|---|\n| 1 | 2 | hidden |\n", "deleteRow", 0, 0),
    "refused: The first row has more cells than the header: change it in source mode first.",
  );
});

test("columns: a new one in every row, as wide as the table writes its cells", () => {
  assert.equal(
    after(ALIGNED, "columnRight", 1, 1),
    "Intro\n\n| Left     |  Center  |     |    Right |\n|:---------|:--------:|-----|---------:|\n| alpha    |   beta   |     |    gamma |\n| delta    |   eps    |     |     zeta |\n\nAfter\n",
  );
  assert.equal(after(COMPACT, "columnLeft", 1, 0), "|  | a | b |\n| --- | --- | --- |\n|  | 1 | 2 |\n");
  assert.equal(after(COMPACT, "columnRight", 0, 1), "| a | b |  |\n| --- | --- | --- |\n| 1 | 2 |  |\n");
  assert.equal(after(TIGHT, "columnLeft", 0, 1), "|a|   |b|\n|-|---|-|\n|1|   |2|\n");
  assert.equal(after(PIPELESS, "columnLeft", 0, 0), "|  | a | b\n--- | --- | ---\n|  | 1 | 2\n");
  assert.equal(after(PIPELESS, "columnRight", 1, 1), "a | b |  |\n--- | --- | ---\n1 | 2 |  |\n");
  assert.equal(after(ESCAPED, "columnRight", 0, 0), "| x \\| y |  | `a\\|b` |\n| --- | --- | --- |\n| 1 |  | 2 |\n");
  // A short row needs no new cell past its end.
  assert.equal(after("| a | b | c |\n|---|---|---|\n| 1 |\n", "columnRight", 0, 2), "| a | b | c |  |\n|---|---|---|---|\n| 1 |\n");
});

test("columns: deleting one takes one cell of each row (a row's cells past the header's stay past it)", () => {
  assert.equal(after(ALIGNED, "deleteColumn", 1, 1), "Intro\n\n| Left     |    Right |\n|:---------|---------:|\n| alpha    |    gamma |\n| delta    |     zeta |\n\nAfter\n");
  assert.equal(after(ALIGNED, "deleteColumn", 0, 0), "Intro\n\n|  Center  |    Right |\n|:--------:|---------:|\n|   beta   |    gamma |\n|   eps    |     zeta |\n\nAfter\n");
  assert.equal(after(ESCAPED, "deleteColumn", 0, 0), "| `a\\|b` |\n| --- |\n| 2 |\n");
  assert.equal(after(PIPELESS, "deleteColumn", 1, 0), "b |\n---\n2\n");
  assert.equal(after(PIPELESS, "deleteColumn", 1, 1), "a |\n---\n1\n");
  // A row that would start a list of its own (`- x`) keeps its place with a pipe before it.
  assert.equal(after("a | b\n--- | ---\na | - x\n", "deleteColumn", 0, 0), "b |\n---\n| - x\n");
  assert.equal(after("| a | b |\n|---|---|\n| 1 | 2 | three |\n", "deleteColumn", 0, 0), "| b |\n|---|\n| 2 | three |\n");
  assert.equal(after("| a |\n|---|\n| 1 |\n\nNext\n", "deleteColumn", 0, 0), "Next\n");
});

test("alignment: one delimiter cell changes, as wide as it was", () => {
  assert.equal(after(ALIGNED, "alignCenter", 0, 0).split("\n")[3], "|:--------:|:--------:|---------:|");
  assert.equal(after(ALIGNED, "alignRight", 0, 1).split("\n")[3], "|:---------|---------:|---------:|");
  assert.equal(after(ALIGNED, "alignNone", 0, 2).split("\n")[3], "|:---------|:--------:|----------|");
  assert.equal(after(ALIGNED, "alignLeft", 0, 2).split("\n")[3], "|:---------|:--------:|:---------|");
  assert.equal(after(COMPACT, "alignCenter", 1, 1), "| a | b |\n| --- | :-: |\n| 1 | 2 |\n");
  assert.equal(after(TIGHT, "alignRight", 1, 0), "|a|b|\n|-:|-|\n|1|2|\n");
  assert.equal(after(PIPELESS, "alignLeft", 0, 1), "a | b\n--- | :--\n1 | 2\n");
});

test("a table in a quote or a list keeps the container's prefix on its new lines", () => {
  const quote = "> | a | b |\n> | - | - |\n> | 1 | 2 |\n";
  assert.equal(after(quote, "rowBelow", 1, 0), "> | a | b |\n> | - | - |\n> | 1 | 2 |\n> |   |   |\n");
  assert.equal(after(quote, "columnLeft", 1, 0), "> |     | a | b |\n> | --- | - | - |\n> |     | 1 | 2 |\n");
  const list = "- item\n\n  | a | b |\n  |---|---|\n  | 1 | 2 |\n- next\n";
  assert.equal(after(list, "rowBelow", 0, 0), "- item\n\n  | a | b |\n  |---|---|\n  |   |   |\n  | 1 | 2 |\n- next\n");
  assert.equal(after(list, "deleteTable", 0, 0), "- item\n\n- next\n");
  const first = "- | a | b |\n  |---|---|\n  | 1 | 2 |\n";
  assert.equal(after(first, "rowBelow", 0, 1), "- | a | b |\n  |---|---|\n  |   |   |\n  | 1 | 2 |\n");
  assert.equal(after(first, "deleteRow", 0, 1), "- | 1 | 2 |\n  |---|---|\n");
});

test("CRLF-free text, a BOM, and the blank lines around a deleted table", () => {
  assert.equal(after("\uFEFF| a |\n|---|\n\nText\n", "deleteTable", 0, 0), "\uFEFFText\n");
  assert.equal(after("Text\n\n| a |\n|---|\n", "deleteTable", 0, 0), "Text\n");
  assert.equal(after("Text\n\n| a |\n|---|\n\n\nMore\n", "deleteTable", 0, 0), "Text\n\n\nMore\n");
});

test("undo and redo know which is which (prosemirror-history's meta), even where the view is the same after both", () => {
  const editor = new Editor(COMPACT);
  let meta: unknown = null;
  const dispatch = editor.dispatch;
  editor.cell(1, 0);
  editor.run(act("alignCenter"));
  editor.cell(1, 0);
  editor.run(act("alignNone"));
  editor.run((state, _d) => undo(state, (tr) => {
    meta = tr.getMeta("history$");
    dispatch(tr);
  }));
  assert.deepEqual(meta && { redo: (meta as { redo: boolean }).redo }, { redo: false });
  assert.equal(editor.text, "| a | b |\n| :-: | --- |\n| 1 | 2 |\n");
  editor.run(redo);
  assert.equal(editor.text, COMPACT);
  editor.run(undo);
  editor.run(undo);
  assert.equal(editor.text, COMPACT);
  editor.run(redo);
  editor.run(redo);
  assert.equal(editor.text, COMPACT);
  editor.run(undo);
  assert.equal(editor.text, "| a | b |\n| :-: | --- |\n| 1 | 2 |\n");
});

test("typing in a new row's empty cell puts the key into the cell's own bytes", () => {
  const editor = new Editor(ALIGNED);
  editor.cell(2, 2);
  editor.run(act("rowBelow"));
  editor.type("Q");
  const last = editor.splices[editor.splices.length - 1].made;
  assert.deepEqual(last && { insert: last.insert, length: last.to - last.from }, { insert: "Q", length: 0 });
  assert.equal(editor.text.split("\n")[6], "|          |          | Q         |");
});

test("Tab and Shift+Tab go through the cells; Tab in the last one adds a row in the table's style", () => {
  const editor = new Editor(COMPACT);
  editor.cell(0, 0);
  editor.run(cellStep(1));
  assert.equal(editor.state.doc.textBetween(editor.state.selection.from, editor.state.selection.to), "b");
  editor.run(cellStep(1));
  assert.equal(editor.state.doc.textBetween(editor.state.selection.from, editor.state.selection.to), "1");
  editor.run(cellStep(-1));
  assert.equal(editor.state.doc.textBetween(editor.state.selection.from, editor.state.selection.to), "b");
  editor.cell(1, 1);
  editor.run(cellStep(1));
  editor.assertSpliced();
  assert.equal(editor.text, "| a | b |\n| --- | --- |\n| 1 | 2 |\n|  |  |\n");
  // The cursor is in the new row's first cell: typing goes into it, spliced into its place.
  editor.type("x");
  assert.deepEqual(editor.splices[editor.splices.length - 1].made, { from: 36, to: 36, insert: "x" });
  editor.run(cellStep(1));
  editor.type("y");
  assert.equal(editor.text, "| a | b |\n| --- | --- |\n| 1 | 2 |\n| x | y |\n");
  editor.assertParsesToView();
  editor.cell(0, 0);
  assert.equal(editor.run(cellStep(-1)), true, "Shift+Tab in the first cell stays in the table");
  // Undo takes back the typing and the row: the bytes before.
  editor.run(undo);
  editor.run(undo);
  editor.run(undo);
  assert.equal(editor.text, COMPACT);
});

test("a row typed as a paragraph becomes a table's header on Enter", () => {
  const enter = (text: string, at: number): Editor => {
    const editor = new Editor(text);
    const editorState = editor.state;
    let pos = 0;
    forEachBlock(editorState.doc, (node, offset, index) => {
      if (index === at) pos = offset + node.nodeSize - 1;
    });
    editor.dispatch(editorState.tr.setSelection(TextSelection.near(editorState.doc.resolve(pos), -1)));
    assert.equal(editor.run(typedTableEnter), true);
    return editor;
  };
  const compact = enter("Intro\n\n| Name | Value |\n\nAfter\n", 1);
  compact.assertSpliced();
  compact.assertParsesToView();
  assert.equal(compact.text, "Intro\n\n| Name | Value |\n| --- | --- |\n|  |  |\n\nAfter\n");
  compact.type("n");
  assert.equal(compact.text, "Intro\n\n| Name | Value |\n| --- | --- |\n| n |  |\n\nAfter\n");
  assert.equal(enter("|a|b|", 0).text, "|a|b|\n|---|---|\n|||");
  // Only a row with its outer pipes: a paragraph that merely starts with one is a paragraph.
  const plain = new Editor("| a | b\n");
  plain.dispatch(plain.state.tr.setSelection(TextSelection.create(plain.state.doc, 8)));
  assert.equal(plain.run(typedTableEnter), false);
  assert.equal(enter("> | q |\n", 0).text, "> | q |\n> | --- |\n> |  |\n");
  // Typed into a new paragraph the pipes were written escaped: Enter makes the row the person sees.
  const escaped = enter("Intro\n\n\\|a\\|b\\|\n", 1);
  escaped.assertSpliced();
  assert.equal(escaped.text, "Intro\n\n|a|b|\n|---|---|\n|||\n");
  const undone = enter("| a | b |\n", 0);
  undone.run(undo);
  assert.equal(undone.text, "| a | b |\n");
});

test("Insert table: a 3×3 (or 2×2) table after the cursor's block, or in place of an empty paragraph", () => {
  const editor = new Editor("First paragraph.\n\nSecond.\n");
  editor.dispatch(editor.state.tr.setSelection(TextSelection.create(editor.state.doc, 3)));
  editor.run(insertTable(3, 3));
  editor.assertSpliced();
  editor.assertParsesToView();
  assert.equal(editor.text, "First paragraph.\n\n|     |     |     |\n| --- | --- | --- |\n|     |     |     |\n|     |     |     |\n\nSecond.\n");
  assert.equal(editor.state.selection.$head.parent.type.name, "table_cell");
  assert.equal(editor.state.selection.$head.parent.attrs.header, true);
  editor.type("Name");
  assert.equal(editor.text.split("\n")[2], "| Name    |     |     |");
  editor.run(undo);
  editor.run(undo);
  assert.equal(editor.text, "First paragraph.\n\nSecond.\n");

  const empty = new Editor("");
  empty.run(insertTable(2, 2));
  assert.equal(empty.text, "|     |     |\n| --- | --- |\n|     |     |");
  const last = new Editor("End.\n");
  last.dispatch(last.state.tr.setSelection(TextSelection.create(last.state.doc, 4)));
  TABLE_BLOCK.command(last.state, last.dispatch);
  assert.equal(last.text, "End.\n\n|     |     |     |\n| --- | --- | --- |\n|     |     |     |\n|     |     |     |\n");
});

// --- properties --------------------------------------------------------------------------------------------------

const CONTENTS = ["a", "bb", "word", "x \\| y", "`a\\|b`", "**b**", "", "é", "中文", "[l](u)", "1.5", "-"];

interface Shape {
  columns: number;
  body: number;
  style: "aligned" | "compact" | "tight" | "pipeless";
  aligns: string[];
  cells: string[][];
  container: "" | "> " | "- ";
  before: boolean;
  after: boolean;
  ragged: number[];
}

const shape: fc.Arbitrary<Shape> = fc
  .record({
    columns: fc.integer({ min: 1, max: 4 }),
    body: fc.integer({ min: 0, max: 3 }),
    style: fc.constantFrom("aligned" as const, "compact" as const, "tight" as const, "pipeless" as const),
    container: fc.constantFrom("" as const, "> " as const, "- " as const),
    before: fc.boolean(),
    after: fc.boolean(),
    seed: fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
  })
  .map(({ columns, body, style, container, before, after, seed }) => {
    let k = 0;
    const next = () => seed[k++ % seed.length];
    const aligns = Array.from({ length: columns }, () => ["", "left", "center", "right"][next() % 4]);
    const cells = Array.from({ length: body + 1 }, (_, r) =>
      Array.from({ length: columns }, (_, c) => {
        const text = CONTENTS[next() % CONTENTS.length];
        // A header needs its cells; a row without outer pipes cannot start or end with an empty one.
        if (text === "" && (r === 0 || (style === "pipeless" && (c === 0 || c === columns - 1)))) return "h";
        return text;
      }),
    );
    // Some rows short or with a cell past the header's (markdown-it hides it), where the style allows.
    const ragged = cells.map((_, r) => (r > 0 && style === "compact" && next() % 5 === 0 ? (next() % 2 ? -1 : 1) : 0));
    return { columns, body, style, aligns, cells, container, before, after, ragged };
  });

function rule(align: string, width: number): string {
  const w = Math.max(3, width);
  if (align === "center") return `:${"-".repeat(w - 2)}:`;
  if (align === "right") return `${"-".repeat(w - 1)}:`;
  if (align === "left") return `:${"-".repeat(w - 1)}`;
  return "-".repeat(w);
}

function markdownOf(s: Shape): string {
  const widths = Array.from({ length: s.columns }, (_, c) => Math.max(3, ...s.cells.map((r) => [...r[c]].length)));
  const line = (cells: string[], row: number): string => {
    const k = s.ragged[row] ?? 0;
    const shown = k < 0 && cells.length > 1 ? cells.slice(0, -1) : k > 0 ? [...cells, "extra"] : cells;
    if (s.style === "aligned") return `| ${shown.map((c, i) => c.padEnd(widths[i] ?? 3)).join(" | ")} |`;
    if (s.style === "compact") return `| ${shown.join(" | ")} |`;
    if (s.style === "tight") return `|${shown.join("|")}|`;
    return shown.join(" | ");
  };
  const delimiter =
    s.style === "aligned"
      ? `|${s.aligns.map((a, i) => rule(a, widths[i] + 2)).join("|")}|`
      : s.style === "compact"
        ? `| ${s.aligns.map((a) => rule(a, 3)).join(" | ")} |`
        : s.style === "tight"
          ? `|${s.aligns.map((a) => rule(a, 3)).join("|")}|`
          : s.aligns.map((a) => rule(a, 3)).join(" | ");
  const rows = [line(s.cells[0], 0), delimiter, ...s.cells.slice(1).map((r, k) => line(r, k + 1))];
  const prefix = s.container === "- " ? "  " : s.container;
  const table = rows.map((r, k) => (k === 0 ? s.container : prefix) + r).join("\n");
  return `${s.before ? "Before the table.\n\n" : ""}${table}\n${s.after ? "\nAfter the table.\n" : ""}`;
}

type Op = { kind: "action"; action: TableAction } | { kind: "tab"; back: boolean } | { kind: "type" } | { kind: "undo" } | { kind: "redo" };

const op: fc.Arbitrary<[Op, number, number]> = fc.tuple(
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...TABLE_ACTIONS.map((a) => a.action)).map((action) => ({ kind: "action" as const, action })) },
    { weight: 2, arbitrary: fc.boolean().map((back) => ({ kind: "tab" as const, back })) },
    { weight: 2, arbitrary: fc.constant({ kind: "type" as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: "undo" as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: "redo" as const }) },
  ),
  fc.nat(),
  fc.nat(),
);

/** The trimmed bytes of each cell of the table's rows (by view row; the delimiter left out), its container's prefix aside. */
function cellBytes(text: string, container: string): string[][] {
  const lines = text.split("\n").filter((line) => line.trim() !== "" && !/^(Before|After) the table\.$/.test(line));
  return lines
    .filter((_, k) => k !== 1)
    .map((raw) => {
      const body = container === "" ? raw : raw.replace(/^(> |- |  )/, "");
      const row = splitRow(body, 0, 0, body.length);
      return row.cells.map((c) => body.slice(c.from, c.to).trim());
    });
}

test("property: any sequence of table commands takes its own splices, keeps the cells it does not touch, and undoes to the bytes", () => {
  fc.assert(
    fc.property(shape, fc.array(op, { minLength: 1, maxLength: 8 }), (s, ops) => {
      const text = markdownOf(s);
      const editor = new Editor(text);
      // The generated text may be no table in its container (`- a | b` is a table whose first cell is "- a").
      const outer = { "": "table", "> ": "blockquote", "- ": "bullet_list" }[s.container];
      if (tables(editor.state.doc).length !== 1 || blockAt(editor.state.doc, s.before ? 1 : 0).type.name !== outer) return;
      const history: string[] = [text];
      for (const [o, r, c] of ops) {
        const found = tables(editor.state.doc);
        if (found.length === 0) break;
        const table = found[0].node;
        const row = r % table.childCount;
        const column = c % table.child(row).childCount;
        const before = editor.text;
        const count = editor.splices.length;
        if (o.kind === "undo") {
          editor.run(undo);
          continue;
        }
        if (o.kind === "redo") {
          editor.run(redo);
          continue;
        }
        editor.cell(row, column);
        if (o.kind === "type") {
          const cell = editor.state.selection.$head.parent;
          const sourced = (segmentsOf.get(cell) ?? []).length > 0;
          editor.type("z");
          // Typing in a cell (an empty one too) goes straight into its bytes; a short row's missing cell has none.
          const made = editor.splices[editor.splices.length - 1]?.made;
          if (sourced) assert.deepEqual(made && { insert: made.insert, length: made.to - made.from }, { insert: "z", length: 0 }, `typing in ${JSON.stringify(before)}`);
        }
        else if (o.kind === "tab") editor.run(cellStep(o.back ? -1 : 1));
        else editor.run(act(o.action));
        const spliced = editor.splices.slice(count).filter((x) => x.made !== null);
        for (const x of spliced) if (x.meant) assert.deepEqual(x.made, x.meant, `${JSON.stringify(o)} on ${JSON.stringify(before)}`);
        editor.assertParsesToView();
        if (o.kind === "action" && editor.text !== before) {
          // Every cell of a row the command kept is still there, byte for byte (a deleted column's aside).
          const old = cellBytes(before, s.container);
          const fresh = cellBytes(editor.text, s.container);
          const kept = (cells: string[]) => cells.filter((x) => x !== "").join("\u0000");
          if (o.action === "alignLeft" || o.action === "alignCenter" || o.action === "alignRight" || o.action === "alignNone") assert.deepEqual(fresh, old);
          if (o.action === "columnLeft" || o.action === "columnRight") assert.deepEqual(fresh.map(kept), old.map(kept));
          if (o.action === "rowAbove" || o.action === "rowBelow") assert.deepEqual(fresh.filter((x) => kept(x) !== ""), old.filter((x) => kept(x) !== ""));
        }
        history.push(editor.text);
      }
      // Undo everything: the text as it was, byte for byte.
      for (let k = 0; k < 40 && editor.run(undo); k++);
      assert.equal(editor.text, text);
    }),
    { numRuns: 300, includeErrorInReport: true },
  );
});
