// One open tab in the page: its editor and how its text travels to and from the app.
//
// Edits go to the app as `ui.edit` with the FULL text and the revision they were typed on
// (`baseRevision`), debounced briefly. Full text keeps the first version simple and obviously
// correct (the app replaces, never patches); per-keystroke transactions are a later step.
// If the app's revision moved on meanwhile (an agent wrote, another window typed), it answers
// `applied: false` with its text: the page merges its unsent keystrokes into that text (one
// span each, mapped with CodeMirror's ChangeSet) and sends again. `doc` events from the app go
// through the same merge. Everything for one tab runs in order on one promise chain.
import type { Editor, EditorHooks } from "./editor";
import { workflowLint } from "./lint";
import { hasSurrogate, merge3, utf16Offset } from "./merge";
import type { Channel } from "./protocol";
import { SourceEditor } from "./source";

export const EDIT_DEBOUNCE_MS = 120;
const SELECTION_DEBOUNCE_MS = 150;
const SEEN_LIMIT = 64;
const MAX_RETRIES = 5;

export interface TabText {
  text: string;
  revision: string;
  kind: string;
  mode: "source" | "wysiwyg";
  readOnly: boolean;
}

/** A `doc` event's span: `from..to` (code points of revision `base`) became `insert`. */
export interface Splice {
  base: string;
  from: number;
  to: number;
  insert: string;
}

interface EditAnswer {
  applied?: boolean;
  revision: string;
  text?: string;
}

export class TabSync {
  editor: Editor | null = null;
  private syncedText = "";
  /** Whether `synced` has no astral characters (null: not known yet); a 5 MB scan per change is too slow. */
  private syncedBasic: boolean | null = null;
  private revision: string;
  private seen: string[] = [];
  private chain: Promise<void> = Promise.resolve();
  private editTimer: number | undefined;
  private selectionTimer: number | undefined;
  /** The selection the app last heard of (or will, after the debounce). */
  private reported: [number, number] | null = null;
  /** Keystrokes counted since the page last knew the app had them all. */
  private edits = 0;
  readonly kind: string;
  mode: "source" | "wysiwyg";
  readonly readOnly: boolean;
  onError: (err: unknown) => void = () => {};

  constructor(
    private channel: Channel,
    readonly tabId: string,
    initial: TabText,
  ) {
    this.synced = shownText(initial.text);
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
    parent.replaceChildren();
    parent.dataset.mode = this.mode;
    const hooks = this.hooks();
    if (this.mode === "wysiwyg") {
      // Milkdown loads on first use: a page in source mode starts without it.
      const { WysiwygEditor } = await import("./wysiwyg");
      this.editor = await WysiwygEditor.create(parent, this.synced, hooks, this.readOnly);
    } else {
      const lint = this.kind === "yaml-workflow" ? workflowLint(this.channel, this.tabId, () => this.flush()) : [];
      this.editor = new SourceEditor(parent, this.synced, this.kind, hooks, this.readOnly, lint);
    }
  }

  /** Pass unsent keystrokes on, then take the editor down. */
  async unmount(): Promise<void> {
    await this.flush();
    await this.enqueue(async () => this.destroy());
  }

  async switchMode(parent: HTMLElement, mode: "source" | "wysiwyg"): Promise<void> {
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
   * The app asks for the selection (op `get`), a prepared `selection.set` (`prepare`) or a prepared
   * `document.write` (`load`, the editor's form of a full text): pass on the selection and the keystrokes the app
   * has not seen, then answer from the editor. A composition in progress is neither flushed nor
   * disturbed: `prepare` answers `composing` (the app says BUSY), `get` answers what is there.
   */
  async answerEditor(op: string, content: string): Promise<Record<string, unknown>> {
    if (!this.editor?.composing()) {
      await this.reportSelection();
      await this.flush();
    }
    let answer: Record<string, unknown> = { ok: false, reason: `${this.tabId} has no editor right now` };
    await this.enqueue(async () => {
      const editor = this.editor;
      if (!editor) return;
      const composing = editor.composing();
      // Keystrokes still unsent: the range would not fit the app's text at `revision`.
      const revision = this.edits > 0 && !composing ? null : this.revision;
      const base = { ok: true, tabId: this.tabId, mode: editor.mode, revision, composing };
      if (op === "get") {
        const { from, to, text } = editor.selection();
        answer = { ...base, from, to, text };
      } else if (op === "load") {
        if (!composing) answer = { ...base, result: editor.prepareLoad(content) };
        else answer = base;
      } else if (!composing) {
        const { selection, replaced, text } = editor.prepareReplace(content);
        answer = { ...base, from: selection.from, to: selection.to, replaced, result: text };
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

  /** A `doc` event: the document changed elsewhere (its full text, or one span of the revision we have). */
  remote(revision: string, text: string | null, splice: Splice | null = null): Promise<void> {
    return this.enqueue(async () => {
      if (this.seen.includes(revision)) return;
      if (text === null && splice && splice.base === this.revision && this.edits === 0) {
        this.absorbSplice(revision, splice);
        return;
      }
      if (text === null) {
        // A span of a revision we do not have: take the whole current text instead.
        const read = await this.channel.request<TabText>("ui.read", { tabId: this.tabId });
        [revision, text] = [read.revision, read.text];
      }
      if (this.absorb(revision, text) && this.edits > 0) this.schedule();
    });
  }

  /** The app's one-span change on top of what we have, with nothing of ours unsent: no 5 MB diff. */
  private absorbSplice(revision: string, splice: Splice): void {
    const from = this.offset16(splice.from);
    const to = this.offset16(splice.to);
    const text = this.synced.slice(0, from) + splice.insert + this.synced.slice(to);
    if (this.editor instanceof SourceEditor) this.editor.replaceRange(from, to, splice.insert);
    else this.editor?.setText(text);
    const basic = this.syncedBasic === true && !hasSurrogate(splice.insert);
    this.synced = text;
    this.syncedBasic = basic;
    this.revision = revision;
    this.remember(revision);
  }

  /** A code point offset into `synced` in UTF-16 units; known equal while it has no astral character. */
  private offset16(points: number): number {
    this.syncedBasic ??= !hasSurrogate(this.synced);
    return this.syncedBasic ? points : utf16Offset(this.synced, points);
  }

  /** The app's text at `revision`, as the editor shows it. */
  private get synced(): string {
    return this.syncedText;
  }

  private set synced(text: string) {
    this.syncedText = text;
    this.syncedBasic = null;
  }

  private hooks(): EditorHooks {
    return {
      onChange: () => {
        this.edits++;
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
    const editor = this.editor;
    if (!editor || this.edits === 0) return;
    const counted = this.edits;
    const text = editor.getText();
    if (text === this.synced) {
      this.edits -= counted;
      return;
    }
    const answer = await this.channel.request<EditAnswer>("ui.edit", {
      tabId: this.tabId,
      text,
      baseRevision: this.revision,
    });
    if (answer.applied !== false) {
      this.synced = text;
      this.revision = answer.revision;
      this.remember(answer.revision);
      this.edits -= counted;
      return;
    }
    // Someone else changed the document first: merge our keystrokes into theirs and try again.
    this.absorb(answer.revision, answer.text ?? "");
    if (attempt < MAX_RETRIES) await this.send(attempt + 1);
  }

  /** Take the app's text at `revision`, keeping unsent keystrokes; false if already known. */
  private absorb(revision: string, appText: string): boolean {
    if (this.seen.includes(revision)) return false;
    const text = shownText(appText);
    const editor = this.editor;
    if (editor) {
      const next = this.edits > 0 ? merge3(this.synced, editor.getText(), text) : text;
      editor.setText(next);
    }
    this.synced = text;
    this.revision = revision;
    this.remember(revision);
    return true;
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
