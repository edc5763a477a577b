// The window's page: what it shows (the tabs, the active tab's editor, the agents, the workspaces' tree and
// rail), the app's requests it answers, and the panels and dialogs it puts together. Panels hear the app's
// events on the event bus; the page itself subscribes first.
import { ApprovalDialog } from "../dialogs/approvals";
import { EventBus } from "../shared/bus";
import { TabCloser } from "../dialogs/closetabs";
import { GoneBanner } from "./gone";
import { wireCjkFormat } from "./cjkformat";
import { act, byId, el, setAttr, setHidden, setText, toast } from "../shared/dom";
import { FileTree } from "../panels/filetree";
import { Outline } from "../panels/outline";
import { ReviewPanel } from "../panels/review";
import { StatusBar } from "./statusbar";
import { setLabel, showIcons } from "./icons";
import { AutoSave } from "../sync/autosave";
import { ThemeSwitch } from "./theme";
import { StoredSettings } from "../shared/storedsettings";
import { type AppCommands, Keys } from "./keys";
import { tablePaletteItems } from "../editors/tableactions";
import { Reloads } from "../shared/reloads";
import { setRenderContext } from "../shared/renderctx";
import { configureImages } from "../editors/paste/images";
import { PANELS } from "../panels/index";
import type { PanelHost } from "../panels/host";
import { type AppEvent, type Channel, type EditorAnswer, errorText, type RequestEvent } from "../shared/protocol";
import type { DocEvent, EditorRequest, Listing, PageState, Reply, TabInfo, TabView, WindowInfo } from "../wire.gen";
import { filePicker } from "../dialogs/picker";
import { SaveAsDialog } from "../dialogs/saveas";
import { ExportDialog, type ExportTab } from "../dialogs/export";
import { StartScreen } from "./startscreen";
import { SettingsDialog } from "../dialogs/settings";
import { loadWysiwyg, TabSync } from "../sync/tabsync";
import { inIdle } from "../shared/idle";
import { WritingModes } from "../editors/writing/modes";
import { setLinkHost } from "../editors/links";
import { setWorkspaceFiles } from "../editors/wikilinks";

export class Page {
  private label = "";
  private state: PageState | null = null;
  private current: TabSync | null = null;
  private wanted: string | null = null;
  private showing: Promise<void> = Promise.resolve();
  /** What the tab strip shows now, and which tabs in which order with which one active (`renderTabs`). */
  private tabsDrawn = "";
  private tabsPlace = "";
  /** The workspace listing the file tree and the rail show (`drawTree`). */
  private treeListed = "";
  private bus = new EventBus();
  private treeLoads = new Reloads(() => this.drawTree(), 0, () => {});
  private approvals: ApprovalDialog;
  private reviewPanel: ReviewPanel;
  private editorHost = byId("editor");
  readonly keys: Keys;
  private fileTree: FileTree;
  private statusBar: StatusBar;
  private autoSave: AutoSave;
  /** read before any part that follows a setting is made (each listens to it) */
  private storedSettings: StoredSettings;
  private closer: TabCloser;
  private writing: WritingModes;
  private gone: GoneBanner;
  private startScreen: StartScreen;

  constructor(private channel: Channel) {
    this.storedSettings = new StoredSettings(channel);
    // The page's own subscriptions come first: the editor takes a `doc` before any panel reads the text.
    this.bus.on("state", (state) => this.render(state));
    this.bus.on("doc", (doc) => this.remote(doc));
    this.bus.on("notification", ({ message, level }) => void toast(message, level));
    this.bus.on("divergent", ({ filePath }) => void toast(`${filePath} changed on disk while you have unsaved changes`, "warning"));
    // Another program created, renamed or deleted files in a workspace shown here: a name being typed in the tree
    // is put back into the tree drawn (FileTree).
    this.bus.on("files_changed", () => void act(() => this.loadTree()));
    this.approvals = new ApprovalDialog(channel, this.bus);
    this.approvals.onIdle = () => {
      if (this.state) this.render(this.state);
    };
    const host: PanelHost = { channel, bus: this.bus, active: () => this.current, openFile: (path: string) => this.openPath(path, "file") };
    for (const mount of PANELS) mount(host);
    new SaveAsDialog(channel, () => this.current, () => void this.loadTree(), () => this.activeRoot());
    configureImages(channel, () => this.current?.tabId ?? null);
    new SettingsDialog(channel, (path) => this.openPath(path, "file"));
    wireCjkFormat(channel, () => this.current);
    this.keys = new Keys(channel, this.commands());
    this.reviewPanel = new ReviewPanel(channel, () => this.current, this.bus);
    this.reviewPanel.onCounts = () => {
      const win = this.window();
      if (win) this.renderTabs(win);
    };
    this.keys.addCommands(this.reviewPanel.commands());
    this.closer = new TabCloser(channel, {
      tabs: () => (this.window()?.tabs ?? []).filter((t) => t.visible),
      activeTabId: () => this.current?.tabId ?? null,
      flushActive: async () => this.current?.flush(),
      saveAs: async (tabId) => {
        if (this.current?.tabId !== tabId) await this.switchTo(tabId);
        byId("save-as-open").click();
      },
      focusEditor: () => this.current?.editor?.focus(),
    });
    this.keys.addCommands(this.closer.commands());
    this.writing = new WritingModes(channel, this.editorHost, this.storedSettings);
    this.gone = new GoneBanner(byId("divergence"), () => void act(() => this.save()));
    this.keys.addCommands(this.writing.commands());
    const exports = new ExportDialog(channel, () => this.exportTab());
    this.keys.addCommands(exports.commands());
    this.keys.addCommands(tablePaletteItems());
    this.keys.addCommands([
      { label: "Open folder…", detail: "Open a folder as this window's workspace", run: () => this.pickFolder() },
      { label: "Open file…", detail: "Open a Markdown or workflow file", run: () => this.pickFile() },
    ]);
    this.startScreen = new StartScreen(channel, {
      pickFolder: () => this.pickFolder(),
      pickFile: () => this.pickFile(),
      newTab: () => this.commands().newTab(),
      openFolder: (path) => this.openPath(path, "folder"),
      openFile: (path) => this.openPath(path, "file"),
    });
    new Outline();
    new ThemeSwitch(channel, this.storedSettings);
    this.autoSave = new AutoSave(
      channel,
      async (tabId) => {
        if (this.current?.tabId === tabId) await this.current.flush();
      },
      this.storedSettings,
    );
    this.statusBar = new StatusBar(() => this.current?.editor?.mode ?? null);
    this.fileTree = new FileTree(channel, {
      open: (filePath) => this.openPath(filePath, "file"),
      reload: () => this.loadTree(),
      activePath: () => this.window()?.tabs.find((t) => t.id === this.current?.tabId)?.filePath ?? null,
    });
    setLinkHost({
      channel,
      tabId: () => this.current?.tabId ?? null,
      show: (tabId) => this.show(tabId),
      workspaceRoot: () => this.state?.views[this.label]?.workspaces.find((w) => w.id === this.window()?.activeWorkspaceInstanceId)?.root ?? null,
      filesChanged: () => this.loadTree(),
    });
    channel.onEvent = (event) => void this.onEvent(event);
    channel.onClose = () => {
      byId("connection").textContent = "disconnected: reload the page";
      byId("connection").dataset.state = "closed";
    };
    showIcons(document); // every toolbar button is in the page by now
  }

  async start(): Promise<void> {
    await this.channel.open();
    const asked = new URLSearchParams(location.search).get("window");
    // A window of an earlier app run is gone: then the app picks one.
    const attached = await this.channel
      .request("ui.attach", asked ? { window: asked } : {})
      .catch(() => this.channel.request("ui.attach", {}));
    this.label = attached.window;
    history.replaceState(null, "", `/?window=${encodeURIComponent(this.label)}`);
    document.title = `VMark: ${this.label}`;
    byId("window-label").textContent = this.label;
    byId("connection").textContent = "connected";
    byId("connection").dataset.state = "open";
    this.wireControls();
    await this.storedSettings.load();
    this.reportFocus();
    this.render(await this.channel.request("ui.state", {}));
    await this.loadTree();
    const { approvals } = await this.channel.request("approvals.list", {});
    for (const approval of approvals) if (approval.window === this.label) this.approvals.add(approval);
    document.body.dataset.ready = "true";
    // Markdown files open in WYSIWYG by default: its editor loads while the page is idle, not after the first click.
    // A load that fails here is asked for again, and reported, by the opening that needs it.
    inIdle(() => void loadWysiwyg().catch(() => undefined));
  }

  editorText(): string | null {
    return this.current?.editor?.getText() ?? null;
  }

  activeTabId(): string | null {
    return this.current?.tabId ?? null;
  }

  /** The active tab, as the export dialog needs it. */
  private exportTab(): ExportTab | null {
    const tab = this.current;
    if (!tab) return null;
    const filePath = this.window()?.tabs.find((t) => t.id === tab.tabId)?.filePath ?? null;
    return { tabId: tab.tabId, kind: tab.kind, filePath, flush: () => tab.flush() };
  }

  activeMode(): string | null {
    return this.current?.editor?.mode ?? null;
  }

  /** What the keys, the palette and the panels ask of the page. */
  commands(): AppCommands {
    return {
      tabs: () =>
        (this.window()?.tabs ?? [])
          .filter((t) => t.visible)
          // The tab being shown counts as active while its editor is still coming up (a key right after
          // Alt+N closes or cycles from the new tab, not from none).
          .map((t) => ({ id: t.id, title: t.title, filePath: t.filePath, active: t.id === (this.wanted ?? this.current?.tabId) })),
      mode: () => this.current?.editor?.mode ?? null,
      switchTo: (tabId) => this.switchTo(tabId),
      closeTab: async (tabId) => {
        const tab = this.window()?.tabs.find((t) => t.id === tabId);
        if (tab) await this.close(tab);
      },
      newTab: async () => {
        const { tabId } = await this.channel.request("ui.new", { kind: "markdown" });
        await this.show(tabId);
      },
      save: () => this.save(),
      files: async () => {
        const { workspaces } = await this.channel.request("ui.files", {});
        const shown = workspaces.filter((w) => w.active);
        return (shown.length ? shown : workspaces).flatMap((w) => w.files.map((f) => ({ root: w.root, path: f.path })));
      },
      open: (filePath) => this.openPath(filePath, "file"),
    };
  }

  // --- the app's events and requests ---------------------------------------------------------
  private async onEvent(event: AppEvent): Promise<void> {
    if (event.requestId !== undefined) await this.answer(event);
    else await this.bus.dispatch(event);
  }

  /** A change to a document: the shown tab's editor takes it, then the panels hear of it. */
  private async remote(doc: DocEvent): Promise<void> {
    if (!this.current || !doc.tabIds.includes(this.current.tabId)) return;
    await this.current.remote(doc.revision, doc.changes ?? null, doc.reviewFollows ?? false);
    await this.bus.emit("remote", null);
  }

  private async answer(event: RequestEvent): Promise<void> {
    const reply: Reply = { requestId: event.requestId, ok: true };
    try {
      if (event.event === "flush") await this.current?.passOn();
      else if (event.event === "activate") {
        // While a dialog waits for an answer the page keeps showing what it showed.
        if (this.approvals.isOpen()) Object.assign(reply, { ok: false, activeTabId: this.current?.tabId ?? null });
        else await this.show(event.payload.tabId);
      }
      else if (event.event === "focus") {
        window.focus();
        this.reportFocus();
      } else if (event.event === "workspace_switch") await this.loadTree();
      else if (event.event === "editor") Object.assign(reply, await this.answerEditor(event.payload));
    } catch (err) {
      toast(errorText(err), "error");
    }
    await this.channel.request("ui.reply", reply);
  }

  private async answerEditor(payload: EditorRequest): Promise<EditorAnswer> {
    const tab = this.current;
    if (!tab || tab.tabId !== payload.tabId) {
      return { ok: false, reason: `this page shows ${tab?.tabId ?? "no tab"}, not ${payload.tabId}` };
    }
    return tab.answerEditor(payload.op, payload.content ?? "");
  }

  // --- rendering ------------------------------------------------------------------------------
  private window(): WindowInfo | undefined {
    return this.state?.windows.find((w) => w.label === this.label);
  }

  private view(tabId: string): TabView | undefined {
    return this.state?.views[this.label]?.tabs[tabId];
  }

  private render(state: PageState): void {
    const workspacesBefore = this.workspaceKey(this.state);
    this.state = state;
    const win = this.window();
    if (!win) return;
    this.renderTabs(win);
    this.autoSave.consider(win.tabs);
    // A rename or move of the shown file: its images resolve against its new folder.
    const shownTab = win.tabs.find((t) => t.id === this.current?.tabId);
    if (shownTab) setRenderContext({ window: this.label, docPath: shownTab.filePath });
    this.renderAgents(state.agents);
    const active = win.tabs.find((t) => t.active && t.visible);
    if (!this.approvals.isOpen()) void this.show(active ? active.id : null);
    this.renderActiveControls();
    if (this.workspaceKey(state) !== workspacesBefore) void this.loadTree();
  }

  /** What the file tree and the rail depend on: the window's workspace instances and which one shows. */
  private workspaceKey(state: PageState | null): string {
    const win = state?.windows.find((w) => w.label === this.label);
    return JSON.stringify([state?.views[this.label]?.workspaces ?? [], win?.activeWorkspaceInstanceId ?? null]);
  }

  /**
   * The tab strip, drawn again only when what it shows changed, and the active tab scrolled to only when another
   * one became active or the tabs changed: the app sends a state at every write, and a scroll forces a layout of
   * the page (in a long WYSIWYG document, one more pass over its thousands of blocks per agent edit).
   */
  private renderTabs(win: WindowInfo): void {
    const tabs = win.tabs.filter((t) => t.visible);
    const shows = (tab: TabInfo): unknown[] => {
      const view = this.view(tab.id);
      const count = this.reviewPanel.countOf(tab.id) ?? tab.reviewCount ?? 0;
      return [tab.id, tab.active, tab.dirty, Boolean(view?.pinned), tab.filePath, tab.title, count, count ? this.reviewPanel.agentsOf(tab.id) : []];
    };
    const drawn = JSON.stringify(tabs.map(shows));
    if (drawn === this.tabsDrawn) return;
    this.tabsDrawn = drawn;
    const place = JSON.stringify([tabs.map((t) => t.id), tabs.find((t) => t.active)?.id ?? null]);
    const moved = place !== this.tabsPlace;
    this.tabsPlace = place;
    const strip = byId("tabs");
    strip.replaceChildren(
      ...tabs
        .map((tab) => {
          const view = this.view(tab.id);
          const item = el("div", {
            class: `tab${tab.active ? " active" : ""}${tab.dirty ? " dirty" : ""}${view?.pinned ? " pinned" : ""}`,
            role: "tab",
            "aria-selected": String(tab.active),
            "data-tab-id": tab.id,
            "data-dirty": String(tab.dirty),
            "data-pinned": String(Boolean(view?.pinned)),
            title: tab.filePath ?? tab.title,
          });
          const pin = el("button", { class: "pin", type: "button", title: view?.pinned ? "Unpin" : "Pin" }, "⚑");
          pin.addEventListener("click", (e) => {
            e.stopPropagation();
            void act(() => this.channel.request("ui.pin", { tabId: tab.id, pinned: !view?.pinned }));
          });
          const close = el("button", { class: "close", type: "button", title: "Close" }, "×");
          close.addEventListener("click", (e) => {
            e.stopPropagation();
            void act(() => this.close(tab));
          });
          const marker = el("span", { class: "dirty-marker", "aria-label": tab.dirty ? "unsaved" : "" }, tab.dirty ? "●" : "");
          // The latest `review` event is newer than the tab state (which the app sends when tabs change).
          const reviewCount = this.reviewPanel.countOf(tab.id) ?? tab.reviewCount ?? 0;
          const marked = reviewMarker(reviewCount, this.reviewPanel.agentsOf(tab.id));
          item.append(pin, el("span", { class: "title" }, tab.title), marked, marker, close);
          item.addEventListener("click", () => void act(() => this.switchTo(tab.id)));
          return item;
        }),
    );
    if (moved) strip.querySelector(".tab.active")?.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  private renderAgents(agents: PageState["agents"]): void {
    const badge = byId("agents");
    // One agent is shown by its name; several by their count, each named in the tooltip.
    setText(badge, agents.length === 0 ? "no agents" : agents.length === 1 ? agents[0].label : `${agents.length} agents`);
    setAttr(badge, "title", agents.map((a) => a.label).join("\n") || "No agent connected");
    setAttr(badge, "data-count", String(agents.length));
  }

  private renderActiveControls(): void {
    const tab = this.current;
    const view = tab ? this.view(tab.tabId) : undefined;
    const toggle = byId<HTMLButtonElement>("mode-toggle");
    toggle.disabled = !tab || tab.kind !== "markdown";
    byId<HTMLButtonElement>("cjk-format").disabled = !tab || tab.kind !== "markdown" || tab.readOnly;
    setLabel(toggle, tab?.mode === "wysiwyg" ? "Source" : "WYSIWYG");
    byId<HTMLButtonElement>("save-tab").disabled = !tab;
    byId<HTMLButtonElement>("comment-add").disabled = !tab;
    setHidden(byId("divergence"), !view?.divergent || view.divergenceKept);
    this.gone.show(Boolean(tab && view?.missing));
    setHidden(byId("empty"), Boolean(tab));
    this.startScreen.update(this.state, this.label, Boolean(tab));
    const activePath = this.window()?.tabs.find((t) => t.id === tab?.tabId)?.filePath ?? null;
    for (const file of document.querySelectorAll<HTMLElement>("#tree button.file")) {
      const root = file.closest<HTMLElement>("section.workspace")?.dataset.root;
      setAttr(file, "aria-current", `${root}/${file.dataset.path}` === activePath ? "true" : null);
    }
    void this.bus.emit("active", null);
  }

  // --- the active tab ----------------------------------------------------------------------------
  /** Show `tabId` (or nothing); one switch at a time, the latest wish wins. */
  private show(tabId: string | null): Promise<void> {
    this.wanted = tabId;
    this.showing = this.showing.then(async () => {
      if (this.current?.tabId === this.wanted) return;
      const target = this.wanted;
      if (this.current) {
        await this.current.unmount();
        this.current = null;
      }
      this.editorHost.replaceChildren();
      if (target) {
        performance.mark("vmark:read");
        const text = await this.channel.request("ui.read", { tabId: target });
        performance.mark("vmark:text");
        setRenderContext({ window: this.label, docPath: text.filePath });
        this.statusBar.setFacts({ lineEnding: text.lineEnding, encoding: text.encoding });
        const sync = new TabSync(this.channel, target, text);
        sync.onError = (err) => toast(errorText(err), "error");
        // Current at once: a `doc` event after the read waits for the editor on the tab's chain.
        this.current = sync;
        this.editorHost.dataset.tabId = target;
        await sync.mount(this.editorHost);
        await this.reviewPanel.attach(sync).catch((err) => toast(`changes to review unavailable: ${errorText(err)}`, "error"));
      } else {
        this.reviewPanel.detach();
        delete this.editorHost.dataset.tabId;
        this.statusBar.setFacts(null);
      }
      this.renderActiveControls();
    });
    return this.showing.catch((err) => {
      toast(errorText(err), "error");
    });
  }

  private async switchTo(tabId: string): Promise<void> {
    await this.current?.flush();
    await this.channel.request("ui.switch_tab", { tabId });
    await this.show(tabId);
  }

  private async close(tab: TabInfo): Promise<void> {
    await this.closer.close(tab);
  }

  // --- controls ----------------------------------------------------------------------------------
  private wireControls(): void {
    byId("new-tab").addEventListener("click", () =>
      void act(async () => {
        const { tabId } = await this.channel.request("ui.new", { kind: "markdown" });
        await this.show(tabId);
      }),
    );
    byId("save-tab").addEventListener("click", () => void act(() => this.save()));
    byId("mode-toggle").addEventListener("click", () =>
      void act(async () => {
        const tab = this.current;
        if (!tab || tab.kind !== "markdown") return;
        await tab.switchMode(this.editorHost, tab.mode === "wysiwyg" ? "source" : "wysiwyg");
        this.renderActiveControls();
        await this.reviewPanel.attach(tab); // a new editor: the changes are placed in it again
      }),
    );
    byId("keep-mine").addEventListener("click", () => void act(() => this.resolve("mine")));
    byId("keep-disk").addEventListener("click", () => void act(() => this.resolve("disk")));
    byId("open-folder").addEventListener("click", () => void act(() => this.pickFolder()));
    byId("open-file").addEventListener("click", () => void act(() => this.pickFile()));
    window.addEventListener("focus", () => this.reportFocus());
    window.addEventListener("blur", () => this.reportFocus());
    document.addEventListener("visibilitychange", () => this.reportFocus());
  }

  private reportFocus(): void {
    const payload = { focused: document.hasFocus(), visible: document.visibilityState === "visible" };
    void this.channel.request("ui.focus", payload).catch(() => {});
  }

  private async save(): Promise<void> {
    const tab = this.current;
    if (!tab) return;
    if (this.window()?.tabs.find((t) => t.id === tab.tabId)?.filePath == null) {
      byId("save-as-open").click(); // an untitled document: ask where it goes
      return;
    }
    await tab.flush();
    const saved = await this.channel.request("ui.save", { tabId: tab.tabId });
    toast(`Saved ${saved.filePath}`);
  }

  private async resolve(keep: "mine" | "disk"): Promise<void> {
    const tab = this.current;
    if (!tab) return;
    await tab.flush();
    await this.channel.request("ui.resolve_divergence", { tabId: tab.tabId, keep });
  }

  /** Open folder: the picker (it starts where it last was, else home); the folder opens as a typed one did. */
  private pickFolder(): Promise<void> {
    return filePicker(this.channel).open({ mode: "folder", choose: (path) => this.openPath(path, "folder") });
  }

  /** Open file: the picker, starting in the window's workspace. */
  private pickFile(): Promise<void> {
    return filePicker(this.channel).open({ mode: "file", start: this.activeRoot(), choose: (path) => this.openPath(path, "file") });
  }

  /** The root of the workspace instance the window shows, if any. */
  private activeRoot(): string | null {
    const shown = this.window()?.activeWorkspaceInstanceId;
    return this.state?.views[this.label]?.workspaces.find((w) => w.id === shown)?.root ?? null;
  }

  private async openPath(path: string, which: string): Promise<void> {
    if (!path) return;
    if (which === "folder") {
      await this.channel.request("ui.open_folder", { path });
      await this.loadTree();
      return;
    }
    const { tabId } = await this.channel.request("ui.open", { path });
    await this.show(tabId);
  }

  // --- the file tree -------------------------------------------------------------------------------
  /** The tree listed again, after the listings asked for before (so the last drawn is the latest). */
  private loadTree(): Promise<void> {
    return this.treeLoads.now();
  }

  private async drawTree(): Promise<void> {
    const { workspaces } = await this.channel.request("ui.files", {});
    setWorkspaceFiles(workspaces.flatMap((w) => w.files.map((f) => ({ root: w.root, path: f.path })))); // wikilinks resolve in them
    const tree = byId("tree");
    // A listing like the one shown is not drawn again: the tree keeps its folds, current file and name field in
    // place, and a click landing during a redraw would be lost (its press and release on two different buttons).
    const listed = JSON.stringify(workspaces);
    if (listed !== this.treeListed) {
      this.treeListed = listed;
      // The rail names every instance; the tree shows the one the window shows (tabs of the others are hidden).
      const shown = workspaces.filter((w) => w.active);
      const focused = this.fileTree.focusedItem();
      tree.replaceChildren(...(shown.length ? shown : workspaces).map((w) => this.renderWorkspace(w)));
      this.fileTree.drawn(focused);
      this.renderRail(workspaces);
    }
    tree.dataset.loaded = String(workspaces.length);
    await this.bus.emit("files", null);
  }

  private renderRail(workspaces: Listing[]): void {
    const rail = byId("rail");
    rail.hidden = workspaces.length < 2;
    rail.replaceChildren(
      ...workspaces.map((w) => {
        const name = w.root.split("/").pop() || w.root;
        const pick = el(
          "button",
          { type: "button", class: `rail-item${w.active ? " active" : ""}`, title: w.root, "data-root": w.root },
          name,
        );
        pick.setAttribute("aria-pressed", String(w.active));
        pick.addEventListener("click", () =>
          void act(async () => {
            await this.current?.flush();
            await this.channel.request("ui.switch_workspace", { workspaceInstanceId: w.workspaceInstanceId });
          }),
        );
        return pick;
      }),
    );
  }

  private renderWorkspace(listing: Listing): HTMLElement {
    return this.fileTree.render(listing);
  }
}

/** The tab's marker while its document has agent changes to review (empty otherwise). */
function reviewMarker(count: number, agents: string[]): HTMLElement {
  if (count === 0) return el("span", { class: "review-marker", "data-count": "0" });
  const by = agents.length ? ` by ${agents.join(", ")}` : "";
  const label = `${count} change${count === 1 ? "" : "s"} to review${by}`;
  return el("span", { class: "review-marker", "data-count": String(count), "aria-label": label, title: label, role: "img" }, String(count));
}
