// The writing aids of WYSIWYG mode, as one list of ProseMirror plugins (wysiwyg.ts adds them).
import type { Plugin } from "prosemirror-state";
import { softBreakPlugin } from "./softbreaks";

export function wysiwygWriting(): Plugin[] {
  return [softBreakPlugin()];
}
