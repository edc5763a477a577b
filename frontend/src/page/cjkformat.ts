// "Format selection" (the header button #cjk-format): the selection of a Markdown tab formatted with the
// person's CJK rules by `ui.cjk_format` (the engine and settings of `document.transform` kind `cjk-format`),
// then put back through the editor as the person's own edit (reported and undoable like typing).
import { byId, toast } from "../shared/dom";
import { type Channel, errorText } from "../shared/protocol";
import type { TabSync } from "../sync/tabsync";

/** Wire the button to whatever tab the page shows when it is clicked. */
export function wireCjkFormat(channel: Channel, current: () => TabSync | null): void {
  byId("cjk-format").addEventListener("click", () => {
    formatSelection(channel, current()).catch((err) => toast(errorText(err), "error"));
  });
}

/** Format `tab`'s selection; says in a toast why nothing changed when nothing does. */
export async function formatSelection(channel: Channel, tab: TabSync | null): Promise<void> {
  const editor = tab?.editor;
  if (!tab || !editor || tab.kind !== "markdown") {
    toast("Format selection works on a Markdown document: open one first", "warning");
    return;
  }
  if (tab.readOnly) {
    toast("This document is read-only", "warning");
    return;
  }
  const selected = editor.selection();
  if (selected.text === "") {
    toast("Nothing is selected: select the text to format", "info");
    return;
  }
  const { text } = await channel.request("ui.cjk_format", { text: selected.text });
  if (text === selected.text) {
    toast("The selection is already formatted", "info");
    return;
  }
  // The answer is for the text that was selected: if the person moved on meanwhile, it fits nothing.
  const now = tab.editor === editor ? editor.selection() : null;
  if (!now || now.from !== selected.from || now.to !== selected.to || now.text !== selected.text) {
    toast("The selection changed while it was being formatted: nothing was changed", "warning");
    return;
  }
  editor.replaceSelection(text);
  editor.focus();
}
