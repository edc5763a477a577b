// "Save automatically" (the `editor.save_automatically` setting, off by default): a document with a
// file is saved shortly after the person stops typing. While it is off nothing here runs, so unsaved
// work stays unsaved (dirty) and closing still asks.
import { toast } from "../shared/dom";
import { type Channel, errorText } from "../shared/protocol";
import type { SettingValues, StoredSettings } from "../shared/storedsettings";

export const AUTOSAVE_DELAY_MS = 1000;

export class AutoSave {
  private enabled = false;
  private timers = new Map<string, number>();

  constructor(
    private channel: Channel,
    private flush: (tabId: string) => Promise<void>,
    stored: StoredSettings,
  ) {
    stored.listen((values) => this.follow(values));
  }

  /** The setting as stored; off while the app cannot say. */
  private follow(values: SettingValues): void {
    this.enabled = values?.get("editor.save_automatically") === true;
    if (!this.enabled) {
      for (const timer of this.timers.values()) window.clearTimeout(timer);
      this.timers.clear();
    }
  }

  /** The window's tabs as the app last described them. */
  consider(tabs: { id: string; filePath: string | null; dirty: boolean }[]): void {
    if (!this.enabled) return;
    for (const tab of tabs) {
      if (!tab.dirty || !tab.filePath) continue;
      window.clearTimeout(this.timers.get(tab.id));
      this.timers.set(
        tab.id,
        window.setTimeout(() => {
          this.timers.delete(tab.id);
          void this.save(tab.id);
        }, AUTOSAVE_DELAY_MS),
      );
    }
  }

  private async save(tabId: string): Promise<void> {
    try {
      await this.flush(tabId);
      await this.channel.request("ui.save", { tabId });
    } catch (err) {
      toast(`Saving automatically failed: ${errorText(err)}`, "error");
    }
  }
}
