// The settings dialog, generated from the app's one settings table (`settings.list`): booleans are
// checkboxes, whole numbers number inputs, lists of strings text areas with one entry per line, strings
// text inputs. A field is stored as soon as it changes; a refused value (`settings.set` answers why) is
// shown beside its field and nothing is stored.
import { byId, el, toast } from "./dom";
import { type Channel, errorText } from "./protocol";

interface Setting {
  key: string;
  type: string;
  value: unknown;
  default: unknown;
}

type Field = HTMLInputElement | HTMLTextAreaElement;

/** Words for the settings a person meets first; any other key (cjk.*, ...) is shown as itself. */
const TITLES: Record<string, string> = {
  auto_approve_save_as: "Auto-approve saves to a new location",
  review_backlog_limit: "Unreviewed AI revisions allowed per document",
  readable_roots: "Always-readable folders (one per line)",
  "browser.allow_private_network": "Let the AI browser reach private networks",
};

export class SettingsDialog {
  private dialog = byId<HTMLDialogElement>("settings");
  private fields = byId("settings-fields");

  constructor(private channel: Channel) {
    byId("settings-open").addEventListener("click", () => void this.open());
    byId("settings-close").addEventListener("click", () => this.dialog.close());
  }

  private async open(): Promise<void> {
    try {
      const { settings } = await this.channel.request<{ settings: Setting[] }>("settings.list");
      this.fields.replaceChildren(...settings.map((s) => this.row(s)));
      if (!this.dialog.open) this.dialog.showModal();
    } catch (err) {
      toast(errorText(err), "error");
    }
  }

  private row(setting: Setting): HTMLElement {
    const id = `setting-${setting.key.replace(/[^A-Za-z0-9_-]/g, "-")}`;
    const field = fieldFor(setting);
    field.id = id;
    const status = el("span", { class: "setting-status", role: "status" });
    const label = el("label", { for: id }, TITLES[setting.key] ?? setting.key);
    if (TITLES[setting.key]) label.append(" ", el("code", {}, setting.key));
    const row = el("div", { class: `setting setting-${setting.type}`, "data-key": setting.key }, label, field, status);
    field.addEventListener("change", () => void this.store(setting.key, setting.type, field, row, status));
    return row;
  }

  private async store(key: string, type: string, field: Field, row: HTMLElement, status: HTMLElement): Promise<void> {
    const value = read(type, field);
    if (value instanceof Error) {
      show(row, status, "error", value.message);
      return;
    }
    try {
      const saved = await this.channel.request<{ value: unknown }>("settings.set", { key, value });
      write(type, field, saved.value);
      show(row, status, "saved", "Saved");
    } catch (err) {
      show(row, status, "error", errorText(err));
    }
  }
}

function fieldFor(setting: Setting): Field {
  let field: Field;
  if (setting.type === "bool") field = el("input", { type: "checkbox" });
  else if (setting.type === "int") field = el("input", { type: "number", step: "1" });
  else if (setting.type === "list") field = el("textarea", { rows: "3", spellcheck: "false" });
  else field = el("input", { type: "text", spellcheck: "false" });
  write(setting.type, field, setting.value);
  return field;
}

/** The field's value in the setting's type, or why it has none. */
function read(type: string, field: Field): unknown {
  if (type === "bool") return (field as HTMLInputElement).checked;
  if (type === "list") {
    return field.value
      .split("\n")
      .map((entry) => entry.trim())
      .filter((entry) => entry !== "");
  }
  if (type === "int") {
    const number = Number(field.value.trim());
    if (field.value.trim() === "" || !Number.isSafeInteger(number)) return new Error("Enter a whole number");
    return number;
  }
  return field.value;
}

function write(type: string, field: Field, value: unknown): void {
  if (type === "bool") (field as HTMLInputElement).checked = value === true;
  else if (type === "list") field.value = Array.isArray(value) ? value.join("\n") : "";
  else field.value = String(value ?? "");
}

function show(row: HTMLElement, status: HTMLElement, state: "saved" | "error", text: string): void {
  row.dataset.state = state;
  status.textContent = text;
}
