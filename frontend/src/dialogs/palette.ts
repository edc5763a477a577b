// Dialogs driven from the keyboard: quick open (fuzzy over the workspace's files), the command palette
// (every toolbar action by name, and the app's commands), the shortcuts sheet, and search across the
// workspace (results by file and line; a click opens the file at the match).
import type { PickItem } from "../shared/command";
import { el, toast } from "../shared/dom";
import { fuzzyScore } from "../shared/fuzzy";
import { type Channel, errorText } from "../shared/protocol";
import type { Shortcut } from "../shared/shortcuts";
import type { SearchResult } from "../wire.gen";

/** A modal list with a filter field: Up/Down move, Enter runs, Escape closes. */
export class Picker {
  readonly dialog: HTMLDialogElement;
  readonly input: HTMLInputElement;
  private list: HTMLElement;
  private empty: HTMLElement;
  private items: PickItem[] = [];
  private shown: PickItem[] = [];
  private index = 0;

  constructor(id: string, title: string, inputName: string, placeholder: string) {
    this.input = el("input", {
      type: "text",
      class: "picker-input",
      "aria-label": inputName,
      placeholder,
      autocomplete: "off",
      spellcheck: "false",
      role: "combobox",
      "aria-expanded": "true",
      "aria-controls": `${id}-list`,
    });
    this.list = el("ul", { class: "picker-list", role: "listbox", id: `${id}-list`, "aria-label": title });
    this.empty = el("p", { class: "picker-empty hint" });
    this.dialog = el(
      "dialog",
      { id, class: "dialog picker", "data-testid": id, "aria-label": title },
      el("h2", { class: "visually-hidden" }, title),
      this.input,
      this.list,
      this.empty,
    );
    document.body.append(this.dialog);
    this.input.addEventListener("input", () => this.filter());
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        this.move(event.key === "ArrowDown" ? 1 : -1);
      } else if (event.key === "Enter") {
        event.preventDefault();
        void this.choose(this.shown[this.index]);
      }
    });
    this.dialog.addEventListener("click", (event) => {
      if (event.target === this.dialog) this.dialog.close(); // a click on the backdrop
    });
  }

  open(items: PickItem[], emptyText: string): void {
    this.items = items;
    this.empty.textContent = emptyText;
    this.input.value = "";
    this.filter();
    if (!this.dialog.open) this.dialog.showModal();
    this.input.focus();
  }

  private filter(): void {
    const query = this.input.value;
    const scored: [number, PickItem][] = [];
    for (const item of this.items) {
      const score = fuzzyScore(query, item.detail ? `${item.detail}` : item.label);
      const own = fuzzyScore(query, item.label);
      const best = Math.max(score ?? -Infinity, own ?? -Infinity);
      if (best > -Infinity) scored.push([best, item]);
    }
    if (query.trim() !== "") scored.sort((a, b) => b[0] - a[0]);
    this.shown = scored.slice(0, 80).map(([, item]) => item);
    this.index = 0;
    this.list.replaceChildren(
      ...this.shown.map((item, k) => {
        const option = el(
          "li",
          { role: "option", class: "picker-option", id: `${this.dialog.id}-opt-${k}`, "aria-selected": String(k === 0) },
          el("span", { class: "picker-label" }, item.label),
        );
        if (item.detail && item.detail !== item.label) option.append(el("span", { class: "picker-detail" }, item.detail));
        if (item.hint) option.append(el("kbd", { class: "picker-hint" }, item.hint));
        option.addEventListener("mousedown", (event) => event.preventDefault());
        option.addEventListener("click", () => void this.choose(item));
        return option;
      }),
    );
    this.empty.hidden = this.shown.length > 0;
    this.markActive();
  }

  private move(delta: number): void {
    if (this.shown.length === 0) return;
    this.index = (this.index + delta + this.shown.length) % this.shown.length;
    this.markActive();
  }

  private markActive(): void {
    const options = this.list.querySelectorAll<HTMLElement>("[role=option]");
    options.forEach((option, k) => option.setAttribute("aria-selected", String(k === this.index)));
    const active = options[this.index];
    if (active) {
      this.input.setAttribute("aria-activedescendant", active.id);
      active.scrollIntoView({ block: "nearest" });
    } else this.input.removeAttribute("aria-activedescendant");
  }

  private async choose(item: PickItem | undefined): Promise<void> {
    if (!item) return;
    this.dialog.close();
    try {
      await item.run();
    } catch (err) {
      toast(errorText(err), "error");
    }
  }
}

// --- the shortcuts sheet -----------------------------------------------------------------------------
export class ShortcutsSheet {
  readonly dialog: HTMLDialogElement;

  constructor(shortcuts: Shortcut[]) {
    const groups = new Map<string, Shortcut[]>();
    for (const s of shortcuts) groups.set(s.group, [...(groups.get(s.group) ?? []), s]);
    const close = el("button", { type: "button", class: "dialog-close" }, "Close");
    close.addEventListener("click", () => this.dialog.close());
    const sections = [...groups].map(([group, list]) =>
      el(
        "section",
        { class: "shortcuts-group" },
        el("h3", {}, group),
        el(
          "table",
          { class: "shortcuts" },
          el(
            "tbody",
            {},
            ...list.map((s) =>
              el(
                "tr",
                {},
                el("td", { class: "shortcut-keys" }, ...keysOf(s.keys)),
                el("td", {}, s.action, ...(s.note ? [el("span", { class: "shortcut-note" }, s.note)] : [])),
              ),
            ),
          ),
        ),
      ),
    );
    this.dialog = el(
      "dialog",
      { id: "shortcuts", class: "dialog shortcuts-sheet", "data-testid": "shortcuts", "aria-labelledby": "shortcuts-title" },
      el("h2", { id: "shortcuts-title" }, "Keyboard shortcuts"),
      el("p", { class: "hint" }, "On a Mac, Cmd works wherever Ctrl is shown."),
      el("div", { class: "shortcuts-groups" }, ...sections),
      el("div", { class: "actions" }, close),
    );
    document.body.append(this.dialog);
  }

  open(): void {
    if (!this.dialog.open) this.dialog.showModal();
  }
}

function keysOf(keys: string): Node[] {
  const out: Node[] = [];
  keys.split(" / ").forEach((combo, k) => {
    if (k > 0) out.push(document.createTextNode(" or "));
    combo.split("+").forEach((key, j) => {
      if (j > 0) out.push(document.createTextNode("+"));
      out.push(el("kbd", {}, key));
    });
  });
  return out;
}

// --- search across the workspace -------------------------------------------------------------------

export class WorkspaceSearch {
  readonly dialog: HTMLDialogElement;
  readonly input: HTMLInputElement;
  private matchCase: HTMLInputElement;
  private results: HTMLElement;
  private status: HTMLElement;
  private timer: number | undefined;
  private asked = 0;

  constructor(
    private channel: Channel,
    private openAt: (result: SearchResult, query: string, matchCase: boolean) => Promise<void>,
  ) {
    this.input = el("input", {
      type: "search",
      class: "picker-input",
      "aria-label": "Search the workspace",
      placeholder: "Search in every file of the workspace",
      autocomplete: "off",
      spellcheck: "false",
    });
    this.matchCase = el("input", { type: "checkbox", id: "search-match-case" });
    this.results = el("div", { class: "search-results", "data-testid": "search-results" });
    this.status = el("p", { class: "hint search-status", role: "status" });
    const close = el("button", { type: "button", class: "dialog-close" }, "Close");
    close.addEventListener("click", () => this.dialog.close());
    this.dialog = el(
      "dialog",
      { id: "workspace-search", class: "dialog picker search-dialog", "data-testid": "workspace-search", "aria-labelledby": "search-title" },
      el("h2", { id: "search-title" }, "Search the workspace"),
      el("div", { class: "search-row" }, this.input, el("label", { for: "search-match-case", class: "check" }, this.matchCase, "Match case")),
      this.status,
      this.results,
      el("div", { class: "actions" }, close),
    );
    document.body.append(this.dialog);
    this.input.addEventListener("input", () => this.later());
    this.matchCase.addEventListener("change", () => void this.run());
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault(); // a search field would only clear itself: Escape closes the dialog
        this.dialog.close();
      } else if (event.key === "Enter") {
        event.preventDefault();
        void this.run();
      } else if (event.key === "ArrowDown") {
        event.preventDefault();
        this.results.querySelector<HTMLElement>("button")?.focus();
      }
    });
  }

  open(initial = ""): void {
    if (initial) this.input.value = initial;
    if (!this.dialog.open) this.dialog.showModal();
    this.input.focus();
    this.input.select();
    if (this.input.value.trim() === "") this.status.textContent = "Type a word or phrase to find it in every file of the workspace.";
    else void this.run();
  }

  private later(): void {
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => void this.run(), 200);
  }

  private async run(): Promise<void> {
    window.clearTimeout(this.timer);
    const query = this.input.value;
    const matchCase = this.matchCase.checked;
    const asked = ++this.asked;
    if (query.trim() === "") {
      this.results.replaceChildren();
      this.status.textContent = "Type a word or phrase to find it in every file of the workspace.";
      return;
    }
    try {
      const answer = await this.channel.request("ui.search", { query, matchCase });
      if (asked !== this.asked) return;
      this.show(answer.results, answer.truncated, query, matchCase);
    } catch (err) {
      if (asked === this.asked) this.status.textContent = errorText(err);
    }
  }

  private show(results: SearchResult[], truncated: boolean, query: string, matchCase: boolean): void {
    const files = new Map<string, SearchResult[]>();
    for (const r of results) files.set(r.filePath, [...(files.get(r.filePath) ?? []), r]);
    const lines = results.length;
    this.status.textContent =
      lines === 0
        ? `No file of the workspace contains “${query}”. Open a folder first if the tree is empty.`
        : `${lines} ${lines === 1 ? "line" : "lines"} in ${files.size} ${files.size === 1 ? "file" : "files"}${truncated ? " (the first ones only: refine the search)" : ""}`;
    this.results.replaceChildren(
      ...[...files].map(([filePath, hits]) =>
        el(
          "section",
          { class: "search-file", "data-path": hits[0].path },
          el("h3", { title: filePath }, hits[0].path),
          el(
            "ul",
            {},
            ...hits.map((hit) => {
              const before = hit.text.slice(0, hit.textColumn);
              const match = hit.text.slice(hit.textColumn, hit.textColumn + hit.length);
              const after = hit.text.slice(hit.textColumn + hit.length);
              const button = el(
                "button",
                { type: "button", class: "search-hit", "data-line": String(hit.line) },
                el("span", { class: "search-line" }, String(hit.line)),
                el("span", { class: "search-text" }, before, el("mark", {}, match), after),
              );
              button.addEventListener("click", () => {
                this.dialog.close();
                void this.openAt(hit, query, matchCase).catch((err) => toast(errorText(err), "error"));
              });
              return el("li", {}, button);
            }),
          ),
        ),
      ),
    );
  }
}
