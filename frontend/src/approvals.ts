// The person's side of a prompt: one modal dialog at a time, the canonical path shown,
// Allow only by clicking it; Enter and Escape deny.
import { byId, toast } from "./dom";
import { type Channel, errorText } from "./protocol";

export interface Approval {
  id: string;
  kind: string;
  requester: string;
  subject: string;
  window: string;
  state: string;
}

const WORDING: Record<string, { title: string; text: (a: Approval) => string }> = {
  open_workspace: {
    title: "Open a workspace?",
    text: (a) => `${a.requester} asks to open this folder as the workspace of this window:`,
  },
  folder_access: {
    title: "Give access to a folder?",
    text: (a) => `${a.requester} asks to read this folder, which is outside the always-readable locations:`,
  },
};

export class ApprovalDialog {
  private queue: Approval[] = [];
  private shown: Approval | null = null;
  private dialog = byId<HTMLDialogElement>("approval");
  /** Called when the last question was answered. */
  onIdle: () => void = () => {};

  constructor(private channel: Channel) {
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
    return this.shown !== null;
  }

  add(approval: Approval): void {
    if (approval.state !== "pending") return;
    if (this.shown?.id === approval.id || this.queue.some((a) => a.id === approval.id)) return;
    this.queue.push(approval);
    this.showNext();
  }

  private showNext(): void {
    if (this.shown || this.queue.length === 0) return;
    const approval = this.queue.shift() as Approval;
    this.shown = approval;
    const wording = WORDING[approval.kind] ?? { title: "Approve?", text: (a: Approval) => `${a.requester} asks:` };
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
    this.showNext();
    if (!this.shown) this.onIdle();
  }
}
