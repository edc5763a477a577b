// The status bar: words, characters, reading time, the cursor's line and column, line endings, encoding.
import { el } from "./dom";
import { live, onEditorUpdate } from "./live";
import { sourceOffset } from "./renderctx";

export interface FileFacts {
  lineEnding: string;
  encoding: string;
}

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

  private update(): void {
    const text = live.cm ? live.cm.state.doc.toString() : live.pm ? this.wysiwygText() : null;
    this.bar.dataset.empty = String(text === null);
    if (text === null) {
      for (const item of Object.values(this.items)) item.textContent = "";
      this.items.words.textContent = "No document open";
      this.lastText = null;
      return;
    }
    if (text !== this.lastText) {
      this.lastText = text;
      // Counting a long text on every keystroke would slow typing: once it rests.
      window.clearTimeout(this.countTimer);
      const delay = text.length > 200_000 ? 400 : 0;
      this.countTimer = window.setTimeout(() => this.count(text), delay);
    }
    const cursor = this.cursor(text);
    this.items.cursor.textContent = cursor ? `Ln ${cursor.line}, Col ${cursor.column}` : "";
    this.items.endings.textContent = this.facts ? (this.facts.lineEnding === "\r\n" ? "CRLF" : this.facts.lineEnding === "\r" ? "CR" : "LF") : "";
    this.items.encoding.textContent = this.facts?.encoding ?? "";
    const mode = this.mode();
    this.items.mode.textContent = mode === "wysiwyg" ? "WYSIWYG" : mode === "source" ? "Source" : "";
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
  private cursor(text: string): { line: number; column: number } | null {
    let offset: number | null = null;
    if (live.cm) offset = live.cm.state.selection.main.head;
    else if (live.pm) offset = sourceOffset(live.pm, live.pm.state.selection.head);
    if (offset === null) return null;
    const before = text.slice(0, offset);
    const lineStart = before.lastIndexOf("\n") + 1;
    const line = (before.match(/\n/g)?.length ?? 0) + 1;
    return { line, column: Array.from(before.slice(lineStart)).length + 1 };
  }
}
