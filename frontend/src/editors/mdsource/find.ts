// Find and replace in WYSIWYG: the matches of the find bar's query decorated in the view; a replacement
// is a transaction of the matched characters only (the engine splices it into the text).
import type { Node } from "prosemirror-model";
import { type EditorState, Plugin, PluginKey, TextSelection, type Transaction } from "prosemirror-state";
import { Decoration, DecorationSet, type EditorView } from "prosemirror-view";
import { changedRanges } from "./changed";

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
  doc.descendants((node, pos) => {
    if (!node.isTextblock) return true;
    matchesIn(node, pos, query, matchCase, found);
    return false;
  });
  return found;
}

/** The matches inside the textblock `node` at `pos`, added to `found`. */
function matchesIn(node: Node, pos: number, query: string, matchCase: boolean, found: Match[]): void {
  const needle = matchCase ? query : query.toLowerCase();
  // Each inline leaf (an image, a break, math) counts one character: offsets map straight to positions.
  let text = node.textBetween(0, node.content.size, undefined, "\ufffc");
  if (!matchCase) text = text.toLowerCase();
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) {
    found.push({ from: pos + 1 + at, to: pos + 1 + at + needle.length });
  }
}

function decoration(m: Match, current: boolean): Decoration {
  return Decoration.inline(m.from, m.to, { class: current ? "md-find-match current" : "md-find-match" }, { current });
}

function build(doc: Node, query: string, matchCase: boolean, current: number): FindState {
  const matches = findMatches(doc, query, matchCase);
  const index = matches.length ? Math.min(Math.max(current, 0), matches.length - 1) : -1;
  const decorations = DecorationSet.create(
    doc,
    matches.map((m, k) => decoration(m, k === index)),
  );
  return { query, matchCase, matches, current: index, decorations };
}

/**
 * The matches after an edit: those outside the textblocks it touched mapped through it, those textblocks
 * searched again (a keystroke in a 1 MB document searches its paragraph, not the document). The same
 * matches and current index as `build` gives.
 */
function rebuildChanged(tr: Transaction, old: FindState): FindState {
  const doc = tr.doc;
  const blocks = touchedTextblocks(tr);
  const inTouched = (pos: number): boolean => blocks.some(([from, to]) => pos >= from && pos < to);
  const matches: Match[] = [];
  for (const m of old.matches) {
    const from = tr.mapping.mapResult(m.from, 1);
    const to = tr.mapping.mapResult(m.to, -1);
    if (from.deleted || to.deleted || to.pos - from.pos !== m.to - m.from || inTouched(from.pos)) continue;
    matches.push({ from: from.pos, to: to.pos });
  }
  for (const [from] of blocks) matchesIn(doc.nodeAt(from) as Node, from, old.query, old.matchCase, matches);
  matches.sort((a, b) => a.from - b.from);
  const index = matches.length ? Math.min(Math.max(old.current, 0), matches.length - 1) : -1;
  let decorations = old.decorations.map(tr.mapping, doc);
  const stale = blocks.flatMap(([from, to]) => decorations.find(from, to));
  // The current match is the one at the index: its decoration is drawn anew wherever it moved.
  stale.push(...decorations.find(undefined, undefined, (spec) => (spec as { current?: boolean }).current === true));
  decorations = decorations.remove(stale);
  const shown = new Set(decorations.find().map((d) => d.from));
  const fresh = matches.flatMap((m, k) => (k === index ? [decoration(m, true)] : shown.has(m.from) ? [] : [decoration(m, false)]));
  if (index >= 0) {
    // `find` also returns decorations that only touch the range: a neighbouring match (`aa`) must stay.
    const { from, to } = matches[index];
    const plain = decorations.find(from, to, (spec) => (spec as { current?: boolean }).current === false);
    decorations = decorations.remove(plain.filter((d) => d.from === from && d.to === to));
  }
  return { ...old, matches, current: index, decorations: decorations.add(doc, fresh) };
}

/** The textblocks of the transaction's document that its steps touched: [start, end) positions, in order. */
function touchedTextblocks(tr: Transaction): [number, number][] {
  const ranges = changedRanges(tr);
  const doc = tr.doc;
  const size = doc.content.size;
  const found = new Map<number, number>();
  for (const [from, to] of ranges) {
    doc.nodesBetween(Math.max(0, from - 1), Math.min(size, to + 1), (node, pos) => {
      if (!node.isTextblock) return true;
      found.set(pos, pos + node.nodeSize);
      return false;
    });
  }
  return [...found].sort((a, b) => a[0] - b[0]);
}

export function findPlugin(): Plugin<FindState> {
  return new Plugin<FindState>({
    key: findKey,
    state: {
      init: (_config, state) => build(state.doc, "", false, -1),
      apply(tr, old, _before, state) {
        const meta = tr.getMeta(findKey) as Partial<FindState> | undefined;
        if (meta) return build(state.doc, meta.query ?? old.query, meta.matchCase ?? old.matchCase, meta.current ?? old.current);
        if (tr.docChanged && old.query) return rebuildChanged(tr, old);
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
