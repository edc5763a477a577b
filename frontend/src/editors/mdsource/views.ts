// What WYSIWYG shows beyond the schema's plain DOM: images from the workspace, math, task checkboxes,
// code blocks with their language. Node views and decorations change only what is displayed; the one
// edit they make (a task checkbox) is a transaction of exactly the characters it changes, which the
// engine splices into the text like any other edit.
import { type DOMOutputSpec, DOMSerializer, type Node } from "prosemirror-model";
import { Plugin } from "prosemirror-state";
import { Decoration, DecorationSet, type EditorView, type NodeView, type NodeViewConstructor } from "prosemirror-view";
import { editorUpdated, live } from "../../shared/live";
import { imageAddress } from "../../shared/renderctx";
import { linkPlugin, WikilinkView } from "../linkspm";
import { segmentsOf } from "./build";
import { caretBlockPlugin } from "./caretblock";
import { findPlugin } from "./find";
import { changedRanges } from "./changed";
import { CodeBlockView, InlineMathView, MathBlockView, richPlugin } from "./rich";

class ImageView implements NodeView {
  dom: HTMLElement;

  constructor(node: Node) {
    const src = String(node.attrs.src);
    const address = imageAddress(src);
    const img = document.createElement("img");
    img.className = "md-image";
    img.alt = String(node.attrs.alt);
    img.title = node.attrs.title ? String(node.attrs.title) : src;
    img.dataset.src = src;
    img.dataset.raw = String(node.attrs.raw);
    img.draggable = false;
    img.addEventListener("error", () => {
      img.dataset.state = "broken";
    });
    img.addEventListener("load", () => {
      img.dataset.state = "loaded";
    });
    if (address) img.src = address;
    else {
      img.dataset.state = "broken";
      if (/^https:/i.test(src.trim())) img.title = `${src} (images from the web are turned off in Settings)`;
    }
    this.dom = img;
  }

  ignoreMutation(): boolean {
    return true;
  }
}

/** The schema's own rendering of a node (for the kinds without a view of their own). */
function plainInline(node: Node): NodeView {
  const spec = node.type.spec.toDOM?.(node);
  const { dom } = DOMSerializer.renderSpec(document, spec as DOMOutputSpec);
  return { dom: dom as HTMLElement, ignoreMutation: () => true };
}

function plainBlock(node: Node): NodeView {
  const spec = node.type.spec.toDOM?.(node);
  const { dom, contentDOM } = DOMSerializer.renderSpec(document, spec as DOMOutputSpec);
  if (node.type.spec.code) (dom as HTMLElement).spellcheck = false; // source, not prose (writing/spellpm.ts)
  return { dom: dom as HTMLElement, contentDOM: contentDOM as HTMLElement | undefined };
}

export function nodeViews(): Record<string, NodeViewConstructor> {
  return {
    image: (node) => new ImageView(node),
    raw_inline: (node) => (node.attrs.kind === "math" ? new InlineMathView(node) : node.attrs.kind === "wikilink" ? new WikilinkView(node) : plainInline(node)),
    raw_block: (node) => (node.attrs.kind === "math" ? new MathBlockView(node) : plainBlock(node)),
    code_block: (node) => new CodeBlockView(node),
  };
}

/** The plugins of the rendering: task checkboxes (more come in with the views they decorate). */
export function viewPlugins(): Plugin[] {
  return [taskPlugin(), findPlugin(), richPlugin(), inlineHtmlPlugin(), livePlugin(), linkPlugin(), caretBlockPlugin()];
}

/** The view registers itself for the panels that act on it (outline, status bar, find). */
function livePlugin(): Plugin {
  return new Plugin({
    view(view) {
      live.pm = view;
      editorUpdated();
      return {
        update: (_view, before) => {
          if (before.doc !== view.state.doc || !before.selection.eq(view.state.selection)) editorUpdated();
        },
        destroy: () => {
          if (live.pm === view) live.pm = null;
          editorUpdated();
        },
      };
    },
  });
}

// --- task items ---------------------------------------------------------------------------------
const TASK = /^\[([ xX])\] /;

/** Every list item's first paragraph in `node` (at `base`) that starts with `[ ] ` / `[x] `: where its mark's inner character is. */
function tasks(node: Node, base: number): { at: number; checked: boolean }[] {
  const found: { at: number; checked: boolean }[] = [];
  const visit = (child: Node, pos: number): boolean => {
    if (child.type.name !== "list_item") return !child.isTextblock;
    const first = child.firstChild;
    if (first?.type.name === "paragraph") {
      const lead = first.firstChild;
      // A task only where the text says so: `[ ] ` as written (not `\[ \]`, which GFM does not read as a task).
      const match = lead?.isText && lead.marks.length === 0 && writtenAsIs(first, 4) ? TASK.exec(lead.text ?? "") : null;
      // pos: the item; +1 its content; +1 the paragraph's content; +1 past "["
      if (match) found.push({ at: pos + 3, checked: match[1] !== " " });
    }
    return true;
  };
  if (visit(node, base - 1)) node.descendants((child, pos) => visit(child, base + pos));
  return found;
}

/** Whether the first `length` positions of the textblock are its source's bytes as they are (no escape, no markup). */
function writtenAsIs(node: Node, length: number): boolean {
  const segments = segmentsOf.get(node);
  if (!segments) return false;
  let at = 0;
  for (const s of segments) {
    if (s.pm >= length) break;
    if (s.pmEnd === s.pm) {
      if (s.pm > 0) return false;
      continue;
    }
    if (s.pm !== at || !s.verbatim || s.src < 0) return false;
    at = s.pmEnd;
    if (at >= length) return true;
  }
  return at >= length;
}

/** The decorations of the tasks in `node` (at `base`) of `doc`. */
function taskDecorations(doc: Node, node: Node, base: number): Decoration[] {
  const decorations: Decoration[] = [];
  for (const task of tasks(node, base)) {
    const start = task.at - 1;
    decorations.push(
      Decoration.widget(start, (view) => checkbox(view, task.at, task.checked), { side: -1, key: `task-${task.at}-${task.checked}` }),
      Decoration.inline(start, start + 4, { class: "md-task-marker" }),
    );
    const $start = doc.resolve(start);
    const item = $start.node(-1);
    if (item.type.name === "list_item") {
      const itemStart = $start.before(-1);
      decorations.push(Decoration.node(itemStart, itemStart + item.nodeSize, { class: `md-task${task.checked ? " done" : ""}` }));
    }
  }
  return decorations;
}

function checkbox(view: EditorView, at: number, checked: boolean): HTMLElement {
  const box = document.createElement("span");
  box.className = "md-task-box";
  box.setAttribute("role", "checkbox");
  box.setAttribute("aria-checked", String(checked));
  box.setAttribute("aria-label", checked ? "Done: uncheck" : "To do: check");
  box.tabIndex = -1;
  box.contentEditable = "false";
  box.textContent = checked ? "✓" : "";
  const toggle = (event: Event): void => {
    event.preventDefault();
    event.stopPropagation();
    if (!view.editable) return;
    const current = view.state.doc.textBetween(at, at + 1);
    if (current !== " " && current.toLowerCase() !== "x") return;
    // Exactly the character inside the brackets changes.
    view.dispatch(view.state.tr.insertText(current === " " ? "x" : " ", at, at + 1));
    view.focus(); // the keys go on to the editor (Ctrl+Z takes the toggle back)
  };
  box.addEventListener("mousedown", toggle);
  box.addEventListener("keydown", (event) => {
    if (event.key === " " || event.key === "Enter") toggle(event);
  });
  return box;
}

/** The task decorations as last drawn, and the ranges changed since (in the current document). */
interface TaskState {
  set: DecorationSet;
  dirty: [number, number][];
}

/**
 * Task checkboxes, drawn when the view draws the document: a new node learns where it is in the text (its
 * segments) only when the engine has written the transaction, after the plugins' state. Only the top-level blocks
 * a transaction changed are looked at again.
 */
function taskPlugin(): Plugin {
  const drawn = new WeakMap<TaskState, DecorationSet>();
  return new Plugin<TaskState>({
    state: {
      init: (_config, state) => ({ set: DecorationSet.empty, dirty: [[0, state.doc.content.size]] }),
      apply: (tr, old) => {
        if (!tr.docChanged) return old;
        const set = (drawn.get(old) ?? old.set).map(tr.mapping, tr.doc);
        const dirty = drawn.has(old) ? [] : old.dirty.map(([a, b]): [number, number] => [tr.mapping.map(a, -1), tr.mapping.map(b, 1)]);
        return { set, dirty: [...dirty, ...changedRanges(tr)] };
      },
    },
    props: {
      decorations(state) {
        const current = this.getState(state);
        if (!current) return null;
        let set = drawn.get(current);
        if (set) return set;
        set = current.set;
        const doc = state.doc;
        const size = doc.content.size;
        for (const [from, to] of current.dirty) {
          const a = Math.max(0, Math.min(from - 1, size));
          const b = Math.max(a, Math.min(to + 1, size));
          doc.nodesBetween(a, b, (node, pos) => {
            const inside = (set as DecorationSet).find(pos + 1, pos + node.nodeSize - 1);
            set = (set as DecorationSet).remove(inside).add(doc, taskDecorations(doc, node, pos + 1));
            return false;
          });
        }
        drawn.set(current, set);
        return set;
      },
    },
  });
}

// --- inline HTML a writer uses: <kbd>, <sub>, <sup>, <mark>, <u>, <ins>, <del>, <s>, <small> ------------
const SHOWN_TAGS = new Set(["kbd", "sub", "sup", "mark", "u", "ins", "del", "s", "small", "abbr"]);

/** A pair of raw `<tag>` / `</tag>` atoms in one textblock: the text between them styled, the tags kept small. */
function textblockHtml(node: Node, pos: number): Decoration[] {
  const decorations: Decoration[] = [];
  const open: { tag: string; at: number; end: number }[] = [];
  node.forEach((child, offset) => {
    if (child.type.name !== "raw_inline" || child.attrs.kind !== "html") return;
    const raw = String(child.attrs.raw);
    const at = pos + 1 + offset;
    const start = /^<([a-z]+)(\s[^>]*)?>$/i.exec(raw);
    const close = /^<\/([a-z]+)\s*>$/i.exec(raw);
    if (start && SHOWN_TAGS.has(start[1].toLowerCase())) open.push({ tag: start[1].toLowerCase(), at, end: at + child.nodeSize });
    else if (close) {
      const tag = close[1].toLowerCase();
      const k = open.map((o) => o.tag).lastIndexOf(tag);
      if (k < 0) return;
      const opener = open.splice(k)[0];
      if (at > opener.end) decorations.push(Decoration.inline(opener.end, at, { class: `md-html md-html-${tag}` }));
      decorations.push(Decoration.node(opener.at, opener.end, { class: "md-html-tag" }), Decoration.node(at, at + child.nodeSize, { class: "md-html-tag" }));
    }
  });
  return decorations;
}

/** The decorations of the textblocks of `doc` between `from` and `to`. */
function htmlBetween(doc: Node, from: number, to: number, each: (node: Node, pos: number) => void): void {
  doc.nodesBetween(from, to, (node, pos) => {
    if (!node.isTextblock) return true;
    each(node, pos);
    return false;
  });
}

function inlineHtmlPlugin(): Plugin {
  return new Plugin<DecorationSet>({
    state: {
      init: (_config, state) => {
        const decorations: Decoration[] = [];
        htmlBetween(state.doc, 0, state.doc.content.size, (node, pos) => decorations.push(...textblockHtml(node, pos)));
        return DecorationSet.create(state.doc, decorations);
      },
      // Only the textblocks a transaction changed are looked at again (a keystroke in 1 MB is no walk through it).
      apply: (tr, old) => {
        if (!tr.docChanged) return old;
        let set = old.map(tr.mapping, tr.doc);
        const size = tr.doc.content.size;
        for (const [from, to] of changedRanges(tr)) {
          htmlBetween(tr.doc, Math.max(0, from - 1), Math.min(size, to + 1), (node, pos) => {
            set = set.remove(set.find(pos + 1, pos + node.nodeSize - 1)).add(tr.doc, textblockHtml(node, pos));
          });
        }
        return set;
      },
    },
    props: {
      decorations(state) {
        return this.getState(state);
      },
    },
  });
}
