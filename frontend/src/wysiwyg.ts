// WYSIWYG mode: Milkdown (ProseMirror) on CommonMark + GFM. What the app gets is Milkdown's
// serialization of the document, so that is what gets saved once the person edits here.
import { Editor as Milkdown, defaultValueCtx, editorViewCtx, editorViewOptionsCtx, parserCtx, rootCtx, serializerCtx } from "@milkdown/kit/core";
import { history } from "@milkdown/kit/plugin/history";
import { commonmark } from "@milkdown/kit/preset/commonmark";
import { gfm } from "@milkdown/kit/preset/gfm";
import { Plugin, PluginKey } from "@milkdown/kit/prose/state";
import type { EditorView } from "@milkdown/kit/prose/view";
import { $prose } from "@milkdown/kit/utils";
import "@milkdown/kit/prose/view/style/prosemirror.css";
import { compositionHandlers, type Editor, type EditorHooks } from "./editor";

const key = new PluginKey("vmark-page");

export class WysiwygEditor implements Editor {
  readonly mode = "wysiwyg" as const;
  private remote = false;

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

  setText(text: string): void {
    const view = this.view();
    const next = this.milkdown.ctx.get(parserCtx)(text);
    if (!next) return;
    const current = view.state.doc;
    const start = current.content.findDiffStart(next.content);
    if (start === null) return;
    const ends = current.content.findDiffEnd(next.content);
    if (!ends) return;
    let { a: endA, b: endB } = ends;
    const overlap = start - Math.min(endA, endB);
    if (overlap > 0) {
      endA += overlap;
      endB += overlap;
    }
    // One transaction: one undoable step in the person's history.
    this.remote = true;
    try {
      view.dispatch(view.state.tr.replace(start, endA, next.slice(start, endB)));
    } finally {
      this.remote = false;
    }
  }

  composing(): boolean {
    return this.view().composing;
  }

  focus(): void {
    this.view().focus();
  }

  destroy(): void {
    void this.milkdown.destroy();
  }
}
