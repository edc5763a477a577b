// What a tab needs from an editor, whichever mode it shows.
//
// The Markdown text is the truth in both modes: an editor holds the document's exact text (every line
// break shown as "\n") and reports each of the person's edits as a ChangeSet of that text, never as a
// re-serialization. WYSIWYG is a view built from a parse of the text that keeps source ranges.
import type { ChangeSet } from "@codemirror/state";
import type { ReviewMark } from "./reviewmodel";

export interface EditorHooks {
  /**
   * The person changed the text: `changes` maps the text before (as `getText()` gave it) to the text
   * after, in UTF-16 units. Not called for `applyRemote`.
   */
  onChange(changes: ChangeSet): void;
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
  /** The raw selected text (source) or the Markdown of the selected excerpt (WYSIWYG). */
  text: string;
}

/** `selection.set` prepared: what replacing the selection would do, not done yet. */
export interface Replacement {
  selection: SelectionInfo;
  /** Code points of the text that was selected. */
  replaced: number;
  /**
   * WYSIWYG: the change of the text it makes (UTF-16 units of `getText()`), the agent's Markdown spliced
   * in where the selection's source is; source: null (the app splices the raw text itself).
   */
  changes: ChangeSet | null;
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
  /** The rules of `selection.set` for `content`, computed, not applied (the app answers with a `doc` change). */
  prepareReplace(content: string): Replacement;
  /** The person's own replacement of the selection (reported through `onChange`), same rules. */
  replaceSelection(content: string): void;
  /** The document's text, exactly (line breaks as "\n"). */
  getText(): string;
  /**
   * A change from elsewhere (an agent, another window, the disk) of the text `getText()` gives, as one
   * undoable step; the selection is mapped through it. Not reported through `onChange`. `review`: the
   * pending changes of the text after it, shown with it (as `setReview` would, in the same redraw).
   */
  applyRemote(changes: ChangeSet, review?: ReviewMark[]): void;
  composing(): boolean;
  /** Highlight these comment anchors (replacing the ones shown); they follow edits until the next call. */
  setAnchors(anchors: CommentAnchor[]): void;
  /** Show these pending changes (UTF-16 offsets of `getText()`), replacing the ones shown; they follow edits until the next call. */
  setReview(marks: ReviewMark[]): void;
  /** Bring pending change `id` into view where the editor draws only what is near it (false: not shown here). */
  revealReview?(id: string): boolean;
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
