// The status bar: words, characters, reading time, the cursor's line and column, line endings, encoding.
import type { Text } from "@codemirror/state";
import { el, setAttr, setText } from "../shared/dom";
import { inIdle } from "../shared/idle";
import { live, onEditorUpdate } from "../shared/live";
import { sourceOffset, sourceRope } from "../shared/renderctx";
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

type Counts = { words: number; characters: number };

/** The counts of every part of a rope seen so far: an edit makes new objects only of the parts it touched. */
const counted = new WeakMap<Text, Counts>();

/**
 * `counts` of a rope, reusing the counts of the parts an edit left alone (a rope splits only between lines,
 * where no word goes on). Gives up (null) once `deadline` (`performance.now()`) has passed; what it counted
 * by then is kept for the next call.
 */
export function countsOfRope(text: Text, deadline = Infinity): Counts | null {
  const known = counted.get(text);
  if (known) return known;
  let got: Counts;
  if (text.children === null) got = counts(text.toString());
  else {
    got = { words: 0, characters: 0 };
    for (const part of text.children) {
      const sub = countsOfRope(part, deadline);
      if (sub === null) return null;
      got.words += sub.words;
      got.characters += sub.characters;
      if (performance.now() > deadline) return null;
    }
  }
  counted.set(text, got);
  return got;
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
  /** Cancels the idle slice counting the text (in slices, so that a long document never holds up a key). */
  private countTask: (() => void) | null = null;
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
   * The text is counted only when the document changed, from its rope: the parts an edit left alone keep
   * their counts, so a keystroke in a 5 MB document counts a few lines. A text not counted yet (a document
   * just opened) is counted in idle time, a slice at a time. The cursor's line is the rope's, found by halving.
   */
  private update(): void {
    const doc = live.cm ? live.cm.state.doc : live.pm ? live.pm.state.doc : null;
    setAttr(this.bar, "data-empty", String(doc === null));
    if (doc === null) {
      for (const item of Object.values(this.items)) setText(item, "");
      setText(this.items.words, "No document open");
      this.lastDoc = null;
      return;
    }
    if (doc !== this.lastDoc) {
      this.lastDoc = doc;
      this.count();
    }
    this.showCursor();
    setText(this.items.endings, this.facts ? (this.facts.lineEnding === "\r\n" ? "CRLF" : this.facts.lineEnding === "\r" ? "CR" : "LF") : "");
    setText(this.items.encoding, this.facts?.encoding ?? "");
    const mode = this.mode();
    setText(this.items.mode, mode === "wysiwyg" ? "WYSIWYG" : mode === "source" ? "Source" : "");
  }

  /** Counts the shown text now if its parts are known (or it is short), else in idle slices. */
  private count(): void {
    this.countTask?.();
    this.countTask = null;
    const rope = this.rope();
    if (rope === null) return;
    const got = countsOfRope(rope, rope.length > 100_000 ? performance.now() + 8 : Infinity);
    if (got) {
      this.show(got);
      return;
    }
    const slice = (until: number): void => {
      this.countTask = null;
      if (this.rope() !== rope) return; // the text changed meanwhile: its update counts it
      const done = countsOfRope(rope, until);
      if (done) this.show(done);
      else this.countTask = inIdle(slice);
    };
    this.countTask = inIdle(slice);
  }

  /** The shown editor's text as a rope (WYSIWYG: the text behind the view). */
  private rope(): Text | null {
    if (live.cm) return live.cm.state.doc;
    return live.pm ? sourceRope(live.pm) : null;
  }

  private showCursor(): void {
    const cursor = this.cursor();
    setText(this.items.cursor, cursor ? `Ln ${cursor.line}, Col ${cursor.column}` : "");
  }

  private show({ words, characters }: Counts): void {
    setText(this.items.words, `${words.toLocaleString("en")} ${words === 1 ? "word" : "words"}`);
    setText(this.items.characters, `${characters.toLocaleString("en")} ${characters === 1 ? "character" : "characters"}`);
    setText(this.items.reading, readingTime(words));
  }

  /** 1-based line and column (code points) of the cursor in the text. */
  private cursor(): { line: number; column: number } | null {
    let text: Text | null;
    let head: number | null;
    if (live.cm) {
      text = live.cm.state.doc;
      head = live.cm.state.selection.main.head;
    } else {
      if (!live.pm) return null;
      text = sourceRope(live.pm);
      head = sourceOffset(live.pm, live.pm.state.selection.head);
    }
    if (text === null || head === null || head > text.length) return null;
    const line = text.lineAt(head);
    return { line: line.number, column: Array.from(text.sliceString(line.from, head)).length + 1 };
  }
}
