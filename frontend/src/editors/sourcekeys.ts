// Source mode's own keys: Ctrl+B / I / E / K wrap the selection in Markdown, Tab / Shift+Tab indent,
// Ctrl+H opens find with replace. The view registers itself for the panels that act on it (live.ts).
import { indentLess, indentMore } from "@codemirror/commands";
import { openSearchPanel } from "@codemirror/search";
import { EditorSelection, type Extension, Prec } from "@codemirror/state";
import { type Command, EditorView, keymap, ViewPlugin } from "@codemirror/view";
import { editorUpdated, live } from "../shared/live";

/** Wrap each selection range in `before`/`after`, or unwrap it when it already is wrapped so. */
export function wrap(before: string, after = before): Command {
  return (view) => {
    if (view.state.readOnly) return false;
    const { state } = view;
    const tr = state.changeByRange((range) => {
      const outside = state.sliceDoc(range.from - before.length, range.to + after.length);
      const inner = state.sliceDoc(range.from, range.to);
      if (!range.empty && outside === before + inner + after && !(before === "*" && isBold(state.sliceDoc(range.from - 2, range.to + 2)))) {
        return {
          changes: [
            { from: range.from - before.length, to: range.from },
            { from: range.to, to: range.to + after.length },
          ],
          range: EditorSelection.range(range.from - before.length, range.to - before.length),
        };
      }
      if (!range.empty && inner.startsWith(before) && inner.endsWith(after) && inner.length >= before.length + after.length && before !== "*") {
        return {
          changes: { from: range.from, to: range.to, insert: inner.slice(before.length, inner.length - after.length) },
          range: EditorSelection.range(range.from, range.to - before.length - after.length),
        };
      }
      return {
        changes: [
          { from: range.from, insert: before },
          { from: range.to, insert: after },
        ],
        range: EditorSelection.range(range.from + before.length, range.to + before.length),
      };
    });
    view.dispatch(state.update(tr, { scrollIntoView: true, userEvent: "input" }));
    return true;
  };
}

function isBold(text: string): boolean {
  return text.startsWith("**") && text.endsWith("**");
}

/** `[selection](|)`: the cursor lands where the address goes. */
const link: Command = (view) => {
  if (view.state.readOnly) return false;
  const { state } = view;
  const tr = state.changeByRange((range) => {
    const text = state.sliceDoc(range.from, range.to);
    const insert = `[${text}]()`;
    const cursor = range.from + insert.length - 1;
    return { changes: { from: range.from, to: range.to, insert }, range: EditorSelection.cursor(cursor) };
  });
  view.dispatch(state.update(tr, { scrollIntoView: true, userEvent: "input" }));
  return true;
};

/** Find with the replace field focused. */
const findReplace: Command = (view) => {
  openSearchPanel(view);
  requestAnimationFrame(() => view.dom.querySelector<HTMLInputElement>(".cm-search input[name=replace]")?.focus());
  return true;
};

export function sourceKeys(): Extension {
  return [
    Prec.high(
      keymap.of([
        { key: "Mod-b", run: wrap("**") },
        { key: "Mod-i", run: wrap("*") },
        { key: "Mod-e", run: wrap("`") },
        { key: "Mod-k", run: link },
        { key: "Mod-h", run: findReplace },
        { key: "Tab", run: indentMore, shift: indentLess },
      ]),
    ),
    ViewPlugin.define((view) => {
      live.cm = view;
      editorUpdated();
      return {
        update: (update) => {
          if (update.docChanged || update.selectionSet) editorUpdated();
        },
        destroy: () => {
          if (live.cm === view) live.cm = null;
          editorUpdated();
        },
      };
    }),
    EditorView.contentAttributes.of({ "aria-label": "Markdown source" }),
  ];
}
