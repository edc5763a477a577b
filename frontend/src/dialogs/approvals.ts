// The person's side of a prompt: one modal dialog at a time, the canonical path shown,
// Allow only by clicking it; Enter and Escape deny.
import type { EventBus } from "../shared/bus";
import { byId, el, toast } from "../shared/dom";
import { type Channel, errorText } from "../shared/protocol";

import type { Approval, BrowserDecision, BrowserDetail } from "../wire.gen";

const WORDING: Record<string, { title: string; text: (a: Approval) => string }> = {
  open_workspace: {
    title: "Open a workspace?",
    text: (a) => `${a.agent} asks to open this folder as the workspace of this window:`,
  },
  folder_access: {
    title: "Give access to a folder?",
    text: (a) => `${a.agent} asks to read this folder, which is outside the always-readable locations:`,
  },
};

export class ApprovalDialog {
  private queue: Approval[] = [];
  private shown: Approval | null = null;
  private dialog = byId<HTMLDialogElement>("approval");
  private browser: BrowserPrompts;
  /** Called when the last question was answered. */
  onIdle: () => void = () => {};

  constructor(
    private channel: Channel,
    bus: EventBus,
  ) {
    for (const kind of ["prompt", "folder_picker", "browser_prompt"] as const) bus.on(kind, (approval) => this.add(approval));
    // Both kinds of question share the screen: one modal at a time, the other waits its turn.
    this.browser = new BrowserPrompts(channel, () => this.shown !== null, () => this.resume());
    byId("approval-allow").addEventListener("click", () => void this.answer(true));
    byId("approval-deny").addEventListener("click", () => void this.answer(false));
    this.dialog.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === "Escape") {
        event.preventDefault();
        void this.answer(false);
      }
    });
    // Escape's own "cancel" must deny too, never just hide the question.
    this.dialog.addEventListener("cancel", (event) => {
      event.preventDefault();
      void this.answer(false);
    });
  }

  /** A question is on screen: the page shows nothing else until it is answered. */
  isOpen(): boolean {
    return this.shown !== null || this.browser.isOpen();
  }

  add(approval: Approval): void {
    if (approval.kind === "browser") {
      this.browser.add(approval);
      return;
    }
    if (approval.state !== "pending") return;
    if (this.shown?.id === approval.id || this.queue.some((a) => a.id === approval.id)) return;
    this.queue.push(approval);
    this.showNext();
  }

  private showNext(): void {
    if (this.shown || this.browser.isOpen() || this.queue.length === 0) return;
    const approval = this.queue.shift() as Approval;
    this.shown = approval;
    const wording = WORDING[approval.kind] ?? { title: "Approve?", text: (a: Approval) => `${a.agent} asks:` };
    byId("approval-title").textContent = wording.title;
    byId("approval-text").textContent = wording.text(approval);
    byId("approval-path").textContent = approval.subject;
    this.dialog.dataset.kind = approval.kind;
    this.dialog.dataset.approvalId = approval.id;
    if (!this.dialog.open) this.dialog.showModal();
    byId("approval-deny").focus();
  }

  private async answer(allow: boolean): Promise<void> {
    const approval = this.shown;
    if (!approval) return;
    this.shown = null;
    this.dialog.close();
    try {
      await this.channel.request("approvals.answer", { id: approval.id, allow });
      toast(`${allow ? "Allowed" : "Denied"}: ${approval.subject}`);
    } catch (err) {
      toast(`The request is gone: ${errorText(err)}`, "warning");
    }
    this.resume();
  }

  /** A dialog closed: the next question of either kind, or the page is idle again. */
  private resume(): void {
    this.showNext();
    this.browser.showNext();
    if (!this.isOpen()) this.onIdle();
  }
}


// --- browser prompts: an agent's browser act waits for the person ---------------------------------

/** Actions asked for on every use: "Allow on this site" is never offered for them. */
const NEVER_STANDING = new Set(["eval", "session", "record", "profile"]);
const ACTION_WORDS: Record<string, string> = {
  click: "click",
  type: "type text",
  key: "press keys",
  scroll: "scroll",
  style: "change the page's style",
  navigate: "go to a new site",
  eval: "run a script in the page (execute_js)",
  attach: "use your browser tab",
  read: "read your browser tab",
  session: "use a browser session",
  record: "record the browser",
  profile: "open a browser profile",
  upload: "upload a file",
};
const VALUE_LABELS: Record<string, string> = {
  type: "Text to type",
  key: "Keys",
  scroll: "Scroll by",
  eval: "Script",
  profile: "Profile",
};
/** While a prompt is on screen the list is re-read this often: it may expire or be answered elsewhere. */
const RECHECK_MS = 2000;

type Answer = { allow: false } | { allow: true; decision: BrowserDecision };

/** The browser prompt dialog: requester, site, action, element and value as text, never a picture of the page. */
class BrowserPrompts {
  private pending: Approval[] = [];
  private shown: Approval | null = null;
  private answered = new Set<string>();
  private listing = 0;
  private recheck: number | undefined;
  private dialog: HTMLDialogElement;
  private fields: Record<"requester" | "site" | "action" | "element" | "value" | "valueLabel", HTMLElement>;
  private rows: Record<"element" | "value", HTMLElement>;
  private allowSite: HTMLButtonElement;
  private deny: HTMLButtonElement;
  private standingHint: HTMLElement;

  constructor(
    private channel: Channel,
    private otherOpen: () => boolean,
    private onClosed: () => void,
  ) {
    const field = (name: string, tag: "span" | "pre" = "span"): HTMLElement =>
      el(tag, { class: `browser-prompt-${name}`, "data-testid": `browser-prompt-${name}` });
    this.fields = {
      requester: field("requester"),
      site: field("site"),
      action: field("action"),
      element: field("element"),
      value: field("value", "pre"),
      valueLabel: el("span", {}),
    };
    const row = (label: HTMLElement | string, value: HTMLElement): HTMLElement =>
      el("div", { class: "browser-prompt-row" }, el("dt", {}, label), el("dd", {}, value));
    this.rows = {
      element: row("Element", this.fields.element),
      value: row(this.fields.valueLabel, this.fields.value),
    };
    const button = (name: string, text: string): HTMLButtonElement =>
      el("button", { type: "button", "data-testid": `browser-prompt-${name}` }, text);
    this.deny = button("deny", "Deny");
    this.allowSite = button("allow-site", "Allow on this site");
    const allowOnce = button("allow-once", "Allow once");
    this.standingHint = el("p", { class: "hint", "data-testid": "browser-prompt-every-time" },
      "This is asked for every time: it can never be allowed for the whole site.");
    this.dialog = el(
      "dialog",
      { class: "approval browser-prompt", "data-testid": "browser-prompt", "aria-labelledby": "browser-prompt-title" },
      el("h2", { id: "browser-prompt-title" }, "Allow a browser action?"),
      el("p", {}, this.fields.requester, " asks to act in a browser tab:"),
      el(
        "dl",
        { class: "browser-prompt-facts" },
        row("Site", this.fields.site),
        row("Action", this.fields.action),
        this.rows.element,
        this.rows.value,
      ),
      this.standingHint,
      el("p", { class: "hint" }, "Enter or Escape denies."),
      el("div", { class: "actions" }, this.deny, this.allowSite, allowOnce),
    );
    document.body.append(this.dialog);
    this.deny.addEventListener("click", () => void this.answer({ allow: false }));
    this.allowSite.addEventListener("click", () => void this.answer({ allow: true, decision: "site" }));
    allowOnce.addEventListener("click", () => void this.answer({ allow: true, decision: "once" }));
    this.dialog.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === "Escape") {
        event.preventDefault();
        void this.answer({ allow: false });
      }
    });
    this.dialog.addEventListener("cancel", (event) => {
      event.preventDefault();
      void this.answer({ allow: false });
    });
  }

  isOpen(): boolean {
    return this.shown !== null;
  }

  /** A ``browser_prompt`` event (or one listed at start): shown at once, then the list re-read. */
  add(approval: Approval): void {
    if (approval.state === "pending" && this.wanted(approval) && !this.known(approval.id)) {
      this.pending.push(approval);
      this.showNext();
    }
    void this.refresh();
  }

  showNext(): void {
    if (this.shown || this.otherOpen()) return;
    const next = this.pending.shift();
    if (!next) return;
    this.shown = next;
    this.render(next);
    if (!this.dialog.open) this.dialog.showModal();
    this.deny.focus();
    this.recheck = window.setInterval(() => void this.refresh(), RECHECK_MS);
  }

  /** The pending prompts as the app lists them: expired ones and ones answered elsewhere go away. */
  private async refresh(): Promise<void> {
    const turn = ++this.listing;
    let approvals: Approval[];
    try {
      ({ approvals } = await this.channel.request("approvals.list", {}));
    } catch {
      return; // the connection is gone; the page says so
    }
    if (turn !== this.listing) return; // a later listing answers instead
    const live = approvals.filter((a) => a.kind === "browser" && a.state === "pending" && this.wanted(a));
    const liveIds = new Set(live.map((a) => a.id));
    for (const id of this.answered) if (!liveIds.has(id)) this.answered.delete(id);
    this.pending = live.filter((a) => a.id !== this.shown?.id && !this.answered.has(a.id));
    if (this.shown && !liveIds.has(this.shown.id)) {
      this.close();
      this.onClosed();
    } else this.showNext();
  }

  private wanted(approval: Approval): boolean {
    // A page shows the questions of its own window (the address names it once attached).
    const label = new URLSearchParams(location.search).get("window");
    return !label || approval.window === label;
  }

  private known(id: string): boolean {
    return this.shown?.id === id || this.answered.has(id) || this.pending.some((a) => a.id === id);
  }

  private render(approval: Approval): void {
    const detail: BrowserDetail = approval.detail ?? { site: "", tabId: null, action: "", element: null, value: null };
    const standing = !NEVER_STANDING.has(detail.action);
    this.fields.requester.textContent = approval.agent;
    this.fields.site.textContent = detail.site;
    this.fields.action.textContent = ACTION_WORDS[detail.action] ?? detail.action;
    this.fields.element.textContent = detail.element ? `${detail.element.role} "${detail.element.name}"` : "";
    this.rows.element.hidden = detail.element === null;
    this.fields.valueLabel.textContent = VALUE_LABELS[detail.action] ?? "Value";
    this.fields.value.textContent = detail.value ?? "";
    this.rows.value.hidden = detail.value === null || detail.value === "";
    this.allowSite.hidden = !standing;
    this.standingHint.hidden = standing;
    this.dialog.dataset.action = detail.action;
    this.dialog.dataset.approvalId = approval.id;
  }

  private close(): void {
    window.clearInterval(this.recheck);
    this.shown = null;
    this.dialog.close();
  }

  private async answer(choice: Answer): Promise<void> {
    const approval = this.shown;
    if (!approval) return;
    this.answered.add(approval.id);
    this.close();
    const site = approval.detail?.site ?? approval.subject;
    try {
      await this.channel.request("approvals.answer", { id: approval.id, ...choice });
      const word = !choice.allow ? "Denied" : choice.decision === "site" ? "Allowed on this site" : "Allowed once";
      toast(`${word}: ${approval.subject}`);
    } catch (err) {
      toast(`The request on ${site} is gone: ${errorText(err)}`, "warning");
    }
    await this.refresh(); // shows the next one still pending, never a stale one
    this.onClosed();
  }
}
