// The Coherence panel of the window's active workspace: the switch that turns provenance tracking on,
// the breakdown of what went stale (grouped by the derived document, with accept newer / revise /
// waive), the delegations the person grants agents, and the canon's claims and contexts. The app
// names the workspace (a page cannot); the panel loads again on the app's `coherence` event and
// after each action, and every refusal shows as a toast.
import { act, byId, el, sidebarParts, toggleSidebar } from "../../shared/dom";
import type { MountPanel } from "../host";
import { type Channel, errorText } from "../../shared/protocol";
import { Reloads } from "../../shared/reloads";
import type { CoherenceOverview as Overview } from "../../wire.gen";
import { type Panel, type Part } from "./part";
import { Breakdown } from "./breakdown";
import { Claims } from "./claims";
import { Contexts } from "./contexts";
import { Delegations } from "./delegations";

type View = "breakdown" | "delegations" | "claims" | "contexts";

const VIEWS: [View, string][] = [
  ["breakdown", "Breakdown"],
  ["delegations", "Delegations"],
  ["claims", "Claims"],
  ["contexts", "Contexts"],
];

/** Events come in bursts (a save, then its recording): the panel loads once they settle. */
const REFRESH_MS = 150;

export class CoherencePanel {
  private sidebar = sidebarParts("coherence", "Coherence", "What derived documents went stale, and why");
  private toggleButton = this.sidebar.toggle;
  private panel = this.sidebar.panel;
  private rootLine = el("p", { id: "coherence-root", class: "hint coherence-root" });
  private message = el("p", { id: "coherence-message", class: "coherence-error", role: "status", hidden: "" });
  /** The views: hidden while the app cannot say anything about the window's workspace. */
  private body = el("div", { class: "coherence-body", hidden: "" });
  private tabs = new Map<View, HTMLButtonElement>();
  private parts: Record<View, Part>;
  private view: View = "breakdown";
  private reloads = new Reloads(() => this.render(), REFRESH_MS, () => {});

  constructor(
    private channel: Channel,
    openDocument: (path: string) => Promise<void>,
  ) {
    const panel: Panel = { channel, reload: () => this.load(), openDocument };
    this.parts = {
      breakdown: new Breakdown(panel),
      delegations: new Delegations(panel),
      claims: new Claims(panel),
      contexts: new Contexts(panel),
    };
    const refresh = el("button", { id: "coherence-refresh", type: "button", title: "Scan the workspace again" }, "Refresh");
    refresh.addEventListener("click", () => void act(() => this.load()));
    const tablist = el("div", { class: "coherence-tabs", role: "tablist", "aria-label": "Coherence views" });
    for (const [view, label] of VIEWS) {
      const tab = el(
        "button",
        { id: `coherence-tab-${view}`, type: "button", role: "tab", "aria-controls": `coherence-view-${view}` },
        label,
      );
      tab.addEventListener("click", () => this.select(view));
      this.tabs.set(view, tab);
      tablist.append(tab);
      const part = this.parts[view].element;
      part.id = `coherence-view-${view}`;
      part.setAttribute("role", "tabpanel");
      part.setAttribute("aria-labelledby", tab.id);
    }
    this.body.append(tablist, ...VIEWS.map(([view]) => this.parts[view].element));
    this.panel.append(
      el("div", { class: "coherence-head" }, el("h2", { id: "coherence-title" }, "Coherence"), refresh),
      this.rootLine,
      this.message,
      this.body,
    );
    this.select("breakdown");
    this.toggleButton.addEventListener("click", () => this.toggle());
    byId("comments-toggle").after(this.toggleButton);
    byId("comments").after(this.panel);
  }

  /** Something in the coherence layer moved (the app's `coherence` event): load again shortly. */
  refresh(): void {
    if (this.panel.hidden) return;
    // In the background: a failure shows in the panel, not as a toast at every event.
    this.reloads.soon();
  }

  private toggle(): void {
    if (toggleSidebar(this.panel, this.toggleButton)) this.refresh();
  }

  private select(view: View): void {
    this.view = view;
    for (const [name, tab] of this.tabs) {
      tab.setAttribute("aria-selected", String(name === view));
      this.parts[name].element.hidden = name !== view;
    }
    this.refresh();
  }

  /** One load at a time, in order: a later one always shows the later state. */
  private load(): Promise<void> {
    return this.reloads.now();
  }

  private async render(): Promise<void> {
    let overview: Overview;
    try {
      overview = await this.channel.request("coherence.overview", {});
    } catch (err) {
      this.body.hidden = true;
      this.rootLine.textContent = "";
      this.showMessage(`Coherence unavailable: ${errorText(err)}`);
      throw err;
    }
    this.body.hidden = false;
    this.showMessage("");
    this.rootLine.textContent = overview.workspaceRoot;
    this.rootLine.title = overview.workspaceRoot;
    try {
      await this.parts[this.view].show(overview);
    } catch (err) {
      this.showMessage(errorText(err));
      throw err;
    }
  }

  private showMessage(text: string): void {
    this.message.textContent = text;
    this.message.hidden = text === "";
  }
}

/** The Coherence panel on the page: the active workspace's, again when the coherence layer or the workspace moved. */
export const mountCoherencePanel: MountPanel = ({ channel, bus, openFile }) => {
  const panel = new CoherencePanel(channel, openFile);
  bus.on("coherence", () => panel.refresh());
  bus.on("files", () => panel.refresh()); // the panel shows the window's active workspace
};
