// The WYSIWYG schema: what a Markdown document looks like as ProseMirror nodes.
//
// Every node keeps in its attributes what the serializer needs to write the same Markdown back
// (list markers, heading style, fence, emphasis markers, a link's source after its text); what the
// schema cannot represent is a `raw_block` (its source, editable as text) or a `raw_inline` atom.
import { type DOMOutputSpec, type Mark, type Node, Schema } from "prosemirror-model";

function rawInlineDOM(node: Node): DOMOutputSpec {
  const kind = String(node.attrs.kind);
  const raw = String(node.attrs.raw);
  if (kind === "autolink") {
    return ["a", { class: "md-autolink", href: String(node.attrs.href), title: raw, "data-raw": raw }, String(node.attrs.text)];
  }
  if (kind === "footnote") return ["sup", { class: "md-footnote-ref", "data-raw": raw }, raw.slice(2, -1)];
  if (kind === "wikilink") {
    return ["a", { class: "md-wikilink", "data-target": String(node.attrs.href), "data-raw": raw }, String(node.attrs.text)];
  }
  return ["code", { class: `md-raw-inline md-${kind}`, "data-raw": raw }, raw];
}

/**
 * Where the page may load an image from: data URLs only, for now. Other images keep their address in
 * `data-src` (the page's policy refuses remote loads, and workspace files are not served to it yet).
 */
function imageSource(src: string): Record<string, string> {
  return src.startsWith("data:image/") ? { src } : { "data-src": src, class: "md-image-pending" };
}

export const schema = new Schema({
  nodes: {
    doc: { content: "section+" },
    // A run of some 50 of the document's blocks (mdsource/sections.ts): drawing only, so that the browser can skip
    // a screenful of blocks at once (style.css). Never in the text, the clipboard's text or what agents read.
    section: {
      content: "block+",
      // Read back from the view's own DOM only (a change the browser made across sections).
      parseDOM: [{ tag: "div.pm-section" }],
      toDOM: () => ["div", { class: "pm-section" }, 0],
    },
    paragraph: {
      content: "inline*",
      group: "block",
      // Soft line breaks are "\n" in the text and must stay so when the view reads typing back.
      whitespace: "pre",
      parseDOM: [{ tag: "p" }],
      toDOM: () => ["p", 0],
    },
    heading: {
      content: "inline*",
      group: "block",
      whitespace: "pre",
      defining: true,
      // markup: "#".."######" (ATX) or "=" / "-" (setext); underline: the setext underline as written
      attrs: { level: { default: 1 }, markup: { default: "#" }, underline: { default: "" } },
      parseDOM: [1, 2, 3, 4, 5, 6].map((level) => ({ tag: `h${level}`, attrs: { level, markup: "#".repeat(level) } })),
      toDOM: (node) => [`h${node.attrs.level}`, 0],
    },
    blockquote: {
      content: "block+",
      group: "block",
      defining: true,
      parseDOM: [{ tag: "blockquote" }],
      toDOM: () => ["blockquote", 0],
    },
    bullet_list: {
      content: "list_item+",
      group: "block",
      attrs: { markup: { default: "-" }, tight: { default: true } },
      parseDOM: [{ tag: "ul" }],
      toDOM: (node) => ["ul", { "data-tight": node.attrs.tight ? "true" : null }, 0],
    },
    ordered_list: {
      content: "list_item+",
      group: "block",
      attrs: { start: { default: 1 }, markup: { default: "." }, tight: { default: true } },
      parseDOM: [{ tag: "ol", getAttrs: (dom) => ({ start: Number((dom as HTMLElement).getAttribute("start") ?? 1) }) }],
      toDOM: (node) => ["ol", { start: node.attrs.start === 1 ? null : node.attrs.start, "data-tight": node.attrs.tight ? "true" : null }, 0],
    },
    list_item: {
      content: "block+",
      defining: true,
      parseDOM: [{ tag: "li" }],
      toDOM: () => ["li", 0],
    },
    code_block: {
      content: "text*",
      group: "block",
      code: true,
      defining: true,
      marks: "",
      // fence: "```" / "~~~~" as written, or "" for an indented code block
      attrs: { info: { default: "" }, fence: { default: "```" } },
      parseDOM: [{ tag: "pre", preserveWhitespace: "full" }],
      toDOM: (node) => ["pre", { "data-info": node.attrs.info || null }, ["code", 0]],
    },
    raw_block: {
      content: "text*",
      group: "block",
      code: true,
      defining: true,
      marks: "",
      // kind: html, front_matter, math, footnote, reference, other: shown as its source
      attrs: { kind: { default: "other" } },
      toDOM: (node) => ["pre", { class: `md-raw md-raw-${node.attrs.kind}`, "data-kind": node.attrs.kind }, 0],
    },
    horizontal_rule: {
      group: "block",
      attrs: { markup: { default: "---" } },
      parseDOM: [{ tag: "hr" }],
      toDOM: () => ["hr"],
    },
    table: {
      content: "table_row+",
      group: "block",
      tableRole: "table",
      isolating: true,
      attrs: { aligns: { default: [] } },
      toDOM: () => ["table", ["tbody", 0]],
    },
    table_row: {
      content: "table_cell+",
      tableRole: "row",
      toDOM: () => ["tr", 0],
    },
    table_cell: {
      content: "inline*",
      whitespace: "pre",
      tableRole: "cell",
      isolating: true,
      attrs: { header: { default: false }, align: { default: "" } },
      // An attribute, not a style: the page's policy admits no inline styles.
      toDOM: (node) => [node.attrs.header ? "th" : "td", { "data-align": node.attrs.align || null }, 0],
    },
    text: { group: "inline" },
    image: {
      inline: true,
      group: "inline",
      atom: true,
      draggable: true,
      attrs: { src: { default: "" }, alt: { default: "" }, title: { default: null }, raw: { default: "" } },
      parseDOM: [{ tag: "img[src]", getAttrs: (dom) => ({ src: (dom as HTMLElement).getAttribute("src"), alt: (dom as HTMLElement).getAttribute("alt") ?? "" }) }],
      toDOM: (node) => ["img", { ...imageSource(String(node.attrs.src)), alt: node.attrs.alt, title: node.attrs.title, "data-raw": node.attrs.raw }],
    },
    hard_break: {
      inline: true,
      group: "inline",
      selectable: false,
      // raw: the break as written ("  \n", "\\\n") with the next line's indentation
      attrs: { raw: { default: "\\\n" } },
      parseDOM: [{ tag: "br" }],
      toDOM: () => ["br"],
    },
    raw_inline: {
      inline: true,
      group: "inline",
      atom: true,
      // kind: html, math, footnote, autolink, wikilink; raw: its source (href, text: an autolink's or a
      // wikilink's target and the words it shows)
      attrs: { kind: { default: "html" }, raw: { default: "" }, href: { default: "" }, text: { default: "" } },
      toDOM: rawInlineDOM,
    },
  },
  marks: {
    em: {
      attrs: { markup: { default: "*" } },
      parseDOM: [{ tag: "em" }, { tag: "i" }],
      toDOM: () => ["em", 0],
    },
    strong: {
      attrs: { markup: { default: "**" } },
      parseDOM: [{ tag: "strong" }, { tag: "b" }],
      toDOM: () => ["strong", 0],
    },
    strike: {
      attrs: { markup: { default: "~~" } },
      parseDOM: [{ tag: "s" }, { tag: "del" }],
      toDOM: () => ["s", 0],
    },
    link: {
      inclusive: false,
      // tail: the source after the link text's "]" ("(url \"title\")", "[ref]", "[]" or "" for a shortcut)
      attrs: { href: { default: "" }, title: { default: null }, tail: { default: null }, label: { default: null } },
      parseDOM: [{ tag: "a[href]", getAttrs: (dom) => ({ href: (dom as HTMLElement).getAttribute("href"), title: (dom as HTMLElement).getAttribute("title") }) }],
      toDOM: (mark: Mark) => ["a", { href: mark.attrs.href, title: mark.attrs.title, rel: "noopener noreferrer" }, 0],
    },
    code: {
      excludes: "_",
      attrs: { markup: { default: "`" } },
      parseDOM: [{ tag: "code" }],
      // Code is never spell-checked (writing/spellpm.ts).
      toDOM: () => ["code", { spellcheck: "false" }, 0],
    },
  },
});
