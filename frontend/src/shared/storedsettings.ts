// The page's one reading of the stored settings: asked of the app once when the page connects and again when the
// settings dialog closes (a choice made there applies then), and handed to every part that follows a setting
// (theme, writing modes, save automatically). One `settings.list` per reading, however many parts listen.
import type { Channel } from "./protocol";

/** The stored value of each setting by key; `null` when the app could not be asked (each part keeps its default). */
export type SettingValues = ReadonlyMap<string, unknown> | null;

export type SettingsListener = (values: SettingValues) => void;

export class StoredSettings {
  private listeners: SettingsListener[] = [];

  constructor(private channel: Channel) {
    document.getElementById("settings")?.addEventListener("close", () => void this.load());
  }

  /** `listener` hears every reading from now on. */
  listen(listener: SettingsListener): void {
    this.listeners.push(listener);
  }

  /** Ask the app for the settings and tell every listener. */
  async load(): Promise<void> {
    let values: SettingValues = null;
    try {
      const { settings } = await this.channel.request("settings.list", {});
      values = new Map(settings.map((s) => [s.key, s.value]));
    } catch {
      // The app answers settings later: every part keeps what it shows meanwhile.
    }
    for (const listener of this.listeners) listener(values);
  }
}
