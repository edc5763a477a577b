// "Save as": the person names a new file for the active tab (a Markdown file anywhere, or a workflow
// inside .github/workflows). The app never replaces an existing file; a refusal stays in the dialog
// so the person can choose another name.
import { byId, toast } from "./dom";
import { type Channel, errorText } from "./protocol";
import type { TabSync } from "./tabsync";

export type SaveAsTab = Pick<TabSync, "tabId" | "flush">;

export class SaveAsDialog {
  private dialog = byId<HTMLDialogElement>("save-as");
  private path = byId<HTMLInputElement>("save-as-path");
  private error = byId("save-as-error");
  /** The tab the open dialog saves. */
  private tab: SaveAsTab | null = null;

  constructor(
    private channel: Channel,
    private active: () => SaveAsTab | null,
    private onSaved: () => void,
  ) {
    byId("save-as-open").addEventListener("click", () => void this.open());
    byId("save-as-cancel").addEventListener("click", () => this.dialog.close());
    byId("save-as-form").addEventListener("submit", (event) => {
      event.preventDefault();
      void this.save();
    });
  }

  private async open(): Promise<void> {
    const tab = this.active();
    if (!tab) {
      toast("Open or create a document first", "warning");
      return;
    }
    try {
      const { filePath } = await this.channel.request("ui.read", { tabId: tab.tabId });
      this.tab = tab;
      this.path.value = filePath ?? "";
      this.showError("");
      if (!this.dialog.open) this.dialog.showModal();
      this.path.focus();
    } catch (err) {
      toast(errorText(err), "error");
    }
  }

  private async save(): Promise<void> {
    const tab = this.tab;
    const path = this.path.value.trim();
    if (!tab) return;
    if (!path) {
      this.showError("Type the full path of the new file");
      return;
    }
    try {
      await tab.flush(); // the file gets the person's latest keystrokes too
      const saved = await this.channel.request("ui.save_as", { tabId: tab.tabId, path });
      this.dialog.close();
      this.tab = null;
      toast(`Saved as ${saved.filePath}`);
      this.onSaved();
    } catch (err) {
      this.showError(errorText(err));
    }
  }

  private showError(text: string): void {
    this.error.textContent = text;
    this.error.hidden = text === "";
  }
}
