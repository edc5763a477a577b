// The person's review of agents' changes in the active tab: the review bar ("N changes", previous /
// next, "Accept all", "Reject all"), a notice naming the agent and tool of changes just made, and the
// verdict buttons each change shows in the editor. The app owns the changes (per document: every window
// agrees); the page shows the latest `review` state for the text it shows and sends verdicts.
import { act, byId } from "./dom";
import type { PickItem } from "./palette";
import type { Channel } from "./protocol";
import { countLabel, noticeText, type ReviewState, stepTo } from "./reviewmodel";
import type { TabSync } from "./tabsync";

export type ReviewTab = Pick<TabSync, "tabId" | "flush" | "showReview" | "onRevision" | "editor">;

/** How long the notice of new changes stays (the count and the highlights stay until judged). */
const NOTICE_MS = 12000;

export class ReviewPanel {
  private bar = byId("review-bar");
  private count = byId("review-count");
  private notice = byId("review-notice");
  private editorHost = byId("editor");
  /** The latest state the app sent, per tab (the one shown may wait for its text revision). */
  private states = new Map<string, ReviewState>();
  /** Which change the keyboard went to last (index in the shown order), and where focus goes after a verdict. */
  private current = -1;
  private refocus: number | null = null;
  private noticeTimer: number | undefined;
  /** The tab whose editor the changes were last placed in. */
  private attached: string | null = null;
  /** The pending counts of tabs changed (the tab strip shows them). */
  onCounts: () => void = () => {};

  constructor(
    private channel: Channel,
    private active: () => ReviewTab | null,
  ) {
    byId("review-next").addEventListener("click", () => this.step(1));
    byId("review-prev").addEventListener("click", () => this.step(-1));
    byId("review-accept-all").addEventListener("click", () => void act(() => this.judge("accept", null)));
    byId("review-reject-all").addEventListener("click", () => void act(() => this.judge("reject", null)));
    // The verdict buttons live in the editors' widgets: one listener for both modes. Pressing one must not
    // move the caret or take the focus from where the person was typing.
    this.editorHost.addEventListener("mousedown", (event) => {
      if (verdictOf(event.target)) event.preventDefault();
    });
    this.editorHost.addEventListener("click", (event) => {
      const button = verdictOf(event.target);
      if (!button) return;
      event.preventDefault();
      event.stopPropagation();
      const id = button.dataset.reviewId ?? "";
      const keyboard = document.activeElement === button;
      this.refocus = keyboard ? Math.max(this.ids().indexOf(id), 0) : null;
      void act(() => this.judge(button.dataset.reviewVerdict === "reject" ? "reject" : "accept", [id]));
    });
    // Escape on a verdict button goes back to writing, where the caret was.
    this.editorHost.addEventListener("keydown", (event) => {
      if (event.key !== "Escape" || !verdictOf(event.target)) return;
      event.preventDefault();
      this.active()?.editor?.focus();
    });
    document.addEventListener(
      "keydown",
      (event) => {
        if (event.key !== "F7" || event.ctrlKey || event.metaKey || event.altKey) return;
        event.preventDefault();
        this.step(event.shiftKey ? -1 : 1);
      },
      { capture: true },
    );
  }

  /** The palette's review commands. */
  commands(): PickItem[] {
    return [
      { label: "Next change", hint: "F7", run: () => this.step(1) },
      { label: "Previous change", hint: "Shift+F7", run: () => this.step(-1) },
      { label: "Accept all changes", run: () => this.judge("accept", null) },
      { label: "Reject all changes", run: () => this.judge("reject", null) },
    ];
  }

  /** The app's `review` event: a document's pending changes. */
  onEvent(state: ReviewState): void {
    this.remember(state.tabIds, state);
    const tab = this.active();
    if (!tab || !state.tabIds.includes(tab.tabId)) return;
    if (state.notice && state.notice.count > 0) this.showNotice(noticeText(state.notice));
    void this.show(tab);
  }

  /** How many changes wait in a tab's document, as the latest review state says (undefined: none heard of yet). */
  countOf(tabId: string): number | undefined {
    return this.states.get(tabId)?.changes.length;
  }

  /** A tab came up in the editor: ask for its changes (they may have changed while it was not shown). */
  async attach(tab: ReviewTab): Promise<void> {
    tab.onRevision = () => void this.show(tab);
    this.current = -1;
    // The notice was about the tab shown; the same tab in its other mode keeps it.
    if (this.attached !== tab.tabId) this.hideNotice();
    this.attached = tab.tabId;
    await this.relist(tab);
  }

  /** The app's review state of the tab, asked for (after a verdict, and when the tab comes up). */
  private async relist(tab: ReviewTab): Promise<void> {
    const listed = await this.channel.request("review.list", { tabId: tab.tabId });
    this.remember([tab.tabId], { filePath: null, docKey: "", tabIds: [tab.tabId], revision: listed.revision, changes: listed.changes });
    await this.show(tab);
  }

  /** The latest state of these tabs; the tab strip hears of it when a count changed (ranges move at every keystroke). */
  private remember(tabIds: string[], state: ReviewState): void {
    let counts = false;
    for (const tabId of tabIds) {
      counts ||= this.states.get(tabId)?.changes.length !== state.changes.length;
      this.states.set(tabId, state);
    }
    if (counts) this.onCounts();
  }

  /** No tab shown. */
  detach(): void {
    this.attached = null;
    this.renderBar(0);
    this.hideNotice();
  }

  private async show(tab: ReviewTab): Promise<void> {
    const state = this.states.get(tab.tabId);
    if (!state || !(await tab.showReview(state))) return;
    if (this.active()?.tabId !== tab.tabId) return;
    this.renderBar(state.changes.length);
    if (this.refocus !== null) {
      const at = Math.min(this.refocus, state.changes.length - 1);
      this.refocus = null;
      if (at >= 0) this.focusChange(at);
    }
  }

  private renderBar(count: number): void {
    this.bar.hidden = count === 0;
    this.bar.dataset.count = String(count);
    this.count.textContent = countLabel(count);
    if (count === 0) this.current = -1;
  }

  private showNotice(text: string): void {
    window.clearTimeout(this.noticeTimer);
    this.notice.textContent = text;
    this.notice.hidden = false;
    this.noticeTimer = window.setTimeout(() => this.hideNotice(), NOTICE_MS);
  }

  private hideNotice(): void {
    window.clearTimeout(this.noticeTimer);
    this.notice.textContent = "";
    this.notice.hidden = true;
  }

  /** The ids of the changes the editor shows, in the text's order. */
  private ids(): string[] {
    const buttons = this.editorHost.querySelectorAll<HTMLElement>("button[data-review-verdict=accept]");
    return [...buttons].map((b) => b.dataset.reviewId ?? "");
  }

  /** Go to the next (1) or previous (-1) change: scrolled to, its "Accept change" focused. */
  private step(step: 1 | -1): void {
    const at = stepTo(this.ids().length, this.current, step);
    if (at >= 0) this.focusChange(at);
  }

  private focusChange(at: number): void {
    const button = this.editorHost.querySelectorAll<HTMLElement>("button[data-review-verdict=accept]")[at];
    if (!button) return;
    this.current = at;
    for (const el of this.editorHost.querySelectorAll(".review-current")) el.classList.remove("review-current");
    for (const el of this.editorHost.querySelectorAll(`[data-review-id="${CSS.escape(button.dataset.reviewId ?? "")}"]`)) el.classList.add("review-current");
    button.scrollIntoView({ block: "center", inline: "nearest" });
    button.focus();
  }

  /** Accept or reject `ids` (null: all of the tab's). A rejection is the person's edit: unsent keystrokes go first. */
  private async judge(verdict: "accept" | "reject", ids: string[] | null): Promise<void> {
    const tab = this.active();
    if (!tab) return;
    await tab.flush();
    await this.channel.request(`review.${verdict}`, ids === null ? { tabId: tab.tabId, all: true } : { tabId: tab.tabId, ids });
    // The app's `review` event says it to every window; this window shows its own verdict without waiting for it.
    await this.relist(tab);
  }
}

function verdictOf(target: EventTarget | null): HTMLElement | null {
  return target instanceof Element ? target.closest<HTMLElement>("button[data-review-verdict]") : null;
}
