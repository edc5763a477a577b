// The empty screen of a window without a workspace (a second window, or the very first start): where to begin.
// The workspaces other windows have open, the recent folders and files (`ui.places`), and the three ways in:
// Open folder, Open file, New document. Each opens through the requests the picker and a typed path use.
import { act, byId, el, setHidden, setText } from "../shared/dom";
import { baseName, dirName } from "../dialogs/pickerpaths";
import type { Channel } from "../shared/protocol";
import type { PageState, RecentEntry } from "../wire.gen";

export interface StartHost {
  pickFolder(): Promise<void>;
  pickFile(): Promise<void>;
  newTab(): Promise<void>;
  openFolder(path: string): Promise<void>;
  openFile(path: string): Promise<void>;
}

interface OpenWorkspace {
  root: string;
  windows: string[];
}

export class StartScreen {
  private root = byId("start");
  private hint = byId("empty-hint");
  private lists = el("div", { class: "start-lists" });
  /** What the shown lists were made for; null while hidden (showing it again reads the recents afresh). */
  private shownFor: string | null = null;
  private loads = 0;

  constructor(
    private channel: Channel,
    private host: StartHost,
  ) {
    const button = (text: string, id: string, run: () => Promise<void>, primary = false): HTMLButtonElement => {
      const b = el("button", { type: "button", id, class: primary ? "primary" : "" }, text);
      b.addEventListener("click", () => void act(run));
      return b;
    };
    this.root.replaceChildren(
      el(
        "div",
        { class: "start-actions" },
        button("Open folder…", "start-open-folder", () => this.host.pickFolder(), true),
        button("Open file…", "start-open-file", () => this.host.pickFile()),
        button("New document", "start-new", () => this.host.newTab()),
      ),
      this.lists,
    );
  }

  /** Shown in a window with no workspace and no tab; the lists follow the other windows' workspaces. */
  update(state: PageState | null, label: string, hasTab: boolean): void {
    const own = state?.views[label]?.workspaces ?? [];
    setText(
      this.hint,
      own.length ? "Open a file from the tree, or create a new document." : "Open a folder to work in, or a file, or create a new document.",
    );
    const shown = !hasTab && own.length === 0 && state !== null;
    setHidden(this.root, !shown);
    if (!shown || !state) {
      this.shownFor = null;
      return;
    }
    const byRoot = new Map<string, string[]>();
    for (const [window, view] of Object.entries(state.views)) {
      if (window === label) continue;
      for (const w of view.workspaces) byRoot.set(w.root, [...(byRoot.get(w.root) ?? []), window]);
    }
    const open = [...byRoot].map(([root, windows]) => ({ root, windows }));
    const key = JSON.stringify(open);
    if (key === this.shownFor) return;
    this.shownFor = key;
    void this.load(open);
  }

  private async load(open: OpenWorkspace[]): Promise<void> {
    const turn = ++this.loads;
    let folders: RecentEntry[] = [];
    let files: RecentEntry[] = [];
    try {
      ({ recentFolders: folders, recentFiles: files } = await this.channel.request("ui.places", {}));
    } catch {
      // the connection is gone (the page says so); the buttons still work once it is back
    }
    if (turn !== this.loads) return;
    const openRoots = new Set(open.map((w) => w.root));
    this.lists.replaceChildren(
      this.section(
        "Open in other windows",
        "start-open-workspaces",
        open.map((w) => this.item("folder", w.root, `open in ${w.windows.join(", ")}`, false, () => this.host.openFolder(w.root))),
        "No other window has a folder open.",
      ),
      this.section(
        "Recent folders",
        "start-recent-folders",
        folders
          .filter((f) => !openRoots.has(f.path))
          .map((f) => this.item("folder", f.path, f.gone ? "gone" : dirName(f.path), f.gone, () => this.host.openFolder(f.path))),
        "No recent folders yet.",
      ),
      this.section(
        "Recent files",
        "start-recent-files",
        files.map((f) => this.item("file", f.path, f.gone ? "gone" : dirName(f.path), f.gone, () => this.host.openFile(f.path))),
        "No recent files yet.",
      ),
    );
  }

  private section(title: string, testId: string, items: HTMLElement[], none: string): HTMLElement {
    const list = items.length ? el("ul", {}, ...items.map((item) => el("li", {}, item))) : el("p", { class: "start-none" }, none);
    return el("section", { "data-testid": testId, "aria-label": title }, el("h3", {}, title), list);
  }

  private item(kind: "folder" | "file", path: string, detail: string, gone: boolean, run: () => Promise<void>): HTMLElement {
    const button = el(
      "button",
      { type: "button", class: `start-item start-${kind}`, "data-path": path, title: path },
      el("span", { class: "fp-icon", "aria-hidden": "true" }),
      el("span", { class: "start-name" }, baseName(path)),
      el("span", { class: "start-path" }, detail),
    );
    if (gone) {
      button.disabled = true;
      button.setAttribute("aria-label", `${baseName(path)}: ${path} is no longer there`);
    }
    button.addEventListener("click", () => void act(run));
    return button;
  }
}
