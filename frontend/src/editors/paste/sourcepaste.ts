// Images pasted or dropped in source mode (CodeMirror): written beside the document like in WYSIWYG
// (paste/images.ts), then `![name](assets/name.png)` typed where the caret or the drop was (that place
// follows the person's edits while the image is written). Text pastes and drops stay CodeMirror's own.
import { type Extension, StateEffect, StateField } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { droppedPaths, imageFiles, imagesMarkdown, pathsMarkdown, saveImages } from "./images";

const addPending = StateEffect.define<{ id: number; pos: number }>();
const removePending = StateEffect.define<number>();

/** Where each image being written goes, mapped through every change meanwhile. */
const pendingField = StateField.define<Map<number, number>>({
  create: () => new Map(),
  update(places, tr) {
    let next = places;
    if (tr.docChanged) next = new Map([...places].map(([id, pos]) => [id, tr.changes.mapPos(pos, 1)]));
    for (const effect of tr.effects) {
      if (effect.is(addPending)) next = new Map(next).set(effect.value.id, effect.value.pos);
      if (effect.is(removePending)) {
        next = new Map(next);
        next.delete(effect.value);
      }
    }
    return next;
  },
});

let nextId = 1;

export function sourcePaste(): Extension {
  return [
    pendingField,
    EditorView.domEventHandlers({
      paste(event, view) {
        const data = event.clipboardData;
        const files = imageFiles(data);
        if (!files.length || data?.getData("text/plain") || view.state.readOnly) return false;
        event.preventDefault();
        void place(view, files, view.state.selection.main.from, view.state.selection.main.to);
        return true;
      },
      drop(event, view) {
        const at = view.posAtCoords({ x: event.clientX, y: event.clientY });
        const files = imageFiles(event.dataTransfer);
        const paths = droppedPaths(event.dataTransfer);
        if (at === null || (!files.length && !paths.length) || view.state.readOnly) return false;
        event.preventDefault();
        if (paths.length) view.dispatch({ changes: { from: at, insert: pathsMarkdown(paths) }, userEvent: "input.drop" });
        else void place(view, files, at, at);
        return true;
      },
    }),
  ];
}

async function place(view: EditorView, files: File[], from: number, to: number): Promise<void> {
  const id = nextId++;
  view.dispatch({ effects: addPending.of({ id, pos: to }) });
  const written = await saveImages(files);
  const at = view.state.field(pendingField, false)?.get(id);
  view.dispatch({ effects: removePending.of(id) });
  if (at === undefined || !written.length) return;
  const start = view.state.selection.main.from === from && view.state.selection.main.to === at ? from : at;
  const insert = imagesMarkdown(written);
  view.dispatch({ changes: { from: start, to: at, insert }, selection: { anchor: start + insert.length }, userEvent: "input.paste", scrollIntoView: true });
}
