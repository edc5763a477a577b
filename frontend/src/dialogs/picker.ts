// The app's own picker (a web page cannot use the operating system's for paths): Open folder, Open file and
// Save as. It browses through `ui.browse` (the app lists only inside the folders the picker may list) from the
// places of `ui.places` (home, readable roots, the window's workspaces) and offers the recent folders and files.
// What is picked goes to the caller's `choose` (the same requests a typed path used); a refusal stays in view.
//
// Keys: typing filters the folder (a typed path such as ~/notes or /srv/docs, or one ending in "/", goes there);
// Up/Down move; Enter opens a folder or chooses; Backspace (in an empty filter or a list) and Alt+Up go to the
// folder above; Ctrl+Enter chooses the folder shown (Open folder) or saves (Save as); Tab moves between the parts
// (focus stays in the dialog); Escape cancels, and the focus goes back where it was.
import "./picker.css";
import { el } from "../shared/dom";
import { type Channel, errorText } from "../shared/protocol";
import {
  baseName,
  crumbsOf,
  dirName,
  isPathLike,
  joinPath,
  matchAt,
  resolveTyped,
  sizeText,
  withSuffix,
} from "./pickerpaths";
import type { BrowseEntry, Browsed, Places, RecentEntry } from "../wire.gen";

export type PickMode = "folder" | "file" | "save";

export interface PickRequest {
  mode: PickMode;
  /** The folder (or a file in it) to start in; else the folder the picker last showed, else home. */
  start?: string | null;
  /** Save as: the name proposed. */
  name?: string;
  /** Save as: the document's own file (saving onto it is a plain save, not a replacement). */
  own?: string | null;
  /** Save as for another purpose (an export's target): its title, the suffix a bare name gets (`.md` by default),
   * the main button's word, and whether an existing file may be chosen (its caller then decides about it). */
  title?: string;
  suffix?: string;
  action?: string;
  existing?: "refuse" | "allow";
  /** Open or save what was picked; a failure is shown in the dialog, which stays open for another choice. */
  choose(path: string): Promise<void>;
}

type Row = { type: "here"; path: string } | { type: "entry"; entry: BrowseEntry; path: string };
type SideRow =
  | { type: "place"; path: string; label: string; detail: string }
  | { type: "recent"; kind: "folder" | "file"; entry: RecentEntry };

const TITLES: Record<PickMode, string> = { folder: "Open folder", file: "Open file", save: "Save as" };
/** The keys, said in the dialog (where they work). */
const KEYS: Record<PickMode, string> = {
  folder: "Enter opens a folder · Ctrl+Enter opens the one shown · Backspace or Alt+↑: the folder above · Esc cancels",
  file: "Enter opens · Backspace or Alt+↑: the folder above · Tab: places and recent · Esc cancels",
  save: "Enter saves · Ctrl+Enter saves from anywhere · Alt+↑: the folder above · Esc cancels",
};
/** The filter asks the app again (a listing cut at its bound) once the typing pauses this long. */
const NARROW_MS = 150;
const PAGE_ROWS = 10;

/** The folder the picker showed last (this page): the next one starts there. */
let lastFolder: string | null = null;
let showHidden = false;

export class FilePicker {
  private dialog: HTMLDialogElement;
  private heading: HTMLElement;
  private crumbs: HTMLElement;
  private hiddenToggle: HTMLInputElement;
  private filter: HTMLInputElement;
  private entries: HTMLElement;
  private side: HTMLElement;
  private more: HTMLElement;
  private empty: HTMLElement;
  private nameRow: HTMLElement;
  private name: HTMLInputElement;
  private status: HTMLElement;
  private error: HTMLElement;
  private chooseButton: HTMLButtonElement;
  private keys: HTMLElement;

  private request: PickRequest | null = null;
  private listing: Browsed | null = null;
  /** The app's answer for the filter when the listing was cut at its bound. */
  private narrowed: Browsed | null = null;
  private places: Places | null = null;
  private rows: Row[] = [];
  private active = 0;
  private sideRows: SideRow[] = [];
  private sideActive = 0;
  private returnTo: HTMLElement | null = null;
  private asked = 0;
  private narrowTimer: number | undefined;
  private busy = false;
  /** The person moved since the picker opened: its own start no longer applies. */
  private navigated = false;
  /** The first listing (and the places): what a key pressed before it arrived waits for. */
  private ready: Promise<void> = Promise.resolve();

  constructor(private channel: Channel) {
    this.heading = el("h2", { id: "picker-title" });
    this.crumbs = el("div", { class: "fp-crumbs", role: "toolbar", "aria-label": "Folder path", "data-testid": "picker-crumbs" });
    this.hiddenToggle = el("input", { type: "checkbox", id: "picker-hidden", "data-testid": "picker-hidden" });
    this.filter = el("input", {
      type: "text",
      id: "picker-filter",
      class: "picker-input",
      role: "combobox",
      "aria-expanded": "true",
      "aria-controls": "picker-entries",
      "aria-autocomplete": "list",
      "aria-label": "Filter this folder, or type a path",
      placeholder: "Filter, or type a path: ~/notes, /srv/docs",
      autocomplete: "off",
      spellcheck: "false",
      "data-testid": "picker-filter",
    });
    this.entries = el("div", { id: "picker-entries", class: "fp-list fp-entries", role: "listbox", tabindex: "0", "data-testid": "picker-entries" });
    this.side = el("div", { id: "picker-side", class: "fp-list fp-side", role: "listbox", tabindex: "0", "aria-label": "Places and recent", "data-testid": "picker-side" });
    this.more = el("p", { class: "hint fp-more", "data-testid": "picker-more" });
    this.empty = el("p", { class: "hint fp-empty", "data-testid": "picker-empty" });
    this.name = el("input", { type: "text", id: "picker-name", autocomplete: "off", spellcheck: "false", placeholder: "name.md", "data-testid": "picker-name" });
    this.nameRow = el("div", { class: "fp-name-row" }, el("label", { for: "picker-name" }, "File name"), this.name);
    this.status = el("p", { class: "hint fp-status", role: "status", "data-testid": "picker-status" });
    this.error = el("p", { class: "dialog-error", role: "alert", "data-testid": "picker-error" });
    this.keys = el("p", { class: "hint fp-keys" });
    const cancel = el("button", { type: "button", "data-testid": "picker-cancel" }, "Cancel");
    this.chooseButton = el("button", { type: "button", class: "primary", "data-testid": "picker-choose" }, "Open");
    const head = el("div", { class: "fp-head", "aria-hidden": "true" }, el("span", {}, "Name"), el("span", {}, "Size"), el("span", {}, "Modified"));
    this.dialog = el(
      "dialog",
      { class: "dialog file-picker", "aria-labelledby": "picker-title", "data-testid": "picker" },
      this.heading,
      el("div", { class: "fp-bar" }, this.crumbs, el("label", { for: "picker-hidden", class: "check" }, this.hiddenToggle, "Hidden files")),
      this.filter,
      el("div", { class: "fp-body" }, el("div", { class: "fp-main" }, head, this.entries, this.more, this.empty), this.side),
      this.nameRow,
      this.status,
      this.error,
      el("div", { class: "actions" }, this.keys, cancel, this.chooseButton),
    );
    document.body.append(this.dialog);
    this.showError("");

    cancel.addEventListener("click", () => this.dialog.close());
    this.chooseButton.addEventListener("click", () => void this.primary());
    this.hiddenToggle.addEventListener("change", () => {
      showHidden = this.hiddenToggle.checked;
      if (this.listing) void this.go(this.listing.path, { keepFilter: true });
    });
    this.filter.addEventListener("input", () => this.onFilter());
    this.filter.addEventListener("keydown", (event) => this.onFilterKey(event));
    this.entries.addEventListener("keydown", (event) => this.onListKey(event, "entries"));
    this.side.addEventListener("keydown", (event) => this.onListKey(event, "side"));
    this.name.addEventListener("input", () => this.checkName());
    this.name.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        void this.save();
      }
    });
    this.dialog.addEventListener("keydown", (event) => this.onDialogKey(event));
    this.dialog.addEventListener("close", () => this.closed());
  }

  isOpen(): boolean {
    return this.dialog.open;
  }

  /** Show the picker for `request`; it closes when something was chosen (and `choose` succeeded) or on cancel. */
  async open(request: PickRequest): Promise<void> {
    if (this.dialog.open) this.dialog.close();
    this.request = request;
    this.returnTo = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    this.dialog.dataset.mode = request.mode;
    this.heading.textContent = request.title ?? TITLES[request.mode];
    this.keys.textContent = request.action ? KEYS[request.mode].replaceAll("saves", `${request.action.toLowerCase()}s`) : KEYS[request.mode];
    this.nameRow.hidden = request.mode !== "save";
    this.name.value = request.name ?? "";
    this.filter.value = "";
    this.hiddenToggle.checked = showHidden;
    this.listing = this.narrowed = null;
    this.navigated = false;
    this.rows = [];
    this.entries.replaceChildren();
    this.crumbs.replaceChildren();
    this.showStatus("");
    this.showError("");
    this.updateChoose();
    this.dialog.showModal();
    if (request.mode === "save") {
      this.name.focus();
      const dot = this.name.value.lastIndexOf(".");
      this.name.setSelectionRange(0, dot > 0 ? dot : this.name.value.length);
    } else this.filter.focus();
    this.ready = this.start(request);
    await this.ready;
  }

  private async start(request: PickRequest): Promise<void> {
    const places = this.loadPlaces();
    for (const start of [request.start, lastFolder]) {
      if (this.navigated || (start && (await this.go(start, { quiet: true, initial: true })))) break;
    }
    if (!this.listing && !this.navigated) await this.go(null, { initial: true });
    await places;
    this.renderCrumbs();
    if (request.mode === "save") this.checkName();
  }

  // --- moving around ------------------------------------------------------------------------------------------
  /** List `path` (null: home); the answer, or null when the app refused (said in the dialog unless `quiet`). */
  private async go(
    path: string | null,
    options: { quiet?: boolean; keepFilter?: boolean; initial?: boolean; consumed?: string } = {},
  ): Promise<Browsed | null> {
    const asked = ++this.asked;
    if (!options.initial) this.navigated = true;
    const payload = path === null ? { hidden: showHidden } : { path, hidden: showHidden };
    let listing: Browsed;
    try {
      listing = await this.channel.request("ui.browse", payload);
    } catch (err) {
      if (!options.quiet && asked === this.asked) this.showError(errorText(err));
      return null;
    }
    if (asked !== this.asked || !this.request) return null;
    this.listing = listing;
    this.narrowed = null;
    lastFolder = listing.path;
    this.dialog.dataset.path = listing.path;
    // What was typed after a typed path (the person types on while the folder loads) filters the new folder.
    const typed = this.filter.value;
    if (options.consumed !== undefined) this.filter.value = typed.startsWith(options.consumed) ? typed.slice(options.consumed.length) : "";
    else if (!options.keepFilter && !options.initial) this.filter.value = ""; // the first listing keeps what was typed
    this.showError("");
    this.showStatus(this.request.mode === "save" && !listing.writable ? "You cannot write in this folder." : "");
    this.renderCrumbs();
    this.renderRows(listing.selected);
    if (this.filter.value) this.onFilter();
    if (this.request.mode === "save") this.checkName();
    return listing;
  }

  private async up(): Promise<void> {
    const parent = this.listing?.parent;
    if (parent) {
      const from = this.listing?.path ?? "";
      if (await this.go(parent)) this.select(baseName(from));
    } else if (this.listing) this.showStatus("This is the top of the folders the picker may list.");
  }

  /** Go where typed text leads; a file it names is chosen (Open file) or named (Save as). */
  private async jump(text: string): Promise<void> {
    const typed = text.length > 1 ? text.replace(/\/+$/, "") : text;
    const absolute = typed.startsWith("/") || typed === "~" || typed.startsWith("~/");
    if (!absolute) await this.ready; // a relative path starts from the folder shown
    if (!this.request || (!absolute && !this.listing)) return;
    const target = absolute ? typed : resolveTyped(this.listing?.path ?? "/", typed);
    const listing = await this.go(target, { consumed: text });
    const selected = listing?.selected;
    if (!listing || !selected || !this.request) return;
    const entry = listing.entries.find((e) => e.name === selected); // absent when hidden or past the bound
    if (this.request.mode === "file") {
      if (entry) await this.activate({ type: "entry", entry, path: joinPath(listing.path, selected) });
      else await this.choose(joinPath(listing.path, selected));
    } else if (this.request.mode === "save") {
      this.name.value = selected;
      this.checkName();
    }
  }

  private async loadPlaces(): Promise<void> {
    try {
      this.places = await this.channel.request("ui.places", {});
    } catch (err) {
      this.showError(errorText(err));
      return;
    }
    this.renderSide();
  }

  // --- choosing ---------------------------------------------------------------------------------------------
  /** Enter (or a double click) on a row: a folder opens, a file is chosen or named. */
  private async activate(row: Row | undefined): Promise<void> {
    const request = this.request;
    if (!row || !request) return;
    if (row.type === "here") return this.choose(row.path);
    const { entry } = row;
    if (entry.kind === "folder") {
      await this.go(row.path);
      return;
    }
    if (entry.kind === "outside") return this.showStatus(`${entry.name} leads outside the folders the picker may list.`);
    if (entry.kind === "other") return this.showStatus(`${entry.name} is neither a folder nor a file VMark opens.`);
    if (request.mode === "save") {
      this.name.value = entry.name;
      this.name.focus();
      this.checkName();
    } else if (request.mode === "file") {
      if (entry.opens) await this.choose(row.path);
      else this.showStatus(`VMark opens Markdown files (.md, .txt, …) and workflows in .github/workflows; ${entry.name} is neither.`);
    }
  }

  /** The dialog's main button (and Ctrl+Enter). */
  private async primary(): Promise<void> {
    await this.ready;
    const request = this.request;
    if (!request || !this.listing) return;
    if (request.mode === "folder") return this.choose(this.listing.path);
    if (request.mode === "save") return this.save();
    const row = this.rows[this.active];
    if (row?.type === "entry" && row.entry.kind === "file" && row.entry.opens) return this.choose(row.path);
    this.showStatus("Choose a Markdown or workflow file.");
  }

  private async save(): Promise<void> {
    await this.ready;
    if (!this.listing) return;
    const typed = this.name.value.trim();
    if (!typed) {
      this.showError("Type a name for the new file");
      this.name.focus();
      return;
    }
    let name = typed;
    if (typed.includes("/")) {
      // A path: its folder must be one the picker may list (it is shown), the name goes into the field.
      const target = resolveTyped(this.listing.path, typed);
      if (!(await this.go(dirName(target)))) return;
      name = baseName(target);
    }
    name = withSuffix(name, this.request?.suffix);
    this.name.value = name;
    const target = joinPath(this.listing.path, name);
    const taken = this.entryNamed(name);
    if (this.request?.existing === "allow" && taken?.kind !== "folder") return this.choose(target);
    if (target !== this.request?.own && (taken || (await this.exists(target)))) {
      this.showError(existsText(name, taken?.kind === "folder"));
      this.name.focus();
      return;
    }
    await this.choose(target);
  }

  /** Whether the app finds something at `path` (a name the listing did not carry: hidden, or past its bound). */
  private async exists(path: string): Promise<boolean> {
    try {
      await this.channel.request("ui.browse", { path, hidden: true });
      return true;
    } catch {
      return false; // nothing there (or not the picker's to say): the app's save still never replaces a file
    }
  }

  private async choose(path: string): Promise<void> {
    const request = this.request;
    if (!request || this.busy) return;
    this.busy = true;
    this.updateChoose();
    this.showError("");
    try {
      await request.choose(path);
      this.dialog.close();
    } catch (err) {
      this.showError(errorText(err));
    } finally {
      this.busy = false;
      this.updateChoose();
    }
  }

  private entryNamed(name: string): BrowseEntry | undefined {
    return this.listing?.entries.find((e) => e.name === name);
  }

  /** Save as: says at once when the name is taken here (the app would refuse it: it never replaces a file). */
  private checkName(): void {
    const typed = this.name.value.trim();
    const taken = typed && !typed.includes("/") ? this.entryNamed(withSuffix(typed, this.request?.suffix)) : undefined;
    const own = taken !== undefined && this.listing !== null && joinPath(this.listing.path, taken.name) === this.request?.own;
    const allowed = this.request?.existing === "allow" && taken?.kind !== "folder";
    this.showError(taken && !own && !allowed ? existsText(taken.name, taken.kind === "folder") : "");
    if (taken && allowed) this.showStatus(`A file named “${taken.name}” already exists in this folder.`);
    else if (this.status.textContent?.includes("already exists in this folder")) this.showStatus("");
    if (own) this.showStatus("This is the document's own file: saving under this name saves it in place.");
    else if (this.status.textContent?.startsWith("This is the document's own file")) this.showStatus("");
  }

  // --- the filter -------------------------------------------------------------------------------------------
  private onFilter(): void {
    const text = this.filter.value;
    window.clearTimeout(this.narrowTimer);
    if (isPathLike(text)) {
      if (text.length > 1 && text.endsWith("/")) {
        void this.jump(text);
        return;
      }
      this.showStatus(`Enter goes to ${text}`);
      this.renderRows();
      return;
    }
    this.showStatus("");
    if (text === "") this.narrowed = null;
    this.renderRows();
    const listing = this.listing;
    if (listing && text !== "" && (listing.more > 0 || this.narrowed)) {
      this.narrowTimer = window.setTimeout(() => void this.narrow(listing.path, text), NARROW_MS);
    }
  }

  private async narrow(path: string, text: string): Promise<void> {
    try {
      const narrowed = await this.channel.request("ui.browse", { path, hidden: showHidden, filter: text });
      if (this.listing?.path !== path || this.filter.value !== text) return;
      this.narrowed = narrowed;
      this.renderRows();
    } catch (err) {
      this.showError(errorText(err));
    }
  }

  private filterText(): string {
    const text = this.filter.value;
    return isPathLike(text) ? "" : text;
  }

  // --- keys ---------------------------------------------------------------------------------------------------
  private onDialogKey(event: KeyboardEvent): void {
    if (event.key === "Tab") {
      this.trapTab(event);
    } else if (event.altKey && event.key === "ArrowUp") {
      event.preventDefault();
      void this.up();
    } else if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      event.preventDefault();
      void this.primary();
    }
  }

  private onFilterKey(event: KeyboardEvent): void {
    if (this.moveKey(event, "entries")) return;
    if (event.key === "Enter" && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      const text = this.filter.value;
      if (isPathLike(text)) void this.jump(text);
      else void this.ready.then(() => this.activate(this.rows[this.active]));
    } else if (event.key === "Backspace" && this.filter.value === "" && !event.altKey) {
      event.preventDefault();
      void this.up();
    }
  }

  private onListKey(event: KeyboardEvent, list: "entries" | "side"): void {
    if (this.moveKey(event, list)) return;
    if (event.key === "Enter" && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      if (list === "entries") void this.activate(this.rows[this.active]);
      else void this.activateSide(this.sideRows[this.sideActive]);
    } else if (event.key === "Backspace") {
      event.preventDefault();
      void this.up();
    } else if (event.key === "Delete" && list === "side") {
      event.preventDefault();
      void this.forget(this.sideRows[this.sideActive]);
    } else if (event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey && event.key !== " ") {
      // Type-to-filter from a list: the letters go to the filter.
      event.preventDefault();
      this.filter.focus();
      this.filter.value += event.key;
      this.onFilter();
    }
  }

  /** Up, Down, Page Up/Down, Home, End on a list (or, from the filter, on the entries); whether it moved. */
  private moveKey(event: KeyboardEvent, list: "entries" | "side"): boolean {
    const fromFilter = event.target === this.filter;
    const steps: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: PAGE_ROWS, PageUp: -PAGE_ROWS };
    if (!fromFilter) Object.assign(steps, { Home: -Infinity, End: Infinity });
    const step = steps[event.key];
    if (step === undefined || event.altKey || event.ctrlKey || event.metaKey) return false;
    event.preventDefault();
    const count = list === "entries" ? this.rows.length : this.sideRows.length;
    if (count === 0) return true;
    const at = list === "entries" ? this.active : this.sideActive;
    const next = Math.max(0, Math.min(count - 1, Number.isFinite(step) ? at + step : step > 0 ? count - 1 : 0));
    if (list === "entries") this.setActive(next);
    else this.setSideActive(next);
    return true;
  }

  /** Tab and Shift+Tab go round the dialog's parts; the focus never leaves it while it is open. */
  private trapTab(event: KeyboardEvent): void {
    const stops = [...this.dialog.querySelectorAll<HTMLElement>("button, input, [tabindex]")].filter(
      (node) => node.tabIndex >= 0 && !(node as HTMLButtonElement).disabled && node.getClientRects().length > 0,
    );
    if (stops.length === 0) return;
    const at = stops.indexOf(document.activeElement as HTMLElement);
    const next = event.shiftKey ? (at <= 0 ? stops.length - 1 : at - 1) : at === stops.length - 1 || at < 0 ? 0 : at + 1;
    event.preventDefault();
    stops[next].focus();
  }

  // --- the side: places and recents ---------------------------------------------------------------------------
  private async activateSide(row: SideRow | undefined): Promise<void> {
    const request = this.request;
    if (!row || !request) return;
    if (row.type === "place") {
      await this.go(row.path);
      return;
    }
    const { entry } = row;
    if (entry.gone) return this.showStatus(`${entry.path} is no longer there. Delete forgets it.`);
    if (row.kind === "folder") {
      if (request.mode === "folder") await this.choose(entry.path);
      else await this.go(entry.path);
    } else if (request.mode === "file") await this.choose(entry.path);
    else await this.go(dirName(entry.path));
  }

  private async forget(row: SideRow | undefined): Promise<void> {
    if (row?.type !== "recent") return;
    try {
      await this.channel.request("ui.recent_forget", { path: row.entry.path });
    } catch (err) {
      this.showError(errorText(err));
      return;
    }
    this.showStatus(`Forgot ${row.entry.path}`);
    await this.loadPlaces();
  }

  private renderSide(): void {
    const places = this.places;
    const mode = this.request?.mode;
    if (!places || !mode) return;
    const groups: [string, SideRow[]][] = [
      [
        "Places",
        places.places.map((p): SideRow => {
          const name = p.path === places.home ? "Home" : baseName(p.path);
          const detail = p.kind === "workspace" ? "workspace" : p.kind === "home" ? "~" : p.path;
          return { type: "place", path: p.path, label: name, detail };
        }),
      ],
    ];
    const recent = (kind: "folder" | "file", list: RecentEntry[]): SideRow[] => list.map((entry) => ({ type: "recent", kind, entry }));
    if (mode === "file") groups.push(["Recent files", recent("file", places.recentFiles)]);
    groups.push(["Recent folders", recent("folder", places.recentFolders)]);
    this.sideRows = groups.flatMap(([, rows]) => rows);
    let index = 0;
    this.side.replaceChildren(
      ...groups.map(([title, rows], g) => {
        const headingId = `picker-side-${g}`;
        const items = rows.map((row) => this.sideOption(row, index++));
        if (rows.length === 0) items.push(el("div", { class: "hint fp-none", role: "presentation" }, "None yet"));
        return el(
          "div",
          { role: "group", "aria-labelledby": headingId, "data-group": title },
          el("div", { class: "fp-group", id: headingId, role: "presentation" }, title),
          ...items,
        );
      }),
    );
    this.setSideActive(Math.min(this.sideActive, Math.max(0, this.sideRows.length - 1)), false);
  }

  private sideOption(row: SideRow, k: number): HTMLElement {
    const path = row.type === "place" ? row.path : row.entry.path;
    const gone = row.type === "recent" && row.entry.gone;
    const label = row.type === "place" ? row.label : baseName(path);
    const detail = row.type === "place" ? row.detail : gone ? "gone" : dirName(path);
    const kind = row.type === "place" ? "folder" : row.kind;
    const option = el(
      "div",
      {
        role: "option",
        id: `picker-side-opt-${k}`,
        class: `fp-row fp-side-row fp-${kind}${gone ? " fp-gone" : ""}`,
        "aria-selected": "false",
        "data-path": path,
        "data-kind": row.type === "place" ? "place" : `recent-${row.kind}`,
        title: path,
      },
      el("span", { class: "fp-icon", "aria-hidden": "true" }),
      el("span", { class: "fp-name" }, label),
      el("span", { class: "fp-detail" }, detail),
    );
    if (gone) option.setAttribute("aria-disabled", "true");
    option.addEventListener("click", () => {
      this.setSideActive(k);
      void this.activateSide(row);
    });
    return option;
  }

  private setSideActive(k: number, scroll = true): void {
    this.sideActive = k;
    const options = this.side.querySelectorAll<HTMLElement>("[role=option]");
    options.forEach((option, j) => option.setAttribute("aria-selected", String(j === k)));
    const active = options[k];
    if (active) {
      this.side.setAttribute("aria-activedescendant", active.id);
      if (scroll) active.scrollIntoView({ block: "nearest" });
    } else this.side.removeAttribute("aria-activedescendant");
  }

  // --- the folder's entries -------------------------------------------------------------------------------------
  private renderCrumbs(): void {
    const listing = this.listing;
    if (!listing) return;
    const home = this.places?.home ?? "";
    const crumbs = crumbsOf(listing.path, this.places?.places ?? [], home);
    const buttons = crumbs.map((crumb, k) => {
      const last = k === crumbs.length - 1;
      const button = el("button", { type: "button", class: "fp-crumb", tabindex: last ? "0" : "-1", title: crumb.path, "data-path": crumb.path }, crumb.label);
      if (last) button.setAttribute("aria-current", "location");
      button.addEventListener("click", () => void this.go(crumb.path));
      button.addEventListener("keydown", (event) => {
        const step = event.key === "ArrowLeft" ? -1 : event.key === "ArrowRight" ? 1 : 0;
        if (!step) return;
        event.preventDefault();
        const all = [...this.crumbs.querySelectorAll<HTMLButtonElement>("button")];
        const next = all[Math.max(0, Math.min(all.length - 1, k + step))];
        all.forEach((b) => (b.tabIndex = b === next ? 0 : -1));
        next.focus();
      });
      return button;
    });
    const parts: Node[] = [];
    buttons.forEach((button, k) => {
      if (k > 0) parts.push(el("span", { class: "fp-sep", "aria-hidden": "true" }, "/"));
      parts.push(button);
    });
    this.crumbs.replaceChildren(...parts);
    this.entries.setAttribute("aria-label", `Entries of ${listing.path}`);
  }

  private renderRows(select?: string | null): void {
    const source = this.narrowed ?? this.listing;
    const request = this.request;
    if (!source || !request) return;
    const text = this.filterText();
    const rows: Row[] = [];
    if (request.mode === "folder" && text === "") rows.push({ type: "here", path: source.path });
    for (const entry of source.entries) {
      if (request.mode === "folder" && entry.kind !== "folder" && entry.kind !== "outside") continue;
      if (matchAt(entry.name, text) < 0) continue;
      rows.push({ type: "entry", entry, path: joinPath(source.path, entry.name) });
    }
    this.rows = rows;
    const named = (name: string | null | undefined): number => (name ? rows.findIndex((r) => r.type === "entry" && r.entry.name === name) : -1);
    const starting = text ? rows.findIndex((r) => r.type === "entry" && r.entry.name.toLowerCase().startsWith(text.toLowerCase())) : -1;
    const chosen = [named(select), starting].find((k) => k >= 0) ?? 0;
    this.entries.replaceChildren(...rows.map((row, k) => this.option(row, k, text)));
    this.more.hidden = source.more === 0;
    this.more.textContent = `${source.more} more not listed: type part of a name to find it.`;
    const folderWord = request.mode === "folder" ? "folders" : "entries";
    this.empty.hidden = rows.some((r) => r.type === "entry");
    this.empty.textContent = text ? `Nothing here matches “${text}”.` : `No ${folderWord} in this folder.`;
    this.setActive(Math.min(chosen, Math.max(0, rows.length - 1)));
  }

  private option(row: Row, k: number, text: string): HTMLElement {
    const attrs: Record<string, string> = { role: "option", id: `picker-opt-${k}`, "aria-selected": "false" };
    if (row.type === "here") {
      const option = el(
        "div",
        { ...attrs, class: "fp-row fp-here", "data-kind": "here", "data-path": row.path },
        el("span", { class: "fp-icon", "aria-hidden": "true" }),
        el("span", { class: "fp-name" }, `Open this folder: ${baseName(row.path)}`),
      );
      option.addEventListener("click", () => {
        this.setActive(k);
        void this.choose(row.path);
      });
      return option;
    }
    const { entry } = row;
    const mode = this.request?.mode;
    const dim = entry.kind === "outside" || entry.kind === "other" || (entry.kind === "file" && !entry.opens && mode !== "folder");
    const at = matchAt(entry.name, text);
    const name = el("span", { class: "fp-name" });
    if (text && at >= 0) {
      name.append(entry.name.slice(0, at), el("mark", {}, entry.name.slice(at, at + text.length)), entry.name.slice(at + text.length));
    } else name.textContent = entry.name;
    if (entry.link) name.append(el("span", { class: "fp-link", title: "a link" }, " ↗"));
    const when = entry.modified === null ? "" : new Date(entry.modified * 1000).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
    const option = el(
      "div",
      {
        ...attrs,
        class: `fp-row fp-${entry.kind}${dim ? " fp-dim" : ""}${entry.opens ? " fp-opens" : ""}`,
        "data-kind": entry.kind,
        "data-name": entry.name,
        title: entry.kind === "outside" ? `${entry.name}: a link leading outside the folders the picker may list` : row.path,
      },
      el("span", { class: "fp-icon", "aria-hidden": "true" }),
      name,
      el("span", { class: "fp-size" }, sizeText(entry.size)),
      el("span", { class: "fp-time" }, when),
    );
    if (dim) option.setAttribute("aria-disabled", "true");
    option.addEventListener("click", () => {
      this.setActive(k);
      // A folder opens with one click (as the path above does); a file is selected (named, in Save as).
      if (entry.kind === "folder" || mode === "save") void this.activate(row);
    });
    option.addEventListener("dblclick", () => void this.activate(row));
    return option;
  }

  private setActive(k: number): void {
    this.active = k;
    const options = this.entries.querySelectorAll<HTMLElement>("[role=option]");
    options.forEach((option, j) => option.setAttribute("aria-selected", String(j === k)));
    const active = options[k];
    for (const owner of [this.entries, this.filter]) {
      if (active) owner.setAttribute("aria-activedescendant", active.id);
      else owner.removeAttribute("aria-activedescendant");
    }
    active?.scrollIntoView({ block: "nearest" });
    this.updateChoose();
  }

  private select(name: string): void {
    const k = this.rows.findIndex((r) => r.type === "entry" && r.entry.name === name);
    if (k >= 0) this.setActive(k);
  }

  private updateChoose(): void {
    const mode = this.request?.mode;
    const button = this.chooseButton;
    if (mode === "folder") button.textContent = this.listing ? `Open “${baseName(this.listing.path)}”` : "Open";
    else button.textContent = mode === "save" ? (this.request?.action ?? "Save") : "Open";
    const row = this.rows[this.active];
    const fileReady = row?.type === "entry" && row.entry.kind === "file" && row.entry.opens !== null;
    button.disabled = this.busy || !this.listing || (mode === "file" && !fileReady);
  }

  // --- messages and closing -----------------------------------------------------------------------------------
  private showStatus(text: string): void {
    this.status.textContent = text;
  }

  private showError(text: string): void {
    this.error.textContent = text;
    this.error.hidden = text === "";
  }

  private closed(): void {
    window.clearTimeout(this.narrowTimer);
    this.request = null;
    this.asked++;
    const back = this.returnTo;
    this.returnTo = null;
    if (back?.isConnected) back.focus();
  }
}

function existsText(name: string, folder: boolean): string {
  return `A ${folder ? "folder" : "file"} named “${name}” already exists in this folder. Save as never replaces a file: choose another name.`;
}

/** The one picker of the page, made on first use. */
let shared: FilePicker | null = null;

export function filePicker(channel: Channel): FilePicker {
  shared ??= new FilePicker(channel);
  return shared;
}
