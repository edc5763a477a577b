// The Browser panel: the embedded browser's tabs (the agents' marked "AI", the person's own), a live
// view of one of them (screencast frames drawn on a canvas, each acknowledged once drawn so the app
// never sends faster than this page draws), the person's clicks, keys, text and wheel forwarded in
// order, back / forward / reload and an address bar, a "page crashed" overlay with Reload, and the
// site permissions agents hold, each with Revoke.
import { act, byId, el, sidebarParts, toast, toggleSidebar } from "../shared/dom";
import type { MountPanel } from "./host";
import { Reloads } from "../shared/reloads";
import type { Channel } from "../shared/protocol";
import type {
  BrowserFrame,
  BrowserInput,
  BrowserNavPayload,
  BrowserTabEvent,
  BrowserTabInfo,
  MouseInput,
  SitePermission,
} from "../wire.gen";

type NavOp = BrowserNavPayload["op"];
/** One input event of the person's, as sent without its tab (each kind keeps its own fields). */
type ViewInput = BrowserInput extends infer T ? (T extends BrowserInput ? Omit<T, "tabId"> : never) : never;
/** Where on the view an event happened, and the view's size. */
type ViewPoint = Pick<MouseInput, "x" | "y" | "width" | "height">;

/** Keys that only modify others, and keys that name no key Chromium could press. */
const NOT_FORWARDED = new Set(["Control", "Shift", "Alt", "Meta", "AltGraph", "CapsLock", "Dead", "Unidentified", "Process"]);
/** A wheel in lines or pages, in pixels (what Chromium's wheel takes). */
const WHEEL_LINE_PX = 16;
const WHEEL_PAGE_PX = 600;
const REFRESH_MS = 250;
const MOUSE_BUTTONS = ["left", "middle", "right"] as const;

export class BrowserPanel {
  private sidebar = sidebarParts("browser", "Browser", "The embedded browser's tabs, live");
  private toggleButton = this.sidebar.toggle;
  private panel = this.sidebar.panel;
  private tabList = el("ul", { id: "browser-tabs", class: "browser-tabs", "data-testid": "browser-tabs" });
  private newUrl = el("input", {
    id: "browser-new-url",
    type: "text",
    placeholder: "Address for a new tab (optional)",
    autocomplete: "off",
    spellcheck: "false",
  });
  private viewBox = el("section", { id: "browser-view", class: "browser-view", hidden: "" });
  private address = el("input", {
    id: "browser-address",
    type: "text",
    autocomplete: "off",
    spellcheck: "false",
    "data-testid": "browser-address",
    "aria-label": "Address",
  });
  private canvas = el("canvas", {
    id: "browser-canvas",
    class: "browser-canvas",
    tabindex: "0",
    "data-testid": "browser-canvas",
    "data-frames": "0",
    "aria-label": "The browser tab (live view)",
  });
  private crashed = el("div", { id: "browser-crashed", class: "browser-crashed", "data-testid": "browser-crashed", hidden: "" });
  private permissionList = el("ul", { id: "browser-permissions", class: "browser-permissions", "data-testid": "browser-permissions" });
  private viewing: string | null = null;
  private frames = 0;
  private tabs: BrowserTabInfo[] = [];
  private inputs: Promise<void> = Promise.resolve();
  // `at` is set by each wheel event before an input is sent
  private wheel: { dx: number; dy: number; at: ViewPoint; queued: boolean } = {
    dx: 0,
    dy: 0,
    at: { x: 0, y: 0, width: 0, height: 0 },
    queued: false,
  };
  private reloads = new Reloads(() => this.render(), REFRESH_MS, () => {});

  constructor(private channel: Channel) {
    const newForm = el("form", { id: "browser-new-form", class: "browser-row" }, this.newUrl, el("button", { id: "browser-new", type: "submit" }, "New tab"));
    newForm.addEventListener("submit", (event) => {
      event.preventDefault();
      void act(() => this.openTab(this.newUrl.value.trim()));
    });
    const navButton = (op: NavOp, label: string, title: string): HTMLButtonElement => {
      const button = el("button", { id: `browser-${op}`, type: "button", title }, label);
      button.addEventListener("click", () => void act(() => this.nav(op)));
      return button;
    };
    const addressForm = el(
      "form",
      { id: "browser-address-form", class: "browser-row" },
      navButton("back", "←", "Back"),
      navButton("forward", "→", "Forward"),
      navButton("reload", "⟳", "Reload"),
      this.address,
    );
    addressForm.addEventListener("submit", (event) => {
      event.preventDefault();
      void act(() => this.nav("go", this.address.value.trim()));
    });
    const reload = el("button", { id: "browser-crashed-reload", type: "button" }, "Reload");
    reload.addEventListener("click", () => void act(() => this.reloadCrashed()));
    this.crashed.append(el("p", {}, "This page crashed."), reload);
    this.viewBox.append(addressForm, el("div", { class: "browser-stage" }, this.canvas, this.crashed));
    this.panel.append(
      el("div", { class: "browser-head" }, el("h2", { id: "browser-title" }, "Browser")),
      this.tabList,
      newForm,
      this.viewBox,
      el("h3", {}, "Site permissions"),
      el("p", { class: "hint" }, "What agents may do on a site without asking again, until the tab navigates."),
      this.permissionList,
    );
    this.wireCanvas();
    this.toggleButton.addEventListener("click", () => void this.toggle());
    byId("settings-open").before(this.toggleButton);
    byId("comments").after(this.panel);
  }

  // --- the app's events ---------------------------------------------------------------------------
  /** Tabs or grants may have changed (the app's `state` and `browser_tabs` events): load again shortly. */
  refresh(): void {
    if (this.panel.hidden) return;
    this.reloads.soon();
  }

  async onFrame(payload: BrowserFrame): Promise<void> {
    const tabId = payload.tabId;
    try {
      if (tabId !== this.viewing) return;
      const bytes = Uint8Array.from(atob(payload.data), (c) => c.charCodeAt(0));
      const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/jpeg" }));
      if (tabId !== this.viewing) return;
      if (this.canvas.width !== bitmap.width) this.canvas.width = bitmap.width;
      if (this.canvas.height !== bitmap.height) this.canvas.height = bitmap.height;
      this.canvas.getContext("2d")?.drawImage(bitmap, 0, 0);
      bitmap.close();
      this.frames += 1;
      this.canvas.dataset.frames = String(this.frames);
      this.showAddress(payload.url);
    } finally {
      // drawn or not, the app may send the next one
      void this.channel.request("browser.frame_ack", { tabId }).catch(() => {});
    }
  }

  onCrashed(payload: BrowserTabEvent): void {
    if (payload.tabId === this.viewing) this.crashed.hidden = false;
    this.refresh();
  }

  // --- showing ------------------------------------------------------------------------------------
  private async toggle(): Promise<void> {
    if (!toggleSidebar(this.panel, this.toggleButton)) {
      await this.stopViewing();
      return;
    }
    await act(() => this.load());
  }

  /** One load at a time, in order: a later one always shows the later state. */
  private load(): Promise<void> {
    return this.reloads.now();
  }

  private async render(): Promise<void> {
    const [{ tabs }, { permissions }] = await Promise.all([
      this.channel.request("browser.tabs", {}),
      this.channel.request("browser.permissions", {}),
    ]);
    this.tabs = tabs;
    this.tabList.replaceChildren(...tabs.map((tab) => this.tabItem(tab)));
    if (!tabs.length) this.tabList.append(el("li", { class: "hint" }, "No browser tabs."));
    this.permissionList.replaceChildren(...permissions.map((p) => this.permissionItem(p)));
    if (!permissions.length) this.permissionList.append(el("li", { class: "hint" }, "No site permissions."));
    const shown = tabs.find((t) => t.tabId === this.viewing);
    if (this.viewing && !shown) {
      await this.stopViewing();
      toast("The browser tab you were viewing was closed", "warning");
    } else if (shown) this.crashed.hidden = !shown.crashed;
  }

  private tabItem(tab: BrowserTabInfo): HTMLElement {
    const item = el("li", {
      class: `browser-tab${tab.tabId === this.viewing ? " active" : ""}`,
      "data-tab-id": tab.tabId,
      "data-owner": tab.owner,
      "data-crashed": String(tab.crashed),
    });
    const pick = el(
      "button",
      { type: "button", class: "browser-tab-pick", title: tab.url },
      el("span", { class: "browser-owner" }, tab.owner === "ai" ? "AI" : "You"),
      ...(tab.agent ? [el("span", { class: "browser-agent" }, tab.agent)] : []),
      el("span", { class: "browser-tab-title" }, tab.title || tab.url || "New tab"),
    );
    pick.addEventListener("click", () => void act(() => this.view(tab.tabId)));
    const close = el("button", { type: "button", class: "browser-tab-close", title: "Close this tab" }, "×");
    close.addEventListener("click", () => void act(() => this.closeTab(tab.tabId)));
    item.append(pick, close);
    return item;
  }

  private permissionItem(grant: SitePermission): HTMLElement {
    const bound = [grant.role && `${grant.role} “${grant.name ?? ""}”`, grant.value !== null && `“${grant.value}”`]
      .filter(Boolean)
      .join(" with ");
    const revoke = el("button", { type: "button", class: "browser-revoke" }, "Revoke");
    revoke.addEventListener("click", () =>
      void act(async () => {
        await this.channel.request("browser.revoke", { origin: grant.origin, operation: grant.operation });
        await this.load();
      }),
    );
    return el(
      "li",
      { class: "browser-permission", "data-origin": grant.origin, "data-operation": grant.operation },
      el("span", { class: "browser-permission-op" }, grant.operation),
      el("span", { class: "browser-permission-origin" }, grant.origin),
      el("span", { class: "hint" }, bound),
      revoke,
    );
  }

  private async view(tabId: string): Promise<void> {
    if (this.viewing === tabId) return;
    await this.stopViewing();
    this.viewing = tabId;
    this.frames = 0;
    this.canvas.dataset.frames = "0";
    this.canvas.dataset.tabId = tabId;
    this.canvas.getContext("2d")?.clearRect(0, 0, this.canvas.width, this.canvas.height);
    this.viewBox.hidden = false;
    this.panel.dataset.viewing = tabId;
    for (const item of this.tabList.querySelectorAll<HTMLElement>(".browser-tab")) {
      item.classList.toggle("active", item.dataset.tabId === tabId);
    }
    const answer = await this.channel.request("browser.view", { tabId });
    this.crashed.hidden = !answer.crashed;
    this.showAddress(answer.url, true);
  }

  private async stopViewing(): Promise<void> {
    const tabId = this.viewing;
    this.viewing = null;
    this.viewBox.hidden = true;
    delete this.panel.dataset.viewing;
    delete this.canvas.dataset.tabId;
    if (tabId) await this.channel.request("browser.unview", { tabId }).catch(() => {});
  }

  private showAddress(url: string, force = false): void {
    // what the person is typing stays
    if (force || document.activeElement !== this.address) this.address.value = url;
  }

  // --- actions ------------------------------------------------------------------------------------
  private async openTab(url: string): Promise<void> {
    const answer = await this.channel.request("browser.human_open", url ? { url } : {});
    this.newUrl.value = "";
    if (answer.error) toast(answer.error, "warning");
    await this.load();
    await this.view(answer.tabId);
  }

  private async nav(op: NavOp, url?: string): Promise<void> {
    const tabId = this.viewing;
    if (!tabId) return;
    const answer = await this.channel.request("browser.nav", url === undefined ? { tabId, op } : { tabId, op, url });
    if (answer.error) toast(answer.error, "warning");
    this.showAddress(answer.url, true);
    this.canvas.focus();
  }

  private async closeTab(tabId: string): Promise<void> {
    const tab = this.tabs.find((t) => t.tabId === tabId);
    if (tab?.owner === "ai" && !window.confirm("Close this tab of the AI's? The agent loses it.")) return;
    if (tabId === this.viewing) await this.stopViewing();
    await this.channel.request("browser.close", { tabId });
    await this.load();
  }

  private async reloadCrashed(): Promise<void> {
    const tabId = this.viewing;
    if (!tabId) return;
    const answer = await this.channel.request("browser.reload_crashed", { tabId });
    this.crashed.hidden = true;
    if (answer.error) toast(answer.error, "warning");
    this.showAddress(answer.url, true);
    await this.load();
  }

  // --- the person's input ---------------------------------------------------------------------------
  /** Input goes in order, one request after the other; a refusal shows as a toast. */
  private send(input: ViewInput): void {
    const tabId = this.viewing;
    if (!tabId || !this.crashed.hidden) return;
    this.inputs = this.inputs.then(() => act(() => this.channel.request("browser.input", { tabId, ...input })));
  }

  /** Where on the view the event happened, and the view's size: the app scales it to the page. */
  private point(event: MouseEvent): ViewPoint {
    const width = this.canvas.clientWidth;
    const height = this.canvas.clientHeight;
    const x = Math.min(Math.max(event.offsetX, 0), width);
    const y = Math.min(Math.max(event.offsetY, 0), height);
    return { x, y, width, height };
  }

  private wireCanvas(): void {
    const canvas = this.canvas;
    canvas.addEventListener("mousedown", () => canvas.focus());
    canvas.addEventListener("contextmenu", (event) => event.preventDefault());
    const click = (event: MouseEvent): void => {
      event.preventDefault();
      const button = MOUSE_BUTTONS[event.button] ?? "left";
      this.send({ kind: "mouse", button, clickCount: Math.min(Math.max(event.detail, 1), 3), ...this.point(event) });
    };
    canvas.addEventListener("click", click);
    canvas.addEventListener("auxclick", click);
    canvas.addEventListener("keydown", (event) => {
      event.stopPropagation(); // the page's own shortcuts (Ctrl+S) are not this page's
      if (NOT_FORWARDED.has(event.key) || event.isComposing) return;
      event.preventDefault();
      const modified = event.ctrlKey || event.metaKey || event.altKey;
      if (event.key.length === 1 && !modified) this.send({ kind: "text", text: event.key });
      else {
        const modifiers = { ctrl: event.ctrlKey, alt: event.altKey, shift: event.shiftKey, meta: event.metaKey };
        this.send({ kind: "key", key: event.key === " " ? "Space" : event.key, modifiers });
      }
    });
    canvas.addEventListener("paste", (event) => {
      const text = event.clipboardData?.getData("text/plain") ?? "";
      event.preventDefault();
      if (text) this.send({ kind: "text", text, paste: true });
    });
    canvas.addEventListener(
      "wheel",
      (event) => {
        event.preventDefault();
        const scale = event.deltaMode === 1 ? WHEEL_LINE_PX : event.deltaMode === 2 ? WHEEL_PAGE_PX : 1;
        const wheel = this.wheel;
        wheel.dx += event.deltaX * scale;
        wheel.dy += event.deltaY * scale;
        wheel.at = this.point(event);
        if (wheel.queued) return;
        // one wheel input per animation frame at most: the deltas in between add up
        wheel.queued = true;
        window.requestAnimationFrame(() => {
          const { dx, dy, at } = wheel;
          wheel.dx = wheel.dy = 0;
          wheel.queued = false;
          this.send({ kind: "wheel", dx, dy, ...at });
        });
      },
      { passive: false },
    );
  }
}

/** The Browser panel on the page: the embedded browser's tabs, grants and frames as the app sends them. */
export const mountBrowserPanel: MountPanel = ({ channel, bus }) => {
  const panel = new BrowserPanel(channel);
  bus.on("state", () => panel.refresh()); // agents' tabs and grants change with it
  bus.on("browser_tabs", () => panel.refresh());
  bus.on("browser_frame", (payload) => panel.onFrame(payload));
  bus.on("browser_crashed", (payload) => panel.onCrashed(payload));
};
