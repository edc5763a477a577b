// What a tab needs from an editor, whichever mode it shows.

export interface EditorHooks {
  /** The person changed the text (not called for `setText`). */
  onChange(): void;
  /** An input method started or finished composing. */
  onComposition(state: "start" | "end"): void;
  /** The person moved the selection (positions in the mode's own units). */
  onSelection(from: number, to: number): void;
}

/** The selection as the `selection` tool reports it: in the mode's own position space. */
export interface SelectionInfo {
  /** Source mode: code points (what the app counts); WYSIWYG: ProseMirror positions. */
  from: number;
  to: number;
  /** The raw selected text (source) or the Markdown serialization of the selected excerpt (WYSIWYG). */
  text: string;
}

/** `selection.set` prepared: what replacing the selection would do, not done yet. */
export interface Replacement {
  selection: SelectionInfo;
  /** Code points of the text that was selected. */
  replaced: number;
  /** WYSIWYG: the document it would become (the editor's serialization); source: null (the app splices). */
  text: string | null;
}

/** A comment thread's anchor: code points `from..to` of the app's text, and the thread's quote. */
export interface CommentAnchor {
  id: string;
  from: number;
  to: number;
  quote: string;
}

export interface Editor {
  readonly mode: "source" | "wysiwyg";
  selection(): SelectionInfo;
  /** The rules of `selection.set` for `content`; the editor keeps the result ready for `setText`. */
  prepareReplace(content: string): Replacement;
  /**
   * An agent's full text, as this editor would hold it: WYSIWYG answers its serialization of the parsed
   * text (kept ready for `setText`), source answers null (the text is taken as it is).
   */
  prepareLoad(content: string): string | null;
  /** The person's own replacement of the selection (reported as their edit), same rules. */
  replaceSelection(content: string): void;
  /** The text the app should have: the document, or the WYSIWYG editor's serialization of it. */
  getText(): string;
  /** Load a text from elsewhere as one undoable step, keeping the selection where it can. */
  setText(text: string): void;
  composing(): boolean;
  /** Highlight these comment anchors (replacing the ones shown); they follow edits until the next call. */
  setAnchors(anchors: CommentAnchor[]): void;
  focus(): void;
  destroy(): void;
}

/** DOM handlers that report IME composition to the app (both editors report it the same way). */
export function compositionHandlers(hooks: EditorHooks): Record<"compositionstart" | "compositionend", () => boolean> {
  return {
    compositionstart: () => {
      hooks.onComposition("start");
      return false;
    },
    compositionend: () => {
      hooks.onComposition("end");
      return false;
    },
  };
}

/** Length in code points (what the app counts), not UTF-16 units. */
export function codePoints(text: string): number {
  return text.length - (text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);
}
