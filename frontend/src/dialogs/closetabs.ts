// Closing tabs that hold unsaved work: the app's own dialog ("Save" / "Don't save" / "Cancel"), never the
// browser's confirm(). Enter saves (the default button has the focus), Escape cancels, and the focus goes back
// where it was (or to the editor shown next). Used by Ctrl+W / Alt+W, a tab's close button, the palette, and
// "Close other tabs" / "Close all tabs" (one question per tab with unsaved work; Cancel stops there).
import { el, modalAnswer, toast } from "../shared/dom";
import type { PickItem } from "../shared/command";
import type { Channel } from "../shared/protocol";
import type { TabInfo } from "../wire.gen";

export type UnsavedAnswer = "save" | "discard" | "cancel";

/** What the closer needs of the page. */
export interface CloseHost {
  /** The window's visible tabs, in the strip's order. */
  tabs(): TabInfo[];
  activeTabId(): string | null;
  /** Pass the active tab's unsent keystrokes on (the app decides about dirty work from what it holds). */
  flushActive(): Promise<void>;
  /** An untitled tab saved means choosing a file: show it and open Save as (the close stops there). */
  saveAs(tabId: string): Promise<void>;
  /** Where the focus goes when nothing it was on is left (the editor now shown). */
  focusEditor(): void;
}

export class TabCloser {
  constructor(
    private channel: Channel,
    private host: CloseHost,
  ) {}

  /** The palette's commands for closing several tabs. */
  commands(): PickItem[] {
    return [
      { label: "Close other tabs", run: () => this.closeOthers() },
      { label: "Close all tabs", run: () => this.closeMany(this.host.tabs()) },
    ];
  }

  /** Close one tab (asking about unsaved work); whether it closed. */
  async close(tab: TabInfo): Promise<boolean> {
    const before = document.activeElement;
    const outcome = await this.closeOne(tab);
    this.refocus(before);
    return outcome === "closed";
  }

  private async closeOthers(): Promise<void> {
    const active = this.host.activeTabId();
    await this.closeMany(this.host.tabs().filter((t) => t.id !== active));
  }

  /** Close `tabs` in order, asking about each one's unsaved work; a Cancel keeps it and every tab after it. */
  async closeMany(tabs: TabInfo[]): Promise<void> {
    const before = document.activeElement;
    let pinned = 0;
    for (const tab of tabs) {
      const outcome = await this.closeOne(tab, false);
      if (outcome === "pinned") pinned += 1;
      else if (outcome === "kept") break;
    }
    if (pinned) toast(`${pinned} pinned tab${pinned === 1 ? " stays" : "s stay"} open: unpin to close`, "warning");
    this.refocus(before);
  }

  /** One tab: closed as it is when it holds nothing unsaved, else as the person answers (kept: they cancelled). */
  private async closeOne(tab: TabInfo, warnPinned = true): Promise<"closed" | "kept" | "pinned"> {
    if (this.host.activeTabId() === tab.id) await this.host.flushActive();
    let answer = await this.channel.request("ui.close", { tabId: tab.id });
    if (!answer.closed && (answer.reason === "DIRTY" || answer.reason === "DIVERGENT" || answer.reason === "MISSING")) {
      const untitled = tab.filePath == null;
      const choice = await unsavedDialog(tab.title, untitled, answer.reason);
      if (choice === "cancel") return "kept";
      if (choice === "save") {
        if (untitled) {
          await this.host.saveAs(tab.id);
          return "kept";
        }
        await this.channel.request("ui.save", { tabId: tab.id });
        answer = await this.channel.request("ui.close", { tabId: tab.id });
      } else answer = await this.channel.request("ui.close", { tabId: tab.id, force: true });
    }
    if (answer.closed) return "closed";
    if (warnPinned) toast(`${tab.title} is pinned: unpin it to close it`, "warning");
    return "pinned";
  }

  /** The focus back where it was, or (that element gone with its tab) in the editor shown now. */
  private refocus(before: Element | null): void {
    if (document.querySelector("dialog[open]")) return; // Save as took the question over
    if (before instanceof HTMLElement && before.isConnected && before !== document.body) before.focus();
    else this.host.focusEditor();
  }
}

/**
 * Ask what to do with a tab's unsaved work: Save (the default: Enter), Don't save, Cancel (Escape). An untitled
 * tab's Save is "Save as…" (it asks where first); a file changed or gone on disk meanwhile says so.
 */
export function unsavedDialog(title: string, untitled: boolean, reason: "DIRTY" | "DIVERGENT" | "MISSING"): Promise<UnsavedAnswer> {
  const question = reason === "MISSING" ? `Save ${title} again?` : `Save the changes to ${title}?`;
  const detail = {
    DIRTY: "Your changes are lost if you don't save them.",
    DIVERGENT: "The file also changed on disk. Saving writes your version over it; not saving loses your changes.",
    MISSING: "The file was deleted or renamed on disk: this tab holds the only copy of its text.",
  }[reason];
  const save = el("button", { type: "button", class: "primary", "data-answer": "save" }, untitled ? "Save as…" : "Save");
  const discard = el("button", { type: "button", "data-answer": "discard" }, "Don't save");
  const cancel = el("button", { type: "button", "data-answer": "cancel" }, "Cancel");
  const dialog = el(
    "dialog",
    { class: "dialog confirm-dialog unsaved-dialog", "data-testid": "unsaved", role: "alertdialog", "aria-label": question },
    el("h2", {}, question),
    el("p", { class: "hint" }, detail),
    el("div", { class: "actions" }, discard, cancel, save),
  );
  let answer: UnsavedAnswer = "cancel"; // Escape (the dialog's cancel) and anything else that closes it
  for (const button of [save, discard, cancel]) {
    button.addEventListener("click", () => {
      answer = button.dataset.answer as UnsavedAnswer;
      dialog.close();
    });
  }
  return modalAnswer(dialog, save, () => answer);
}
