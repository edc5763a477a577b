// The status bar: words, characters, reading time, the cursor's line and column, line endings, encoding.
import { el } from "../shared/dom";
import { live, onEditorUpdate } from "../shared/live";
import { sourceOffset } from "../shared/renderctx";
import type { TabText } from "../wire.gen";

export type FileFacts = Pick<TabText, "lineEnding" | "encoding">;

const WORDS_PER_MINUTE = 230;
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/g;

/** Words (a CJK character counts as one), characters (code points, line breaks not counted). */
export function counts(text: string): { words: number; characters: number } {
  const cjk = text.match(CJK)?.length ?? 0;
  const rest = text.replace(CJK, " ");
  const words = (rest.match(/[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu)?.length ?? 0) + cjk;
  let characters = 0;
  for (const ch of text) if (ch !== "\n" && ch !== "\r") characters++;
  return { words, characters };
}

export function readingTime(words: number): string {
  if (words === 0) return "no reading time";
  const minutes = Math.max(1, Math.round(words / WORDS_PER_MINUTE));
  return `${minutes} min read`;
}

export class StatusBar {
  readonly bar: HTMLElement;
  private items: Record<"words" | "characters" | "reading" | "cursor" | "endings" | "encoding" | "mode", HTMLElement>;
  private facts: FileFacts | null = null;
  private countTimer: number | undefined;
  private lastText: string | null = null;
  private lastDoc: unknown = null;

  constructor(private mode: () => string | null) {
    const item = (name: string, title: string): HTMLElement => el("span", { class: `status-item status-${name}`, "data-testid": `status-${name}`, title });
    this.items = {
      words: item("words", "Words"),
      characters: item("characters", "Characters (without line breaks)"),
      reading: item("reading", "Reading time"),
      cursor: item("cursor", "Cursor line and column"),
      endings: item("endings", "Line endings the file keeps"),
      encoding: item("encoding", "The file's encoding"),
      mode: item("mode", "Editing mode"),
    };
    const i = this.items;
    this.bar = el("footer", { class: "statusbar", "aria-label": "Status", "data-testid": "statusbar" }, i.words, i.characters, i.reading, el("span", { class: "spacer" }), i.cursor, i.endings, i.encoding, i.mode);
    document.body.append(this.bar);
    onEditorUpdate(() => this.update());
    this.update();
  }

  setFacts(facts: FileFacts | null): void {
    this.facts = facts;
    this.update();
  }

  /**
   * What changed decides the work: a cursor move in source mode reads only its line; the text is read
   * (and counted) only when the document changed, and for a long document once typing rests, so a
   * keystroke in a 5 MB document stays cheap.
   */
  private update(): void {
    const doc = live.cm ? live.cm.state.doc : live.pm ? live.pm.state.doc : null;
    this.bar.dataset.empty = String(doc === null);
    if (doc === null) {
      for (const item of Object.values(this.items)) item.textContent = "";
      this.items.words.textContent = "No document open";
      this.lastDoc = null;
      this.lastText = null;
      return;
    }
    const size = live.cm ? live.cm.state.doc.length : (live.pm?.state.doc.content.size ?? 0);
    if (doc !== this.lastDoc) {
      this.lastDoc = doc;
      window.clearTimeout(this.countTimer);
      const read = (): void => {
        const text = live.cm ? live.cm.state.doc.toString() : this.wysiwygText();
        if (text === null) return;
        this.lastText = text;
        this.count(text);
        this.showCursor();
      };
      if (size > 100_000) this.countTimer = window.setTimeout(read, 400);
      else read();
    }
    this.showCursor();
    this.items.endings.textContent = this.facts ? (this.facts.lineEnding === "\r\n" ? "CRLF" : this.facts.lineEnding === "\r" ? "CR" : "LF") : "";
    this.items.encoding.textContent = this.facts?.encoding ?? "";
    const mode = this.mode();
    this.items.mode.textContent = mode === "wysiwyg" ? "WYSIWYG" : mode === "source" ? "Source" : "";
  }

  private showCursor(): void {
    const cursor = this.cursor();
    this.items.cursor.textContent = cursor ? `Ln ${cursor.line}, Col ${cursor.column}` : "";
  }

  private count(text: string): void {
    const { words, characters } = counts(text);
    this.items.words.textContent = `${words.toLocaleString("en")} ${words === 1 ? "word" : "words"}`;
    this.items.characters.textContent = `${characters.toLocaleString("en")} ${characters === 1 ? "character" : "characters"}`;
    this.items.reading.textContent = readingTime(words);
  }

  private wysiwygText(): string | null {
    return (window as unknown as { vmarkPage?: { editorText(): string | null } }).vmarkPage?.editorText() ?? null;
  }

  /** 1-based line and column (code points) of the cursor in the text. */
  private cursor(): { line: number; column: number } | null {
    if (live.cm) {
      const state = live.cm.state;
      const head = state.selection.main.head;
      const line = state.doc.lineAt(head);
      return { line: line.number, column: Array.from(state.sliceDoc(line.from, head)).length + 1 };
    }
    const text = this.lastText;
    if (!live.pm || text === null) return null;
    const offset = sourceOffset(live.pm, live.pm.state.selection.head);
    if (offset === null || offset > text.length) return null;
    const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
    let line = 1;
    for (let at = text.indexOf("\n"); at >= 0 && at < lineStart; at = text.indexOf("\n", at + 1)) line++;
    return { line, column: Array.from(text.slice(lineStart, offset)).length + 1 };
  }
}
