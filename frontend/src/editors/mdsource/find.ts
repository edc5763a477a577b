// Find and replace in WYSIWYG: the matches of the find bar's query decorated in the view; a replacement
// is a transaction of the matched characters only (the engine splices it into the text).
import type { Node } from "prosemirror-model";
import { type EditorState, Plugin, PluginKey, TextSelection } from "prosemirror-state";
import { Decoration, DecorationSet, type EditorView } from "prosemirror-view";

export interface Match {
  from: number;
  to: number;
}

interface FindState {
  query: string;
  matchCase: boolean;
  matches: Match[];
  current: number;
  decorations: DecorationSet;
}

export const findKey = new PluginKey<FindState>("find");

/** Every occurrence of `query` inside one textblock (matches never cross blocks), in document order. */
export function findMatches(doc: Node, query: string, matchCase: boolean): Match[] {
  const found: Match[] = [];
  if (!query) return found;
  const needle = matchCase ? query : query.toLowerCase();
  doc.descendants((node, pos) => {
    if (!node.isTextblock) return true;
    // Each inline leaf (an image, a break, math) counts one character: offsets map straight to positions.
    let text = node.textBetween(0, node.content.size, undefined, "\ufffc");
    if (!matchCase) text = text.toLowerCase();
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) {
      found.push({ from: pos + 1 + at, to: pos + 1 + at + needle.length });
    }
    return false;
  });
  return found;
}

function build(doc: Node, query: string, matchCase: boolean, current: number): FindState {
  const matches = findMatches(doc, query, matchCase);
  const index = matches.length ? Math.min(Math.max(current, 0), matches.length - 1) : -1;
  const decorations = DecorationSet.create(
    doc,
    matches.map((m, k) => Decoration.inline(m.from, m.to, { class: k === index ? "md-find-match current" : "md-find-match" })),
  );
  return { query, matchCase, matches, current: index, decorations };
}

export function findPlugin(): Plugin<FindState> {
  return new Plugin<FindState>({
    key: findKey,
    state: {
      init: (_config, state) => build(state.doc, "", false, -1),
      apply(tr, old, _before, state) {
        const meta = tr.getMeta(findKey) as Partial<FindState> | undefined;
        if (meta) return build(state.doc, meta.query ?? old.query, meta.matchCase ?? old.matchCase, meta.current ?? old.current);
        if (tr.docChanged && old.query) return build(state.doc, old.query, old.matchCase, old.current);
        return old;
      },
    },
    props: {
      decorations(state) {
        return findKey.getState(state)?.decorations;
      },
    },
  });
}

export function findState(state: EditorState): FindState | undefined {
  return findKey.getState(state);
}

export function setQuery(view: EditorView, query: string, matchCase: boolean): void {
  // The first match at or after the cursor becomes the current one.
  const matches = findMatches(view.state.doc, query, matchCase);
  const head = view.state.selection.from;
  const index = Math.max(0, matches.findIndex((m) => m.from >= head));
  view.dispatch(view.state.tr.setMeta(findKey, { query, matchCase, current: index }));
  reveal(view);
}

export function step(view: EditorView, delta: number): void {
  const state = findKey.getState(view.state);
  if (!state || state.matches.length === 0) return;
  const n = state.matches.length;
  const current = (((state.current + delta) % n) + n) % n;
  view.dispatch(view.state.tr.setMeta(findKey, { current }));
  reveal(view);
}

/** Select the current match and bring it into view. */
export function reveal(view: EditorView): void {
  const state = findKey.getState(view.state);
  const match = state && state.current >= 0 ? state.matches[state.current] : null;
  if (!match) return;
  const tr = view.state.tr.setSelection(TextSelection.create(view.state.doc, match.from, match.to)).scrollIntoView();
  view.dispatch(tr);
}

export function replaceCurrent(view: EditorView, replacement: string): void {
  const state = findKey.getState(view.state);
  const match = state && state.current >= 0 ? state.matches[state.current] : null;
  if (!match || !view.editable) return;
  const tr = replacement === "" ? view.state.tr.delete(match.from, match.to) : view.state.tr.insertText(replacement, match.from, match.to);
  view.dispatch(tr);
  reveal(view);
}

export function replaceAll(view: EditorView, replacement: string): number {
  const state = findKey.getState(view.state);
  if (!state || state.matches.length === 0 || !view.editable) return 0;
  let tr = view.state.tr;
  for (const match of [...state.matches].reverse()) {
    tr = replacement === "" ? tr.delete(match.from, match.to) : tr.insertText(replacement, match.from, match.to);
  }
  view.dispatch(tr);
  return state.matches.length;
}

export function clearFind(view: EditorView): void {
  view.dispatch(view.state.tr.setMeta(findKey, { query: "" }));
}
