// WYSIWYG mode: Milkdown (ProseMirror) on CommonMark + GFM. What the app gets is Milkdown's
// serialization of the document, so that is what gets saved once the person edits here.
import { Editor as Milkdown, defaultValueCtx, editorViewCtx, editorViewOptionsCtx, parserCtx, rootCtx, serializerCtx } from "@milkdown/kit/core";
import { history } from "@milkdown/kit/plugin/history";
import { closeHistory } from "@milkdown/kit/prose/history";
import { type Node, Slice } from "@milkdown/kit/prose/model";
import { commonmark } from "@milkdown/kit/preset/commonmark";
import { gfm } from "@milkdown/kit/preset/gfm";
import { Plugin, PluginKey, TextSelection, type Transaction } from "@milkdown/kit/prose/state";
import type { Step } from "@milkdown/kit/prose/transform";
import type { EditorView } from "@milkdown/kit/prose/view";
import { $prose } from "@milkdown/kit/utils";
import "@milkdown/kit/prose/view/style/prosemirror.css";
import {
  type CommentAnchor,
  codePoints,
  compositionHandlers,
  type Editor,
  type EditorHooks,
  type Replacement,
  type SelectionInfo,
} from "./editor";
import { anchorPlugin, anchorTransaction } from "./pmanchors";

const key = new PluginKey("vmark-page");

/** A prepared `selection.set`: loaded as exactly these steps if the app's text is its result. */
interface Pending {
  base: Node;
  text: string;
  steps: readonly Step[];
}

export class WysiwygEditor implements Editor {
  readonly mode = "wysiwyg" as const;
  private remote = false;
  private pending: Pending | null = null;

  private constructor(private milkdown: Milkdown) {}

  static async create(parent: HTMLElement, text: string, hooks: EditorHooks, readOnly: boolean): Promise<WysiwygEditor> {
    let self: WysiwygEditor | null = null;
    const watch = $prose(
      () =>
        new Plugin({
          key,
          props: {
            handleDOMEvents: compositionHandlers(hooks),
          },
          view: () => ({
            update: (view, prev) => {
              if (!self || self.remote) return;
              if (!view.state.doc.eq(prev.doc)) hooks.onChange();
              else if (!view.state.selection.eq(prev.selection)) {
                hooks.onSelection(view.state.selection.from, view.state.selection.to);
              }
            },
          }),
        }),
    );
    const milkdown = await Milkdown.make()
      .config((ctx) => {
        ctx.set(rootCtx, parent);
        ctx.set(defaultValueCtx, text);
        ctx.update(editorViewOptionsCtx, (prev) => ({ ...prev, editable: () => !readOnly }));
      })
      .use(commonmark)
      .use(gfm)
      .use(history)
      .use(watch)
      .use($prose(anchorPlugin))
      .create();
    self = new WysiwygEditor(milkdown);
    return self;
  }

  private view(): EditorView {
    return this.milkdown.ctx.get(editorViewCtx);
  }

  getText(): string {
    return this.milkdown.ctx.get(serializerCtx)(this.view().state.doc);
  }

  selection(): SelectionInfo {
    const { from, to } = this.view().state.selection;
    return { from, to, text: from === to ? "" : this.excerpt(from, to) };
  }

  /** The Markdown of `from..to`; plain inline text stays literal (its spaces and markers as they are). */
  private excerpt(from: number, to: number): string {
    const { doc, schema } = this.view().state;
    const content = doc.slice(from, to).content;
    let plain = true;
    content.forEach((node) => {
      plain = plain && node.isText && node.marks.length === 0;
    });
    if (plain) return doc.textBetween(from, to);
    try {
      const body = content.firstChild?.isInline ? schema.nodes.paragraph.create(null, content) : content;
      const excerpt = schema.topNodeType.createChecked(null, body);
      return this.milkdown.ctx.get(serializerCtx)(excerpt).replace(/\n+$/, "");
    } catch {
      // A slice that is no valid document on its own (e.g. half a table): its text, blocks apart.
      return doc.textBetween(from, to, "\n\n");
    }
  }

  prepareReplace(content: string): Replacement {
    const selection = this.selection();
    const tr = this.replacing(content);
    const text = this.milkdown.ctx.get(serializerCtx)(tr.doc);
    this.pending = { base: this.view().state.doc, text, steps: tr.steps };
    return { selection, replaced: codePoints(selection.text), text };
  }

  replaceSelection(content: string): void {
    this.view().dispatch(this.replacing(content).scrollIntoView());
  }

  /** The rules of `selection.set`: literal plain text, Markdown as nodes, empty deletes. */
  private replacing(content: string): Transaction {
    const { state } = this.view();
    const { from, to } = state.selection;
    const tr = state.tr;
    if (content === "") tr.delete(from, to);
    else if (this.isPlainInline(content)) tr.insertText(content, from, to);
    else {
      const parsed = this.milkdown.ctx.get(parserCtx)(content);
      const only = parsed.childCount === 1 ? parsed.firstChild : null;
      if (only?.type.name === "paragraph") tr.replaceWith(from, to, only.content);
      else tr.replaceRange(from, to, new Slice(parsed.content, 0, 0));
    }
    const end = Math.min(tr.mapping.map(to), tr.doc.content.size);
    return tr.setSelection(TextSelection.near(tr.doc.resolve(end), -1));
  }

  /** One line whose Markdown parse is the same words without any marks or blocks. */
  private isPlainInline(content: string): boolean {
    if (content.includes("\n") || content.includes("\r")) return false;
    const trimmed = content.trim();
    if (trimmed === "") return true;
    const parsed = this.milkdown.ctx.get(parserCtx)(trimmed);
    const only = parsed.childCount === 1 ? parsed.firstChild : null;
    if (only?.type.name !== "paragraph" || only.childCount !== 1) return false;
    const node = only.firstChild;
    return Boolean(node?.isText && node.marks.length === 0 && node.text === trimmed);
  }

  setText(text: string): void {
    const pending = this.pending;
    this.pending = null;
    const fits = pending !== null && pending.text === text && this.view().state.doc.eq(pending.base);
    const tr = fits ? this.replay(pending) : this.loading(text);
    if (tr) this.loadRemote(closeHistory(tr));
  }

  prepareLoad(content: string): string {
    const tr = this.loading(content);
    if (!tr) {
      this.pending = null;
      return this.getText();
    }
    const text = this.milkdown.ctx.get(serializerCtx)(tr.doc);
    this.pending = { base: this.view().state.doc, text, steps: tr.steps };
    return text;
  }

  /** A prepared change, step by step, on the document it was prepared on; the cursor after it. */
  private replay(pending: Pending): Transaction {
    const { state } = this.view();
    const tr = state.tr;
    for (const step of pending.steps) tr.step(step);
    const at = Math.min(tr.mapping.map(state.selection.to), tr.doc.content.size);
    return tr.setSelection(TextSelection.near(tr.doc.resolve(at), -1));
  }

  /** `text` parsed, as the one replacement of the span where it differs from the document (or null). */
  private loading(text: string): Transaction | null {
    const { state } = this.view();
    const next = this.milkdown.ctx.get(parserCtx)(text);
    if (!next) return null;
    const current = state.doc;
    const start = current.content.findDiffStart(next.content);
    if (start === null) return null;
    const ends = current.content.findDiffEnd(next.content);
    if (!ends) return null;
    let { a: endA, b: endB } = ends;
    const overlap = start - Math.min(endA, endB);
    if (overlap > 0) {
      endA += overlap;
      endB += overlap;
    }
    return state.tr.replace(start, endA, next.slice(start, endB));
  }

  /** One transaction from elsewhere: one undoable step in the person's history, not their edit. */
  private loadRemote(tr: Transaction): void {
    this.remote = true;
    try {
      this.view().dispatch(tr);
    } finally {
      this.remote = false;
    }
  }

  composing(): boolean {
    return this.view().composing;
  }

  setAnchors(anchors: CommentAnchor[]): void {
    this.view().dispatch(anchorTransaction(this.view().state, anchors));
  }

  focus(): void {
    this.view().focus();
  }

  destroy(): void {
    void this.milkdown.destroy();
  }
}
