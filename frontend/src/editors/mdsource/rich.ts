// Rendered views of WYSIWYG: KaTeX math (inline atoms and display blocks), code blocks with a language
// label and syntax highlighting (decorations from Lezer parsers), footnote references. All of it is
// display only: the nodes keep their source, and typing in a code or math block edits that source.
import { javascriptLanguage, typescriptLanguage, jsxLanguage, tsxLanguage } from "@codemirror/lang-javascript";
import { cssLanguage } from "@codemirror/lang-css";
import { htmlLanguage } from "@codemirror/lang-html";
import { markdownLanguage } from "@codemirror/lang-markdown";
import { yamlLanguage } from "@codemirror/lang-yaml";
import { pythonLanguage } from "@codemirror/lang-python";
import { rustLanguage } from "@codemirror/lang-rust";
import { cppLanguage } from "@codemirror/lang-cpp";
import { javaLanguage } from "@codemirror/lang-java";
import { goLanguage } from "@codemirror/lang-go";
import { StandardSQL } from "@codemirror/lang-sql";
import { StreamLanguage } from "@codemirror/language";
import { shell } from "@codemirror/legacy-modes/mode/shell";
import { toml } from "@codemirror/legacy-modes/mode/toml";
import { ruby } from "@codemirror/legacy-modes/mode/ruby";
import { diff } from "@codemirror/legacy-modes/mode/diff";
import { dockerFile } from "@codemirror/legacy-modes/mode/dockerfile";
import type { Parser } from "@lezer/common";
import { classHighlighter, highlightTree } from "@lezer/highlight";
import katex from "katex";
import { renderDiagram } from "../diagrams";
import "katex/dist/katex.min.css";
import type { Node } from "prosemirror-model";
import { type EditorState, Plugin, PluginKey, type Transaction } from "prosemirror-state";
import { changedRanges } from "./changed";
import { isFill } from "./fill";
import { Decoration, DecorationSet, type NodeView } from "prosemirror-view";
import { idleSlices } from "../../shared/idle";

// --- math ---------------------------------------------------------------------------------------------
/** The TeX inside `$…$` / `$$…$$` (inline) or a `$$` block's lines. */
export function texOf(raw: string): { tex: string; display: boolean } {
  const trimmed = raw.trim();
  if (trimmed.startsWith("$$")) {
    const body = trimmed.slice(2);
    return { tex: (body.endsWith("$$") ? body.slice(0, -2) : body).trim(), display: true };
  }
  if (trimmed.startsWith("\\[")) return { tex: trimmed.slice(2, trimmed.endsWith("\\]") ? -2 : undefined).trim(), display: true };
  const body = trimmed.startsWith("$") ? trimmed.slice(1) : trimmed;
  return { tex: body.endsWith("$") ? body.slice(0, -1) : body, display: false };
}

function renderMath(target: HTMLElement, tex: string, display: boolean): void {
  try {
    // A formula KaTeX cannot read is shown as its source here: its own error rendering sets a style attribute,
    // which the page's policy refuses (a formula being typed, `x^`, is one).
    katex.render(tex, target, { displayMode: display, throwOnError: true, output: "htmlAndMathml", strict: "ignore", trust: false });
    target.dataset.state = "rendered";
  } catch (err) {
    target.textContent = tex;
    target.dataset.state = "error";
    target.title = err instanceof Error ? err.message : String(err);
  }
}

/** Inline math: the rendered formula (its source in the tooltip; edit it in source mode or by retyping). */
export class InlineMathView implements NodeView {
  dom: HTMLElement;

  constructor(node: Node) {
    const raw = String(node.attrs.raw);
    this.dom = document.createElement("span");
    this.dom.className = "md-math-inline";
    this.dom.title = raw;
    this.dom.dataset.raw = raw;
    const { tex, display } = texOf(raw);
    renderMath(this.dom, tex, display);
  }

  ignoreMutation(): boolean {
    return true;
  }
}

/** A `$$` block: its source (editable, shown while the cursor is in it) and the rendered formula. */
export class MathBlockView implements NodeView {
  dom: HTMLElement;
  contentDOM: HTMLElement;
  private preview: HTMLElement;
  private shown = "";

  constructor(node: Node) {
    this.dom = document.createElement("div");
    this.dom.className = "md-math-block";
    this.dom.spellcheck = false; // source, not prose (writing/spellpm.ts)
    this.contentDOM = document.createElement("pre");
    this.contentDOM.className = "md-raw md-raw-math md-math-source";
    this.preview = document.createElement("div");
    this.preview.className = "md-math-display";
    this.preview.contentEditable = "false";
    this.dom.append(this.contentDOM, this.preview);
    this.render(node);
  }

  private render(node: Node): void {
    const text = node.textContent;
    if (text === this.shown) return;
    this.shown = text;
    const { tex } = texOf(text);
    renderMath(this.preview, tex, true);
  }

  update(node: Node): boolean {
    if (node.type.name !== "raw_block" || node.attrs.kind !== "math") return false;
    this.render(node);
    return true;
  }

  ignoreMutation(mutation: MutationRecord | { type: "selection"; target: globalThis.Node }): boolean {
    return mutation.type !== "selection" && this.preview.contains(mutation.target);
  }
}

// --- code blocks ----------------------------------------------------------------------------------------
const PARSERS: Record<string, Parser> = {
  js: javascriptLanguage.parser,
  javascript: javascriptLanguage.parser,
  mjs: javascriptLanguage.parser,
  cjs: javascriptLanguage.parser,
  jsx: jsxLanguage.parser,
  ts: typescriptLanguage.parser,
  typescript: typescriptLanguage.parser,
  tsx: tsxLanguage.parser,
  json: javascriptLanguage.parser,
  css: cssLanguage.parser,
  html: htmlLanguage.parser,
  xml: htmlLanguage.parser,
  svg: htmlLanguage.parser,
  md: markdownLanguage.parser,
  markdown: markdownLanguage.parser,
  yaml: yamlLanguage.parser,
  yml: yamlLanguage.parser,
  py: pythonLanguage.parser,
  python: pythonLanguage.parser,
  rust: rustLanguage.parser,
  rs: rustLanguage.parser,
  c: cppLanguage.parser,
  h: cppLanguage.parser,
  cpp: cppLanguage.parser,
  "c++": cppLanguage.parser,
  java: javaLanguage.parser,
  go: goLanguage.parser,
  sql: StandardSQL.language.parser,
  ...streamParsers(["sh", "bash", "shell", "zsh", "console"], shell),
  ...streamParsers(["toml"], toml),
  ...streamParsers(["rb", "ruby"], ruby),
  ...streamParsers(["diff", "patch"], diff),
  ...streamParsers(["dockerfile", "docker"], dockerFile),
};

/** A legacy CodeMirror mode as a Lezer parser, under each of its names (one parser shared). */
function streamParsers(names: string[], mode: Parameters<typeof StreamLanguage.define>[0]): Record<string, Parser> {
  const parser = StreamLanguage.define(mode).parser;
  return Object.fromEntries(names.map((name) => [name, parser]));
}

const NAMES: Record<string, string> = {
  js: "JavaScript", javascript: "JavaScript", mjs: "JavaScript", cjs: "JavaScript", jsx: "JSX", ts: "TypeScript",
  typescript: "TypeScript", tsx: "TSX", json: "JSON", css: "CSS", html: "HTML", xml: "XML", svg: "SVG", md: "Markdown",
  markdown: "Markdown", yaml: "YAML", yml: "YAML", py: "Python", python: "Python", sh: "Shell", bash: "Bash", shell: "Shell",
  zsh: "Shell", rust: "Rust", rs: "Rust", go: "Go", java: "Java", c: "C", cpp: "C++", "c++": "C++", cs: "C#", rb: "Ruby",
  ruby: "Ruby", php: "PHP", sql: "SQL", toml: "TOML", diff: "Diff", mermaid: "Mermaid", text: "Text", txt: "Text",
  h: "C", console: "Shell", patch: "Diff", dockerfile: "Dockerfile", docker: "Dockerfile",
};

export function languageOf(info: string): string {
  return info.trim().split(/[\s{]/)[0].toLowerCase();
}

export function languageName(info: string): string {
  const lang = languageOf(info);
  return NAMES[lang] ?? lang;
}

/** A code block: the language as a label above its code (the label is not part of the text). */
export class CodeBlockView implements NodeView {
  dom: HTMLElement;
  contentDOM: HTMLElement;
  private label: HTMLElement;
  private diagram: HTMLElement | null = null;
  private drawn = "";

  constructor(node: Node) {
    this.dom = document.createElement("div");
    this.dom.className = "md-code";
    this.dom.spellcheck = false; // source, not prose (writing/spellpm.ts)
    this.label = document.createElement("span");
    this.label.className = "md-code-lang";
    this.label.contentEditable = "false";
    const pre = document.createElement("pre");
    this.contentDOM = document.createElement("code");
    pre.append(this.contentDOM);
    this.dom.append(this.label, pre);
    this.show(node);
  }

  private show(node: Node): void {
    const info = String(node.attrs.info ?? "");
    const name = languageName(info);
    this.label.textContent = name;
    this.label.hidden = name === "";
    const lang = languageOf(info);
    this.dom.dataset.lang = lang;
    if (lang === "mermaid") this.draw(node.textContent);
    else if (this.diagram) {
      this.diagram.remove();
      this.diagram = null;
      this.dom.classList.remove("md-diagram-block");
    }
  }

  /** A Mermaid block: the diagram below its source (the source shows while the cursor is in it). */
  private draw(source: string): void {
    if (!this.diagram) {
      this.diagram = document.createElement("div");
      this.diagram.className = "md-diagram";
      this.diagram.contentEditable = "false";
      this.dom.append(this.diagram);
      this.dom.classList.add("md-diagram-block");
    }
    if (source === this.drawn) return;
    this.drawn = source;
    const target = this.diagram;
    target.dataset.state = "rendering";
    void renderDiagram(source).then((answer) => {
      if (this.drawn !== source) return;
      if (answer.svg) {
        const img = document.createElement("img");
        img.alt = "Diagram";
        img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(answer.svg)}`;
        // The diagram's own width (Mermaid gives its SVG width 100% and a max-width).
        const width = /max-width:\s*([\d.]+)px/.exec(answer.svg)?.[1];
        if (width) img.style.width = `${Math.round(Number(width))}px`;
        target.replaceChildren(img);
        target.dataset.state = "rendered";
      } else {
        target.textContent = `The diagram cannot be drawn: ${answer.error ?? "unknown error"}`;
        target.dataset.state = "error";
      }
    });
  }

  update(node: Node): boolean {
    if (node.type.name !== "code_block") return false;
    this.show(node);
    return true;
  }

  ignoreMutation(mutation: MutationRecord | { type: "selection"; target: globalThis.Node }): boolean {
    return mutation.type !== "selection" && (this.label.contains(mutation.target) || Boolean(this.diagram?.contains(mutation.target)));
  }
}

const highlighted = new WeakMap<Node, { from: number; to: number; classes: string }[]>();

/** The highlighted stretches of `text` in the language of the info string `info` (none for an unknown one). */
export function highlightTokens(info: string, text: string): { from: number; to: number; classes: string }[] {
  const parser = PARSERS[languageOf(info)];
  const tokens: { from: number; to: number; classes: string }[] = [];
  if (parser && text.length < 100_000) {
    highlightTree(parser.parse(text), classHighlighter, (from, to, classes) => tokens.push({ from, to, classes }));
  }
  return tokens;
}

function tokensOf(node: Node): { from: number; to: number; classes: string }[] {
  const known = highlighted.get(node);
  if (known) return known;
  const tokens = highlightTokens(String(node.attrs.info ?? ""), node.textContent);
  highlighted.set(node, tokens);
  return tokens;
}

/** The highlighting of one code block at `pos`. */
function blockHighlight(node: Node, pos: number): Decoration[] {
  return tokensOf(node).map((t) => Decoration.inline(pos + 1 + t.from, pos + 1 + t.to, { class: t.classes }));
}

/**
 * Each code block's highlighting added to `set` one block at a time: a set made of all of them at once costs
 * (top-level blocks × decorations), one block's costs (top-level blocks + its decorations).
 */
function withBlocks(set: DecorationSet, doc: Node, blocks: [Node, number][]): DecorationSet {
  for (const [node, pos] of blocks) {
    const decorations = blockHighlight(node, pos);
    if (decorations.length) set = set.add(doc, decorations);
  }
  return set;
}

/** The code blocks of `doc` from `from` on, with their positions. */
function codeBlocks(doc: Node, from: number): [Node, number][] {
  const blocks: [Node, number][] = [];
  doc.nodesBetween(from, doc.content.size, (node, pos) => {
    if (node.type.name === "code_block") {
      blocks.push([node, pos]);
      return false;
    }
    return !node.isTextblock;
  });
  return blocks;
}

/**
 * The highlighting, where the code blocks not highlighted yet start (the document's size: none left), and the
 * starts of code blocks an edit touched far from the caret, highlighted in idle time (`NOW_BUDGET`).
 */
export interface Highlight {
  set: DecorationSet;
  todo: number;
  later: readonly number[];
}

/** What idle time brings: these blocks highlighted (positions of this document), then `todo` and `later`. */
export interface LaterMeta {
  blocks: [Node, number][];
  todo: number;
  later: readonly number[];
}

/**
 * The decorations an edit adds at once, nearest the caret first; the code blocks it touched beyond them are
 * highlighted in idle time. Each block's `add` looks at every top-level block (ProseMirror's `takeSpansForNode`
 * compares each child with each new decoration), so pasting a hundred code blocks into a long document cost
 * hundreds of milliseconds before the paste showed; the blocks on screen are near the caret.
 */
const NOW_BUDGET = 300;

/** The first screens of a document are highlighted before it shows; the rest in idle time (`highlightLater`). */
const FIRST_SCREENS = 30_000;

export const highlightKey = new PluginKey<Highlight>("vmark-highlight");

function highlightStart(doc: Node): Highlight {
  const blocks = codeBlocks(doc, 0);
  const first = doc.content.size < 4 * FIRST_SCREENS ? blocks : blocks.filter(([, pos]) => pos < FIRST_SCREENS);
  const todo = first.length === blocks.length ? doc.content.size : first.length ? first[first.length - 1][1] + first[first.length - 1][0].nodeSize : 0;
  return { set: withBlocks(DecorationSet.empty, doc, first), todo, later: [] };
}

/**
 * What an idle slice does (`highlightLater`), null while it is not done: the blocks an edit left for later, a few at a
 * time (each transaction adds them to the whole set); else the code blocks not highlighted yet, parsed a slice at a
 * time (the parse is kept with the node), then highlighted in one transaction once every one of them is parsed.
 */
export function laterMeta(state: EditorState, until: number): LaterMeta | null {
  const size = state.doc.content.size;
  const highlight = highlightKey.getState(state);
  if (highlight?.later.length) {
    const blocks: [Node, number][] = [];
    let count = 0;
    let k = 0;
    for (; k < highlight.later.length && count < NOW_BUDGET && (k === 0 || performance.now() < until); k++) {
      const node = state.doc.nodeAt(highlight.later[k]);
      if (node?.type.name !== "code_block") continue; // gone since
      blocks.push([node, highlight.later[k]]);
      count += tokensOf(node).length;
    }
    return { blocks, todo: highlight.todo, later: highlight.later.slice(k) };
  }
  const blocks = codeBlocks(state.doc, highlight?.todo ?? size);
  for (const [node] of blocks) {
    tokensOf(node);
    if (performance.now() > until && node !== blocks[blocks.length - 1][0]) return null; // the next slice goes on from here
  }
  return { blocks, todo: size, later: [] };
}

/** Whether `laterMeta` has work left. */
export function highlightPending(state: EditorState): boolean {
  const highlight = highlightKey.getState(state);
  return highlight !== undefined && (highlight.later.length > 0 || highlight.todo < state.doc.content.size);
}

const highlightLater = idleSlices(
  (view) => highlightPending(view.state),
  (view, until) => {
    const meta = laterMeta(view.state, until);
    if (meta) view.dispatch(view.state.tr.setMeta(highlightKey, meta).setMeta("addToHistory", false));
  },
);

/**
 * The highlighting after a transaction: the old one mapped, the code blocks it touched highlighted anew (a keystroke
 * in a 1 MB document does not rebuild the decorations of every code block in it), and a slice of the blocks not
 * highlighted yet when the transaction brings one.
 */
function highlightChanged(tr: Transaction, old: Highlight): Highlight {
  let set = old.set.map(tr.mapping, tr.doc);
  let todo = tr.mapping.map(old.todo, -1);
  const size = tr.doc.content.size;
  let waiting = old.later.map((pos) => tr.mapping.map(pos, 1));
  const later = tr.getMeta(highlightKey) as LaterMeta | undefined;
  if (later) {
    // Made from this transaction's document (a meta-only transaction): the positions hold. A block an edit
    // touched meanwhile has its highlighting already.
    for (const [node, pos] of later.blocks) set = set.remove(set.find(pos, pos + node.nodeSize));
    set = withBlocks(set, tr.doc, later.blocks);
    todo = later.todo;
    waiting = [...later.later];
  }
  const touched: [Node, number][] = [];
  // Blocks the fill appends are not edited: they are highlighted in idle time like the rest (`todo` is before them).
  for (const [from, to] of isFill(tr) ? [] : changedRanges(tr)) {
    tr.doc.nodesBetween(Math.max(0, from - 1), Math.min(size, to + 1), (node, pos) => {
      if (node.type.name !== "code_block") {
        // A code block's text joined into another block (a deletion across both) takes no highlighting along.
        if (node.isTextblock) set = set.remove(set.find(pos, pos + node.nodeSize));
        return !node.isTextblock;
      }
      if (!touched.some(([, at]) => at === pos)) touched.push([node, pos]); // two changed ranges in one block: once
      return false;
    });
  }
  // A block left for later keeps its old highlighting, mapped through the edit, until then.
  const [now, rest] = nearestFirst(touched, tr.selection.head);
  for (const [node, pos] of now) set = set.remove(set.find(pos, pos + node.nodeSize));
  if (rest.length || waiting.length) {
    const starts = new Set(touched.map(([, pos]) => pos));
    waiting = [...waiting.filter((pos) => !starts.has(pos)), ...rest.map(([, pos]) => pos)];
  }
  return { set: withBlocks(set, tr.doc, now), todo: Math.min(todo, size), later: waiting };
}

/** `blocks` split into those highlighted now (nearest `head` first, `NOW_BUDGET` decorations) and the rest. */
function nearestFirst(blocks: [Node, number][], head: number): [[Node, number][], [Node, number][]] {
  if (blocks.length < 2) return [blocks, []];
  const away = ([node, pos]: [Node, number]): number => (head < pos ? pos - head : Math.max(0, head - pos - node.nodeSize));
  const sorted = [...blocks].sort((a, b) => away(a) - away(b));
  let count = 0;
  let k = 0;
  for (; k < sorted.length && (k === 0 || count < NOW_BUDGET); k++) count += tokensOf(sorted[k][0]).length;
  return [sorted.slice(0, k), sorted.slice(k)];
}

/** The math or Mermaid block the selection is in (it shows its source), as a node decoration, or null. */
function editingDecoration(state: EditorState): Decoration | null {
  const { $from, $to } = state.selection;
  for (let d = $from.depth; d > 0; d--) {
    const node = $from.node(d);
    const editing = (node.type.name === "raw_block" && node.attrs.kind === "math") || (node.type.name === "code_block" && languageOf(String(node.attrs.info ?? "")) === "mermaid");
    if (!editing) continue;
    const pos = $from.before(d);
    return $to.pos <= pos + node.nodeSize ? Decoration.node(pos, pos + node.nodeSize, { class: "md-editing" }) : null;
  }
  return null;
}

/** Highlighting of code blocks, and which math or Mermaid block the cursor is in (it shows its source). */
export function richPlugin(): Plugin {
  const shown = new WeakMap<EditorState, DecorationSet>();
  return new Plugin<Highlight>({
    key: highlightKey,
    state: {
      init: (_config, state) => highlightStart(state.doc),
      apply: (tr, old) => (tr.docChanged || tr.getMeta(highlightKey) ? highlightChanged(tr, old) : old),
    },
    view: highlightLater,
    props: {
      decorations(state) {
        let set = shown.get(state);
        if (!set) {
          const highlight = this.getState(state)?.set ?? DecorationSet.empty;
          const editing = editingDecoration(state);
          set = editing ? highlight.add(state.doc, [editing]) : highlight;
          shown.set(state, set);
        }
        return set;
      },
    },
  });
}
