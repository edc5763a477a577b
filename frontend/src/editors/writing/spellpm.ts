// Spelling in WYSIWYG: the browser's checker runs on the editor's text when the setting says so (the
// `spellcheck` attribute of the editable root), never in code: code blocks, front matter, math and HTML blocks
// (`code` textblocks, in their node views: mdsource/views.ts, rich.ts) and inline code (the `code` mark's
// element, mdsource/schema.ts) say `spellcheck="false"` themselves. No decorations: a long document's
// decorations cost a redraw check of every top-level block.
import { Plugin } from "prosemirror-state";
import { prefs } from "./prefs";

/** The editable root's `spellcheck`, as the setting says. */
export function spellPlugin(): Plugin {
  return new Plugin({
    props: { attributes: () => ({ spellcheck: prefs.spellcheck ? "true" : "false" }) },
  });
}
