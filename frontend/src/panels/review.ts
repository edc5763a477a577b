// The person's review of agents' changes in the active tab: the review bar ("N changes", or "2 of 4" once
// the person went to a change or put the caret in one; previous / next in the text's order, "Accept all",
// "Reject all"), a notice naming the agent and tool of changes just made, and the
// verdict buttons each change shows in the editor. The app owns the changes (per document: every window
// agrees); the page shows the latest `review` state for the text it shows and sends verdicts.
import type { EventBus } from "../shared/bus";
import { act, byId } from "../shared/dom";
import type { PickItem } from "../shared/command";
import type { Channel } from "../shared/protocol";
import { barLabel, noticeText, type ReviewChange, type ReviewPlace, type ReviewState, settleAt, stepAmong } from "../editors/reviewmodel";
import type { TabSync } from "../sync/tabsync";

export type ReviewTab = Pick<TabSync, "tabId" | "flush" | "showReview" | "onRevision" | "reviewOf" | "editor">;

/** How long the notice of new changes stays (the count and the highlights stay until judged). */
const NOTICE_MS = 12000;
/**
 * How long a tab's text change waits for the review event the app said follows it (it comes on the app's same
 * loop turn; after this the text shows alone and the review when it comes).
 */
const REVIEW_WAIT_MS = 1000;

export class ReviewPanel {
  private bar = byId("review-bar");
  private count = byId("review-count");
  private notice = byId("review-notice");
  private editorHost = byId("editor");
  /** The latest state the app sent, per tab (the one shown may wait for its text revision). */
  private states = new Map<string, ReviewState>();
  /** The change the person went to last or has the caret in (it may be judged since: it still says where it was). */
  private place: ReviewPlace | null = null;
  /** A verdict given from the keyboard: the focus goes on to the change now where it was. */
  private refocus = false;
  private noticeTimer: number | undefined;
  /** The tab whose editor the changes were last placed in. */
  private attached: string | null = null;
  /** Per tab: who waits for the review state of which revision (`stateOf`). */
  private waiting = new Map<string, { revision: string; resolve: (state: ReviewState | null) => void }[]>();
  /** The pending counts of tabs changed (the tab strip shows them). */
  onCounts: () => void = () => {};

  constructor(
    private channel: Channel,
    private active: () => ReviewTab | null,
    bus: EventBus,
  ) {
    bus.on("review", (state) => this.onEvent(state));
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
      // A verdict from the keyboard (Enter or Space on the button: a click without a pointer) goes on to the
      // change now in its place; one from the mouse leaves the bar at the judged change, so Next is the one after
      // it; the caret goes back to the text when the judged button had the focus.
      const keyboard = event.detail === 0;
      this.refocus = keyboard;
      if (!keyboard && document.activeElement === button) this.active()?.editor?.focus();
      this.placeAt(id);
      void act(() => this.judge(button.dataset.reviewVerdict === "reject" ? "reject" : "accept", [id]));
    });
    // Escape on a verdict button goes back to writing, where the caret was.
    this.editorHost.addEventListener("keydown", (event) => {
      if (event.key !== "Escape" || !verdictOf(event.target)) return;
      event.preventDefault();
      this.active()?.editor?.focus();
    });
    // The caret in a change's text (or the focus on its buttons) is where the person is.
    document.addEventListener("selectionchange", () => this.followCaret());
    this.editorHost.addEventListener("focusin", () => this.followCaret());
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

  /** Who made the changes waiting in a tab's document, as the person sees them (empty: none heard of yet). */
  agentsOf(tabId: string): string[] {
    return [...new Set(this.states.get(tabId)?.changes.map((c) => c.agent) ?? [])];
  }

  /** A tab came up in the editor: ask for its changes (they may have changed while it was not shown). */
  async attach(tab: ReviewTab): Promise<void> {
    tab.onRevision = () => void this.show(tab);
    tab.reviewOf = (revision) => this.stateOf(tab.tabId, revision);
    this.place = null;
    this.refocus = false;
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
      const waiters = this.waiting.get(tabId) ?? [];
      for (const waiter of waiters.filter((w) => w.revision === state.revision)) waiter.resolve(state);
    }
    if (counts) this.onCounts();
  }

  /** The tab's review state of `revision`, as soon as the app sends it; null when it does not within `REVIEW_WAIT_MS`. */
  private stateOf(tabId: string, revision: string): Promise<ReviewState | null> {
    const known = this.states.get(tabId);
    if (known?.revision === revision) return Promise.resolve(known);
    return new Promise((resolve) => {
      const waiters = this.waiting.get(tabId) ?? [];
      this.waiting.set(tabId, waiters);
      const waiter = {
        revision,
        resolve: (state: ReviewState | null) => {
          window.clearTimeout(timer);
          waiters.splice(waiters.indexOf(waiter), 1);
          if (!waiters.length && this.waiting.get(tabId) === waiters) this.waiting.delete(tabId);
          resolve(state);
        },
      };
      const timer = window.setTimeout(() => waiter.resolve(null), REVIEW_WAIT_MS);
      waiters.push(waiter);
    });
  }

  /** No tab shown. */
  detach(): void {
    this.attached = null;
    this.renderBar([]);
    this.hideNotice();
  }

  private async show(tab: ReviewTab): Promise<void> {
    const state = this.states.get(tab.tabId);
    if (!state || !(await tab.showReview(state))) return;
    if (this.active()?.tabId !== tab.tabId) return;
    const changes = ordered(state.changes);
    const place = this.place;
    const still = place && changes.find((c) => c.id === place.id);
    if (still) this.place = { id: still.id, from: still.from }; // it moved with the edits around it
    this.renderBar(changes);
    if (this.refocus && place) {
      this.refocus = false;
      const at = settleAt(changes, place);
      if (at >= 0) this.focusChange(changes[at]);
    }
  }

  private renderBar(changes: readonly ReviewChange[]): void {
    const count = changes.length;
    this.bar.hidden = count === 0;
    this.bar.dataset.count = String(count);
    const place = this.place;
    const at = place ? changes.findIndex((c) => c.id === place.id) : -1;
    this.count.textContent = barLabel(count, at);
    this.bar.dataset.position = String(at + 1);
    if (count === 0) this.place = null;
  }

  /** The changes of the active tab as the app last said, in the text's order. */
  private shownChanges(): ReviewChange[] {
    const tab = this.active();
    const state = tab && this.states.get(tab.tabId);
    return state ? ordered(state.changes) : [];
  }

  /** The person is at change `id` (went to it, judged it, put the caret in it). */
  private placeAt(id: string): boolean {
    const changes = this.shownChanges();
    const change = changes.find((c) => c.id === id);
    if (!change) return false;
    this.place = { id, from: change.from };
    this.renderBar(changes);
    return true;
  }

  private followCaret(): void {
    const focus = document.getSelection()?.focusNode ?? null;
    const active = document.activeElement;
    const at = active && this.editorHost.contains(active) && active !== this.editorHost && reviewIdOf(active) ? active : focus;
    if (!at || !this.editorHost.contains(at)) return;
    const id = reviewIdOf(at);
    if (id && id !== this.place?.id) this.placeAt(id);
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

  /** Go to the next (1) or previous (-1) change in the text's order: scrolled to, its "Accept change" focused. */
  private step(step: 1 | -1): void {
    const changes = this.shownChanges();
    const at = stepAmong(changes, this.place, step);
    if (at >= 0) this.focusChange(changes[at]);
  }

  private focusChange(change: ReviewChange, retry = true): void {
    this.placeAt(change.id);
    const id = CSS.escape(change.id);
    const button = this.editorHost.querySelector<HTMLElement>(`button[data-review-verdict=accept][data-review-id="${id}"]`);
    if (!button) {
      // Source mode draws only the lines near the viewport: bring the change there, then focus it once drawn.
      if (retry && this.active()?.editor?.revealReview?.(change.id)) {
        requestAnimationFrame(() => requestAnimationFrame(() => this.focusChange(change, false)));
      }
      return;
    }
    for (const el of this.editorHost.querySelectorAll(".review-current")) el.classList.remove("review-current");
    // Only the widget is marked: a class on the editor's own text nodes would make it draw them again (and the
    // focused button with them).
    for (const el of this.editorHost.querySelectorAll(`.review-verdicts[data-review-id="${id}"]`)) el.classList.add("review-current");
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

/** The changes in the text's order (the app sends them so; a page never relies on it). */
function ordered(changes: readonly ReviewChange[]): ReviewChange[] {
  return [...changes].sort((a, b) => a.from - b.from || a.to - b.to);
}

/** The change a node of the editor belongs to (its inserted text, deleted text or buttons), if any. */
function reviewIdOf(node: Node): string | null {
  const element = node instanceof Element ? node : node.parentElement;
  return element?.closest<HTMLElement>("[data-review-id]")?.dataset.reviewId ?? null;
}

function verdictOf(target: EventTarget | null): HTMLElement | null {
  return target instanceof Element ? target.closest<HTMLElement>("button[data-review-verdict]") : null;
}
