// The WYSIWYG block commands by name and key: one table for the editor's keymap, the shortcuts sheet and the
// command palette (kept free of ProseMirror: the page's first bundle carries it).

export interface BlockCommandSpec {
  id: BlockCommandId;
  label: string;
  /** As the sheet shows them; the first is the one the palette names. */
  keys: string;
}

export type BlockCommandId =
  | "paragraph"
  | "heading1"
  | "heading2"
  | "heading3"
  | "heading4"
  | "heading5"
  | "heading6"
  | "bullet"
  | "ordered"
  | "task"
  | "quote"
  | "code"
  | "math"
  | "rule"
  | "leave";

const headings: BlockCommandSpec[] = [1, 2, 3, 4, 5, 6].map((n) => ({
  id: `heading${n}` as BlockCommandId,
  label: `Heading ${n}`,
  keys: `Ctrl+${n} / Ctrl+Alt+${n}`,
}));

export const BLOCK_COMMANDS: BlockCommandSpec[] = [
  { id: "paragraph", label: "Paragraph", keys: "Ctrl+0 / Ctrl+Alt+0" },
  ...headings,
  { id: "bullet", label: "Bullet list", keys: "Ctrl+Shift+8" },
  { id: "ordered", label: "Numbered list", keys: "Ctrl+Shift+7" },
  { id: "task", label: "Task list", keys: "Ctrl+Shift+9" },
  { id: "quote", label: "Quote", keys: "Ctrl+Alt+Q" },
  { id: "code", label: "Code block", keys: "Ctrl+Alt+C" },
  { id: "math", label: "Math block", keys: "Ctrl+Alt+M" },
  { id: "rule", label: "Thematic break (horizontal rule)", keys: "Ctrl+Alt+H" },
  { id: "leave", label: "Leave the block (a paragraph after it)", keys: "Ctrl+Enter" },
];
