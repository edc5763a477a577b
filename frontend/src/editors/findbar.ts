// The find bar of WYSIWYG (source mode has CodeMirror's own search panel): Enter finds the next match,
// Shift+Enter the previous, Escape closes; replace changes only the matched characters.
import { byId, el } from "../shared/dom";
import { live, wholeDocument } from "../shared/live";

type FindModule = typeof import("./mdsource/find");

let findModule: Promise<FindModule> | null = null;
function loadFind(): Promise<FindModule> {
  findModule ??= import("./mdsource/find");
  return findModule;
}

export class FindBar {
  readonly bar: HTMLElement;
  readonly query: HTMLInputElement;
  readonly replacement: HTMLInputElement;
  private matchCase: HTMLInputElement;
  private count: HTMLElement;
  private replaceRow: HTMLElement;

  constructor() {
    this.query = el("input", { type: "search", "aria-label": "Find", placeholder: "Find", spellcheck: "false", autocomplete: "off" });
    this.replacement = el("input", { type: "text", "aria-label": "Replace with", placeholder: "Replace with", spellcheck: "false", autocomplete: "off" });
    this.matchCase = el("input", { type: "checkbox", id: "find-match-case" });
    this.count = el("span", { class: "find-count", role: "status", "data-testid": "find-count" });
    const button = (label: string, title: string, run: () => void): HTMLButtonElement => {
      const b = el("button", { type: "button", title }, label);
      b.addEventListener("click", run);
      return b;
    };
    this.replaceRow = el(
      "div",
      { class: "find-row" },
      this.replacement,
      button("Replace", "Replace this match", () => void this.replace(false)),
      button("Replace all", "Replace every match", () => void this.replace(true)),
    );
    this.bar = el(
      "div",
      { class: "findbar", role: "search", "aria-label": "Find in the document", "data-testid": "findbar", hidden: "" },
      el(
        "div",
        { class: "find-row" },
        this.query,
        button("↑", "Previous match (Shift+Enter)", () => void this.step(-1)),
        button("↓", "Next match (Enter)", () => void this.step(1)),
        el("label", { class: "check", for: "find-match-case" }, this.matchCase, "Match case"),
        this.count,
        button("×", "Close (Escape)", () => void this.close()),
      ),
      this.replaceRow,
    );
    const editor = byId("editor");
    editor.before(this.bar);
    this.query.addEventListener("input", () => void this.search());
    this.matchCase.addEventListener("change", () => void this.search());
    this.query.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        void this.step(event.shiftKey ? -1 : 1);
      }
    });
    this.replacement.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        void this.replace(event.ctrlKey || event.metaKey);
      }
    });
    this.bar.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        void this.close();
      }
    });
  }

  get open(): boolean {
    return !this.bar.hidden;
  }

  async show(replace: boolean): Promise<void> {
    const view = shownWhole();
    if (!view) return;
    this.bar.hidden = false;
    this.replaceRow.hidden = !replace;
    const { from, to } = view.state.selection;
    const selected = view.state.doc.textBetween(from, to);
    if (selected && !selected.includes("\n")) this.query.value = selected;
    (replace && this.query.value ? this.replacement : this.query).focus();
    this.query.select();
    await this.search();
  }

  async close(): Promise<void> {
    this.bar.hidden = true;
    const view = live.pm;
    if (view) {
      (await loadFind()).clearFind(view);
      view.focus();
    }
  }

  private async search(): Promise<void> {
    const view = shownWhole();
    if (!view) return;
    const find = await loadFind();
    find.setQuery(view, this.query.value, this.matchCase.checked);
    this.showCount(find);
  }

  private async step(delta: number): Promise<void> {
    const view = shownWhole();
    if (!view) return;
    const find = await loadFind();
    find.step(view, delta);
    this.showCount(find);
  }

  private async replace(all: boolean): Promise<void> {
    const view = shownWhole();
    if (!view) return;
    const find = await loadFind();
    if (all) find.replaceAll(view, this.replacement.value);
    else find.replaceCurrent(view, this.replacement.value);
    this.showCount(find);
  }

  private showCount(find: FindModule): void {
    const view = live.pm;
    const state = view ? find.findState(view.state) : undefined;
    if (!state || !state.query) this.count.textContent = "";
    else if (state.matches.length === 0) this.count.textContent = "No matches";
    else this.count.textContent = `${state.current + 1} of ${state.matches.length}`;
  }
}

/** The WYSIWYG view, with all of its document (a long one's blocks not shown yet are matched too). */
function shownWhole(): typeof live.pm {
  const view = live.pm;
  if (view) wholeDocument(view);
  return view;
}
