// The app's keys, in both modes: one table (the shortcuts sheet shows it), one capturing handler.
//
// A browser keeps some keys for itself in an ordinary window (Ctrl+N, Ctrl+W, Ctrl+Tab, Ctrl+Shift+Tab
// and Ctrl+T never reach a page there); each of those has an Alt alternative that always works. In an
// app window (`chromium --app=...`) or a test browser they reach the page and do what the sheet says.
import { openSearchPanel } from "@codemirror/search";
import { EditorSelection } from "@codemirror/state";
import { el, modalAnswer, toast } from "../shared/dom";
import { FindBar } from "../editors/findbar";
import { live, wholeDocument } from "../shared/live";
import type { PickItem } from "../shared/command";
import { Picker, ShortcutsSheet, WorkspaceSearch } from "../dialogs/palette";
import { paletteKeys, type Shortcut, shortcutGroup } from "../shared/shortcuts";
import { TABLE_SHORTCUTS } from "../editors/tableactions";
import type { SearchResult } from "../wire.gen";
import type { Channel } from "../shared/protocol";
import { BLOCK_COMMANDS } from "../editors/writingkeys";

export interface AppTab {
  id: string;
  title: string;
  filePath: string | null;
  active: boolean;
}

/** What the keys ask of the page. */
export interface AppCommands {
  tabs(): AppTab[];
  mode(): "source" | "wysiwyg" | null;
  switchTo(tabId: string): Promise<void>;
  closeTab(tabId: string): Promise<void>;
  newTab(): Promise<void>;
  save(): Promise<void>;
  files(): Promise<{ root: string; path: string }[]>;
  open(filePath: string): Promise<void>;
}

const BROWSER_KEEPS = "A browser window keeps this key for itself; use";

export const SHORTCUTS: Shortcut[] = [
  ...shortcutGroup("Files and tabs", [
    ["Ctrl+P / Ctrl+O", "Quick open a file of the workspace"],
    ["Ctrl+Shift+P", "Command palette: every action by name"],
    ["Ctrl+N / Alt+N", "New document", `${BROWSER_KEEPS} Alt+N there.`],
    ["Ctrl+S", "Save (an untitled document asks where: Save as)"],
    ["Ctrl+W / Alt+W", "Close the tab (asks when it has unsaved changes)", `${BROWSER_KEEPS} Alt+W there.`],
    ["Ctrl+Tab / Alt+PageDown", "Next tab", `${BROWSER_KEEPS} Alt+PageDown there.`],
    ["Ctrl+Shift+Tab / Alt+PageUp", "Previous tab", `${BROWSER_KEEPS} Alt+PageUp there.`],
  ]),
  ...shortcutGroup("Find", [
    ["Ctrl+F", "Find in the document"],
    ["Ctrl+H", "Find and replace in the document"],
    ["Ctrl+Shift+F", "Search across the workspace"],
  ]),
  ...shortcutGroup("Writing", [
    ["Ctrl+B", "Bold (**…**)"],
    ["Ctrl+I", "Italic (*…*)"],
    ["Ctrl+E", "Inline code (`…`)"],
    ["Ctrl+K", "Link ([…](address))"],
    ["Ctrl+click", "Follow a link or a wikilink (Cmd+click on a Mac)"],
    ["[[", "Wikilink: the workspace's file names to choose from (Enter or Tab takes one)"],
    [
      "Tab / Shift+Tab",
      "Indent / outdent lines and list items (source mode); nest / un-nest a list item (WYSIWYG)",
      "Press Escape first to move focus out of the editor with Tab.",
    ],
    ["Shift+Enter", "Line break inside a paragraph (WYSIWYG: a hard break, as the file writes them)"],
    ["/", "Block menu, at the start of an empty paragraph (WYSIWYG)"],
    ["Ctrl+Shift+V", "Paste as plain text: the text literally, no formatting (WYSIWYG)"],
  ]),
  ...BLOCK_COMMANDS,
  ...shortcutGroup("Writing", [
    ["Ctrl+Z / Ctrl+Shift+Z", "Undo / redo"],
    ["F8", "Focus mode on / off: the paragraph you are in stands out, the rest is dimmed"],
    ["F9", "Typewriter mode on / off: the line you type on stays in the middle of the editor"],
  ]),
  ...TABLE_SHORTCUTS,
  ...shortcutGroup("Review", [
    [
      "F7 / Shift+F7",
      "Next / previous agent change (its Accept button gets the focus: Enter accepts, Tab then Enter rejects, Escape goes back to the text)",
    ],
  ]),
  ...shortcutGroup("Help", [["Ctrl+/ / ?", "This sheet (? when not typing)"]]),
];

export class Keys {
  private quickOpen = new Picker("quick-open", "Quick open", "Quick open", "Type part of a file name");
  private palette = new Picker("command-palette", "Command palette", "Command palette", "Type a command");
  private sheet = new ShortcutsSheet(SHORTCUTS);
  private search: WorkspaceSearch;
  private findBar = new FindBar();
  private extra: PickItem[] = [];

  constructor(
    channel: Channel,
    private app: AppCommands,
  ) {
    this.search = new WorkspaceSearch(channel, (hit, query, matchCase) => this.openAt(hit, query, matchCase));
    document.addEventListener("keydown", (event) => this.onKey(event), { capture: true });
    const help = el("button", { type: "button", id: "shortcuts-open", class: "icon-button", title: "Keyboard shortcuts (Ctrl+/)", "aria-label": "Keyboard shortcuts" }, "?");
    help.addEventListener("click", () => this.sheet.open());
    document.querySelector("header.bar .spacer")?.before(help);
    for (const [id, keys] of [["new-tab", "Ctrl+N"], ["save-tab", "Ctrl+S"], ["shortcuts-open", "Ctrl+/"]]) {
      const button = document.getElementById(id);
      if (button) {
        button.dataset.keys = keys;
        if (!button.title.includes(keys)) button.title = `${button.title} (${keys})`;
      }
    }
  }

  /** More commands for the palette (panels add theirs). */
  addCommands(items: PickItem[]): void {
    this.extra.push(...items);
  }

  private onKey(event: KeyboardEvent): void {
    const mod = event.ctrlKey || event.metaKey;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    const run = (job: () => unknown): void => {
      event.preventDefault();
      event.stopPropagation();
      void Promise.resolve()
        .then(job)
        .catch((err) => toast(String(err instanceof Error ? err.message : err), "error"));
    };
    if (mod && !event.altKey) {
      if (event.shiftKey && key === "p") return run(() => this.openPalette());
      if (event.shiftKey && key === "f") return run(() => this.search.open(this.selectedText()));
      if (key === "Tab") return run(() => this.cycle(event.shiftKey ? -1 : 1));
      if (event.shiftKey) return;
      if (key === "p" || key === "o") return run(() => this.openQuick());
      if (key === "n") return run(() => this.app.newTab());
      if (key === "w") return run(() => this.closeActive());
      if (key === "s") return run(() => this.app.save());
      if (key === "/") return run(() => this.sheet.open());
      if (key === "f") return this.find(event, false);
      if (key === "h") return this.find(event, true);
      if (key === "k" && this.app.mode() === "wysiwyg" && inside(event, ".ProseMirror")) return run(() => this.wysiwygLink());
      return;
    }
    if (event.altKey && !mod && !event.shiftKey) {
      if (key === "n" || event.code === "KeyN") return run(() => this.app.newTab());
      if (key === "w" || event.code === "KeyW") return run(() => this.closeActive());
      if (key === "PageDown") return run(() => this.cycle(1));
      if (key === "PageUp") return run(() => this.cycle(-1));
      return;
    }
    if (event.key === "?" && !mod && !event.altKey && !typing(event)) return run(() => this.sheet.open());
  }

  private find(event: KeyboardEvent, replace: boolean): void {
    const mode = this.app.mode();
    if (mode === "source" && live.cm) {
      if (inside(event, ".cm-editor")) return; // CodeMirror's own keymap opens its panel (Ctrl+H: sourcekeys.ts)
      event.preventDefault();
      live.cm.focus();
      openSearchPanel(live.cm);
      if (replace) requestAnimationFrame(() => live.cm?.dom.querySelector<HTMLInputElement>(".cm-search input[name=replace]")?.focus());
      return;
    }
    if (mode === "wysiwyg" && live.pm) {
      event.preventDefault();
      event.stopPropagation();
      void this.findBar.show(replace);
    }
  }

  private selectedText(): string {
    if (live.cm) {
      const { from, to } = live.cm.state.selection.main;
      const text = live.cm.state.sliceDoc(from, to);
      return text.includes("\n") ? "" : text;
    }
    if (live.pm) {
      const { from, to } = live.pm.state.selection;
      const text = live.pm.state.doc.textBetween(from, to);
      return text.includes("\n") ? "" : text;
    }
    return "";
  }

  private async closeActive(): Promise<void> {
    const active = this.app.tabs().find((t) => t.active);
    if (active) await this.app.closeTab(active.id);
  }

  private async cycle(delta: number): Promise<void> {
    const tabs = this.app.tabs();
    if (tabs.length < 2) return;
    const at = tabs.findIndex((t) => t.active);
    const next = tabs[(at + delta + tabs.length) % tabs.length];
    await this.app.switchTo(next.id);
  }

  async openQuick(): Promise<void> {
    const files = await this.app.files();
    const several = new Set(files.map((f) => f.root)).size > 1;
    const items: PickItem[] = files.map((file) => {
      const name = file.path.slice(file.path.lastIndexOf("/") + 1);
      const root = file.root.slice(file.root.lastIndexOf("/") + 1);
      return {
        label: name,
        detail: several ? `${root}/${file.path}` : file.path,
        run: () => this.app.open(`${file.root}/${file.path}`),
      };
    });
    this.quickOpen.open(items, files.length ? "No file matches" : "No workspace is open: open a folder from the sidebar first.");
  }

  openPalette(): void {
    const items: PickItem[] = [];
    // Every toolbar action, by the name it shows (its tooltip when it is an icon).
    for (const button of document.querySelectorAll<HTMLButtonElement>("header.bar button")) {
      if (button.hidden || button.closest("[hidden]")) continue;
      const name = button.dataset.command ?? button.getAttribute("aria-label") ?? button.textContent?.trim() ?? "";
      if (!name) continue;
      items.push({
        label: name,
        detail: button.title && button.title !== name ? button.title : undefined,
        hint: button.dataset.keys,
        run: () => {
          if (button.disabled) toast(`${name} is not available right now`, "warning");
          else button.click();
        },
      });
    }
    items.push(
      { label: "Quick open", hint: "Ctrl+P", run: () => this.openQuick() },
      { label: "Search the workspace", hint: "Ctrl+Shift+F", run: () => this.search.open() },
      { label: "Find in the document", hint: "Ctrl+F", run: () => this.findFromPalette(false) },
      { label: "Find and replace", hint: "Ctrl+H", run: () => this.findFromPalette(true) },
      { label: "Close the tab", hint: "Ctrl+W", run: () => this.closeActive() },
      { label: "Next tab", hint: "Ctrl+Tab", run: () => this.cycle(1) },
      { label: "Previous tab", hint: "Ctrl+Shift+Tab", run: () => this.cycle(-1) },
      { label: "Keyboard shortcuts", hint: "Ctrl+/", run: () => this.sheet.open() },
      ...this.extra,
      ...(this.app.mode() === "wysiwyg" ? this.blockCommands() : []),
    );
    const seen = new Set<string>();
    this.palette.open(
      items.filter((item) => !seen.has(item.label) && Boolean(seen.add(item.label))),
      "No command matches",
    );
  }

  /** The WYSIWYG block commands, run on the editor's cursor (the palette takes the focus back to it). */
  private blockCommands(): PickItem[] {
    return BLOCK_COMMANDS.map((c) => ({
      label: c.action,
      hint: paletteKeys(c.keys),
      run: async () => {
        const view = live.pm;
        if (!view) return;
        const { runBlockCommand } = await import("../editors/mdsource/writing");
        if (!runBlockCommand(view, c.id)) toast(`${c.action} does not apply where the cursor is`, "warning");
      },
    }));
  }

  private findFromPalette(replace: boolean): void {
    if (this.app.mode() === "wysiwyg" && live.pm) void this.findBar.show(replace);
    else if (live.cm) {
      live.cm.focus();
      openSearchPanel(live.cm);
    }
  }

  private async wysiwygLink(): Promise<void> {
    const view = live.pm;
    if (!view || !view.editable) return;
    const address = await askLink();
    if (!address) {
      view.focus();
      return;
    }
    const { from, to, empty } = view.state.selection;
    const mark = view.state.schema.marks.link.create({ href: address });
    const tr = empty
      ? view.state.tr.insert(from, view.state.schema.text(address, [mark]))
      : view.state.tr.addMark(from, to, mark);
    view.dispatch(tr.scrollIntoView());
    view.focus();
  }

  /** Open the search result's file and select the match (the same occurrence in WYSIWYG). */
  private async openAt(hit: SearchResult, query: string, matchCase: boolean): Promise<void> {
    await this.app.open(hit.filePath);
    if (this.app.mode() === "source" && live.cm) {
      const view = live.cm;
      const line = view.state.doc.line(Math.min(hit.line, view.state.doc.lines));
      const column = Array.from(line.text).slice(0, hit.column).join("").length;
      const from = line.from + column;
      view.dispatch({ selection: EditorSelection.range(from, from + query.length), scrollIntoView: true });
      view.focus();
      return;
    }
    const view = live.pm;
    if (!view) return;
    wholeDocument(view); // the match may be in the part of a long document not shown yet
    const { findMatches } = await import("../editors/mdsource/find");
    const text = (window as unknown as { vmarkPage: { editorText(): string | null } }).vmarkPage.editorText() ?? "";
    const lines = text.split("\n");
    let offset = 0;
    for (let k = 0; k < hit.line - 1 && k < lines.length; k++) offset += lines[k].length + 1;
    offset += Array.from(lines[hit.line - 1] ?? "").slice(0, hit.column).join("").length;
    const hay = matchCase ? text : text.toLowerCase();
    const needle = matchCase ? query : query.toLowerCase();
    let nth = 0;
    for (let at = hay.indexOf(needle); at >= 0 && at < offset; at = hay.indexOf(needle, at + needle.length)) nth++;
    const matches = findMatches(view.state.doc, query, matchCase);
    const match = matches[Math.min(nth, matches.length - 1)];
    const { TextSelection } = await import("prosemirror-state");
    if (match) view.dispatch(view.state.tr.setSelection(TextSelection.create(view.state.doc, match.from, match.to)).scrollIntoView());
    view.focus();
  }
}

function inside(event: KeyboardEvent, selector: string): boolean {
  return event.target instanceof Element && event.target.closest(selector) !== null;
}

function typing(event: KeyboardEvent): boolean {
  const target = event.target;
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

/** The address of a new link (WYSIWYG's Ctrl+K), or null when the person cancels. */
function askLink(): Promise<string | null> {
  const input = el("input", { type: "url", "aria-label": "Link address", placeholder: "https://…", spellcheck: "false" });
  const ok = el("button", { type: "submit", value: "ok" }, "Add link");
  const cancel = el("button", { type: "button" }, "Cancel");
  const form = el("form", { method: "dialog" }, el("h2", {}, "Link"), el("label", {}, "Address", input), el("div", { class: "actions" }, cancel, ok));
  const dialog = el("dialog", { class: "dialog link-dialog", "data-testid": "link-dialog" }, form);
  let answer: string | null = null;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    answer = input.value.trim() || null;
    dialog.close();
  });
  cancel.addEventListener("click", () => dialog.close());
  return modalAnswer(dialog, input, () => answer);
}
