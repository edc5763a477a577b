// Pasted blocks written as clean Markdown: each block serialized (mdsource/serialize.ts), then rid of the
// escapes its text does not need (`a_b`, `5 > 3`, `AT&T`, a lone `*`), and checked: the Markdown kept is
// the first candidate that parses back to the block the person pasted (else the fully escaped one).
import type { Mark, Node } from "prosemirror-model";
import { parseBlocks } from "../mdsource/build";
import { schema } from "../mdsource/schema";
import { serializeBlock } from "../mdsource/serialize";
import { DEFAULT_STYLE, type PasteStyle } from "./html";

/**
 * Blocks as Markdown text, a blank line apart (no trailing line break). Each block's cleanest Markdown is tried
 * for all of them at once (one parse); a block that does not read back as itself is written on its own.
 */
export function blocksToMarkdown(blocks: Node[]): string {
  const apartBlocks: Node[] = [];
  for (const node of blocks) apartBlocks.push(apartBlocks.length ? apart(apartBlocks[apartBlocks.length - 1], node) : node);
  const written = apartBlocks.map((block) => serializeBlock(block));
  const cleanest = apartBlocks.map((block, k) => cleaner(block, written[k])[0]);
  const parsed = parseBlocks(cleanest.join("\n\n"), 0, { documentStart: false }).blocks;
  const together = parsed.length === apartBlocks.length;
  return apartBlocks.map((block, k) => (together && shape(parsed[k].node) === shape(block) ? cleanest[k] : writeBlock(block, written[k]))).join("\n\n");
}

/** Two lists of one kind in a row would read as one list: the second takes the other marker. */
function apart(previous: Node, block: Node): Node {
  if (previous.type !== block.type || previous.attrs.markup !== block.attrs.markup) return block;
  if (block.type === schema.nodes.bullet_list) return block.type.create({ ...block.attrs, markup: block.attrs.markup === "-" ? "*" : "-" }, block.content);
  if (block.type === schema.nodes.ordered_list) return block.type.create({ ...block.attrs, markup: block.attrs.markup === "." ? ")" : "." }, block.content);
  return block;
}

function writeBlock(block: Node, written: string): string {
  const want = shape(block);
  const candidates = cleaner(block, written);
  // Emphasis in the document's style (`_`, `__`) cannot sit inside a word: the default markers can.
  const plain = withMarkers(block, DEFAULT_STYLE);
  if (plain !== block) candidates.push(...cleaner(plain, serializeBlock(plain)));
  for (const candidate of candidates) if (readsAs(candidate, want)) return candidate;
  return written;
}

/** `written` with fewer escapes, the fewest first, and itself last. */
function cleaner(block: Node, written: string): string[] {
  if (block.type !== schema.nodes.table) return [relax(written, true), relax(written, false), written];
  // A cell's pipe is escaped once (`\|`, the text's escape escaped again, reads the same); columns line up again.
  const once = written.replace(/\\\\\|/g, "\\|");
  return [realign(relax(once, true)), realign(relax(once, false)), realign(once), written];
}

/** A GFM table's columns padded to one width again (escapes taken out made some cells shorter). */
function realign(table: string): string {
  const rows = table.split("\n").map(cellsOf);
  if (rows.length < 2) return table;
  const columns = Math.max(...rows.map((r) => r.length));
  const width = (c: number) => Math.max(3, ...rows.filter((_, k) => k !== 1).map((r) => (r[c] ?? "").length));
  const widths = Array.from({ length: columns }, (_, c) => width(c));
  const rule = widths.map((w, c) => {
    const cell = rows[1][c] ?? "";
    const left = cell.startsWith(":");
    const right = cell.endsWith(":");
    return `${left ? ":" : ""}${"-".repeat(w - (left ? 1 : 0) - (right ? 1 : 0))}${right ? ":" : ""}`;
  });
  const line = (cells: string[]) => `| ${widths.map((w, c) => (cells[c] ?? "").padEnd(w)).join(" | ")} |`;
  return [line(rows[0]), `| ${rule.join(" | ")} |`, ...rows.slice(2).map(line)].join("\n");
}

/** The cells of one table line (split at pipes no backslash escapes), trimmed. */
function cellsOf(line: string): string[] {
  const cells: string[] = [];
  let cell = "";
  for (let k = 0; k < line.length; k++) {
    if (line[k] === "\\" && k + 1 < line.length) {
      cell += line[k] + line[++k];
      continue;
    }
    if (line[k] === "|") {
      cells.push(cell.trim());
      cell = "";
    } else cell += line[k];
  }
  cells.push(cell.trim());
  return cells.slice(line.trimStart().startsWith("|") ? 1 : 0, line.trimEnd().endsWith("|") ? -1 : undefined);
}

function readsAs(markdown: string, want: string): boolean {
  const parsed = parseBlocks(markdown, 0, { documentStart: false }).blocks;
  return parsed.length === 1 && shape(parsed[0].node) === want;
}

/** `block` with the emphasis and list markers of `style` (the same node when nothing differs). */
function withMarkers(block: Node, style: PasteStyle): Node {
  let changed = false;
  const remark = (mark: Mark): Mark => {
    const markup = mark.type === schema.marks.em ? style.em : mark.type === schema.marks.strong ? style.strong : null;
    if (markup === null || mark.attrs.markup === markup) return mark;
    changed = true;
    return mark.type.create({ ...mark.attrs, markup });
  };
  const rebuild = (node: Node): Node => {
    if (node.isText) return schema.text(String(node.text), node.marks.map(remark));
    if (node.isLeaf) return node.mark(node.marks.map(remark));
    const children: Node[] = [];
    node.forEach((child) => children.push(rebuild(child)));
    return node.type.create(node.attrs, children, node.marks);
  };
  const rebuilt = rebuild(block);
  return changed ? rebuilt : block;
}

// --- what a block shows ---------------------------------------------------------------------------------

function decoded(url: string): string {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}

function markKey(mark: Mark): string {
  return mark.type === schema.marks.link ? `link(${decoded(String(mark.attrs.href))})` : mark.type.name;
}

/** What a block shows, as a string to compare (structure, text, marks; not the markers it is written with). */
export function shape(node: Node): string {
  const out: string[] = [];
  const walk = (n: Node): void => {
    if (n.isTextblock) {
      out.push(`<${n.type.name}${attrKey(n)}`);
      let run = "";
      let key: string | null = null;
      const end = () => {
        if (key !== null) out.push(JSON.stringify([run, key]));
        run = "";
        key = null;
      };
      n.forEach((child) => {
        if (child.isText) {
          const k = child.marks.map(markKey).sort().join(",");
          if (k !== key) end();
          key = k;
          run += child.text;
        } else {
          end();
          out.push(`${child.type.name}${attrKey(child)}`); // (a parse gives an atom no marks: a link around an image is its own)
        }
      });
      end();
      out.push(">");
      return;
    }
    out.push(`<${n.type.name}${attrKey(n)}`);
    n.forEach(walk);
    out.push(">");
  };
  walk(node);
  return out.join("");
}

function attrKey(node: Node): string {
  const a = node.attrs;
  switch (node.type.name) {
    case "heading":
      return `:${a.level}`;
    case "code_block":
      return `:${a.info}`;
    case "ordered_list":
      return `:${a.start}`;
    case "table_cell":
      return `:${a.header}:${a.align}`;
    case "image":
      return `:${decoded(String(a.src))}:${a.alt}:${a.title ?? ""}`;
    case "raw_inline":
      return `:${a.kind}:${a.raw}`;
    case "raw_block":
      return `:${a.kind}`;
    default:
      return "";
  }
}

// --- needless escapes ------------------------------------------------------------------------------------

const PUNCTUATION = /[!-/:-@[-`{-~]/;
const ENTITY = /^&(?:[a-z][a-z0-9]*|#\d+|#x[0-9a-f]+);/i;

/**
 * Markdown with the backslash escapes taken out that no parse needs: the caller checks the result still reads
 * as the block did (`readsAs`), so the `bold` rules may guess (a bracket, a pipe, a dollar sign, a lone
 * backtick or star need no escape unless they make a link, a table, math, code or emphasis). Fenced code is
 * left alone.
 */
export function relax(markdown: string, bold: boolean): string {
  const lines = markdown.split("\n");
  let fence: string | null = null;
  const ticks = (markdown.match(/`/g) ?? []).length;
  return lines
    .map((line) => {
      const opener = /^[\s>]*(?:(?:[-+*]|\d+[.)])\s+)*(`{3,}|~{3,})/.exec(line);
      if (fence !== null) {
        if (opener && opener[1][0] === fence[0] && opener[1].length >= fence.length) fence = null;
        return line;
      }
      if (opener) {
        fence = opener[1];
        return line;
      }
      return relaxLine(line, ticks, bold);
    })
    .join("\n");
}

function relaxLine(line: string, ticks: number, bold: boolean): string {
  let out = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c !== "\\" || i + 1 >= line.length || !PUNCTUATION.test(line[i + 1])) {
      out += c;
      continue;
    }
    const x = line[i + 1];
    const before = i > 0 ? line[i - 1] : "";
    const after = line.slice(i + 2);
    const next = after[0] ?? "";
    const atLineStart = /^[\s>]*$/.test(line.slice(0, i)) || /^[\s>]*(?:[-+*]|\d+[.)])\s+$/.test(line.slice(0, i));
    if (needless(x, before, next, after, atLineStart, ticks, bold)) out += x === "\\" ? "\\" : x;
    else out += c + x;
    i++;
  }
  return out;
}

function needless(x: string, before: string, next: string, after: string, atLineStart: boolean, ticks: number, bold: boolean): boolean {
  const word = (c: string) => /[\p{L}\p{N}]/u.test(c);
  const space = (c: string) => c === "" || /\s/.test(c);
  switch (x) {
    case "\\":
      return next !== "" && !PUNCTUATION.test(next);
    case "&":
      return !ENTITY.test(`&${after}`);
    case "<":
      return !/^[a-z/!?]/i.test(next);
    case ">":
      return !atLineStart;
    case "_":
      return (word(before) && word(next)) || (space(before) && space(next));
    case "*":
      return bold && space(before) && space(next) && !atLineStart;
    case "~":
      return before !== "~" && next !== "~";
    case "`":
      return bold && ticks <= 1;
    case "[":
    case "]":
    case "|":
    case "$":
      return bold;
    default:
      return false; // a line start's `#`, `-`, `+`, `=`, `1.`: kept
  }
}
