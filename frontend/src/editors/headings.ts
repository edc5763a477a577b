// The headings of a document: of Markdown text (ATX and setext, outside fenced code and front matter) and of
// the editor shown now (source mode reads its lines, WYSIWYG its heading nodes), and the cursor moved to one.
// The outline lists them; a link to `#fragment` follows to one.
import type { Node as PMNode } from "prosemirror-model";
import { live } from "../shared/live";
import { forEachBlock } from "./mdsource/blocks";

export interface Heading {
  level: number;
  text: string;
  /** Source mode: 1-based line; WYSIWYG: the heading node's position. */
  at: number;
}

/** ATX and setext headings of Markdown text, outside fenced code and front matter. */
export function headingsOf(text: string): Heading[] {
  const lines = text.split("\n");
  const found: Heading[] = [];
  let fence: string | null = null;
  let start = 0;
  if (lines[0] === "---") {
    const end = lines.indexOf("---", 1);
    if (end > 0) start = end + 1;
  }
  for (let i = start; i < lines.length; i++) {
    const line = lines[i];
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (opener && opener[1][0] === fence[0] && opener[1].length >= fence.length && line.trim() === opener[1]) fence = null;
      continue;
    }
    if (opener) {
      fence = opener[1];
      continue;
    }
    const atx = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (atx) {
      found.push({ level: atx[1].length, text: plain(atx[2] ?? ""), at: i + 1 });
      continue;
    }
    const next = lines[i + 1];
    if (next !== undefined && line.trim() !== "" && /^ {0,3}(=+|-+)[ \t]*$/.test(next) && !/^ {0,3}([-*+]|\d+[.)])\s/.test(line) && !/^ {0,3}>/.test(line)) {
      found.push({ level: next.trim()[0] === "=" ? 1 : 2, text: plain(line.trim()), at: i + 1 });
      i++;
    }
  }
  return found;
}

/** A heading's words without its inline Markdown. */
function plain(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[*_`~]+/g, "")
    .trim();
}

/** The headings of the document shown now: source mode reads its lines, WYSIWYG its heading nodes. */
export function shownHeadings(): Heading[] {
  if (live.cm) return headingsOf(live.cm.state.doc.toString());
  return live.pm ? pmHeadings(live.pm.state.doc) : [];
}

/** The headings inside each top-level block, positions from the block's start: an edit makes new blocks only where it changed. */
const blockHeadings = new WeakMap<PMNode, Heading[]>();

/** The heading nodes of a WYSIWYG document (also those in quotes and lists), each top-level block read once. */
export function pmHeadings(doc: PMNode): Heading[] {
  const headings: Heading[] = [];
  forEachBlock(doc, (block, offset) => {
    let inside = blockHeadings.get(block);
    if (inside === undefined) {
      const found: Heading[] = [];
      const visit = (node: PMNode, pos: number): boolean => {
        if (node.type.name === "heading") found.push({ level: Number(node.attrs.level), text: node.textContent, at: pos });
        return !node.isTextblock;
      };
      if (visit(block, 0)) block.descendants((node, pos) => visit(node, pos + 1));
      blockHeadings.set(block, found);
      inside = found;
    }
    for (const h of inside) headings.push({ ...h, at: offset + h.at });
  });
  return headings;
}

/** The cursor to the start of `heading` (of `shownHeadings()`), scrolled to the top, the editor focused. */
export async function jumpToHeading(heading: Heading): Promise<void> {
  if (live.cm) {
    const view = live.cm;
    const line = view.state.doc.line(Math.min(heading.at, view.state.doc.lines));
    const { EditorView } = await import("@codemirror/view");
    view.dispatch({ selection: { anchor: line.from }, effects: EditorView.scrollIntoView(line.from, { y: "start", yMargin: 8 }) });
    view.focus();
  } else if (live.pm) {
    const view = live.pm;
    const { TextSelection } = await import("prosemirror-state");
    const pos = heading.at + 1;
    view.dispatch(view.state.tr.setSelection(TextSelection.create(view.state.doc, pos)));
    view.focus();
    const dom = view.nodeDOM(heading.at);
    if (dom instanceof HTMLElement) dom.scrollIntoView({ block: "start" });
  }
}
