// Light and dark themes: the `editor.theme` setting ("system" follows the OS's prefers-color-scheme,
// or "light" / "dark"); the toolbar's theme button cycles it. The page's colours all come from the
// variables theme.css sets for `:root[data-theme]`.
import { el, toast } from "../shared/dom";
import { type Channel, errorText } from "../shared/protocol";
import { setRemoteImages } from "../shared/renderctx";
import type { SettingValues, StoredSettings } from "../shared/storedsettings";

export type ThemeChoice = "system" | "light" | "dark";

const dark = window.matchMedia("(prefers-color-scheme: dark)");
let choice: ThemeChoice = "system";

export function applyTheme(next: ThemeChoice = choice): void {
  choice = next;
  const shown = choice === "system" ? (dark.matches ? "dark" : "light") : choice;
  document.documentElement.dataset.theme = shown;
  document.documentElement.dataset.themeChoice = choice;
  const button = document.getElementById("theme-toggle");
  if (button) {
    const words = { system: "Theme: follows the system", light: "Theme: light", dark: "Theme: dark" }[choice];
    button.title = `${words} (click to change)`;
    button.setAttribute("aria-label", words);
    button.dataset.choice = choice;
  }
}

dark.addEventListener("change", () => applyTheme());
applyTheme();

export class ThemeSwitch {
  constructor(
    private channel: Channel,
    stored: StoredSettings,
  ) {
    const button = el("button", { id: "theme-toggle", type: "button", "data-command": "Switch theme" }, "Theme");
    button.addEventListener("click", () => void this.cycle());
    document.getElementById("settings-open")?.before(button);
    stored.listen((values) => this.follow(values));
    applyTheme();
  }

  /** The stored choice; until the app answers, the OS's choice stands. */
  private follow(values: SettingValues): void {
    if (values === null) return;
    const stored = values.get("editor.theme");
    if (stored === "light" || stored === "dark" || stored === "system") applyTheme(stored);
    setRemoteImages(values.get("editor.remote_images") !== false);
  }

  async cycle(): Promise<void> {
    const next: ThemeChoice = choice === "system" ? (dark.matches ? "light" : "dark") : choice === "dark" ? "light" : "system";
    applyTheme(next);
    try {
      await this.channel.request("settings.set", { key: "editor.theme", value: next });
    } catch (err) {
      toast(errorText(err), "error");
    }
  }
}
