// The history sidebar of the active tab: the document's snapshots (AI saves labelled "(mcp)"), how many
// AI revisions wait for the person's review, a line diff of a chosen snapshot against the current text,
// "Revert to this" (the person's edit, not saved) and "Mark reviewed".
import { shortQuote } from "./comments";
import { act, byId, el, toast } from "./dom";
import type { Channel } from "./protocol";
import type { TabSync } from "./tabsync";
import type { Addressed, Snapshot } from "./wire.gen";

export type HistoryTab = Pick<TabSync, "tabId" | "flush" | "editor">;

/** Changes (typing, agent writes, saves) come in bursts: the list is asked for once they settle. */
const REFRESH_MS = 150;
const PICK_HINT = "Choose a snapshot to compare it with the current text.";

export class HistoryPanel {
  private panel = byId("history");
  private list = byId("history-list");
  private diffView = byId("history-diff");
  private count = byId("history-unreviewed");
  private caption = byId("history-selected");
  private toggleButton = byId<HTMLButtonElement>("history-toggle");
  private revertButton = byId<HTMLButtonElement>("history-revert");
  private reviewButton = byId<HTMLButtonElement>("history-mark-reviewed");
  /** The tab the panel shows, and the snapshot chosen in it. */
  private tabId: string | null = null;
  private selected: number | null = null;
  /** A snapshot's text never changes: each is fetched once. */
  private texts = new Map<number, string>();
  private timer: number | undefined;
  private loading: Promise<void> = Promise.resolve();

  constructor(
    private channel: Channel,
    private active: () => HistoryTab | null,
  ) {
    this.toggleButton.addEventListener("click", () => this.toggle());
    this.revertButton.addEventListener("click", () => void act(() => this.revert()));
    this.reviewButton.addEventListener("click", () => void act(() => this.markReviewed()));
  }

  /** Something changed (the active tab, its text, the app's state): show it again shortly, if open. */
  refresh(): void {
    if (this.panel.hidden) return;
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => void act(() => this.load()), REFRESH_MS);
  }

  private toggle(): void {
    this.panel.hidden = !this.panel.hidden;
    this.toggleButton.setAttribute("aria-pressed", String(!this.panel.hidden));
    if (!this.panel.hidden) void act(() => this.load());
  }

  /** One load at a time, in order: a later one always shows the later state. */
  private load(): Promise<void> {
    const run = this.loading.then(() => this.render());
    this.loading = run.catch(() => {});
    return run;
  }

  private async render(): Promise<void> {
    const tab = this.active();
    if ((tab?.tabId ?? null) !== this.tabId) {
      this.tabId = tab?.tabId ?? null;
      this.selected = null;
      this.texts.clear();
    }
    if (!tab) {
      this.showCount(0);
      this.list.replaceChildren(el("li", { class: "panel-empty hint" }, "Open a document to see its history here."));
      this.showDiff(null);
      return;
    }
    const listing = await this.channel.request("history.list", { tabId: tab.tabId, content: false });
    if (this.active()?.tabId !== tab.tabId) return; // switched meanwhile: that switch loads again
    this.showCount(listing.unreviewed);
    if (!listing.snapshots.some((s) => s.id === this.selected)) this.selected = null;
    this.list.replaceChildren(...[...listing.snapshots].reverse().map((s) => this.item(s)));
    if (listing.snapshots.length === 0) {
      this.list.append(el("li", { class: "panel-empty hint" }, "No history yet: every save and every agent change adds a version here."));
    }
    this.list.dataset.count = String(listing.snapshots.length);
    await this.renderDiff(tab);
  }

  private showCount(unreviewed: number): void {
    this.count.textContent = unreviewed === 0 ? "All AI changes reviewed" : `${unreviewed} AI change${unreviewed === 1 ? "" : "s"} to review`;
    this.count.dataset.count = String(unreviewed);
    this.reviewButton.disabled = unreviewed === 0;
  }

  private item(snap: Snapshot): HTMLElement {
    const pick = el(
      "button",
      { type: "button", class: "snapshot-pick", title: snap.revision },
      el("span", { class: "snapshot-kind" }, snap.label || snap.kind),
      el("span", { class: "snapshot-time" }, new Date(snap.time * 1000).toLocaleString()),
    );
    if (snap.principal) pick.append(el("span", { class: "snapshot-who" }, snap.principal));
    if (snap.addressed?.length) pick.append(addressedList(snap.addressed));
    else if (snap.addresses.length > 0) {
      pick.append(el("span", { class: "snapshot-addresses" }, `addresses ${snap.addresses.join(", ")}`));
    }
    pick.addEventListener("click", () =>
      void act(async () => {
        this.selected = snap.id;
        await this.load();
      }),
    );
    return el(
      "li",
      {
        class: `snapshot${snap.kind === "mcp" ? " ai" : ""}${snap.id === this.selected ? " selected" : ""}`,
        "data-snapshot-id": String(snap.id),
        "data-kind": snap.kind,
        "aria-current": String(snap.id === this.selected),
      },
      pick,
    );
  }

  private async renderDiff(tab: HistoryTab): Promise<void> {
    const id = this.selected;
    if (id === null) {
      this.showDiff(null);
      return;
    }
    let before = this.texts.get(id);
    if (before === undefined) {
      // history.get always carries the text (only a listing leaves it out)
      before = (await this.channel.request("history.get", { tabId: tab.tabId, id })).content ?? "";
      this.texts.set(id, before);
    }
    const current =
      tab.editor?.getText() ?? (await this.channel.request("ui.read", { tabId: tab.tabId })).text;
    if (this.selected === id) this.showDiff(lineDiff(before, current));
  }

  private showDiff(diff: DiffLine[] | null): void {
    this.revertButton.disabled = diff === null;
    this.diffView.dataset.state = diff === null ? "none" : diff.every((l) => l.kind === "same") ? "equal" : "changed";
    if (diff === null) {
      this.caption.textContent = PICK_HINT;
      this.diffView.replaceChildren();
      return;
    }
    this.caption.textContent = "Changes from this snapshot to the current text:";
    if (diff.every((l) => l.kind === "same")) {
      this.diffView.replaceChildren(el("p", { class: "hint" }, "No differences: the current text is this snapshot."));
      return;
    }
    this.diffView.replaceChildren(...diff.map((l) => el("div", { class: `diff-line ${l.kind}` }, l.text)));
  }

  private async revert(): Promise<void> {
    const tab = this.active();
    const id = this.selected;
    if (!tab || id === null) return;
    await tab.flush(); // the revert replaces the person's latest text, keystrokes included
    await this.channel.request("history.revert", { tabId: tab.tabId, id });
    toast("Reverted to the chosen snapshot (not saved yet)");
    await this.load();
  }

  private async markReviewed(): Promise<void> {
    const tab = this.active();
    if (!tab) return;
    await this.channel.request("history.mark_reviewed", { tabId: tab.tabId });
    await this.load();
  }

}

/** Which comments a revision addressed: each with its quote and state, a deleted one named as such. */
function addressedList(addressed: Addressed[]): HTMLElement {
  return el(
    "ul",
    { class: "snapshot-addressed" },
    ...addressed.map((a) =>
      el(
        "li",
        { class: "addressed", "data-comment-id": a.comment, "data-state": a.state },
        a.state === "deleted" ? "deleted comment" : `“${shortQuote(a.quote)}” (${a.state})`,
      ),
    ),
  );
}

// --- the line diff -----------------------------------------------------------------------------------

export interface DiffLine {
  kind: "same" | "added" | "removed";
  text: string;
}

/** The most cells of the LCS table one diff may fill (16 MB); a larger changed middle is shown whole. */
const MAX_CELLS = 4_000_000;

/** Lines of `before` and `after`: unchanged, removed (only in `before`) and added (only in `after`). */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = lines(before);
  const b = lines(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  return [
    ...a.slice(0, start).map((text) => line("same", text)),
    ...changed(a.slice(start, endA), b.slice(start, endB)),
    ...a.slice(endA).map((text) => line("same", text)),
  ];
}

/** A longest-common-subsequence diff; in a change, removed lines come before added ones. */
function changed(a: string[], b: string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_CELLS) return [...a.map((t) => line("removed", t)), ...b.map((t) => line("added", t))];
  const w = m + 1;
  // lcs[i * w + j]: the LCS length of a[i..] and b[j..]
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push(line("same", a[i++]));
      j++;
    } else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) out.push(line("removed", a[i++]));
    else out.push(line("added", b[j++]));
  }
  while (i < n) out.push(line("removed", a[i++]));
  while (j < m) out.push(line("added", b[j++]));
  return out;
}

function line(kind: DiffLine["kind"], text: string): DiffLine {
  return { kind, text };
}

function lines(text: string): string[] {
  if (text === "") return [];
  const parts = text.split(/\r\n|\r|\n/);
  if (parts[parts.length - 1] === "") parts.pop(); // a final line break ends the last line, it starts none
  return parts;
}
