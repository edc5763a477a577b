// What WYSIWYG shows beyond the schema's plain DOM: images from the workspace, math, task checkboxes,
// code blocks with their language. Node views and decorations change only what is displayed; the one
// edit they make (a task checkbox) is a transaction of exactly the characters it changes, which the
// engine splices into the text like any other edit.
import { type DOMOutputSpec, DOMSerializer, type Node } from "prosemirror-model";
import { Plugin, type EditorState } from "prosemirror-state";
import { Decoration, DecorationSet, type EditorView, type NodeView, type NodeViewConstructor } from "prosemirror-view";
import { editorUpdated, live } from "../live";
import { imageAddress } from "../renderctx";
import { linkPlugin, WikilinkView } from "../linkspm";
import { findPlugin } from "./find";
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
  return [taskPlugin(), findPlugin(), richPlugin(), inlineHtmlPlugin(), livePlugin(), linkPlugin()];
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

/** Every list item's first paragraph that starts with `[ ] ` / `[x] `: the position of the mark's inner character. */
function tasks(doc: Node): { at: number; checked: boolean }[] {
  const found: { at: number; checked: boolean }[] = [];
  doc.descendants((node, pos) => {
    if (node.type.name !== "list_item") return true;
    const first = node.firstChild;
    if (first?.type.name === "paragraph") {
      const lead = first.firstChild;
      const match = lead?.isText && lead.marks.length === 0 ? TASK.exec(lead.text ?? "") : null;
      // pos: the item; +1 its content; +1 the paragraph's content; +1 past "["
      if (match) found.push({ at: pos + 3, checked: match[1] !== " " });
    }
    return true;
  });
  return found;
}

function taskDecorations(state: EditorState): DecorationSet {
  const decorations: Decoration[] = [];
  for (const task of tasks(state.doc)) {
    const start = task.at - 1;
    decorations.push(
      Decoration.widget(start, (view) => checkbox(view, task.at, task.checked), { side: -1, key: `task-${task.at}-${task.checked}` }),
      Decoration.inline(start, start + 4, { class: "md-task-marker" }),
    );
    const item = state.doc.resolve(start).node(-1);
    if (item.type.name === "list_item") {
      const itemStart = state.doc.resolve(start).before(-1);
      decorations.push(Decoration.node(itemStart, itemStart + item.nodeSize, { class: `md-task${task.checked ? " done" : ""}` }));
    }
  }
  return DecorationSet.create(state.doc, decorations);
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

function taskPlugin(): Plugin {
  return new Plugin({
    state: {
      init: (_config, state) => taskDecorations(state),
      apply: (tr, old, _before, state) => (tr.docChanged ? taskDecorations(state) : old),
    },
    props: {
      decorations(state) {
        return this.getState(state);
      },
    },
  });
}

// --- inline HTML a writer uses: <kbd>, <sub>, <sup>, <mark>, <u>, <ins>, <del>, <s>, <small> ------------
const SHOWN_TAGS = new Set(["kbd", "sub", "sup", "mark", "u", "ins", "del", "s", "small", "abbr"]);

/** A pair of raw `<tag>` / `</tag>` atoms in one textblock: the text between them styled, the tags kept small. */
function inlineHtmlDecorations(doc: Node): DecorationSet {
  const decorations: Decoration[] = [];
  doc.descendants((node, pos) => {
    if (!node.isTextblock) return true;
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
    return false;
  });
  return DecorationSet.create(doc, decorations);
}

function inlineHtmlPlugin(): Plugin {
  return new Plugin({
    state: {
      init: (_config, state) => inlineHtmlDecorations(state.doc),
      apply: (tr, old, _before, state) => (tr.docChanged ? inlineHtmlDecorations(state.doc) : old),
    },
    props: {
      decorations(state) {
        return this.getState(state);
      },
    },
  });
}
