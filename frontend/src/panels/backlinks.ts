// The Backlinks panel: the lines of the workspace's other Markdown files that link to the active tab's file
// (`ui.backlinks`), each "file — line N: text"; a click or Enter opens that file. The app counts wikilinks by a
// broad rule (any file of that name); this panel keeps a wikilink only when the page's own rule
// (`resolveWikilink`: the nearest file of that name) resolves it to this file. It loads again, while it
// shows, when the active tab changes and on `files_changed` and `doc` events (docs/backlinks.md).
import { act, byId, el, sidebarParts, toggleSidebar } from "../shared/dom";
import type { Channel } from "../shared/protocol";
import { Reloads } from "../shared/reloads";
import { resolveWikilink } from "../editors/wikilinks";
import type { Backlink } from "../wire.gen";
import type { MountPanel, PanelHost } from "./host";

/** Edits and file events come in bursts: one load once they settle. */
const REFRESH_MS = 300;

/** The backlinks that link to `filePath` as the page resolves links: a wikilink only if it names this file. */
export function shownBacklinks(backlinks: readonly Backlink[], filePath: string): Backlink[] {
  return backlinks.filter((b) => !b.wikilinks || b.wikilinks.some((name) => resolveWikilink(name, b.path) === filePath));
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

export class BacklinksPanel {
  private sidebar = sidebarParts("backlinks", "Backlinks", "The other files that link to this one");
  private toggleButton = this.sidebar.toggle;
  private panel = this.sidebar.panel;
  private list = el("ul", { id: "backlinks-list", class: "backlinks-list", "data-testid": "backlinks-list" });
  private note = el("p", { id: "backlinks-note", class: "hint", hidden: "" });
  private reloads = new Reloads(() => this.render(), REFRESH_MS, () => {});

  constructor(
    private channel: Channel,
    private host: Pick<PanelHost, "active" | "openFile">,
  ) {
    this.panel.append(el("div", { class: "comments-head" }, el("h2", { id: "backlinks-title" }, "Backlinks")), this.list, this.note);
    this.toggleButton.addEventListener("click", () => {
      if (toggleSidebar(this.panel, this.toggleButton)) void act(() => this.reloads.now());
    });
    byId("settings-open").before(this.toggleButton);
    byId("comments").after(this.panel);
  }

  /** The active tab, its file or the workspace's files may have changed: load again shortly, while shown. */
  refresh(): void {
    if (!this.panel.hidden) this.reloads.soon();
  }

  private async render(): Promise<void> {
    const tab = this.host.active();
    const answer = tab ? await this.channel.request("ui.backlinks", { tabId: tab.tabId }) : null;
    const shown = answer?.filePath ? shownBacklinks(answer.backlinks, answer.filePath) : [];
    this.list.replaceChildren(...shown.map((b) => this.item(b)));
    if (!shown.length) this.list.append(el("li", { class: "hint panel-empty" }, "No other file links here."));
    this.note.textContent = answer?.truncated ? "More files link here than the list shows." : "";
    this.note.hidden = !answer?.truncated;
  }

  private item(link: Backlink): HTMLElement {
    const open = el(
      "button",
      { type: "button", class: "backlink", title: link.path, "data-path": link.path, "data-line": String(link.line) },
      el("span", { class: "backlink-file" }, baseName(link.path)),
      ` — line ${link.line}: `,
      el("span", { class: "backlink-text" }, link.text),
    );
    // a button: Enter and Space click it too
    open.addEventListener("click", () => void act(() => this.host.openFile(link.path)));
    return el("li", {}, open);
  }
}

/** The Backlinks panel on the page: the active tab's, again when the tab, a document or the files change. */
export const mountBacklinksPanel: MountPanel = (host) => {
  const panel = new BacklinksPanel(host.channel, host);
  for (const event of ["active", "files", "files_changed", "doc"] as const) host.bus.on(event, () => panel.refresh());
};
