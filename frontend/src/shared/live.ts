// The editor views the page shows right now, for what acts on them from outside the editor classes
// (the outline, the status bar, find, "open at the match"). Each editor registers its view while it is up.
import type { EditorView as CMView } from "@codemirror/view";
import type { EditorView as PMView } from "prosemirror-view";

type Listener = () => void;

/** The scrolling box a WYSIWYG editor is in (the page's `.editor`). */
export function editorScroller(view: PMView): HTMLElement | null {
  return view.dom.closest<HTMLElement>(".editor");
}

export const live: { cm: CMView | null; pm: PMView | null } = { cm: null, pm: null };
const listeners = new Set<Listener>();

/** Called on every document or selection change of the shown editor (and when one comes or goes). */
export function onEditorUpdate(listener: Listener): void {
  listeners.add(listener);
}

let pending = false;
export function editorUpdated(): void {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    for (const listener of listeners) listener();
  });
}

/** WYSIWYG views still appending a long document's blocks after the first screen (editors/mdsource/fill.ts). */
const filling = new WeakMap<PMView, () => void>();

/** `view` shows part of its document until `finish` is called or the returned function is. */
export function whileFilling(view: PMView, finish: () => void): () => void {
  filling.set(view, finish);
  return () => {
    if (filling.get(view) === finish) filling.delete(view);
  };
}

/** Whether `view` still shows only part of its document. */
export function isFilling(view: PMView): boolean {
  return filling.has(view);
}

/** The whole document in `view` now (what reads all of it at once: find, select all, the document's end). */
export function wholeDocument(view: PMView): void {
  filling.get(view)?.();
}
