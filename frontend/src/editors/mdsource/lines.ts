// The Markdown lines around a view position: which container prefixes a line carries (quote markers, list
// indentation), a list item's marker, and edits of whole lines that keep every byte they do not change.
import type { Node, ResolvedPos } from "prosemirror-model";
import type { SourceDoc, Span } from "./sourcedoc";

/** A list item's first line up to its content: what is outside it, its marker, the spaces after the marker. */
export interface ItemMarker {
  outer: string;
  marker: string;
  spacing: string;
}

const ITEM = /^((?:.*[\s>])?)([-+*]|\d{1,9}[.)])([ \t]*)$/;

export function parseItemPrefix(prefix: string): ItemMarker | null {
  const m = ITEM.exec(prefix);
  return m ? { outer: m[1], marker: m[2], spacing: m[3] } : null;
}

/** What a new line inside the same containers starts with: quote markers kept, list markers as spaces. */
export function continuation(prefix: string): string {
  return prefix.replace(/[-+*]|\d+[.)]/g, (m) => " ".repeat(m.length)).replace(/\[[ xX]\]/g, "   ");
}

/** The blank line inside the same containers (a quote's `>`, nothing in a list). */
export function blankLine(prefix: string): string {
  return continuation(prefix).trimEnd();
}

/** The marker after `marker` in its list: the same bullet, or the next number with the same delimiter. */
export function nextMarker(marker: string, step = 1): string {
  const m = /^(\d+)([.)])$/.exec(marker);
  return m ? `${Number(m[1]) + step}${m[2]}` : marker;
}

/** The position of the content of the first textblock inside `node` (which starts at `pos`), or null. */
export function firstTextblock(node: Node, pos: number): { node: Node; pos: number } | null {
  if (node.isTextblock) return { node, pos: pos + 1 };
  let found: { node: Node; pos: number } | null = null;
  node.descendants((child, offset) => {
    if (found) return false;
    if (child.isTextblock) {
      found = { node: child, pos: pos + 1 + offset + 1 };
      return false;
    }
    return true;
  });
  return found;
}

/** The position of the content of the last textblock inside `node` (which starts at `pos`), or null. */
export function lastTextblock(node: Node, pos: number): { node: Node; pos: number } | null {
  if (node.isTextblock) return { node, pos: pos + 1 };
  let found: { node: Node; pos: number } | null = null;
  node.descendants((child, offset) => {
    if (child.isTextblock) found = { node: child, pos: pos + 1 + offset + 1 };
    return !child.isTextblock;
  });
  return found;
}

/** Where a list item is in the text: its marker line, its last line, its marker. */
export interface ItemSource {
  first: number;
  last: number;
  marker: ItemMarker;
  /** Column of the marker, and of the item's content. */
  markerCol: number;
  contentCol: number;
}

/** The source of the list item at depth `depth` of `$pos` (null where the text does not say it plainly). */
export function itemSource(source: SourceDoc, doc: Node, $pos: ResolvedPos, depth: number): ItemSource | null {
  const item = $pos.node(depth);
  const start = $pos.before(depth);
  return itemAt(source, doc, item, start, depth > 1 ? $pos.node(depth - 1) : null, $pos.index(depth - 1));
}

/** The source of `item` (at `start`), the `index`-th child of `list`. */
export function itemAt(source: SourceDoc, doc: Node, item: Node, start: number, list: Node | null, index: number): ItemSource | null {
  const first = item.firstChild;
  if (!first || (first.type.name !== "paragraph" && first.type.name !== "heading")) return null;
  const range = source.textblockRange(doc, start + 2);
  if (!range) return null;
  const line = source.lineAt(range[0]);
  let prefix = line.text.slice(0, range[0] - line.from);
  if (first.type.name === "heading") prefix = prefix.replace(/#{1,6}(?:[ \t]+|$)$/, "");
  const marker = parseItemPrefix(prefix);
  if (!marker) return null;
  const markerCol = marker.outer.length;
  const contentCol = markerCol + marker.marker.length + marker.spacing.length;
  let last: number;
  const next = list && index + 1 < list.childCount ? list.child(index + 1) : null;
  if (next) {
    const nextRange = source.textblockRange(doc, start + item.nodeSize + 2);
    if (!nextRange) return null;
    last = source.lineAt(nextRange[0]).number - 1;
    while (last > line.number && isBlank(source.line(last)?.text ?? "")) last--;
  } else {
    const end = lastTextblock(item, start);
    const endRange = end ? source.textblockRange(doc, end.pos) : null;
    if (!endRange || !end) return null;
    last = source.lineAt(endRange[1]).number;
    // A fenced code block ends at its closing fence, after its content.
    if (end.node.type.name === "code_block" && end.node.attrs.fence) {
      const closing = source.line(last + 1);
      if (closing && closing.text.trim().startsWith(String(end.node.attrs.fence))) last++;
    }
  }
  return { first: line.number, last, marker, markerCol, contentCol };
}

export function isBlank(line: string): boolean {
  return /^[\s>]*$/.test(line);
}

/** One edit of a line: `remove` characters at column `at` replaced by `insert`. */
export interface LineEdit {
  at: number;
  remove: number;
  insert: string;
}

/**
 * Lines `first..last` (1-based) edited one by one (null: the line stays), with lines added before and after;
 * answers the span and where the text offset `cursor` goes.
 */
export function editLines(
  source: SourceDoc,
  first: number,
  last: number,
  edit: (text: string, number: number) => LineEdit | null,
  cursor: number,
  before: string[] = [],
  after: string[] = [],
): { span: Span; cursor: number } | null {
  const start = source.line(first);
  const end = source.line(last);
  if (!start || !end) return null;
  const out: string[] = [...before];
  let offset = start.from + before.reduce((n, l) => n + l.length + 1, 0);
  let moved = cursor;
  for (let n = first; n <= last; n++) {
    const line = source.line(n);
    if (!line) return null;
    const change = edit(line.text, n);
    let text = line.text;
    if (change) text = text.slice(0, change.at) + change.insert + text.slice(change.at + change.remove);
    if (cursor >= line.from && cursor <= line.to) {
      let col = cursor - line.from;
      if (change && col >= change.at + change.remove) col += change.insert.length - change.remove;
      else if (change && col > change.at) col = change.at + change.insert.length;
      moved = offset + col;
    }
    out.push(text);
    offset += text.length + 1;
  }
  out.push(...after);
  const insert = out.join("\n");
  if (cursor > end.to) moved = cursor + insert.length - (end.to - start.from);
  return { span: { from: start.from, to: end.to, insert }, cursor: moved };
}

/** The columns `at..at + count` of `text` are all spaces (a line indented that far). */
export function spacesAt(text: string, at: number, count: number): boolean {
  return text.length >= at + count && /^ *$/.test(text.slice(at, at + count));
}
