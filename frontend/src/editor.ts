// What a tab needs from an editor, whichever mode it shows.

export interface EditorHooks {
  /** The person changed the text (not called for `setText`). */
  onChange(): void;
  /** An input method started or finished composing. */
  onComposition(state: "start" | "end"): void;
  /** The person moved the selection (positions in the mode's own units). */
  onSelection(from: number, to: number): void;
}

export interface Editor {
  readonly mode: "source" | "wysiwyg";
  /** The text the app should have: the document, or the WYSIWYG editor's serialization of it. */
  getText(): string;
  /** Load a text from elsewhere as one undoable step, keeping the selection where it can. */
  setText(text: string): void;
  composing(): boolean;
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
