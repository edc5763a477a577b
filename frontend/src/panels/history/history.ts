// The history sidebar of the active tab: the document's versions (AI saves labelled "(mcp)"), who made
// each (you, an agent with its tool, the disk), what each changed from the one before it (word by word),
// the comments it addressed, how many AI revisions wait for the person's review, "Revert to this" (the
// person's edit, not saved) and "Mark reviewed" (accepts every pending change).
import { act, byId, el, showError, toast, toggleSidebar } from "../../shared/dom";
import { elided, wordCounts, wordDiff, type WordPart } from "./historydiff";
import type { MountPanel } from "../host";
import type { Channel } from "../../shared/protocol";
import { shortQuote } from "../../shared/quote";
import { Reloads } from "../../shared/reloads";
import type { TabSync } from "../../sync/tabsync";
import type { Addressed, Snapshot } from "../../wire.gen";

export type HistoryTab = Pick<TabSync, "tabId" | "flush" | "editor">;

/** Changes (typing, agent writes, saves) come in bursts: the list is asked for once they settle. */
const REFRESH_MS = 150;
const PICK_HINT = "Choose a version to see what it changed.";

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
  /** The version the person chose; until they choose one (or when it is gone), the newest is shown as it comes. */
  private picked: number | null = null;
  private reloads = new Reloads(() => this.render(), REFRESH_MS, showError);
  /** A snapshot's text never changes: each is fetched once, and its diff from the one before computed once. */
  private texts = new Map<number, string>();
  private diffs = new Map<number, WordPart[]>();

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
    this.reloads.soon();
  }

  private toggle(): void {
    if (toggleSidebar(this.panel, this.toggleButton)) void act(() => this.load());
  }

  /** One load at a time, in order: a later one always shows the later state. */
  private load(): Promise<void> {
    return this.reloads.now();
  }

  private async render(): Promise<void> {
    const tab = this.active();
    if ((tab?.tabId ?? null) !== this.tabId) {
      this.tabId = tab?.tabId ?? null;
      this.selected = null;
      this.picked = null;
      this.texts.clear();
      this.diffs.clear();
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
    const snapshots = listing.snapshots;
    // The newest version is shown until the person picks another: what made the text they see.
    if (this.picked !== null && !snapshots.some((s) => s.id === this.picked)) this.picked = null;
    this.selected = this.picked ?? snapshots.at(-1)?.id ?? null;
    const diffs = await this.diffsOf(tab, snapshots);
    if (this.active()?.tabId !== tab.tabId) return;
    this.list.replaceChildren(...snapshots.map((s, k) => this.item(s, diffs[k], k === 0)).reverse());
    if (snapshots.length === 0) {
      this.list.append(el("li", { class: "panel-empty hint" }, "No history yet: every save and every agent change adds a version here."));
    }
    this.list.dataset.count = String(snapshots.length);
    const at = snapshots.findIndex((s) => s.id === this.selected);
    this.showDiff(at < 0 ? null : { parts: diffs[at], first: at === 0, snapshot: snapshots[at], newest: at === snapshots.length - 1 });
  }

  /** Each version's diff from the one before it (the first one's from nothing). */
  private async diffsOf(tab: HistoryTab, snapshots: Snapshot[]): Promise<WordPart[][]> {
    const out: WordPart[][] = [];
    for (let k = 0; k < snapshots.length; k++) {
      const snap = snapshots[k];
      let parts = this.diffs.get(snap.id);
      if (!parts) {
        const before = k === 0 ? "" : await this.textOf(tab, snapshots[k - 1].id);
        parts = wordDiff(before, await this.textOf(tab, snap.id));
        this.diffs.set(snap.id, parts);
      }
      out.push(parts);
    }
    return out;
  }

  private async textOf(tab: HistoryTab, id: number): Promise<string> {
    let text = this.texts.get(id);
    if (text === undefined) {
      // history.get always carries the text (only a listing leaves it out)
      text = (await this.channel.request("history.get", { tabId: tab.tabId, id })).content ?? "";
      this.texts.set(id, text);
    }
    return text;
  }

  private showCount(unreviewed: number): void {
    // Revisions, not changes: the backlog (and its limit, and "Mark reviewed") counts an agent's writes; the review
    // bar counts the changes in the text, and one write may make several (or, merged, share one).
    this.count.textContent = unreviewed === 0 ? "All AI revisions reviewed" : `${unreviewed} AI revision${unreviewed === 1 ? "" : "s"} to review`;
    this.count.dataset.count = String(unreviewed);
    this.reviewButton.disabled = unreviewed === 0;
  }

  private item(snap: Snapshot, parts: WordPart[], first: boolean): HTMLElement {
    const pick = el(
      "button",
      { type: "button", class: "snapshot-pick", title: snap.revision },
      el("span", { class: "snapshot-kind" }, snap.label || snap.kind),
      el("span", { class: "snapshot-time" }, new Date(snap.time * 1000).toLocaleString()),
    );
    const who = whoMade(snap);
    if (who) pick.append(el("span", { class: "snapshot-who", "data-actor": snap.actor?.kind ?? "" }, who));
    pick.append(el("span", { class: "snapshot-summary" }, summary(parts, first)));
    if (snap.addressed?.length) pick.append(addressedList(snap.addressed));
    else if (snap.addresses.length > 0) {
      pick.append(el("span", { class: "snapshot-addresses" }, `addresses ${snap.addresses.join(", ")}`));
    }
    pick.addEventListener("click", () =>
      void act(async () => {
        this.picked = snap.id;
        await this.load();
      }),
    );
    return el(
      "li",
      {
        class: `snapshot${snap.kind === "mcp" || snap.actor?.kind === "agent" ? " ai" : ""}${snap.id === this.selected ? " selected" : ""}`,
        "data-snapshot-id": String(snap.id),
        "data-kind": snap.kind,
        "aria-current": String(snap.id === this.selected),
      },
      pick,
    );
  }

  private showDiff(shown: ShownDiff | null): void {
    // Reverting to the newest version changes nothing: the text is that version unless the person typed since.
    this.revertButton.disabled = shown === null || (shown.newest && this.active()?.editor?.getText() === this.texts.get(shown.snapshot.id));
    const changed = shown !== null && shown.parts.some((p) => p.kind !== "same");
    this.diffView.dataset.state = shown === null ? "none" : changed ? "changed" : "equal";
    if (shown === null) {
      this.caption.textContent = PICK_HINT;
      this.diffView.replaceChildren();
      return;
    }
    const who = whoMade(shown.snapshot);
    const by = who ? ` (${who})` : "";
    this.caption.textContent = shown.first ? `The first version${by}:` : `What this version changed from the one before${by}:`;
    if (!changed) {
      const text = shown.parts.length === 0 ? "An empty document." : "The same text as the version before (saved again).";
      this.diffView.replaceChildren(el("p", { class: "hint" }, text));
      return;
    }
    const tag = { same: "span", added: "ins", removed: "del" } as const;
    this.diffView.replaceChildren(
      el("div", { class: "word-diff" }, ...elided(shown.parts).map((p) => el(tag[p.kind], { class: `diff-word ${p.kind}` }, p.text))),
    );
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

interface ShownDiff {
  parts: WordPart[];
  first: boolean;
  newest: boolean;
  snapshot: Snapshot;
}

/** Who made a version, in words: you, an agent (with its tool), the disk. */
function whoMade(snap: Snapshot): string {
  const actor = snap.actor;
  if (!actor) return snap.principal ?? "";
  if (actor.kind === "person") return actor.tool === "review.reject" ? "you (reject)" : "you";
  if (actor.kind === "revert") return "you (revert)";
  if (actor.kind === "disk") return "on disk";
  const name = actor.label ?? actor.principal ?? snap.principal ?? "an agent";
  return actor.tool ? `${name} · ${actor.tool}` : name;
}

/** A version's change in a few words: "+3 −1 words" (the first version: how many words it has). */
function summary(parts: readonly WordPart[], first: boolean): string {
  const { added, removed } = wordCounts(parts);
  if (first) return `${added} word${added === 1 ? "" : "s"}`;
  if (added === 0 && removed === 0) return parts.some((p) => p.kind !== "same") ? "punctuation or spacing" : "no change";
  return [added ? `+${added}` : "", removed ? `−${removed}` : ""].filter(Boolean).join(" ") + ` word${added + removed === 1 ? "" : "s"}`;
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

/** The History panel on the page: it shows the active tab's versions again when they may have changed. */
export const mountHistoryPanel: MountPanel = ({ channel, bus, active }) => {
  const panel = new HistoryPanel(channel, active);
  const refresh = (): void => panel.refresh();
  bus.on("active", refresh);
  bus.on("remote", refresh);
  bus.on("comments", refresh); // it names the comments each revision addressed, with their state
  bus.on("review", refresh); // the backlog counts what is judged
};
