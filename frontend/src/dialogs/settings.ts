// The settings dialog, generated from the app's one settings table (`settings.list`), grouped and in
// words: booleans are switches, settings with a fixed set of values a choice, whole numbers number
// inputs, lists of strings text areas with one entry per line, other strings text inputs. A field is stored as soon as it changes; a refused value (`settings.set` answers why) is
// shown beside its field and nothing is stored.
// First comes "Prompts for agents": the person's prompt files (`prompts.list`), each opened in a tab to edit
// like any document (saving it is what agents then get); a malformed one says what is wrong with it.
import { byId, el, toast } from "../shared/dom";
import { type Channel, errorText } from "../shared/protocol";
import type { PromptFile } from "../wire.gen";

interface Setting {
  key: string;
  type: string;
  value: unknown;
  default: unknown;
}

interface Meta {
  title: string;
  group: string;
  help?: string;
  /** A choice among these values (value, words). */
  choices?: [string, string][];
}

/** The groups, in the order the dialog shows them. */
const GROUPS = ["Editor", "Saving", "Export", "AI agents and review", "Browser", "CJK formatting", "Provenance checker", "Other"];

/** Words, group and control for each setting; a key missing here shows as itself under "Other". */
const META: Record<string, Meta> = {
  "editor.theme": {
    title: "Theme",
    group: "Editor",
    choices: [["system", "Follow the system"], ["light", "Light"], ["dark", "Dark"]],
  },
  "editor.default_mode": {
    title: "Open Markdown files in",
    group: "Editor",
    choices: [["wysiwyg", "WYSIWYG"], ["source", "Source"]],
    help: "A file you switched to the other mode opens in that mode again.",
  },
  "editor.remote_images": { title: "Show images from the web (https)", group: "Editor", help: "Takes effect when the page reloads." },
  "editor.image_folder": {
    title: "Folder for pasted images",
    group: "Editor",
    help: "Relative to the document's folder; created when the first image is pasted or dropped.",
  },
  "editor.spellcheck": { title: "Check spelling", group: "Editor", help: "Your browser's spell checker, in prose only (never in code or math)." },
  "editor.focus_mode": { title: "Focus mode", group: "Editor", help: "The paragraph you are in stands out, the rest is dimmed (F8)." },
  "editor.typewriter_mode": { title: "Typewriter mode", group: "Editor", help: "The line you type on stays in the middle of the editor (F9)." },
  "editor.save_automatically": { title: "Save automatically", group: "Saving", help: "Saves a file a moment after you stop typing." },
  "export.page_size": { title: "PDF page size", group: "Export", choices: [["A4", "A4"], ["Letter", "US Letter"]] },
  "export.margin_mm": { title: "PDF margins (millimetres)", group: "Export", help: "On every side of a page; 0 to 60." },
  auto_approve_save_as: { title: "Let agents save to a new location without asking", group: "Saving" },
  review_backlog_limit: { title: "Unreviewed AI revisions allowed per document", group: "AI agents and review" },
  readable_roots: {
    title: "Folders agents may always read (one per line)",
    group: "AI agents and review",
    help: "Your home folder is always one. The Open and Save as dialogs list these folders too.",
  },
  "browser.enabled": { title: "Let agents use the browser", group: "Browser" },
  "browser.posture": {
    title: "Browser profile for agents",
    group: "Browser",
    choices: [["sandbox", "Sandbox (a separate, empty profile)"], ["shared", "Shared (your signed-in profile)"]],
  },
  "browser.allow_private_network": { title: "Let the AI browser reach private networks", group: "Browser" },
  "cjk.spacing": { title: "Space between CJK and Latin text", group: "CJK formatting" },
  "cjk.punctuation": { title: "Full-width punctuation next to CJK", group: "CJK formatting" },
  "cjk.fullwidth_alphanumeric": { title: "Full-width letters and digits to ASCII", group: "CJK formatting" },
  "cjk.brackets": { title: "Full-width brackets around CJK", group: "CJK formatting" },
  "cjk.dash": { title: "CJK dash for -- between CJK", group: "CJK formatting" },
  "cjk.ellipsis": { title: "Spaced dots to an ellipsis", group: "CJK formatting" },
  "cjk.punctuation_limit": { title: "Repeated punctuation kept (0: off)", group: "CJK formatting" },
  "cjk.quotes": { title: "Typographic quotes around CJK", group: "CJK formatting" },
  "cjk.quote_style": {
    title: "Quote style",
    group: "CJK formatting",
    choices: [["curly", "Curly “ ”"], ["corner", "Corner brackets 「 」"], ["guillemets", "Guillemets « »"]],
  },
  "cjk.cleanup": { title: "Tidy spaces", group: "CJK formatting" },
  "coherence.checker": {
    title: "Contradiction checker",
    group: "Provenance checker",
    choices: [["off", "Off"], ["command", "A command"], ["openai", "An OpenAI-compatible service"]],
  },
  "coherence.checker_command": { title: "Checker command (one argument per line)", group: "Provenance checker" },
  "coherence.checker_url": { title: "Service address", group: "Provenance checker" },
  "coherence.checker_model": { title: "Model", group: "Provenance checker" },
  "coherence.checker_api_key_env": { title: "Environment variable holding the API key", group: "Provenance checker" },
  "coherence.checker_timeout_s": { title: "Time limit (seconds)", group: "Provenance checker" },
};

type Field = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

export class SettingsDialog {
  private dialog = byId<HTMLDialogElement>("settings");
  private fields = byId("settings-fields");

  constructor(
    private channel: Channel,
    /** Open a file in a tab (a prompt file is edited like any document). */
    private openFile: (path: string) => Promise<void>,
  ) {
    byId("settings-open").addEventListener("click", () => void this.open());
    byId("settings-close").addEventListener("click", () => this.dialog.close());
  }

  private async open(): Promise<void> {
    try {
      const [{ settings }, prompts] = await Promise.all([
        this.channel.request("settings.list", {}),
        this.channel.request("prompts.list", {}),
      ]);
      const groups = new Map<string, HTMLElement[]>(GROUPS.map((g) => [g, []]));
      for (const setting of settings) groups.get(META[setting.key]?.group ?? "Other")?.push(this.row(setting));
      this.fields.replaceChildren(
        this.promptsGroup(prompts.folder, prompts.prompts),
        ...[...groups]
          .filter(([, rows]) => rows.length > 0)
          .map(([group, rows]) => el("fieldset", { class: "settings-group" }, el("legend", {}, group), ...rows)),
      );
      if (!this.dialog.open) this.dialog.showModal();
    } catch (err) {
      toast(errorText(err), "error");
    }
  }

  /** The person's prompt templates: what agents are offered, each one edited in a tab. */
  private promptsGroup(folder: string, files: PromptFile[]): HTMLElement {
    const rows = files.map((file) => {
      const base = file.file.split("/").pop() ?? file.file;
      const edit = el("button", { type: "button", class: "prompt-edit", title: `Open ${file.file} in a tab` }, "Edit");
      edit.addEventListener("click", () => void this.edit(file.file));
      const words = file.error === null
        ? el("span", { class: "prompt-description" }, file.description ?? "")
        : el("span", { class: "prompt-error", role: "alert" }, `Not offered to agents: ${file.error}`);
      const name = el("span", { class: "prompt-name" }, file.title ?? file.name ?? base);
      // The file's name beside the prompt's title (a malformed file has only its file name)
      const where = el("code", { class: "prompt-base" }, file.error === null ? base : "");
      const row = el("div", { class: "prompt-file", "data-file": base, "data-state": file.error === null ? "ok" : "error" },
        name, where, edit, words);
      return row;
    });
    const add = el("button", { type: "button", class: "prompt-new" }, "New prompt");
    add.addEventListener("click", () => void this.create());
    const help = el("p", { class: "setting-help" },
      "Agents get these as prompts (with the tab and its selection filled in). Edit one, save it, and agents see the change.");
    return el("fieldset", { class: "settings-group prompts", "data-testid": "prompts" },
      el("legend", {}, "Prompts for agents"), help, ...rows,
      el("div", { class: "prompt-actions" }, add, el("code", { class: "prompt-folder", title: "Where the prompt files are" }, folder)));
  }

  private async edit(path: string): Promise<void> {
    this.dialog.close();
    await this.openFile(path).catch((err) => toast(errorText(err), "error"));
  }

  private async create(): Promise<void> {
    try {
      const { file } = await this.channel.request("prompts.new", {});
      await this.edit(file);
    } catch (err) {
      toast(errorText(err), "error");
    }
  }

  private row(setting: Setting): HTMLElement {
    const id = `setting-${setting.key.replace(/[^A-Za-z0-9_-]/g, "-")}`;
    const meta = META[setting.key];
    const field = fieldFor(setting, meta);
    field.id = id;
    const status = el("span", { class: "setting-status", role: "status" });
    const label = el("label", { for: id }, meta?.title ?? setting.key);
    const key = el("code", { class: "setting-key", title: "The setting's name (for `vmark settings`)" }, setting.key);
    const row = el("div", { class: `setting setting-${setting.type}${meta?.choices ? " setting-choice" : ""}`, "data-key": setting.key }, label, field, key);
    if (meta?.help) row.append(el("span", { class: "setting-help" }, meta.help));
    row.append(status);
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
      const saved = await this.channel.request("settings.set", { key, value });
      write(type, field, saved.value);
      show(row, status, "saved", "Saved");
    } catch (err) {
      show(row, status, "error", errorText(err));
    }
  }
}

function fieldFor(setting: Setting, meta: Meta | undefined): Field {
  let field: Field;
  if (meta?.choices) {
    const known = meta.choices.some(([value]) => value === setting.value);
    const options = known ? meta.choices : [...meta.choices, [String(setting.value), String(setting.value)] as [string, string]];
    field = el("select", {}, ...options.map(([value, words]) => el("option", { value }, words)));
  } else if (setting.type === "bool") field = el("input", { type: "checkbox", role: "switch", class: "switch" });
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
