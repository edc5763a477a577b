// The table commands of WYSIWYG by name: what the context menu, the command palette, the keys and the shortcuts
// sheet show. One table, no ProseMirror (the page's first bundle carries it; the commands load with the editor).
import { type Shortcut, shortcutGroup } from "../shared/shortcuts";

export type TableAction =
  | "rowAbove"
  | "rowBelow"
  | "columnLeft"
  | "columnRight"
  | "deleteRow"
  | "deleteColumn"
  | "alignLeft"
  | "alignCenter"
  | "alignRight"
  | "alignNone"
  | "deleteTable";

export interface TableActionSpec {
  action: TableAction;
  /** What the menu and the palette call it. */
  label: string;
  /** The keys as the shortcuts sheet writes them ("" for none). */
  keys: string;
  /** The keys as ProseMirror's keymap names them (null for none). */
  key: string | null;
  /** Menu section: items of one section stand together. */
  section: "rows" | "columns" | "align" | "table";
}

export const TABLE_ACTIONS: readonly TableActionSpec[] = [
  { action: "rowAbove", label: "Insert row above", keys: "Ctrl+Shift+Enter", key: "Mod-Shift-Enter", section: "rows" },
  { action: "rowBelow", label: "Insert row below", keys: "Ctrl+Enter", key: "Mod-Enter", section: "rows" },
  { action: "deleteRow", label: "Delete row", keys: "Ctrl+Shift+Backspace", key: "Mod-Shift-Backspace", section: "rows" },
  { action: "columnLeft", label: "Insert column left", keys: "Alt+Shift+←", key: "Alt-Shift-ArrowLeft", section: "columns" },
  { action: "columnRight", label: "Insert column right", keys: "Alt+Shift+→", key: "Alt-Shift-ArrowRight", section: "columns" },
  { action: "deleteColumn", label: "Delete column", keys: "Alt+Shift+Backspace", key: "Alt-Shift-Backspace", section: "columns" },
  { action: "alignLeft", label: "Align column left", keys: "Alt+Shift+L", key: "Alt-Shift-l", section: "align" },
  { action: "alignCenter", label: "Align column centre", keys: "Alt+Shift+C", key: "Alt-Shift-c", section: "align" },
  { action: "alignRight", label: "Align column right", keys: "Alt+Shift+R", key: "Alt-Shift-r", section: "align" },
  { action: "alignNone", label: "Column without alignment", keys: "Alt+Shift+N", key: "Alt-Shift-n", section: "align" },
  { action: "deleteTable", label: "Delete table", keys: "", key: null, section: "table" },
];

/** Insert a table (anywhere in WYSIWYG): its name and keys. */
export const INSERT_TABLE = { label: "Insert table", keys: "Alt+Shift+T", key: "Alt-Shift-t" } as const;

/** The lines of the shortcuts sheet for tables. */
export const TABLE_SHORTCUTS: Shortcut[] = shortcutGroup("Tables (WYSIWYG)", [
  ["Tab / Shift+Tab", "Next / previous cell (selects its text); Tab in the last cell adds a row"],
  ["Enter", "The cell below (in the last row: a new row)"],
  ["Shift+F10 / ContextMenu", "The table menu (or right-click a cell)"],
  [INSERT_TABLE.keys, "Insert a 3×3 table"],
  ...TABLE_ACTIONS.filter((a) => a.keys !== "").map((a) => [a.keys, a.label] as const),
]);

/** The command palette's table commands (they load the editor's table module when run). */
export function tablePaletteItems(): { label: string; hint?: string; detail?: string; run: () => Promise<void> }[] {
  const run = (action: TableAction | "insertTable" | "insertSmallTable") => async () => {
    const { runTableAction } = await import("./tablemenu");
    runTableAction(action);
  };
  return [
    { label: INSERT_TABLE.label, hint: INSERT_TABLE.keys, detail: "A 3×3 table with a header row (WYSIWYG)", run: run("insertTable") },
    { label: `${INSERT_TABLE.label} 2×2`, detail: "A 2×2 table with a header row (WYSIWYG)", run: run("insertSmallTable") },
    ...TABLE_ACTIONS.map((spec) => ({ label: `Table: ${spec.label.toLowerCase()}`, hint: spec.keys || undefined, run: run(spec.action) })),
  ];
}
