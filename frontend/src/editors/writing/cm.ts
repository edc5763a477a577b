// The writing aids of source mode (CodeMirror), as one extension (source.ts adds it to Markdown tabs).
//
// Spelling: CodeMirror turns the browser's checker off on its content; here it is on when the setting says so,
// and off again, through `spellcheck="false"` marks, where the text is not prose: fenced and indented code,
// inline code, URLs, autolinks, HTML, link reference definitions, front matter and math (`$…$`, `$$` blocks).
// Only the lines in view carry marks (CodeMirror draws no others).
//
// Focus mode: the lines of the paragraph the caret is in (up to the blank lines around it) are `cm-focus-current`;
// the style sheet dims the others. Typewriter mode: a change or caret move from the keyboard scrolls the caret's
// line to the middle of the editor (a click never does).
import { syntaxTree } from "@codemirror/language";
import { EditorState, type Extension, type Range, StateEffect, StateField, type Text } from "@codemirror/state";
import { Decoration, type DecorationSet, EditorView, ViewPlugin, type ViewUpdate } from "@codemirror/view";
import { onPrefs, prefs } from "./prefs";

const prefsChanged = StateEffect.define<null>();
const NO_SPELL = Decoration.mark({ attributes: { spellcheck: "false" } });
const FOCUS_LINE = Decoration.line({ class: "cm-focus-current" });
/** Syntax nodes whose text is not prose. */
const NOT_PROSE = new Set(["FencedCode", "CodeBlock", "InlineCode", "URL", "Autolink", "HTMLBlock", "HTMLTag", "LinkReference", "CommentBlock", "Comment", "ProcessingInstructionBlock"]);
/** How far (lines) the paragraph around the caret, and an open `$$` above the view, are looked for. */
const LOOK_LINES = 400;

const spellOn = StateField.define<boolean>({
  create: () => prefs.spellcheck,
  update: (value, tr) => (tr.effects.some((e) => e.is(prefsChanged)) ? prefs.spellcheck : value),
});

/** The front matter at the top of the document (`---` … `---` or `...`): its end, or 0. */
function frontMatterEnd(doc: Text): number {
  if (doc.lines < 2 || doc.line(1).text !== "---") return 0;
  for (let n = 2; n <= Math.min(doc.lines, LOOK_LINES); n++) {
    const text = doc.line(n).text;
    if (text === "---" || text === "...") return doc.line(n).to;
  }
  return 0;
}

/** Math in `from..to` (whole lines): `$$` blocks (one opened above is looked for) and inline `$…$`. */
function mathRanges(doc: Text, from: number, to: number, out: Range<Decoration>[]): void {
  const first = doc.lineAt(from).number;
  let open = -1;
  for (let n = Math.max(1, first - LOOK_LINES); n < first; n++) if (doc.line(n).text.trim() === "$$") open = open < 0 ? doc.line(n).from : -1;
  const last = doc.lineAt(to).number;
  for (let n = first; n <= last; n++) {
    const line = doc.line(n);
    if (line.text.trim() === "$$") {
      if (open >= 0) {
        out.push(NO_SPELL.range(Math.max(open, from), line.to));
        open = -1;
      } else open = line.from;
      continue;
    }
    if (open >= 0) continue;
    for (const match of line.text.matchAll(/(?<![\\$])\$(?![\s$])[^$\n]*?[^\s\\]\$(?!\d)|(?<![\\$])\$[^\s$\\]\$/g)) {
      const start = line.from + (match.index ?? 0);
      out.push(NO_SPELL.range(start, start + match[0].length));
    }
  }
  if (open >= 0) out.push(NO_SPELL.range(Math.max(open, from), doc.lineAt(to).to));
}

function notProse(view: EditorView): Range<Decoration>[] {
  const out: Range<Decoration>[] = [];
  const front = frontMatterEnd(view.state.doc);
  if (front > 0) out.push(NO_SPELL.range(0, front));
  for (const { from, to } of view.visibleRanges) {
    syntaxTree(view.state).iterate({
      from,
      to,
      enter: (node) => {
        if (!NOT_PROSE.has(node.name)) return;
        if (node.to > node.from) out.push(NO_SPELL.range(Math.max(node.from, from), Math.min(node.to, to)));
        return false;
      },
    });
    mathRanges(view.state.doc, from, to, out);
  }
  return out;
}

/** The lines of the paragraph the caret is in: up to the blank lines around it (a blank line: just itself). */
function focusLines(view: EditorView): Range<Decoration>[] {
  const doc = view.state.doc;
  const line = doc.lineAt(view.state.selection.main.head);
  const blank = (n: number): boolean => doc.line(n).text.trim() === "";
  let first = line.number;
  let last = line.number;
  if (!blank(line.number)) {
    while (first > 1 && line.number - first < LOOK_LINES && !blank(first - 1)) first--;
    while (last < doc.lines && last - line.number < LOOK_LINES && !blank(last + 1)) last++;
  }
  const out: Range<Decoration>[] = [];
  for (let n = first; n <= last; n++) out.push(FOCUS_LINE.range(doc.line(n).from));
  return out;
}

class WritingView {
  decorations: DecorationSet;
  private stop: () => void;

  constructor(view: EditorView) {
    this.decorations = this.build(view);
    this.stop = onPrefs(() => view.dispatch({ effects: prefsChanged.of(null) }));
  }

  update(update: ViewUpdate): void {
    const prefsMoved = update.transactions.some((tr) => tr.effects.some((e) => e.is(prefsChanged)));
    const treeMoved = syntaxTree(update.startState) !== syntaxTree(update.state);
    if (update.docChanged || update.viewportChanged || update.selectionSet || prefsMoved || treeMoved) this.decorations = this.build(update.view);
  }

  private build(view: EditorView): DecorationSet {
    const ranges = [...notProse(view), ...(prefs.focus ? focusLines(view) : [])];
    return Decoration.set(ranges, true);
  }

  destroy(): void {
    this.stop();
  }
}

/** Transactions from the keyboard (typing, deleting, moving the caret): in typewriter mode, the caret to the middle. */
const typewriter = EditorState.transactionExtender.of((tr) => {
  if (!prefs.typewriter || (!tr.docChanged && !tr.selection)) return null;
  const keyboard = ["input", "delete", "move", "undo", "redo"].some((event) => tr.isUserEvent(event)) || (tr.isUserEvent("select") && !tr.isUserEvent("select.pointer"));
  if (!keyboard) return null;
  return { effects: EditorView.scrollIntoView(tr.newSelection.main.head, { y: "center" }) };
});

/** Source mode's writing aids (Markdown tabs). */
export function sourceWriting(): Extension {
  return [
    spellOn,
    EditorView.contentAttributes.compute([spellOn], (state) => ({ spellcheck: state.field(spellOn) ? "true" : "false" })),
    ViewPlugin.fromClass(WritingView, { decorations: (v) => v.decorations }),
    typewriter,
  ];
}
