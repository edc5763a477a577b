// Export: the toolbar's Export menu (one entry per format), the palette's "Export as …" commands, and the
// dialog that names the file (a folder, the document's own by default, and a name: typed, or chosen in the
// app's picker) and shows the export's progress. The app makes the file (ui.export: src/vmark/export/): the
// document itself is only read.
import { el, menuArrows, toast } from "../shared/dom";
import type { PickItem } from "../shared/command";
import { filePicker } from "./picker";
import { baseName, dirName, resolveTyped } from "./pickerpaths";
import { type Channel, errorText, type Progress } from "../shared/protocol";
import type { ExportFormat } from "../wire.gen";

/** What the export needs of the active tab. */
export interface ExportTab {
  tabId: string;
  kind: string;
  filePath: string | null;
  /** the person's latest keystrokes reach the app first */
  flush(): Promise<void>;
}

export const FORMATS: { format: ExportFormat; label: string; suffix: string }[] = [
  { format: "html", label: "HTML", suffix: ".html" },
  { format: "pdf", label: "PDF", suffix: ".pdf" },
  { format: "docx", label: "Word (.docx)", suffix: ".docx" },
  { format: "odt", label: "OpenDocument (.odt)", suffix: ".odt" },
  { format: "epub", label: "EPUB", suffix: ".epub" },
];

/** A document's name without its suffix (`notes.md` -> `notes`). */
function stemOf(path: string): string {
  const name = baseName(path);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

export class ExportDialog {
  readonly button: HTMLButtonElement;
  private menu: HTMLElement | null = null;
  private dialog: HTMLDialogElement;
  private format: HTMLSelectElement;
  private folder: HTMLInputElement;
  private name: HTMLInputElement;
  private replace: HTMLInputElement;
  private progress: HTMLProgressElement;
  private status: HTMLElement;
  private error: HTMLElement;
  private confirm: HTMLButtonElement;
  private cancel: HTMLButtonElement;
  private browse: HTMLButtonElement;
  private tab: ExportTab | null = null;
  private busy = false;
  private phase = { message: "", base: 0, total: 0 };

  constructor(
    private channel: Channel,
    private active: () => ExportTab | null,
  ) {
    this.button = el(
      "button",
      { id: "export-open", type: "button", title: "Export the document as HTML, PDF, Word, OpenDocument or EPUB", "aria-haspopup": "menu", "aria-expanded": "false" },
      "Export",
    );
    this.button.addEventListener("click", () => (this.menu ? this.closeMenu() : this.openMenu()));
    document.getElementById("save-as-open")?.after(this.button);

    this.format = el("select", { id: "export-format" });
    for (const f of FORMATS) this.format.append(el("option", { value: f.format }, f.label));
    this.format.addEventListener("change", () => this.suffixName());
    this.folder = el("input", { id: "export-folder", type: "text", autocomplete: "off", spellcheck: "false", placeholder: "/path/to/folder" });
    this.name = el("input", { id: "export-name", type: "text", autocomplete: "off", spellcheck: "false" });
    this.browse = el("button", { type: "button", id: "export-browse", title: "Choose the folder and the name in the picker" }, "Choose…");
    this.browse.addEventListener("click", () => void this.pick());
    this.replace = el("input", { id: "export-replace", type: "checkbox" });
    this.progress = el("progress", { class: "export-progress", "data-testid": "export-progress" });
    this.progress.hidden = true;
    this.status = el("p", { class: "hint export-status", role: "status", "data-testid": "export-status" });
    this.error = el("p", { class: "dialog-error", role: "alert", "data-testid": "export-error" });
    this.error.hidden = true;
    this.cancel = el("button", { type: "button", id: "export-cancel" }, "Cancel");
    this.confirm = el("button", { type: "submit", id: "export-confirm" }, "Export");
    const form = el(
      "form",
      { id: "export-form" },
      el("h2", { id: "export-title" }, "Export"),
      el(
        "div",
        { class: "export-fields" },
        el("label", { for: "export-format" }, "Format"),
        this.format,
        el("label", { for: "export-folder" }, "Folder"),
        el("div", { class: "export-folder-row" }, this.folder, this.browse),
        el("label", { for: "export-name" }, "File name"),
        this.name,
      ),
      el("label", { class: "check export-replace", for: "export-replace" }, this.replace, "Replace the file if it exists"),
      el("p", { class: "hint" }, "The file goes inside the workspace or the document's folder. The document itself does not change."),
      this.progress,
      this.status,
      this.error,
      el("div", { class: "actions" }, this.cancel, this.confirm),
    );
    this.dialog = el("dialog", { id: "export-dialog", class: "dialog export-dialog", "data-testid": "export-dialog", "aria-labelledby": "export-title" }, form);
    document.body.append(this.dialog);
    this.cancel.addEventListener("click", () => this.dialog.close());
    this.dialog.addEventListener("cancel", (event) => {
      if (this.busy) event.preventDefault(); // the file is being made: the dialog stays to say how it ends
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.run();
    });
    document.addEventListener("mousedown", (event) => {
      if (this.menu && !this.menu.contains(event.target as Node) && event.target !== this.button) this.closeMenu();
    });
  }

  /** The palette's commands: one per format. */
  commands(): PickItem[] {
    return FORMATS.map((f) => ({ label: `Export as ${f.label}`, detail: "Export the document to a new file", run: () => this.open(f.format) }));
  }

  // --- the menu ----------------------------------------------------------------------------------------
  private openMenu(): void {
    this.closeMenu();
    const menu = el("div", { class: "menu export-menu", role: "menu", id: "export-menu", "aria-label": "Export as", "data-testid": "export-menu" });
    for (const f of FORMATS) {
      const item = el("button", { type: "button", role: "menuitem", "data-format": f.format }, f.label);
      item.addEventListener("click", () => {
        this.closeMenu();
        this.open(f.format);
      });
      menu.append(item);
    }
    menu.addEventListener("keydown", (event) => {
      if (menuArrows(menu, event)) return;
      if (event.key === "Escape") {
        event.preventDefault();
        this.closeMenu();
        this.button.focus();
      }
    });
    document.body.append(menu);
    const anchor = this.button.getBoundingClientRect();
    const box = menu.getBoundingClientRect();
    menu.style.left = `${Math.max(4, Math.min(anchor.left, window.innerWidth - box.width - 4))}px`;
    menu.style.top = `${anchor.bottom + 4}px`;
    this.menu = menu;
    this.button.setAttribute("aria-expanded", "true");
    menu.querySelector<HTMLElement>("[role=menuitem]")?.focus();
  }

  private closeMenu(): void {
    this.menu?.remove();
    this.menu = null;
    this.button.setAttribute("aria-expanded", "false");
  }

  // --- the dialog ---------------------------------------------------------------------------------------
  open(format: ExportFormat): void {
    const tab = this.active();
    if (!tab) {
      toast("Open a document first", "warning");
      return;
    }
    if (tab.kind !== "markdown") {
      toast("Only a Markdown document exports", "warning");
      return;
    }
    this.tab = tab;
    this.format.value = format;
    this.folder.value = tab.filePath ? dirName(tab.filePath) : "";
    this.name.value = `${tab.filePath ? stemOf(tab.filePath) : "untitled"}${this.suffix()}`;
    this.replace.checked = false;
    this.showError("");
    this.showProgress(null);
    if (!this.dialog.open) this.dialog.showModal();
    const focus = this.folder.value ? this.name : this.folder;
    focus.focus();
    const dot = this.name.value.lastIndexOf(".");
    if (focus === this.name && dot > 0) this.name.setSelectionRange(0, dot);
  }

  /** The app's picker (Save-as style) names the file: its choice fills the folder and the name. */
  private async pick(): Promise<void> {
    const format = FORMATS.find((f) => f.format === this.format.value) ?? FORMATS[0];
    this.confirm.focus(); // where the focus goes back when the picker closes: Enter then exports
    await filePicker(this.channel).open({
      mode: "save",
      title: `Export as ${format.label}`,
      action: "Choose",
      suffix: format.suffix,
      existing: "allow",
      start: this.folder.value.trim() || this.tab?.filePath || null,
      name: this.name.value.trim(),
      choose: async (path) => {
        this.folder.value = dirName(path);
        this.name.value = baseName(path);
        this.showError("");
      },
    });
  }

  private suffix(): string {
    return FORMATS.find((f) => f.format === this.format.value)?.suffix ?? "";
  }

  /** The name follows the chosen format (`notes.pdf` -> `notes.docx`). */
  private suffixName(): void {
    const name = this.name.value;
    const known = FORMATS.find((f) => name.toLowerCase().endsWith(f.suffix));
    this.name.value = `${known ? name.slice(0, -known.suffix.length) : name}${this.suffix()}`;
  }

  private async run(): Promise<void> {
    const tab = this.tab;
    if (!tab || this.busy) return;
    const folder = this.folder.value.trim();
    const name = this.name.value.trim();
    if (!name || (!folder && !name.startsWith("/"))) {
      this.showError("Name the folder and the file");
      return;
    }
    const format = this.format.value as ExportFormat;
    const path = folder ? resolveTyped(folder, name) : name; // a name that is a path stays one
    this.setBusy(true);
    this.showError("");
    this.phase = { message: "", base: 0, total: 0 };
    this.showProgress({ progress: 0, total: 0, message: "Starting" });
    try {
      await tab.flush();
      const done = await this.channel.requestWithProgress(
        "ui.export",
        { tabId: tab.tabId, format, path, replace: this.replace.checked },
        (progress) => this.showProgress(progress),
      );
      this.setBusy(false);
      this.dialog.close();
      toast(`Exported ${done.path}`);
      for (const warning of done.warnings) toast(`Export: ${warning}`, "warning");
    } catch (err) {
      this.setBusy(false);
      this.showProgress(null);
      this.showError(errorText(err));
    }
  }

  private setBusy(busy: boolean): void {
    this.busy = busy;
    this.confirm.disabled = busy;
    this.cancel.disabled = busy;
    for (const field of [this.format, this.folder, this.name, this.replace, this.browse]) field.disabled = busy;
    this.dialog.dataset.state = busy ? "exporting" : "idle";
  }

  /**
   * The phase the export is in, and how far a phase of several steps (diagrams, images) is. The app joins the
   * phases into one growing count (`progress_frames.py`): a phase's own steps are what it added to the count.
   */
  private showProgress(progress: Progress | null): void {
    this.progress.hidden = progress === null;
    if (!progress) {
      this.status.textContent = "";
      return;
    }
    if (progress.message !== this.phase.message) this.phase = { message: progress.message, base: this.phase.total, total: 0 };
    this.phase.total = progress.total;
    const steps = progress.total - this.phase.base;
    const done = progress.progress - this.phase.base;
    this.status.textContent = steps > 1 ? `${progress.message}: ${done} of ${steps}…` : `${progress.message}…`;
    if (steps > 1) {
      this.progress.max = steps;
      this.progress.value = done;
    } else this.progress.removeAttribute("value"); // a phase of one step: busy, no fraction to show
  }

  private showError(text: string): void {
    this.error.textContent = text;
    this.error.hidden = text === "";
  }
}
