// The writing aids of WYSIWYG mode, as one list of ProseMirror plugins (wysiwyg.ts adds them): soft line breaks
// shown as spaces, spell checking in prose only, focus mode and typewriter mode.
import type { Plugin } from "prosemirror-state";
import { focusPlugin } from "./focuspm";
import { softBreakPlugin } from "./softbreaks";
import { spellPlugin } from "./spellpm";

export function wysiwygWriting(): Plugin[] {
  return [softBreakPlugin(), spellPlugin(), focusPlugin()];
}
