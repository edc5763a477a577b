// Paste and drop in WYSIWYG, ahead of ProseMirror's own handling (which would put HTML through the schema's
// DOM parser and leave the text to be re-serialized):
//
// - HTML (a web page, a word processor, a spreadsheet) becomes Markdown in the document's own style;
// - plain text is Markdown: spliced in as exactly its characters, shown as what it parses to;
// - Ctrl+Shift+V pastes the plain text literally (escaped only where a parse would read markup);
// - image files are written beside the document and linked; files the page knows are linked by path;
// - inside code (a code block, raw HTML, front matter) ProseMirror pastes the plain text, as before.
import { type Node, Slice } from "prosemirror-model";
import { type EditorState, Plugin, PluginKey } from "prosemirror-state";
import { Decoration, DecorationSet, type EditorView } from "prosemirror-view";
import { isFilling, wholeDocument } from "../../shared/live";
import { parseBlocks } from "../mdsource/build";
import { schema } from "../mdsource/schema";
import { htmlToBlocks, isCodeEditorCopy, parseHtml, styleOf } from "./html";
import { droppedPaths, imageFiles, imagesMarkdown, pathsMarkdown, saveImages } from "./images";
import { insertMarkdown, type SourceMap } from "./insert";
import { blocksToMarkdown } from "./markdown";
import { literalBlocks } from "./plain";

/** Images being written: a placeholder each, kept at its place while the person goes on editing. */
const pending = new PluginKey<DecorationSet>("vmark-pasted-images");
let nextPending = 1;

export function pastePlugin(source: () => SourceMap): Plugin {
  let plainNext = false;
  return new Plugin({
    key: pending,
    state: {
      init: () => DecorationSet.empty,
      apply(tr, set) {
        const mapped = set.map(tr.mapping, tr.doc);
        const meta = tr.getMeta(pending) as { add?: { id: number; pos: number }; remove?: number } | undefined;
        if (meta?.add) return mapped.add(tr.doc, [placeholder(meta.add.id, meta.add.pos)]);
        if (meta?.remove !== undefined) return mapped.remove(mapped.find(undefined, undefined, (spec) => spec.id === meta.remove));
        return mapped;
      },
    },
    props: {
      decorations: (state) => pending.getState(state),
      handleDOMEvents: {
        keydown(_view, event) {
          // Ctrl+Shift+V ("paste as plain text"): the paste that follows is literal.
          plainNext = (event.ctrlKey || event.metaKey) && event.shiftKey && event.key.toLowerCase() === "v";
          return false;
        },
        paste(view, event) {
          const plain = plainNext;
          plainNext = false;
          if (!view.editable || view.composing || !event.clipboardData) return false;
          const { from, to } = view.state.selection;
          if (handle(view, source, event.clipboardData, from, to, plain)) {
            event.preventDefault();
            return true;
          }
          return false;
        },
        drop(view, event) {
          if (!view.editable || view.dragging || !event.dataTransfer) return false; // a move inside the view: ProseMirror's
          const at = view.posAtCoords({ left: event.clientX, top: event.clientY });
          if (!at) return false;
          if (!handle(view, source, event.dataTransfer, at.pos, at.pos, false)) return false;
          event.preventDefault();
          return true;
        },
      },
    },
  });
}

/** Put what `data` carries at `from..to`; false where ProseMirror's own paste should run (in code). */
function handle(view: EditorView, source: () => SourceMap, data: DataTransfer, from: number, to: number, plain: boolean): boolean {
  const $from = view.state.doc.resolve(from);
  if ($from.parent.type.spec.code) return false;
  const text = data.getData("text/plain");
  const html = plain ? "" : data.getData("text/html");
  const files = plain ? [] : imageFiles(data);
  const paths = plain ? [] : droppedPaths(data);
  if (paths.length) return insert(view, source(), pathsMarkdown(paths), from, to);
  let markdown = "";
  if (plain) markdown = blocksToMarkdown(literalBlocks(text));
  else if (html) {
    const body = parseHtml(html);
    markdown = isCodeEditorCopy(body) ? cleanText(text) : blocksToMarkdown(htmlToBlocks(body, styleOf(view.state.doc)));
  } else markdown = cleanText(text);
  // An image copied from a page carries its address as HTML too: that link is kept, the file is not written.
  if (markdown === "" && files.length) {
    void pasteImages(view, source, files, from, to);
    return true;
  }
  if (markdown === "") return html !== "" || text !== ""; // nothing to show (only styles, comments): nothing pasted
  return insert(view, source(), markdown, from, to);
}

/** Pasted text as Markdown: line breaks as the text's own, without blank lines at its ends. */
function cleanText(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/^(?:[ \t]*\n)+/, "")
    .replace(/\s+$/, "");
}

/** The Markdown spliced in at `from..to` and the caret put after it; else the nodes it parses to, placed by ProseMirror. */
function insert(view: EditorView, source: SourceMap, markdown: string, from: number, to: number): boolean {
  let insertion = insertMarkdown(view.state, source, markdown, from, to);
  if (!insertion && isFilling(view)) {
    // The blocks the paste joins reach past what a long document's view shows yet: all of them first.
    wholeDocument(view);
    insertion = insertMarkdown(view.state, source, markdown, from, to);
  }
  if (insertion) {
    view.dispatch(insertion.tr.scrollIntoView());
    return true;
  }
  view.dispatch(fallback(view.state, markdown, from, to).scrollIntoView());
  return true;
}

/** Where the text has no place for the Markdown as written (a table cell): its nodes, or its words in a cell. */
function fallback(state: EditorState, markdown: string, from: number, to: number) {
  const nodes = parseBlocks(markdown, 0).blocks.map((b) => b.node);
  const $from = state.doc.resolve(from);
  if ($from.parent.type === schema.nodes.table_cell || nodes.length === 0) {
    const words = nodes.map((n: Node) => n.textContent.replace(/\s+/g, " ")).join(" ");
    return state.tr.insertText(words, from, to);
  }
  const only = nodes.length === 1 && nodes[0].type === schema.nodes.paragraph ? nodes[0] : null;
  return only ? state.tr.replaceWith(from, to, only.content) : state.tr.replaceRange(from, to, new Slice(schema.nodes.doc.create(null, nodes).content, 0, 0));
}

/** Write the image files, then link them where the placeholder stands by then. */
async function pasteImages(view: EditorView, source: () => SourceMap, files: File[], from: number, to: number): Promise<void> {
  const id = nextPending++;
  view.dispatch(view.state.tr.setMeta(pending, { add: { id, pos: to } }));
  let written: { alt: string; link: string }[] = [];
  try {
    written = await saveImages(files);
  } finally {
    if (!view.isDestroyed) {
      const spot = pending.getState(view.state)?.find(undefined, undefined, (spec) => spec.id === id)[0];
      view.dispatch(view.state.tr.setMeta(pending, { remove: id }));
      if (spot && written.length) {
        // The selection the paste replaces, if the person left it as it was.
        const { selection } = view.state;
        const start = selection.to === spot.from && selection.from === from && from !== to ? from : spot.from;
        insert(view, source(), imagesMarkdown(written), start, spot.from);
      }
    }
  }
}

function placeholder(id: number, pos: number): Decoration {
  const widget = () => {
    const mark = document.createElement("span");
    mark.className = "md-image-saving";
    mark.textContent = "Saving image…";
    return mark;
  };
  return Decoration.widget(pos, widget, { id, side: 1 });
}
