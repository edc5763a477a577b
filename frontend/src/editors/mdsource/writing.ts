// The keys of writing in WYSIWYG: Enter, Backspace, Tab, Shift+Enter, the block shortcuts, and Markdown as you
// type. Each key runs the commands of `commands.ts` / `inputrules.ts` first (they write what a person would type
// in source mode); where those have nothing to say, ProseMirror's own command runs and the engine writes its
// result (checked like every edit).
import { chainCommands, newlineInCode, toggleMark } from "prosemirror-commands";
import { redo, undo } from "prosemirror-history";
import { keymap } from "prosemirror-keymap";
import { liftListItem as pmLift, sinkListItem as pmSink, splitListItem } from "prosemirror-schema-list";
import { type Command, Plugin } from "prosemirror-state";
import type { EditorView } from "prosemirror-view";
import type { BlockCommandId } from "../writingkeys";
import {
  backspaceAfterMath,
  backspaceAtStart,
  backspaceEmptiesNestedItem,
  codeBlock,
  enterAfterMath,
  enterInList,
  enterInQuote,
  enterUnwritten,
  exitBlock,
  hardBreak,
  liftListItem,
  mathBlock,
  pendingIndentPlugin,
  setHeading,
  sinkItem,
  splitTextblock,
  thematicBreak,
  toggleList,
  toggleQuote,
} from "./commands";
import { enterRule, inputRulesPlugin, undoInputRule } from "./inputrules";
import { schema } from "./schema";
import { typedMarksPlugin } from "./typedmarks";
import { removeUnwritten, unwrittenPlugin } from "./unwritten";

export const BLOCK: Record<BlockCommandId, Command> = {
  paragraph: setHeading(0),
  heading1: setHeading(1),
  heading2: setHeading(2),
  heading3: setHeading(3),
  heading4: setHeading(4),
  heading5: setHeading(5),
  heading6: setHeading(6),
  bullet: toggleList("bullet"),
  ordered: toggleList("ordered"),
  task: toggleList("task"),
  quote: toggleQuote,
  code: codeBlock,
  math: mathBlock,
  rule: thematicBreak,
  leave: exitBlock(false),
};

/** Run a block command on the view (the palette's way in); false if it does not apply where the cursor is. */
export function runBlockCommand(view: EditorView, id: BlockCommandId): boolean {
  if (!view.editable) return false;
  const done = BLOCK[id](view.state, view.dispatch, view);
  view.focus();
  return done;
}

/** Keys by `event.code` (the digit keys and letters whatever the layout and the Shift state make of them). */
function blockFromKey(event: KeyboardEvent): BlockCommandId | null {
  const ctrl = event.ctrlKey || event.metaKey;
  if (!ctrl) return null;
  const digit = /^Digit([0-9])$/.exec(event.code)?.[1];
  if (digit !== undefined && !event.shiftKey) {
    if (digit === "0") return "paragraph";
    if (Number(digit) <= 6) return `heading${digit}` as BlockCommandId;
    return null;
  }
  if (digit !== undefined && event.shiftKey && !event.altKey) return ({ "8": "bullet", "7": "ordered", "9": "task" } as Record<string, BlockCommandId>)[digit] ?? null;
  if (event.altKey && !event.shiftKey) return ({ KeyQ: "quote", KeyC: "code", KeyM: "math", KeyH: "rule" } as Record<string, BlockCommandId>)[event.code] ?? null;
  return null;
}

function blockKeysPlugin(): Plugin {
  return new Plugin({
    props: {
      handleKeyDown(view, event) {
        const id = blockFromKey(event);
        if (!id || !view.editable) return false;
        BLOCK[id](view.state, view.dispatch, view);
        return true; // the key is the editor's (Ctrl+1 would otherwise switch a browser's tab)
      },
    },
  });
}

/** The writing keymap and rules, ahead of the rest of the editor's plugins. */
export function writingPlugins(): Plugin[] {
  return [
    unwrittenPlugin(),
    pendingIndentPlugin(),
    inputRulesPlugin(),
    typedMarksPlugin(),
    blockKeysPlugin(),
    keymap({
      "Mod-z": chainCommands(undoInputRule, undo),
      "Mod-y": redo,
      "Shift-Mod-z": redo,
      "Mod-b": toggleMark(schema.marks.strong),
      "Mod-i": toggleMark(schema.marks.em),
      "Mod-e": toggleMark(schema.marks.code),
      // A line of a code or math block in a list item is a line of it (ProseMirror's splitListItem would split the item).
      Enter: chainCommands(enterUnwritten, enterAfterMath, enterRule, enterInList, enterInQuote, splitTextblock, newlineInCode, splitListItem(schema.nodes.list_item)),
      "Shift-Enter": hardBreak,
      "Mod-Enter": exitBlock(false),
      ArrowDown: exitBlock(true),
      Backspace: chainCommands(undoInputRule, backspaceAfterMath, removeUnwritten, backspaceAtStart, backspaceEmptiesNestedItem),
      Tab: chainCommands(sinkItem, pmSink(schema.nodes.list_item)),
      "Shift-Tab": chainCommands(enterUnwritten, liftListItem, pmLift(schema.nodes.list_item)),
    }),
  ];
}

/**
 * Tab stays in the editor (where nothing nests or moves between cells, it does nothing); Escape then Tab moves the
 * focus on, as in source mode. Put after every plugin that gives Tab a meaning (lists, tables).
 */
export function tabStaysPlugin(): Plugin {
  let escaped = false;
  return new Plugin({
    props: {
      handleKeyDown(_view, event) {
        if (event.key === "Escape") {
          escaped = true;
          return false;
        }
        const wasEscaped = escaped;
        escaped = false;
        return event.key === "Tab" && !event.ctrlKey && !event.altKey && !event.metaKey && !wasEscaped;
      },
    },
  });
}
