// Pasted HTML as the WYSIWYG schema's nodes: what a web page, a word processor or a spreadsheet puts on the
// clipboard, read for its structure (headings, lists, links, emphasis, code, quotes, tables, images by URL)
// with the noise left behind (styles, classes, empty spans, comments, runs of &nbsp;).
//
// Word processors say "bold" and "italic" in styles rather than tags (Google Docs' spans, Word's `mso`
// markup), and Word writes its lists as paragraphs with an `mso-list` style: both are read. Spreadsheets
// (Excel, Google Sheets, LibreOffice Calc) put their cells in an HTML table: its first row becomes the
// header of a GFM table. Images travel by their URL only: an image whose address is a `data:`, `blob:` or
// `file:` URL is left out (the editor writes pasted image files into the document's folder instead).
//
// The converter walks any DOM (the page's DOMParser, or a DOM implementation in the unit tests).
import type { Mark, Node } from "prosemirror-model";
import { schema } from "../mdsource/schema";

/** The markers the document already uses, so pasted Markdown reads like the rest of it. */
export interface PasteStyle {
  bullet: string;
  ordered: string;
  em: string;
  strong: string;
}

export const DEFAULT_STYLE: PasteStyle = { bullet: "-", ordered: ".", em: "*", strong: "**" };

/** The first list markers and emphasis markers `doc` shows (the defaults for those it shows none of). */
export function styleOf(doc: Node): PasteStyle {
  const found: Partial<PasteStyle> = {};
  const done = () => found.bullet !== undefined && found.ordered !== undefined && found.em !== undefined && found.strong !== undefined;
  doc.descendants((node) => {
    if (done()) return false;
    if (node.type === schema.nodes.bullet_list) found.bullet ??= String(node.attrs.markup);
    if (node.type === schema.nodes.ordered_list) found.ordered ??= String(node.attrs.markup);
    for (const mark of node.marks) {
      if (mark.type === schema.marks.em) found.em ??= String(mark.attrs.markup);
      if (mark.type === schema.marks.strong) found.strong ??= String(mark.attrs.markup);
    }
    return !node.isTextblock || node.childCount > 0;
  });
  return { ...DEFAULT_STYLE, ...found };
}

const BLOCK = new Set([
  "address", "article", "aside", "blockquote", "body", "center", "details", "dd", "div", "dl", "dt", "fieldset",
  "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "html", "li",
  "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
  "google-sheets-html-origin",
]); // prettier-ignore
/** Elements whose content is never text of the document. */
const IGNORED = new Set([
  "head", "style", "script", "meta", "link", "title", "template", "noscript", "button", "select", "textarea",
  "iframe", "object", "embed", "svg", "math", "canvas", "video", "audio", "colgroup", "col", "caption", "input",
]); // prettier-ignore
const CODE_FONT = /\b(courier|consolas|monaco|menlo|monospace|source code|fira code|fira mono|jetbrains mono|roboto mono|sf mono|inconsolata|lucida console)\b/i;
const UNSAFE_URL = /^\s*(javascript|vbscript|data|blob|file|cid):/i;

/**
 * Pasted HTML as an inert document (nothing in it loads or runs). Its style sheets and scripts are taken out
 * and its `style` attributes renamed first: the page's policy refuses inline styles, even in a parsed document
 * that is never shown, and reports each.
 */
export function parseHtml(html: string, parser: DOMParser = new DOMParser()): ParentNode {
  const renamed = html
    .replace(/<(style|script)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, "")
    .replace(/(<[a-z][^<>]*?\s)style(\s*=)/gi, "$1data-vmark-style$2");
  return parser.parseFromString(renamed, "text/html").body;
}

/** The block nodes of the HTML in `root` (a document's body, or any element). */
export function htmlToBlocks(root: ParentNode, style: PasteStyle = DEFAULT_STYLE): Node[] {
  return new Walker(style).blocks(root, []);
}

/** Whether the HTML is a code editor's copy (one monospace block that keeps its white space): text, really. */
export function isCodeEditorCopy(root: ParentNode): boolean {
  const elements = [...root.childNodes].filter((n) => (n.nodeType === ELEMENT && !IGNORED.has(tag(n))) || (n.nodeType === TEXT && (n.textContent ?? "").trim() !== "")) as Element[];
  if (elements.length !== 1 || elements[0].nodeType !== ELEMENT) return false;
  const styles = declarations(elements[0]);
  return ["div", "pre"].includes(tag(elements[0])) && /^pre/.test(styles.get("white-space") ?? "") && CODE_FONT.test(styles.get("font-family") ?? "");
}

const ELEMENT = 1;
const TEXT = 3;

function tag(node: ChildNode | Element): string {
  return (node as Element).localName?.toLowerCase() ?? "";
}

/** An element's inline style as property -> value (lowercase names, values trimmed). */
function declarations(el: Element): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of (el.getAttribute("data-vmark-style") ?? el.getAttribute("style") ?? "").split(";")) {
    const colon = part.indexOf(":");
    if (colon > 0) found.set(part.slice(0, colon).trim().toLowerCase(), part.slice(colon + 1).trim().toLowerCase());
  }
  return found;
}

function isBlock(node: ChildNode): boolean {
  return node.nodeType === ELEMENT && BLOCK.has(tag(node));
}

/** A link or image address as a Markdown destination: what would end or break one percent-encoded. */
function destination(url: string): string {
  return url.trim().replace(/[\s()<>]/g, (c) => encodeURIComponent(c));
}

/** The marks an element adds to (or takes from) its content, by its tag and its inline style. */
function marksOf(el: Element, marks: readonly Mark[], style: PasteStyle): readonly Mark[] {
  let set = marks;
  const add = (mark: Mark) => {
    set = mark.addToSet(set);
  };
  const name = tag(el);
  if (name === "strong" || name === "b") add(schema.marks.strong.create({ markup: style.strong }));
  if (name === "em" || name === "i" || name === "cite" || name === "dfn") add(schema.marks.em.create({ markup: style.em }));
  if (name === "s" || name === "del" || name === "strike") add(schema.marks.strike.create());
  if (name === "code" || name === "kbd" || name === "samp" || name === "tt") add(schema.marks.code.create());
  if (name === "a") {
    const href = el.getAttribute("href");
    if (href && !UNSAFE_URL.test(href)) add(schema.marks.link.create({ href: destination(href), title: el.getAttribute("title") || null }));
  }
  const styles = declarations(el);
  const weight = styles.get("font-weight");
  if (weight !== undefined) {
    const bold = weight === "bold" || weight === "bolder" || Number(weight) >= 600;
    if (bold) add(schema.marks.strong.create({ markup: style.strong }));
    else set = schema.marks.strong.removeFromSet(set);
  }
  const fontStyle = styles.get("font-style");
  if (fontStyle === "italic" || fontStyle === "oblique") add(schema.marks.em.create({ markup: style.em }));
  else if (fontStyle === "normal") set = schema.marks.em.removeFromSet(set);
  if (/line-through/.test(styles.get("text-decoration") ?? styles.get("text-decoration-line") ?? "")) add(schema.marks.strike.create());
  if ((name === "span" || name === "font") && CODE_FONT.test(styles.get("font-family") ?? el.getAttribute("face") ?? "")) add(schema.marks.code.create());
  return set;
}

class Walker {
  private out: Node[] = [];
  private inline: Node[] = [];

  constructor(private style: PasteStyle) {}

  /** The blocks of `root`'s children: inline content between blocks becomes paragraphs. */
  blocks(root: ParentNode, marks: readonly Mark[]): Node[] {
    this.children(root, marks);
    this.flush();
    return this.out;
  }

  private children(parent: ParentNode, marks: readonly Mark[]): void {
    const nodes = [...parent.childNodes];
    for (let k = 0; k < nodes.length; k++) {
      const node = nodes[k];
      if (node.nodeType === ELEMENT && wordList(node as Element)) {
        let end = k;
        while (end + 1 < nodes.length && (wordList(nodes[end + 1] as Element) || isBlank(nodes[end + 1]))) end++;
        this.flush();
        this.out.push(...this.wordLists(nodes.slice(k, end + 1).filter((n) => !isBlank(n)) as Element[], marks));
        k = end;
        continue;
      }
      this.visit(node, marks);
    }
  }

  private visit(node: ChildNode, marks: readonly Mark[]): void {
    if (node.nodeType === TEXT) {
      const text = (node.textContent ?? "").replace(/[\s\u00a0]+/g, " ");
      if (text) this.inline.push(schema.text(text, marks));
      return;
    }
    if (node.nodeType !== ELEMENT) return; // comments, Word's <![if ...]> and the like
    const el = node as Element;
    const name = tag(el);
    if (IGNORED.has(name) || declarations(el).get("mso-list") === "ignore" || declarations(el).get("display") === "none") return;
    if (name === "br") this.inline.push(schema.nodes.hard_break.create({ raw: "\\\n" }));
    else if (name === "img") {
      const image = imageNode(el);
      if (image) this.inline.push(image.mark(marks));
    } else if (internalInline(el)) this.inline.push(internalInline(el) as Node);
    else if (isBlock(el)) {
      this.flush();
      this.out.push(...this.block(el, marksOf(el, marks, this.style)));
    } else this.children(el, marksOf(el, marks, this.style));
  }

  /** The inline content gathered so far, as a paragraph (none if it shows nothing). */
  private flush(): void {
    const content = tidyInline(this.inline);
    this.inline = [];
    if (content.length) this.out.push(schema.nodes.paragraph.create(null, content));
  }

  private block(el: Element, marks: readonly Mark[]): Node[] {
    const name = tag(el);
    const sub = () => new Walker(this.style).blocks(el, marks);
    if (/^h[1-6]$/.test(name)) {
      const level = Number(name[1]);
      const content = flatInline(el, marks, this.style);
      return content.length ? [schema.nodes.heading.create({ level, markup: "#".repeat(level) }, content)] : [];
    }
    switch (name) {
      case "ul":
      case "ol":
        return this.list(el, marks);
      case "blockquote": {
        const inner = sub();
        return inner.length ? [schema.nodes.blockquote.create(null, inner)] : [];
      }
      case "pre":
        return [internalRaw(el) ?? codeBlock(el)];
      case "table":
        return this.table(el, marks);
      case "hr":
        return [schema.nodes.horizontal_rule.create({ markup: "---" })];
      default: {
        const styles = declarations(el);
        if ((name === "div" || name === "p") && /^pre/.test(styles.get("white-space") ?? "") && CODE_FONT.test(styles.get("font-family") ?? "")) return [codeBlock(el)];
        return sub();
      }
    }
  }

  private list(el: Element, marks: readonly Mark[]): Node[] {
    const items: Node[][] = [];
    for (const child of el.childNodes) {
      const name = tag(child);
      if (name === "li") items.push(this.item(child as Element, marks));
      else if (name === "ul" || name === "ol") {
        // Google Docs nests a list right inside its parent list: it belongs to the item before it.
        const nested = this.list(child as Element, marks);
        if (items.length) items[items.length - 1].push(...nested);
        else items.push(nested);
      } else if (!isBlank(child)) items.push(new Walker(this.style).blocks(fragmentOf(child), marks));
    }
    const kept = items.map((blocks) => (blocks.length ? blocks : [schema.nodes.paragraph.create()]));
    if (!kept.length) return [];
    return [this.listNode(tag(el) === "ol", Number(el.getAttribute("start") ?? 1) || 1, kept)];
  }

  private listNode(ordered: boolean, start: number, items: Node[][]): Node {
    // Loose when an item holds more than one block besides its nested lists.
    const tight = items.every((blocks) => blocks.filter((b) => b.type !== schema.nodes.bullet_list && b.type !== schema.nodes.ordered_list).length <= 1);
    const nodes = items.map((blocks) => schema.nodes.list_item.create(null, blocks));
    if (ordered) return schema.nodes.ordered_list.create({ start, markup: this.style.ordered, tight }, nodes);
    return schema.nodes.bullet_list.create({ markup: this.style.bullet, tight }, nodes);
  }

  private item(li: Element, marks: readonly Mark[]): Node[] {
    const found = li.querySelector("input[type=checkbox]");
    const box = found?.closest("li") === li ? found : null;
    const blocks = new Walker(this.style).blocks(li, marks);
    if (!box) return blocks;
    // A task list item: its checkbox as the text Markdown writes for it.
    const task = schema.text(box.hasAttribute("checked") ? "[x] " : "[ ] ");
    const first = blocks[0];
    if (first?.type === schema.nodes.paragraph) return [first.copy(first.content.addToStart(task)), ...blocks.slice(1)];
    return [schema.nodes.paragraph.create(null, schema.text(task.text?.trim() ?? "")), ...blocks];
  }

  /** Word's list paragraphs (`mso-list: l0 level2 lfo1`) as nested lists, by their level. */
  private wordLists(paragraphs: Element[], marks: readonly Mark[]): Node[] {
    interface Open {
      level: number;
      ordered: boolean;
      items: Node[][];
    }
    const stack: Open[] = [];
    const out: Node[] = [];
    const close = (): void => {
      const open = stack.pop() as Open;
      const node = this.listNode(open.ordered, 1, open.items);
      if (stack.length) stack[stack.length - 1].items[stack[stack.length - 1].items.length - 1].push(node);
      else out.push(node);
    };
    let list = "";
    for (const p of paragraphs) {
      const info = wordList(p) as { list: string; level: number };
      if (info.list !== list) while (stack.length) close();
      list = info.list;
      const marker = [...p.querySelectorAll("span")].find((span) => declarations(span).get("mso-list") === "ignore")?.textContent ?? "";
      const ordered = /^\s*(\d+|[a-z]|[ivxlcdm]+)[.)]/i.test(marker);
      while (stack.length && stack[stack.length - 1].level > info.level) close();
      const top = stack[stack.length - 1];
      if (top && top.level === info.level && top.ordered !== ordered) close();
      if (!stack.length || stack[stack.length - 1].level < info.level) stack.push({ level: info.level, ordered, items: [] });
      const content = new Walker(this.style).blocks(p, marksOf(p, marks, this.style));
      stack[stack.length - 1].items.push(content.length ? content : [schema.nodes.paragraph.create()]);
    }
    while (stack.length) close();
    return out;
  }

  private table(el: Element, marks: readonly Mark[]): Node[] {
    const rows: { cells: Node[]; align: string }[][] = [];
    const visitRows = (parent: Element): void => {
      for (const child of parent.children) {
        const name = tag(child);
        if (name === "thead" || name === "tbody" || name === "tfoot") visitRows(child);
        else if (name === "tr") rows.push(this.row(child, marks));
      }
    };
    visitRows(el);
    // Rows and columns a spreadsheet leaves empty at the end are no part of the table.
    const empty = (cell: { cells: Node[] }) => cell.cells.length === 0;
    while (rows.length && rows[rows.length - 1].every(empty)) rows.pop();
    const columns = Math.max(0, ...rows.map((r) => r.length));
    let width = columns;
    while (width > 0 && rows.every((r) => r.length < width || empty(r[width - 1]))) width--;
    if (rows.length === 0 || width === 0) return [];
    if (rows.length === 1 && width === 1) return [schema.nodes.paragraph.create(null, rows[0][0].cells)];
    const aligns = Array.from({ length: width }, (_, c) => rows[0][c]?.align ?? "");
    const nodes = rows.map((row, r) =>
      schema.nodes.table_row.create(
        null,
        Array.from({ length: width }, (_, c) => schema.nodes.table_cell.create({ header: r === 0, align: aligns[c] }, row[c]?.cells ?? [])),
      ),
    );
    return [schema.nodes.table.create({ aligns }, nodes)];
  }

  private row(tr: Element, marks: readonly Mark[]): { cells: Node[]; align: string }[] {
    const cells: { cells: Node[]; align: string }[] = [];
    for (const cell of tr.children) {
      const name = tag(cell);
      if (name !== "td" && name !== "th") continue;
      const content = flatInline(cell, marks, this.style).map((n) => (n.type === schema.nodes.hard_break ? schema.text(" ", n.marks) : n));
      const align = (cell.getAttribute("align") ?? cell.getAttribute("data-align") ?? declarations(cell).get("text-align") ?? "").toLowerCase();
      // Left is where a cell's text goes anyway (spreadsheets say so of every text cell): no alignment.
      cells.push({ cells: tidyInline(content), align: align === "center" || align === "right" ? align : "" });
      const span = Math.min(Number(cell.getAttribute("colspan") ?? 1) || 1, 64);
      for (let k = 1; k < span; k++) cells.push({ cells: [], align: "" });
    }
    return cells;
  }
}

/** A node with just `node` as its child (inline content stray in a list). */
function fragmentOf(node: ChildNode): ParentNode {
  return { childNodes: [node] } as unknown as ParentNode;
}

function isBlank(node: ChildNode | undefined): boolean {
  return node !== undefined && (node.nodeType === 8 || (node.nodeType === TEXT && (node.textContent ?? "").trim() === ""));
}

/** Word's list paragraph: its list and level, or null. */
function wordList(el: Element): { list: string; level: number } | null {
  if (el.nodeType !== ELEMENT || tag(el) !== "p") return null;
  const value = declarations(el).get("mso-list");
  if (!value || value === "ignore") return null;
  const level = /level(\d+)/.exec(value);
  const list = /\b(l\d+)\b/.exec(value);
  return { list: list ? list[1] : "l0", level: level ? Number(level[1]) : 1 };
}

/** An element's inline content, its blocks run together (a heading's, a table cell's). */
function flatInline(el: Element, marks: readonly Mark[], style: PasteStyle): Node[] {
  const inner = new Walker(style).blocks(el, marks);
  const out: Node[] = [];
  for (const block of inner) {
    if (out.length) out.push(schema.text(" "));
    block.descendants((node) => {
      if (node.isInline) out.push(node);
      return !node.isInline;
    });
    // A nested list's or quote's paragraphs were walked by descendants; code keeps its text.
  }
  return tidyInline(out);
}

/**
 * Inline nodes as a paragraph shows them: white space collapsed across nodes, none at the ends or around a
 * line break, and none at the inside edges of emphasis (`** bold**` would not be bold in Markdown).
 */
function tidyInline(nodes: Node[]): Node[] {
  const out: Node[] = [];
  let space = true; // at the start: leading white space goes
  for (const node of nodes) {
    if (node.type === schema.nodes.hard_break) {
      trimEnd(out);
      if (out.length) out.push(node);
      space = true;
      continue;
    }
    if (!node.isText) {
      out.push(node);
      space = false;
      continue;
    }
    let text = String(node.text);
    if (space) text = text.replace(/^ +/, "");
    if (!text) continue;
    space = text.endsWith(" ");
    if (text.trim() === "") {
      // White space shows no emphasis or code (a word processor's styled space): plain, in a link still.
      out.push(schema.text(text, node.marks.filter((m) => m.type === schema.marks.link)));
      continue;
    }
    const emphasis = node.marks.filter((m) => m.type !== schema.marks.link && m.type !== schema.marks.code);
    if (emphasis.length === 0) {
      out.push(schema.text(text, node.marks));
      continue;
    }
    const plain = node.marks.filter((m) => !emphasis.includes(m));
    const lead = /^ +/.exec(text)?.[0] ?? "";
    const trail = text.length > lead.length ? (/ +$/.exec(text)?.[0] ?? "") : "";
    if (lead) out.push(schema.text(lead, plain));
    const core = text.slice(lead.length, text.length - trail.length);
    if (core) out.push(schema.text(core, node.marks));
    if (trail) out.push(schema.text(trail, plain));
  }
  trimEnd(out);
  while (out.length && out[out.length - 1].type === schema.nodes.hard_break) {
    out.pop();
    trimEnd(out);
  }
  return out;
}

function trimEnd(out: Node[]): void {
  while (out.length) {
    const last = out[out.length - 1];
    if (!last.isText) return;
    const text = String(last.text).replace(/ +$/, "");
    if (text) {
      out[out.length - 1] = schema.text(text, last.marks);
      return;
    }
    out.pop();
  }
}

function imageNode(el: Element): Node | null {
  const src = el.getAttribute("data-src") || el.getAttribute("src") || "";
  if (!src.trim() || UNSAFE_URL.test(src)) return null;
  const raw = el.getAttribute("data-raw") ?? "";
  const alt = (el.getAttribute("alt") ?? "").replace(/\s+/g, " ").trim();
  return schema.nodes.image.create({ src: destination(src), alt, title: el.getAttribute("title") || null, raw });
}

function codeBlock(el: Element): Node {
  let text = "";
  const walk = (parent: ParentNode): void => {
    for (const child of parent.childNodes) {
      if (child.nodeType === TEXT) text += child.textContent ?? "";
      else if (tag(child) === "br") text += "\n";
      else if (child.nodeType === ELEMENT) {
        const name = tag(child);
        if ((name === "div" || name === "p") && text !== "" && !text.endsWith("\n")) text += "\n";
        walk(child as Element);
      }
    }
  };
  walk(el);
  text = text.replace(/\u00a0/g, " ").replace(/\r\n?/g, "\n").replace(/\n$/, "");
  const info = el.getAttribute("data-info") ?? languageOf(el);
  return schema.nodes.code_block.create({ info, fence: "```" }, text ? schema.text(text) : null);
}

/** A code block's language, from the classes highlighters put on it or its parts (`language-py`, `highlight-source-rust`). */
function languageOf(el: Element): string {
  const candidates = [el, el.querySelector("code"), el.parentElement].filter((e): e is Element => e !== null);
  for (const e of candidates) {
    const match = /(?:^|\s)(?:language|lang|highlight-source|brush:?)-?([\w+#-]+)/i.exec(e.getAttribute("class") ?? "");
    if (match) return match[1].toLowerCase();
  }
  return "";
}

/** What this editor itself put on the clipboard for an atom it shows (inline HTML, math, an autolink, a footnote). */
function internalInline(el: Element): Node | null {
  const raw = el.getAttribute("data-raw");
  if (raw === null || tag(el) === "img") return null;
  const classes = el.getAttribute("class") ?? "";
  if (classes.includes("md-autolink")) return schema.nodes.raw_inline.create({ kind: "autolink", raw, href: el.getAttribute("href") ?? "", text: el.textContent ?? "" });
  if (classes.includes("md-footnote-ref")) return schema.nodes.raw_inline.create({ kind: "footnote", raw });
  const kind = /\bmd-(html|math|other)\b/.exec(classes);
  return kind ? schema.nodes.raw_inline.create({ kind: kind[1], raw }) : null;
}

/** ... and for a block shown as its source (raw HTML, math, front matter, a footnote or reference definition). */
function internalRaw(el: Element): Node | null {
  const kind = el.getAttribute("data-kind");
  if (tag(el) !== "pre" || kind === null || !(el.getAttribute("class") ?? "").includes("md-raw")) return null;
  const text = el.textContent ?? "";
  return schema.nodes.raw_block.create({ kind }, text ? schema.text(text) : null);
}
