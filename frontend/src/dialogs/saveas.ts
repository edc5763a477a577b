// "Save as": the person names a new file for the active tab in the picker (a Markdown file, or a workflow inside
// .github/workflows), in a folder the picker lists. The app never replaces an existing file: the picker says so as
// the name is typed, and a refusal of the app stays in the dialog so the person can choose another name.
import { byId, toast } from "../shared/dom";
import { filePicker } from "./picker";
import { baseName, dirName } from "./pickerpaths";
import { type Channel, errorText } from "../shared/protocol";
import type { TabSync } from "../sync/tabsync";

export type SaveAsTab = Pick<TabSync, "tabId" | "flush">;

export class SaveAsDialog {
  constructor(
    private channel: Channel,
    private active: () => SaveAsTab | null,
    private onSaved: () => void,
    /** Where an untitled document's Save as starts (the window's workspace), if anywhere. */
    private folder: () => string | null,
  ) {
    byId("save-as-open").addEventListener("click", () => void this.open());
  }

  private async open(): Promise<void> {
    const tab = this.active();
    if (!tab) {
      toast("Open or create a document first", "warning");
      return;
    }
    let filePath: string | null;
    try {
      ({ filePath } = await this.channel.request("ui.read", { tabId: tab.tabId }));
    } catch (err) {
      toast(errorText(err), "error");
      return;
    }
    await filePicker(this.channel).open({
      mode: "save",
      start: filePath ? dirName(filePath) : this.folder(),
      name: filePath ? baseName(filePath) : "",
      own: filePath,
      choose: async (path) => {
        await tab.flush(); // the file gets the person's latest keystrokes too
        const saved = await this.channel.request("ui.save_as", { tabId: tab.tabId, path });
        toast(`Saved as ${saved.filePath}`);
        this.onSaved();
      },
    });
  }
}
