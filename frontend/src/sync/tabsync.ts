// One open tab in the page: its editor and how its changes travel to and from the app.
//
// Edits go to the app as change sets: `ui.edit {tabId, baseRevision, changes}`, the person's unsent
// changes composed into one ChangeSet of the text at `baseRevision` (`synced`), sent as code point
// spans `[from, to, insert]` after a short debounce. A keystroke costs the same on a 5 KB and a 5 MB
// document: no whole text is serialized or sent. If the app's revision moved on meanwhile (an agent
// wrote, another window typed), it answers `applied: false` with its changes since our base (or its
// whole text when it no longer has them): the page rebases (their changes mapped over ours go to the
// editor, ours mapped over theirs are sent again). `doc` events from the app (`changes: {base, spans}` on the
// tab's revision) go through the same rebase; any other event makes the tab read the app's text. Everything
// for one tab runs in order on one promise chain.
import { ChangeSet, type Text } from "@codemirror/state";
import type { Editor, EditorHooks } from "../editors/editor";
import { placeChanges, type ReviewState } from "../editors/reviewmodel";
import { workflowLint } from "../editors/lint";
import { applyChanges, diffChanges, fromSpans, refineChanges, textOf, toSpans } from "../shared/merge";
import type { Channel, EditorAnswer } from "../shared/protocol";
import type { DocChanges, EditorRequest, EditResult, Mode, TabText } from "../wire.gen";

export type { DocChanges, TabText } from "../wire.gen";
import { SourceEditor } from "../editors/source";

export const EDIT_DEBOUNCE_MS = 120;
const SELECTION_DEBOUNCE_MS = 150;
const SEEN_LIMIT = 64;
const MAX_RETRIES = 5;

/**
 * The WYSIWYG editor, a chunk of its own: the page's first frame does not wait for it. `import()` loads a module
 * once, so an early call (the page's idle time after it starts: Markdown files open in WYSIWYG by default)
 * spares the first opening the wait.
 */
export function loadWysiwyg(): Promise<typeof import("../editors/wysiwyg")> {
  return import("../editors/wysiwyg");
}

export class TabSync {
  editor: Editor | null = null;
  /** The app's text at `revision`, as the editor shows it. */
  private synced: Text;
  private revision: string;
  /** The person's changes the app has not taken yet, composed: a ChangeSet of `synced`. */
  private unsent: ChangeSet;
  private seen: string[] = [];
  private chain: Promise<void> = Promise.resolve();
  private editTimer: number | undefined;
  private selectionTimer: number | undefined;
  /** The selection the app last heard of (or will, after the debounce). */
  private reported: [number, number] | null = null;
  readonly kind: string;
  mode: Mode;
  readonly readOnly: boolean;
  onError: (err: unknown) => void = () => {};
  /** The app's text this tab is synced to moved on to `revision` (a review state for it may now show). */
  onRevision: (revision: string) => void = () => {};
  /**
   * The review state of `revision`, once the app sends it (a `doc` event said it follows); null: none came in
   * time. The review panel answers it while it shows this tab.
   */
  reviewOf: (revision: string) => Promise<ReviewState | null> = () => Promise.resolve(null);
  /** The review state the editor shows, and the unsent changes it was placed over (shown again only when either differs). */
  private reviewShown: { state: ReviewState; unsent: ChangeSet } | null = null;

  constructor(
    private channel: Channel,
    readonly tabId: string,
    initial: TabText,
  ) {
    this.synced = textOf(shownText(initial.text));
    this.unsent = ChangeSet.empty(this.synced.length);
    this.revision = initial.revision;
    this.kind = initial.kind;
    this.mode = initial.kind === "markdown" ? initial.mode : "source";
    this.readOnly = initial.readOnly;
    this.remember(initial.revision);
  }

  /** Show the tab in `parent` in its mode (after whatever this tab is doing: `doc` events wait). */
  mount(parent: HTMLElement): Promise<void> {
    return this.enqueue(() => this.create(parent));
  }

  private async create(parent: HTMLElement): Promise<void> {
    this.reviewShown = null;
    parent.replaceChildren();
    parent.dataset.mode = this.mode;
    const hooks = this.hooks();
    const text = this.shown();
    if (this.mode === "wysiwyg") {
      performance.mark("vmark:mount");
      const { WysiwygEditor } = await loadWysiwyg();
      performance.mark("vmark:wysiwyg-loaded");
      this.editor = await WysiwygEditor.create(parent, text.toString(), hooks, this.readOnly);
    } else {
      const lint = this.kind === "yaml-workflow" ? workflowLint(this.channel, this.tabId, () => this.flush()) : [];
      this.editor = new SourceEditor(parent, text, this.kind, hooks, this.readOnly, lint);
    }
  }

  /**
   * Show `state`'s pending changes, after what this tab is doing, if its ranges are of the text the
   * editor is synced to (the person's unsent keystrokes mapped in); else the changes shown stay, mapped
   * through the edits. Answers whether it showed them.
   */
  showReview(state: ReviewState): Promise<boolean> {
    let shown = false;
    return this.enqueue(async () => {
      if (state.revision !== this.revision || !this.editor) return;
      const already = this.reviewShown?.state === state && this.reviewShown.unsent === this.unsent;
      if (!already) this.editor.setReview(placeChanges(this.synced, this.unsent, state.changes));
      this.reviewShown = { state, unsent: this.unsent };
      shown = true;
    }).then(() => shown);
  }

  /** Pass unsent keystrokes on, then take the editor down. */
  async unmount(): Promise<void> {
    await this.flush();
    await this.enqueue(async () => this.destroy());
  }

  async switchMode(parent: HTMLElement, mode: Mode): Promise<void> {
    await this.flush();
    await this.enqueue(async () => {
      await this.channel.request("ui.set_mode", { tabId: this.tabId, mode });
      this.destroy();
      this.mode = mode;
      await this.create(parent);
    });
  }

  private destroy(): void {
    window.clearTimeout(this.selectionTimer);
    this.editor?.destroy();
    this.editor = null;
  }

  /** Send what the app has not seen yet, now (the app asks before it closes, saves or switches). */
  flush(): Promise<void> {
    window.clearTimeout(this.editTimer);
    return this.enqueue(() => this.send(0));
  }

  /**
   * Everything the app has not seen yet, now: a selection report still waiting for its debounce, then the changes
   * (the app's `flush` ask: after it, an agent's write is not aborted by a selection move made before it).
   */
  async passOn(): Promise<void> {
    if (!this.editor?.composing()) await this.reportSelection();
    await this.flush();
  }

  /**
   * The app asks for the selection (op `get`) or a prepared `selection.set` (`prepare`): pass on the selection
   * and the changes the app has not seen, then answer from the editor. A composition in progress is neither
   * flushed nor disturbed: `prepare` answers `composing` (the app says BUSY), `get` answers what is there.
   * WYSIWYG's `prepare` carries the `changes` its replacement makes (code points of the text at `revision`).
   */
  async answerEditor(op: EditorRequest["op"], content: string): Promise<EditorAnswer> {
    if (!this.editor?.composing()) await this.passOn();
    let answer: EditorAnswer = { ok: false, reason: `${this.tabId} has no editor right now` };
    await this.enqueue(async () => {
      const editor = this.editor;
      if (!editor) return;
      const composing = editor.composing();
      // Changes still unsent: the range would not fit the app's text at `revision`.
      const revision = this.unsent.empty || composing ? this.revision : null;
      const base = { ok: true, tabId: this.tabId, mode: editor.mode, revision, composing };
      if (op === "get") {
        const { from, to, text } = editor.selection();
        answer = { ...base, from, to, text };
      } else if (!composing) {
        const { selection, replaced, changes } = editor.prepareReplace(content);
        answer = { ...base, from: selection.from, to: selection.to, replaced };
        if (changes) answer.changes = toSpans(this.shown(), changes);
      } else answer = base;
    });
    return answer;
  }

  /** Send a selection move still waiting for its debounce, now. */
  private async reportSelection(): Promise<void> {
    if (this.selectionTimer === undefined || !this.editor) return;
    window.clearTimeout(this.selectionTimer);
    this.selectionTimer = undefined;
    const { from, to } = this.editor.selection();
    await this.channel.request("ui.selection", { tabId: this.tabId, from, to }).catch(() => {});
  }

  /**
   * A `doc` event: the document changed elsewhere. Changes on top of our revision are rebased on (no text
   * fetched, unsent changes kept); otherwise the app's text now is read and taken as one diff. Never an event's
   * whole text: the app sends a page its events and answers in the order it finishes them, not the order it
   * made them, so that text may be older than what an answer already brought (and would undo what came after).
   * When the app says the revision's review follows (`reviewFollows`), the change waits for it and the editor
   * shows both at once: one redraw, where a long WYSIWYG document's costs a walk over every top-level block.
   */
  remote(revision: string, changes: DocChanges | null = null, reviewFollows = false): Promise<void> {
    return this.enqueue(async () => {
      if (this.seen.includes(revision)) return;
      let theirs: ChangeSet;
      let review: ReviewState | null = null;
      if (changes && changes.base === this.revision) {
        theirs = fromSpans(this.synced, changes.spans);
        if (reviewFollows) review = await this.reviewOf(revision);
      } else {
        const read = await this.channel.request("ui.read", { tabId: this.tabId });
        revision = read.revision;
        if (this.seen.includes(revision)) return;
        theirs = diffChanges(this.synced.toString(), shownText(read.text));
      }
      this.rebase(revision, theirs, review);
      if (!this.unsent.empty) this.schedule();
    });
  }

  /**
   * The app's `theirs` (a ChangeSet of `synced`) made `revision`: the editor gets it mapped over our unsent
   * changes, and those are mapped over it (theirs came first: at one position their insert goes first).
   * `review` (of `revision`) is shown with it.
   */
  private rebase(revision: string, change: ChangeSet, review: ReviewState | null = null): void {
    const theirs = refineChanges(this.synced, change);
    const ours = this.unsent;
    const unsent = ours.map(theirs);
    const synced = applyChanges(this.synced, theirs);
    const marks = review && this.editor ? placeChanges(synced, unsent, review.changes) : undefined;
    this.editor?.applyRemote(theirs.map(ours, true), marks);
    this.unsent = unsent;
    this.synced = synced;
    this.reviewShown = review && marks ? { state: review, unsent } : null;
    this.revision = revision;
    this.remember(revision);
    this.onRevision(revision);
  }

  /** The text the editor shows: `synced` with our unsent changes. */
  private shown(): Text {
    return applyChanges(this.synced, this.unsent);
  }

  private hooks(): EditorHooks {
    return {
      onChange: (changes) => {
        this.unsent = this.unsent.compose(changes);
        if (!this.editor?.composing()) this.schedule();
      },
      onComposition: (state) => {
        const mode = this.mode;
        void this.channel
          .request("ui.composition", { tabId: this.tabId, state, mode })
          .catch((err) => this.onError(err));
        if (state === "end") this.schedule();
      },
      onSelection: (from, to) => {
        // A key that leaves the cursor where it was (Ctrl+End at the end) is no selection move.
        if (this.reported?.[0] === from && this.reported[1] === to) return;
        this.reported = [from, to];
        window.clearTimeout(this.selectionTimer);
        this.selectionTimer = window.setTimeout(() => {
          this.selectionTimer = undefined;
          void this.channel.request("ui.selection", { tabId: this.tabId, from, to }).catch(() => {});
        }, SELECTION_DEBOUNCE_MS);
      },
    };
  }

  private schedule(): void {
    window.clearTimeout(this.editTimer);
    this.editTimer = window.setTimeout(() => {
      if (this.editor?.composing()) return; // compositionend schedules again
      void this.flush();
    }, EDIT_DEBOUNCE_MS);
  }

  private enqueue(job: () => Promise<void>): Promise<void> {
    const run = this.chain.then(job).catch((err) => this.onError(err));
    this.chain = run;
    return run;
  }

  private async send(attempt: number): Promise<void> {
    if (!this.editor || this.unsent.empty) return;
    // What the person types while this is under way gathers in a new `unsent` (a ChangeSet of `sending`'s result).
    const sending = this.unsent;
    this.unsent = ChangeSet.empty(sending.newLength);
    let answer: EditResult;
    try {
      answer = await this.channel.request("ui.edit", {
        tabId: this.tabId,
        baseRevision: this.revision,
        changes: toSpans(this.synced, sending),
      });
    } catch (err) {
      this.unsent = sending.compose(this.unsent);
      throw err;
    }
    if (answer.applied !== false) {
      this.synced = applyChanges(this.synced, sending);
      this.revision = answer.revision;
      this.remember(answer.revision);
      this.onRevision(answer.revision);
      return;
    }
    // Someone else changed the document first: rebase ours on theirs and send again.
    this.unsent = sending.compose(this.unsent);
    const theirs = answer.changes
      ? fromSpans(this.synced, answer.changes)
      : diffChanges(this.synced.toString(), shownText(answer.text ?? ""));
    this.rebase(answer.revision, theirs);
    if (attempt < MAX_RETRIES) await this.send(attempt + 1);
  }

  private remember(revision: string): void {
    this.seen.push(revision);
    if (this.seen.length > SEEN_LIMIT) this.seen.shift();
  }
}

/** Editors show every line break as "\n" (the app gives a CRLF file its line endings back). */
function shownText(text: string): string {
  return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
}
