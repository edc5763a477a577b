// Source mode: CodeMirror 6 on the raw Markdown or workflow YAML.
import { basicSetup } from "codemirror";
import { markdown } from "@codemirror/lang-markdown";
import { yaml } from "@codemirror/lang-yaml";
import { Annotation, EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { compositionHandlers, type Editor, type EditorHooks } from "./editor";
import { codePointOffset, diffSpan } from "./merge";

const fromElsewhere = Annotation.define<boolean>();
// The page's CSP admits <style> elements only with the nonce the app put in this meta tag.
const styleNonce = document.querySelector<HTMLMetaElement>('meta[name="vmark-style-nonce"]')?.content ?? "";

export class SourceEditor implements Editor {
  readonly mode = "source" as const;
  private view: EditorView;

  constructor(parent: HTMLElement, text: string, kind: string, hooks: EditorHooks, readOnly: boolean) {
    const listener = EditorView.updateListener.of((update) => {
      const remote = update.transactions.some((tr) => tr.annotation(fromElsewhere));
      if (remote) return;
      if (update.docChanged) hooks.onChange();
      if (update.selectionSet) {
        // The app counts code points; CodeMirror counts UTF-16 units.
        const range = update.state.selection.main;
        const prefix = update.state.doc.sliceString(0, range.to);
        hooks.onSelection(codePointOffset(prefix, range.from), codePointOffset(prefix, range.to));
      }
    });
    const composition = EditorView.domEventHandlers(compositionHandlers(hooks));
    this.view = new EditorView({
      parent,
      state: EditorState.create({
        doc: text,
        extensions: [
          basicSetup,
          kind === "yaml-workflow" ? yaml() : markdown(),
          EditorView.lineWrapping,
          EditorView.cspNonce.of(styleNonce),
          EditorState.readOnly.of(readOnly),
          listener,
          composition,
        ],
      }),
    });
  }

  getText(): string {
    return this.view.state.doc.toString();
  }

  setText(text: string): void {
    const span = diffSpan(this.getText(), text);
    if (span) this.view.dispatch({ changes: span, annotations: fromElsewhere.of(true) });
  }

  composing(): boolean {
    return this.view.composing;
  }

  focus(): void {
    this.view.focus();
  }

  destroy(): void {
    this.view.destroy();
  }
}
