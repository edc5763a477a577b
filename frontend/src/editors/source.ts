// Source mode: CodeMirror 6 on the raw Markdown or workflow YAML.
import { basicSetup } from "codemirror";
import { markdown } from "@codemirror/lang-markdown";
import { yaml } from "@codemirror/lang-yaml";
import { Annotation, type ChangeSet, EditorState, type Extension, type Text, Transaction } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { sourceAnchorEffect, sourceAnchors } from "./anchors";
import { type CommentAnchor, codePoints, compositionHandlers, type Editor, type EditorHooks, type Replacement, type SelectionInfo } from "./editor";
import { codePointOffset, inheritBasicPlane, isBasicPlane } from "../shared/merge";
import type { ReviewMark } from "./reviewmodel";
import { revealSourceReview, sourceReview, sourceReviewEffect } from "./reviewsource";
import { sourceKeys } from "./sourcekeys";
import { sourceLinks, wikilinkSyntax } from "./linkscm";
import { sourcePaste } from "./paste/sourcepaste";
import { sourceWriting } from "./writing/cm";

const fromElsewhere = Annotation.define<boolean>();
// The page's CSP admits <style> elements only with the nonce the app put in this meta tag (read when an editor
// is made, so the module loads without a DOM: the tab sync's Node tests import it).
function styleNonce(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="vmark-style-nonce"]')?.content ?? "";
}

export class SourceEditor implements Editor {
  readonly mode = "source" as const;
  private view: EditorView;

  constructor(
    parent: HTMLElement,
    text: Text,
    kind: string,
    hooks: EditorHooks,
    readOnly: boolean,
    extra: Extension[] = [],
  ) {
    const listener = EditorView.updateListener.of((update) => {
      if (update.docChanged) inheritBasicPlane(update.startState.doc, update.changes, update.state.doc);
      const remote = update.transactions.some((tr) => tr.annotation(fromElsewhere));
      if (remote) return;
      if (update.docChanged) hooks.onChange(update.changes);
      if (update.selectionSet) {
        const { from, to } = selectionIn(update.state);
        hooks.onSelection(from, to);
      }
    });
    const composition = EditorView.domEventHandlers(compositionHandlers(hooks));
    this.view = new EditorView({
      parent,
      state: EditorState.create({
        doc: text,
        extensions: [
          basicSetup,
          kind === "yaml-workflow" ? yaml() : [markdown({ extensions: [wikilinkSyntax] }), sourceLinks()],
          EditorView.lineWrapping,
          EditorView.cspNonce.of(styleNonce()),
          EditorState.readOnly.of(readOnly),
          listener,
          composition,
          sourceAnchors,
          sourceReview,
          sourceKeys(),
          kind === "markdown" ? sourcePaste() : [],
          kind === "markdown" ? sourceWriting() : [],
          ...extra,
        ],
      }),
    });
  }

  getText(): string {
    return this.view.state.doc.toString();
  }

  selection(): SelectionInfo {
    return selectionIn(this.view.state);
  }

  prepareReplace(_content: string): Replacement {
    const selection = this.selection();
    return { selection, replaced: codePoints(selection.text), changes: null };
  }

  replaceSelection(content: string): void {
    this.view.dispatch(this.view.state.replaceSelection(content));
  }

  /**
   * A change from elsewhere (an agent, another window, the file on disk) is no step of this window's undo:
   * Ctrl+Z undoes the person's own typing here, mapped through it (an agent's change is judged by Accept / Reject).
   */
  applyRemote(changes: ChangeSet, review?: ReviewMark[]): void {
    this.view.dispatch({ changes, annotations: [fromElsewhere.of(true), Transaction.addToHistory.of(false)] });
    if (review) this.setReview(review);
  }

  composing(): boolean {
    return this.view.composing;
  }

  setAnchors(anchors: CommentAnchor[]): void {
    this.view.dispatch({ effects: sourceAnchorEffect(anchors, () => this.getText()) });
  }

  setReview(marks: ReviewMark[]): void {
    this.view.dispatch({ effects: sourceReviewEffect(marks) });
  }

  revealReview(id: string): boolean {
    return revealSourceReview(this.view, id);
  }

  focus(): void {
    this.view.focus();
  }

  destroy(): void {
    this.view.destroy();
  }
}

/** The main selection in code points (the app's unit; CodeMirror counts UTF-16 units). */
function selectionIn(state: EditorState): SelectionInfo {
  const range = state.selection.main;
  const text = state.sliceDoc(range.from, range.to);
  if (isBasicPlane(state.doc)) return { from: range.from, to: range.to, text };
  const prefix = state.doc.sliceString(0, range.to);
  return { from: codePointOffset(prefix, range.from), to: codePointOffset(prefix, range.to), text };
}
