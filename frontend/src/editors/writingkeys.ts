// The WYSIWYG block commands by name and key: one table for the editor's keymap, the shortcuts sheet and the
// command palette (kept free of ProseMirror: the page's first bundle carries it).
import { type KeyedCommand, keyedCommands } from "../shared/shortcuts";

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

/** A block command: its ``action`` names it in the sheet, the palette and the slash menu. */
export type BlockCommandSpec = KeyedCommand<BlockCommandId>;

const CTRL_DIGIT = "A browser window keeps Ctrl+digit for its tabs; use Ctrl+Alt+digit there.";

const headings = ([1, 2, 3, 4, 5, 6] as const).map(
  (n) => [`heading${n}`, `Ctrl+${n} / Ctrl+Alt+${n}`, `Heading ${n}`, CTRL_DIGIT] as const,
);

export const BLOCK_COMMANDS: BlockCommandSpec[] = keyedCommands<BlockCommandId>("Blocks (WYSIWYG)", [
  ["paragraph", "Ctrl+0 / Ctrl+Alt+0", "Paragraph", CTRL_DIGIT],
  ...headings,
  ["bullet", "Ctrl+Shift+8", "Bullet list"],
  ["ordered", "Ctrl+Shift+7", "Numbered list"],
  ["task", "Ctrl+Shift+9", "Task list"],
  ["quote", "Ctrl+Alt+Q", "Quote"],
  ["code", "Ctrl+Alt+C", "Code block"],
  ["math", "Ctrl+Alt+M", "Math block"],
  ["rule", "Ctrl+Alt+H", "Thematic break (horizontal rule)"],
  ["leave", "Ctrl+Enter", "Leave the block (a paragraph after it)"],
]);
