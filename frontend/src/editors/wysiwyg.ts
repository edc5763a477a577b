// WYSIWYG mode: ProseMirror as a view of the Markdown text (see mdsource/sourcedoc.ts).
//
// The editor holds the exact text. Each of the person's transactions is turned into one splice of it
// (only the blocks it touched, typing spliced into their source) and reported as a ChangeSet; a change
// from elsewhere re-parses the blocks it touched and replaces just those nodes.
import { ChangeSet } from "@codemirror/state";
import { baseKeymap } from "prosemirror-commands";
import { closeHistory, history } from "prosemirror-history";
import { keymap } from "prosemirror-keymap";
import { Fragment, type Node, Slice } from "prosemirror-model";
import { EditorState, Plugin, TextSelection, type Transaction } from "prosemirror-state";
import { EditorView } from "prosemirror-view";
import "prosemirror-view/style/prosemirror.css";
import { type CommentAnchor, codePoints, compositionHandlers, type Editor, type EditorHooks, type Replacement, type SelectionInfo } from "./editor";
import { parseBlocks } from "./mdsource/build";
import { schema } from "./mdsource/schema";
import { serializeBlock, serializeInline } from "./mdsource/serialize";
import { FIRST_PARSE, Filler, firstBlocks, shownPart, wholeDocumentKeys } from "./mdsource/fill";
import { blockAt, blockCount, blocksRange, flatPos, gatherBlocks } from "./mdsource/blocks";
import { sectionsPlugin, unsectioned } from "./mdsource/sections";
import { SOURCE_SPLICE, SourceDoc, type Span, type ViewChange } from "./mdsource/sourcedoc";
import { registerSourceDoc, replaceDiff } from "./mdsource/sourceedit";
import { SpliceHistory } from "./mdsource/undosplice";
import { tabStaysPlugin, writingPlugins } from "./mdsource/writing";
import { slashMenuPlugin } from "./slashmenu";
import { nodeViews, viewPlugins } from "./mdsource/views";
import { pastePlugin } from "./paste/plugin";
import { tableEditing } from "./tablemenu";
import { registerSource } from "../shared/renderctx";
import { anchorPlugin, anchorTransaction } from "./pmanchors";
import type { ReviewMark } from "./reviewmodel";
import { reviewPlugin, reviewTransaction } from "./reviewpm";
import { wysiwygWriting } from "./writing/pm";

export class WysiwygEditor implements Editor {
  readonly mode = "wysiwyg" as const;
  private view: EditorView;
  private source: SourceDoc;
  /** A prepared `selection.set`: shown as exactly its transaction when the app's change is its span. */
  private pending: { base: Node; tr: Transaction; span: Span } | null = null;
  /** The splices of the person's edits, so that undo and redo give back exact bytes. */
  private splices = new SpliceHistory();
  /** A long document's blocks after the first screens, still being appended (mdsource/fill.ts). */
  private filler: Filler | null = null;
  /** What `setReview` and `setAnchors` last showed while the fill ran: shown again, whole, once it is done. */
  private afterFill: { review?: ReviewMark[]; anchors?: CommentAnchor[] } = {};

  private constructor(parent: HTMLElement, text: string, private hooks: EditorHooks, readOnly: boolean) {
    this.source = new SourceDoc(text, FIRST_PARSE);
    performance.mark("vmark:parsed"); // the marks of an opening: bench/profile_open.py
    const first = firstBlocks(this.source);
    const state = EditorState.create({
      doc: this.source.doc(first),
      plugins: [
        sectionsPlugin(), // first: its keys join sections before the commands see them
        wholeDocumentKeys(),
        ...tableEditing(() => this.source),
        history(),
        slashMenuPlugin(),
        // Enter, Backspace, Tab, the block keys and Markdown as you type (mdsource/writing.ts).
        ...writingPlugins(),
        keymap(baseKeymap),
        anchorPlugin(),
        reviewPlugin(),
        ...wysiwygWriting(),
        ...viewPlugins(),
        pastePlugin(() => this.source),
        new Plugin({ props: { handleDOMEvents: compositionHandlers(hooks) } }),
        tabStaysPlugin(),
      ],
    });
    this.view = new EditorView(parent, {
      state,
      editable: () => !readOnly,
      nodeViews: nodeViews(),
      dispatchTransaction: (tr) => this.dispatch(tr),
    });
    registerSource(this.view, () => this.source);
    registerSourceDoc(this.view, () => this.source);
    performance.mark("vmark:view");
    requestAnimationFrame(() => performance.mark("vmark:first-frame"));
    if (Filler.needed(this.view, this.source)) this.filler = new Filler(this.view, this.source, () => this.filled());
  }

  /** `change` (blocks of the view's document) as far as the view shows it; null: none of it is shown yet. */
  private shown<T extends { from: number; to: number }>(change: T, doc: Node): T | null {
    return this.filler?.filling ? shownPart(change, blockCount(doc)) : change;
  }

  /** The whole document is shown: the review and the comment anchors set meanwhile are shown whole. */
  private filled(): void {
    performance.mark("vmark:filled");
    const { review, anchors } = this.afterFill;
    this.afterFill = {};
    if (review) this.setReview(review);
    if (anchors) this.setAnchors(anchors);
  }

  static async create(parent: HTMLElement, text: string, hooks: EditorHooks, readOnly: boolean): Promise<WysiwygEditor> {
    return new WysiwygEditor(parent, text, hooks, readOnly);
  }

  /** The person's transaction: the view takes it, the text takes its splice, the app hears of it. */
  private dispatch(tr: Transaction): void {
    const before = this.view.state;
    let state = before.apply(tr);
    if (tr.docChanged) {
      const length = this.source.length;
      const preferred = (tr.getMeta(SOURCE_SPLICE) as Span | undefined) ?? this.splices.preferred(tr, before.doc, state.doc, this.source);
      const change = this.source.personEdit(before.doc, state.doc, preferred);
      this.splices.record(tr, before.doc, state.doc, change && { ...change, adopted: change.adopt !== null }, length);
      const adopt = change?.adopt && this.shown(change.adopt, state.doc);
      if (adopt) state = state.apply(replaceChildren(state, adopt).setMeta("addToHistory", false));
      this.view.updateState(state);
      if (change) this.hooks.onChange(ChangeSet.of([change.span], length));
      return;
    }
    this.view.updateState(state);
    if (!state.selection.eq(before.selection)) this.hooks.onSelection(flatPos(state.doc, state.selection.from), flatPos(state.doc, state.selection.to));
  }

  getText(): string {
    return this.source.text;
  }

  selection(): SelectionInfo {
    const { doc, selection } = this.view.state;
    const { from, to } = selection;
    // Positions of the document without its sections (mdsource/sections.ts): those are the view's only.
    return { from: flatPos(doc, from), to: flatPos(doc, to), text: from === to ? "" : this.excerpt(from, to) };
  }

  /** The Markdown of `from..to`: its source where it maps to one, else the excerpt written as Markdown. */
  private excerpt(from: number, to: number): string {
    const { doc } = this.view.state;
    const content = doc.slice(from, to).content;
    let plain = true;
    content.forEach((node) => {
      plain = plain && node.isText && node.marks.length === 0;
    });
    if (plain) return doc.textBetween(from, to);
    const range = this.source.sourceRange(doc, from, to);
    if (range) return this.source.slice(range[0], range[1]);
    if (content.firstChild?.isInline) return serializeInline(content);
    const blocks: string[] = [];
    for (const node of unsectioned(content)) blocks.push(node.isTextblock ? serializeInline(node.content) : serializeBlock(node));
    return blocks.join("\n\n");
  }

  prepareReplace(content: string): Replacement {
    const selection = this.selection();
    const { state } = this.view;
    const tr = this.replacing(content);
    const span = this.source.preview(state.doc, tr.doc, this.agentSplice(content));
    this.pending = span ? { base: state.doc, tr, span } : null;
    const changes = span ? ChangeSet.of([span], this.source.length) : ChangeSet.empty(this.source.length);
    return { selection, replaced: codePoints(selection.text), changes };
  }

  /** An agent's Markdown spliced in as written, where the selection has a source range (checked like any splice). */
  private agentSplice(content: string): Span | null {
    const { doc, selection } = this.view.state;
    if (isPlainInline(content)) return null;
    const range = this.source.sourceRange(doc, selection.from, selection.to);
    return range ? { from: range[0], to: range[1], insert: content } : null;
  }

  replaceSelection(content: string): void {
    this.view.dispatch(this.replacing(content).scrollIntoView());
  }

  /** The rules of `selection.set`: literal plain text, Markdown as nodes, empty deletes. */
  private replacing(content: string): Transaction {
    const { state } = this.view;
    const { from, to } = state.selection;
    const tr = state.tr;
    if (content === "") tr.delete(from, to);
    else if (isPlainInline(content)) tr.insertText(content, from, to);
    else {
      const parsed = parseFragment(content);
      const only = parsed.childCount === 1 ? parsed.firstChild : null;
      if (only?.type === schema.nodes.paragraph) tr.replaceWith(from, to, only.content);
      else tr.replaceRange(from, to, new Slice(parsed, 0, 0));
    }
    const end = Math.min(tr.mapping.map(to), tr.doc.content.size);
    return tr.setSelection(TextSelection.near(tr.doc.resolve(end), -1));
  }

  /**
   * A change from elsewhere (an agent, another window, the file on disk) is no step of this window's undo:
   * the history is mapped through it, so Ctrl+Z undoes the person's own edits only (see SourceEditor).
   */
  applyRemote(changes: ChangeSet, review?: ReviewMark[]): void {
    const spans: Span[] = [];
    changes.iterChanges((fromA, toA, _fromB, _toB, inserted) => spans.push({ from: fromA, to: toA, insert: inserted.toString() }));
    this.splices.forget();
    const pending = this.pending;
    this.pending = null;
    const edit =
      pending && spans.length === 1 && sameSpan(spans[0], pending.span) && this.view.state.doc === pending.base && this.replay(pending)
        ? null
        : this.source.remoteEdit(spans);
    const change = edit && this.shown(edit, this.view.state.doc);
    if (!change) {
      if (review) this.setReview(review);
      return;
    }
    // The smallest replacement keeps the person's undo steps even in the paragraph the change is in (a whole
    // block replaced would end them); else the blocks themselves.
    const narrow = narrowReplace(this.view.state, change);
    const adopted = narrow !== null && this.source.adoptView(narrow.doc, change.from, change.nodes.length);
    const tr = adopted ? narrow : replaceChildren(this.view.state, change);
    const state = this.view.state.apply(closeHistory(tr.setMeta("addToHistory", false)));
    // The review in the same redraw: each redraw of a long document walks all its top-level blocks.
    this.view.updateState(review ? state.apply(this.reviewing(state, review)) : state);
  }

  /** The prepared transaction, shown as the app's change (its splice is the one the app applied). */
  private replay(pending: { base: Node; tr: Transaction; span: Span }): boolean {
    const state = this.view.state;
    const tr = state.tr;
    for (const step of pending.tr.steps) tr.step(step);
    const at = Math.min(tr.mapping.map(state.selection.to), tr.doc.content.size);
    tr.setSelection(TextSelection.near(tr.doc.resolve(at), -1));
    const next = state.apply(closeHistory(tr).setMeta("addToHistory", false)); // the agent's, like any remote change
    const span = this.source.preview(state.doc, next.doc, pending.span);
    if (!span || !sameSpan(span, pending.span)) return false; // not what was prepared after all
    const change = this.source.personEdit(state.doc, next.doc, pending.span);
    if (!change) return false;
    const adopt = change.adopt && this.shown(change.adopt, next.doc);
    this.view.updateState(adopt ? next.apply(replaceChildren(next, adopt).setMeta("addToHistory", false)) : next);
    return true;
  }

  composing(): boolean {
    return this.view.composing;
  }

  setAnchors(anchors: CommentAnchor[]): void {
    if (this.filler?.filling) this.afterFill.anchors = anchors;
    const tr = anchorTransaction(this.view.state, anchors);
    if (tr) this.view.dispatch(tr);
  }

  setReview(marks: ReviewMark[]): void {
    this.view.dispatch(this.reviewing(this.view.state, marks));
  }

  /** The transaction that shows `marks` in `state` (the view's, or the one it is about to show). */
  private reviewing(state: EditorState, marks: ReviewMark[]): Transaction {
    if (this.filler?.filling) {
      this.afterFill.review = marks;
      const end = this.filler.shownEnd();
      marks = marks.filter((m) => m.to <= end); // the others would land at the end of what is shown
    }
    const doc = state.doc;
    return reviewTransaction(state, marks, (offset, bias) => this.source.viewPosition(doc, offset, bias));
  }

  focus(): void {
    this.view.focus();
  }

  destroy(): void {
    this.filler?.stop();
    this.view.destroy();
  }
}

/**
 * Children `from..to` replaced by what differs of `nodes` only (ProseMirror maps positions, the selection and
 * the undo history through it), when the result equals `nodes`; null otherwise. Its children are new objects:
 * the text's blocks adopt them (`SourceDoc.adoptView`).
 */
function narrowReplace(state: EditorState, change: ViewChange): Transaction | null {
  const tr = state.tr;
  const count = change.nodes.length;
  gatherBlocks(tr, change.from, change.to);
  // As many blocks as before: each changed one on its own (a word changed in one paragraph and a line added
  // to a list below it are two small steps, not one across the text between them); the last first, so the
  // positions before it hold.
  const pairs = change.to - change.from === count ? [...change.nodes.keys()].reverse() : null;
  try {
    if (pairs) for (const k of pairs) replaceDiff(tr, ...blocksRange(tr.doc, change.from + k, change.from + k + 1), Fragment.from(change.nodes[k]));
    else replaceDiff(tr, ...blocksRange(tr.doc, change.from, change.to), Fragment.from(change.nodes));
  } catch {
    return null; // no valid replacement of that range
  }
  if (blockCount(tr.doc) !== blockCount(state.doc) - (change.to - change.from) + count) return null;
  for (let k = 0; k < count; k++) if (!blockAt(tr.doc, change.from + k).eq(change.nodes[k])) return null;
  return tr;
}

/** Blocks `from..to` of the document replaced by `nodes` (the same objects: the text's blocks), the selection kept where it can be. */
function replaceChildren(state: EditorState, change: ViewChange): Transaction {
  const tr = state.tr;
  const [start, end] = gatherBlocks(tr, change.from, change.to);
  const gathered = tr.mapping.maps.length;
  const fresh = Fragment.from(change.nodes);
  // A cursor inside the replaced blocks stays at the same place of the text around it where it can.
  const old = tr.doc.slice(start, end).content;
  tr.replaceWith(start, end, fresh);
  const diffStart = old.findDiffStart(fresh);
  const diffEnd = old.findDiffEnd(fresh);
  const map = (before: number): number => {
    const pos = tr.mapping.slice(0, gathered).map(before);
    if (pos < start || pos > end) return tr.mapping.slice(gathered).map(pos);
    const offset = pos - start;
    if (diffStart === null || offset <= diffStart) return start + offset;
    if (diffEnd && offset >= diffEnd.a) return start + diffEnd.b + (offset - diffEnd.a);
    return start + (diffEnd ? diffEnd.b : fresh.size);
  };
  const { anchor, head } = state.selection;
  try {
    const size = tr.doc.content.size;
    const a = Math.min(map(anchor), size);
    const h = Math.min(map(head), size);
    tr.setSelection(TextSelection.between(tr.doc.resolve(a), tr.doc.resolve(h)));
  } catch {
    // The mapped selection has no valid place: ProseMirror's own mapping stands.
  }
  return tr;
}

function sameSpan(a: Span, b: Span): boolean {
  return a.from === b.from && a.to === b.to && a.insert === b.insert;
}

/** Markdown parsed into nodes (for `selection.set`), not tied to the document's text. */
function parseFragment(content: string): Fragment {
  return Fragment.from(parseBlocks(content, 0).blocks.map((b) => b.node));
}

/** One line whose Markdown parse is the same words without any marks or blocks. */
function isPlainInline(content: string): boolean {
  if (content.includes("\n") || content.includes("\r")) return false;
  const trimmed = content.trim();
  if (trimmed === "") return true;
  const parsed = parseFragment(trimmed);
  const only = parsed.childCount === 1 ? parsed.firstChild : null;
  if (only?.type !== schema.nodes.paragraph || only.childCount !== 1) return false;
  const node: Node | null = only.firstChild;
  return Boolean(node?.isText && node.marks.length === 0 && node.text === trimmed);
}
