// Review comments of the active tab: "Comment" on the selection (a small dialog for the body), the
// thread sidebar (state, quote, body, the replies of people and agents, a reply box, resolve /
// reopen / delete: the person's alone), orphaned threads in a section of their own, and the anchors
// highlighted in the editor. Threads are asked for again on the app's `comments` event, on a
// change of the text and on a tab switch; the highlights show whether the sidebar is open or not.
import { act, byId, el, toast, toggleSidebar } from "../shared/dom";
import type { CommentAnchor } from "../editors/editor";
import type { MountPanel } from "./host";
import { type Channel, errorText } from "../shared/protocol";
import { shortQuote } from "../shared/quote";
import { Reloads } from "../shared/reloads";
import type { TabSync } from "../sync/tabsync";
import type { CommentAddPayload, CommentsEvent, Thread } from "../wire.gen";

export type CommentTab = Pick<TabSync, "tabId" | "flush" | "editor">;

/** What the person can do to a thread (the `comments.<verb>` request). */
type ThreadVerb = "resolve" | "reopen" | "delete";

/** A comment on the way: its quote, and in source mode where the selection starts (code points). */
interface Draft {
  tab: CommentTab;
  quote: string;
  at: number | null;
}

/** Edits and events come in bursts: the threads are asked for once they settle. */
const REFRESH_MS = 150;
/** States in which the person may still resolve a thread, or reopen it. */
const RESOLVABLE = new Set(["open", "addressed", "reopened"]);
const REOPENABLE = new Set(["addressed", "resolved"]);

export class CommentsPanel {
  private panel = byId("comments");
  private list = byId("comments-list");
  private orphanedList = byId("comments-orphaned");
  private orphanedSection = byId("comments-orphaned-section");
  private count = byId("comments-count");
  private toggleButton = byId<HTMLButtonElement>("comments-toggle");
  private addButton = byId<HTMLButtonElement>("comment-add");
  private dialog = byId<HTMLDialogElement>("comment-dialog");
  private dialogQuote = byId("comment-quote");
  private dialogBody = byId<HTMLTextAreaElement>("comment-body");
  private dialogError = byId("comment-error");
  private draft: Draft | null = null;
  /** The document whose threads are shown (the app's id), and the thread the person picked. */
  private doc: string | null = null;
  private focused: string | null = null;
  /** What the person has typed in each thread's reply box: a new listing must not wipe it. */
  private replyDrafts = new Map<string, string>();
  /** The listing shown, as the app sent it: the same listing again leaves the sidebar as it is. */
  private shownListing = "";
  private reloads = new Reloads(() => this.render(), REFRESH_MS, (err) => this.showUnavailable(err));

  constructor(
    private channel: Channel,
    private active: () => CommentTab | null,
  ) {
    this.toggleButton.addEventListener("click", () => this.toggle());
    this.addButton.addEventListener("click", () => this.openDialog());
    byId("comment-cancel").addEventListener("click", () => this.dialog.close());
    byId("comment-form").addEventListener("submit", (event) => {
      event.preventDefault();
      void this.submit();
    });
    // A highlighted anchor names its thread: clicking it shows the thread in the sidebar.
    byId("editor").addEventListener("click", (event) => {
      const mark = (event.target as Element | null)?.closest("[data-comment-id]");
      if (mark) this.showThread(mark.getAttribute("data-comment-id") ?? "");
    });
  }

  /** The active tab, its text or its threads changed: list the threads again shortly. */
  refresh(): void {
    // In the background: a failure shows in the sidebar's head, not as a toast at every keystroke.
    this.reloads.soon();
  }

  /** The app's `comments` event: threads of `doc` changed. */
  onEvent(payload: CommentsEvent): void {
    if (this.doc === null || payload.doc === this.doc) this.refresh();
  }

  private toggle(): void {
    if (toggleSidebar(this.panel, this.toggleButton)) this.refresh();
  }

  private showThread(id: string): void {
    if (this.panel.hidden) this.toggle();
    this.focused = id;
    for (const item of this.panel.querySelectorAll<HTMLElement>(".thread")) {
      item.classList.toggle("focused", item.dataset.commentId === id);
      if (item.dataset.commentId === id) item.scrollIntoView({ block: "nearest" });
    }
  }

  // --- a new comment ---------------------------------------------------------------------------
  private openDialog(): void {
    const tab = this.active();
    const editor = tab?.editor;
    if (!tab || !editor) {
      toast("Open a document first", "warning");
      return;
    }
    const selection = editor.selection();
    if (selection.text.trim() === "") {
      toast("Select the text to comment on first", "warning");
      return;
    }
    // WYSIWYG positions are no offsets of the text: there the app finds the quote itself.
    this.draft = { tab, quote: selection.text, at: editor.mode === "source" ? selection.from : null };
    this.dialogQuote.textContent = selection.text;
    this.dialogBody.value = "";
    this.showError("");
    if (!this.dialog.open) this.dialog.showModal();
    this.dialogBody.focus();
  }

  private async submit(): Promise<void> {
    const draft = this.draft;
    const body = this.dialogBody.value;
    if (!draft) return;
    if (body.trim() === "") {
      this.showError("Write the comment first");
      return;
    }
    try {
      await draft.tab.flush(); // the quote must be in the app's text: the keystrokes that typed it too
      const payload: CommentAddPayload = { tabId: draft.tab.tabId, quote: draft.quote, body };
      if (draft.at !== null) payload.at = draft.at;
      const { comment } = await this.channel.request("comments.add", payload);
      this.dialog.close();
      this.draft = null;
      this.focused = comment;
      await this.load();
    } catch (err) {
      this.showError(errorText(err));
    }
  }

  private showError(text: string): void {
    this.dialogError.textContent = text;
    this.dialogError.hidden = text === "";
  }

  // --- the threads -------------------------------------------------------------------------------
  /** One load at a time, in order: a later one always shows the later state. */
  private load(): Promise<void> {
    return this.reloads.now();
  }

  private async render(): Promise<void> {
    const tab = this.active();
    if (!tab) {
      this.doc = null;
      this.showListing([]);
      return;
    }
    const { doc, threads } = await this.channel.request("comments.threads", { tabId: tab.tabId });
    const now = this.active();
    if (now?.tabId !== tab.tabId) return; // switched meanwhile: that switch loads again
    this.doc = doc;
    this.showListing(threads);
    now.editor?.setAnchors(anchorsOf(threads));
  }

  private showUnavailable(err: unknown): void {
    this.shownListing = "";
    this.count.textContent = `comments unavailable: ${errorText(err)}`;
    this.active()?.editor?.setAnchors([]);
  }

  private showListing(threads: Thread[]): void {
    const listing = JSON.stringify(threads);
    if (listing === this.shownListing) return;
    this.shownListing = listing;
    this.show(threads);
  }

  private show(threads: Thread[]): void {
    // The reply box being typed in is rebuilt: it gets the focus back, where the caret was.
    const box = document.activeElement;
    const typing = box instanceof HTMLTextAreaElement && box.classList.contains("reply-input") ? box : null;
    const typingIn = typing?.closest<HTMLElement>(".thread")?.dataset.commentId ?? null;
    const placed = threads.filter((t) => !t.orphaned);
    const orphaned = threads.filter((t) => t.orphaned);
    this.list.replaceChildren(...placed.map((t) => this.item(t)));
    if (threads.length === 0) {
      this.list.append(el("li", { class: "panel-empty hint" }, "No comments yet: select some text and press Comment to start a thread."));
    }
    this.orphanedList.replaceChildren(...orphaned.map((t) => this.item(t)));
    this.orphanedSection.hidden = orphaned.length === 0;
    const open = threads.filter((t) => t.state !== "resolved").length;
    this.count.textContent = threads.length === 0 ? "no comments" : `${open} of ${threads.length} unresolved`;
    this.count.dataset.count = String(threads.length);
    this.toggleButton.dataset.count = String(open);
    this.list.dataset.count = String(placed.length);
    this.orphanedList.dataset.count = String(orphaned.length);
    const again = typingIn === null ? null : this.replyBox(typingIn);
    again?.focus();
    again?.setSelectionRange(typing?.selectionStart ?? 0, typing?.selectionEnd ?? 0);
  }

  private item(thread: Thread): HTMLElement {
    const item = el(
      "li",
      {
        class: `thread${thread.comment === this.focused ? " focused" : ""}`,
        "data-comment-id": thread.comment,
        "data-state": thread.state,
        "data-orphaned": String(thread.orphaned),
      },
      el(
        "div",
        { class: "thread-head" },
        copyableId(thread.comment),
        el("span", { class: "thread-state" }, thread.state),
        el("span", { class: "thread-author" }, who(thread.author)),
      ),
      el("blockquote", { class: "thread-quote" }, thread.quote),
      el("p", { class: "thread-body" }, thread.body),
      el(
        "ol",
        { class: "replies" },
        ...thread.replies.map((r) =>
          el(
            "li",
            { class: `reply${r.author === "person" ? "" : " agent"}`, "data-reply-id": r.id, "data-author": r.author },
            el("span", { class: "reply-author" }, who(r.author)),
            el("p", { class: "reply-body" }, r.body),
          ),
        ),
      ),
    );
    if (thread.state !== "resolved") item.append(this.replyForm(thread));
    item.append(this.actions(thread));
    return item;
  }

  private replyBox(comment: string): HTMLTextAreaElement | null {
    return this.panel.querySelector<HTMLTextAreaElement>(`.thread[data-comment-id="${CSS.escape(comment)}"] .reply-input`);
  }

  private replyForm(thread: Thread): HTMLElement {
    const input = el("textarea", { class: "reply-input", rows: "2", placeholder: "Reply…", "aria-label": "Reply" });
    input.value = this.replyDrafts.get(thread.comment) ?? "";
    input.addEventListener("input", () => this.replyDrafts.set(thread.comment, input.value));
    const form = el("form", { class: "reply-form" }, input, el("button", { type: "submit", class: "reply-send" }, "Reply"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (input.value.trim() === "") return;
      void act(async () => {
        await this.channel.request("comments.person_reply", { commentId: thread.comment, body: input.value });
        this.replyDrafts.delete(thread.comment);
        await this.load();
      });
    });
    return form;
  }

  private actions(thread: Thread): HTMLElement {
    const button = (verb: ThreadVerb, label: string): HTMLButtonElement => {
      const b = el("button", { type: "button", class: `thread-${verb}` }, label);
      b.addEventListener("click", () => void act(() => this.change(thread, verb)));
      return b;
    };
    const bar = el("div", { class: "thread-actions" });
    if (RESOLVABLE.has(thread.state)) bar.append(button("resolve", "Resolve"));
    if (REOPENABLE.has(thread.state)) bar.append(button("reopen", "Reopen"));
    bar.append(button("delete", "Delete"));
    return bar;
  }

  private async change(thread: Thread, verb: ThreadVerb): Promise<void> {
    if (verb === "delete" && !window.confirm(`Delete the comment on “${shortQuote(thread.quote)}” and its replies?`)) return;
    await this.channel.request(`comments.${verb}`, { commentId: thread.comment });
    await this.load();
  }

}

/** What the editors highlight: placed threads that are not resolved yet. */
export function anchorsOf(threads: Thread[]): CommentAnchor[] {
  return threads.flatMap((t) =>
    t.anchor && !t.orphaned && t.state !== "resolved" ? [{ id: t.comment, quote: t.quote, ...t.anchor }] : [],
  );
}

function who(author: string): string {
  return author === "person" ? "you" : author;
}

/** A thread's id, shown as a short handle; a click copies the whole id (what `vmark comments` takes). */
function copyableId(id: string): HTMLElement {
  const button = el("button", { type: "button", class: "thread-id", title: `${id}: click to copy the comment's id`, "data-id": id }, "Copy id");
  button.addEventListener("click", () => {
    void navigator.clipboard?.writeText(id).then(
      () => (button.textContent = "Copied"),
      () => (button.textContent = id),
    );
  });
  return button;
}

/** The Comments panel on the page: the active tab's threads, again when they or the text may have changed. */
export const mountCommentsPanel: MountPanel = ({ channel, bus, active }) => {
  const panel = new CommentsPanel(channel, active);
  bus.on("active", () => panel.refresh());
  bus.on("remote", () => panel.refresh());
  bus.on("comments", (payload) => panel.onEvent(payload));
};
