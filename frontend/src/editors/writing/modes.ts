// The writing modes' controls: the settings they are remembered in (`editor.spellcheck`, `editor.focus_mode`,
// `editor.typewriter_mode`), loaded when the page connects and again when the settings dialog closes; the palette's
// toggles; the keys (F8 focus mode, F9 typewriter mode: no editor or browser uses them); and the height the
// typewriter pads the text with (half the editor's, so its first and last lines can be centred too).
import { toast } from "../../shared/dom";
import type { PickItem } from "../../shared/command";
import { type Channel, errorText } from "../../shared/protocol";
import type { SettingValues, StoredSettings } from "../../shared/storedsettings";
import { onPrefs, prefs, setPrefs, type WritingPrefs } from "./prefs";

const SETTING: Record<keyof WritingPrefs, string> = {
  spellcheck: "editor.spellcheck",
  focus: "editor.focus_mode",
  typewriter: "editor.typewriter_mode",
};
const WORDS: Record<keyof WritingPrefs, string> = { spellcheck: "Spell checking", focus: "Focus mode", typewriter: "Typewriter mode" };
const KEYS: Partial<Record<string, keyof WritingPrefs>> = { F8: "focus", F9: "typewriter" };

export class WritingModes {
  constructor(
    private channel: Channel,
    editorHost: HTMLElement,
    stored: StoredSettings,
  ) {
    stored.listen((values) => this.follow(values));
    document.addEventListener(
      "keydown",
      (event) => {
        const which = KEYS[event.key];
        if (!which || event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
        event.preventDefault();
        void this.toggle(which);
      },
      { capture: true },
    );
    // Only typewriter mode reads the height, and only a new one is written: a custom property is inherited, so
    // setting it restyles every block of the editor (in a long document, the review bar showing or hiding cost a
    // whole restyle and relayout of the text).
    let half = "";
    const measure = (): void => {
      if (!prefs.typewriter) return;
      const value = `${Math.round(editorHost.clientHeight / 2)}px`;
      if (value === half) return;
      half = value;
      editorHost.style.setProperty("--half-view", value);
    };
    new ResizeObserver(measure).observe(editorHost);
    onPrefs(measure);
    setPrefs({});
  }

  /** The stored settings; the defaults stand until the app answers. */
  private follow(values: SettingValues): void {
    if (values === null) return;
    const value = (key: keyof WritingPrefs): boolean | undefined => {
      const stored = values.get(SETTING[key]);
      return typeof stored === "boolean" ? stored : undefined;
    };
    setPrefs({ spellcheck: value("spellcheck"), focus: value("focus"), typewriter: value("typewriter") });
  }

  /** The palette's toggles (the toast after one says whether it is on now). */
  commands(): PickItem[] {
    const item = (which: keyof WritingPrefs, hint?: string): PickItem => ({
      label: `Toggle ${WORDS[which].toLowerCase()}`,
      hint,
      run: () => this.toggle(which),
    });
    return [item("focus", "F8"), item("typewriter", "F9"), item("spellcheck")];
  }

  /** Turn one on or off, now and in the settings (the page keeps it even if storing fails: it says so). */
  async toggle(which: keyof WritingPrefs): Promise<void> {
    const next = !prefs[which];
    setPrefs({ [which]: next });
    toast(`${WORDS[which]} ${next ? "on" : "off"}`);
    try {
      await this.channel.request("settings.set", { key: SETTING[which], value: next });
    } catch (err) {
      toast(`${WORDS[which]} is not remembered: ${errorText(err)}`, "error");
    }
  }
}
