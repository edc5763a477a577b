// From nodes back to Markdown, for the blocks an edit touched (never for the whole document).
//
// The nodes carry what the source used (markers, fences, heading style, a link's tail), so a block
// that changed little reads as it did; text is escaped only where it would otherwise be markup.
import type { Fragment, Mark, Node } from "prosemirror-model";

/** Whether new text is escaped (the engine tries unescaped first: an escape only where the parse needs one). */
let escaping = true;

/** Markdown of a block node, without a trailing line break; `escape` false writes text as it is. */
export function serializeBlock(node: Node, escape = true): string {
  const outer = escaping;
  escaping = escape;
  try {
    return blockLines(node).join("\n");
  } finally {
    escaping = outer;
  }
}

function blockLines(node: Node): string[] {
  switch (node.type.name) {
    case "paragraph":
      return serializeInline(node.content).split("\n");
    case "heading":
      return heading(node);
    case "blockquote":
      return prefixed(children(node, true), "> ", "> ", ">");
    case "bullet_list":
    case "ordered_list":
      return list(node);
    case "code_block":
      return code(node);
    case "raw_block":
      return node.textContent.split("\n");
    case "horizontal_rule":
      return [String(node.attrs.markup || "---")];
    case "table":
      return table(node);
    default:
      return node.textContent.split("\n");
  }
}

/** The lines of a container's children, blocks apart by a blank line (or none in a tight list). */
function children(node: Node, loose: boolean): string[] {
  const lines: string[] = [];
  node.forEach((child, _offset, index) => {
    if (index > 0 && loose) lines.push("");
    lines.push(...blockLines(child));
  });
  return lines;
}

function prefixed(lines: string[], first: string, rest: string, blank: string): string[] {
  return lines.map((line, i) => (line === "" ? blank : (i === 0 ? first : rest) + line));
}

function heading(node: Node): string[] {
  const text = serializeInline(node.content);
  const markup = String(node.attrs.markup);
  if (markup === "=" || markup === "-") {
    const underline = String(node.attrs.underline || "").trim() || markup.repeat(3);
    return [...text.split("\n"), underline];
  }
  return [`${"#".repeat(Number(node.attrs.level))}${text ? " " : ""}${text.replace(/\n/g, " ")}`];
}

function list(node: Node): string[] {
  const ordered = node.type.name === "ordered_list";
  const tight = Boolean(node.attrs.tight);
  const lines: string[] = [];
  node.forEach((item, _offset, index) => {
    const marker = ordered ? `${Number(node.attrs.start) + index}${node.attrs.markup}` : String(node.attrs.markup);
    if (index > 0 && !tight) lines.push("");
    const body = children(item, !tight);
    const pad = " ".repeat(marker.length + 1);
    lines.push(...(body.some((line) => line !== "") ? prefixed(body, `${marker} `, pad, "") : [marker]));
  });
  return lines;
}

function code(node: Node): string[] {
  const text = node.textContent;
  const fence = String(node.attrs.fence);
  if (fence === "") return text.split("\n").map((line) => (line ? `    ${line}` : ""));
  let marker = fence;
  const runs = text.match(new RegExp(`^${fence[0] === "~" ? "~" : "`"}{3,}`, "gm")) ?? [];
  for (const run of runs) if (run.length >= marker.length) marker = fence[0].repeat(run.length + 1);
  return [`${marker}${node.attrs.info}`, ...(text === "" ? [] : text.split("\n")), marker];
}

function table(node: Node): string[] {
  const rows: string[][] = [];
  node.forEach((row) => {
    const cells: string[] = [];
    row.forEach((cell) => cells.push(serializeInline(cell.content).replace(/\n/g, " ").replace(/\|/g, "\\|")));
    rows.push(cells);
  });
  const aligns = (node.attrs.aligns as string[]) ?? [];
  const columns = Math.max(...rows.map((r) => r.length), aligns.length);
  const width = (c: number) => Math.max(3, ...rows.map((r) => (r[c] ?? "").length));
  const line = (cells: string[]) => `| ${Array.from({ length: columns }, (_, c) => (cells[c] ?? "").padEnd(width(c))).join(" | ")} |`;
  const rule = Array.from({ length: columns }, (_, c) => {
    const w = width(c);
    const a = aligns[c] ?? "";
    if (a === "center") return `:${"-".repeat(w - 2)}:`;
    if (a === "right") return `${"-".repeat(w - 1)}:`;
    if (a === "left") return `:${"-".repeat(w - 1)}`;
    return "-".repeat(w);
  });
  return [line(rows[0] ?? []), `| ${rule.join(" | ")} |`, ...rows.slice(1).map(line)];
}

// --- inline ---------------------------------------------------------------------------------------

const MARK_ORDER = ["link", "strong", "em", "strike", "code"];

/** What opens a mark in the source: a link's "[", a code span's fence (see `codeFence`), else the mark's markup. */
function opener(mark: Mark, code: string): string {
  if (mark.type.name === "code") return codeFence(mark, code).join("");
  return mark.type.name === "link" ? "[" : String(mark.attrs.markup);
}

/**
 * A code span's backtick run and padding for `code`: its own markup unless the code holds a run of that length
 * (then one longer), and a space inside each end when the code starts or ends with a backtick (or with a space
 * at both ends), as CommonMark reads them.
 */
function codeFence(mark: Mark, code: string): [string, string] {
  let fence = String(mark.attrs.markup || "`");
  const runs = new Set((code.match(/`+/g) ?? []).map((r) => r.length));
  while (runs.has(fence.length)) fence += "`";
  const pad = /^`|`$/.test(code) || (/^ .*[^ ].* $/s.test(code)) ? " " : "";
  return [fence, pad];
}

function closer(mark: Mark, inner: string): string {
  if (mark.type.name === "code") {
    const [fence, pad] = codeFence(mark, inner);
    return pad + fence;
  }
  if (mark.type.name !== "link") return String(mark.attrs.markup);
  const tail = mark.attrs.tail as string | null;
  const label = mark.attrs.label as string | null;
  // A reference link whose text changed names its label, so it still resolves.
  if ((tail === "" || tail === "[]") && label !== null && label !== inner) return `][${label}]`;
  if (tail !== null) return `]${tail}`;
  const title = mark.attrs.title ? ` "${String(mark.attrs.title).replace(/"/g, '\\"')}"` : "";
  return `](${String(mark.attrs.href)}${title})`;
}

/** Markdown of inline content: marks opened and closed around runs, text escaped, atoms as written. */
export function serializeInline(content: Fragment, newline = "\n", escape = escaping): string {
  let out = "";
  let open: Mark[] = [];
  // Where each open mark's content starts in `out`: a reference link compares its label with what it wraps.
  const starts: number[] = [];
  const close = (keep: number) => {
    while (open.length > keep) {
      const mark = open.pop() as Mark;
      const start = starts.pop() ?? out.length;
      out += closer(mark, out.slice(start));
    }
  };
  content.forEach((node, _offset, index) => {
    const marks = [...node.marks].sort((a, b) => MARK_ORDER.indexOf(a.type.name) - MARK_ORDER.indexOf(b.type.name));
    let keep = 0;
    while (keep < open.length && keep < marks.length && open[keep].eq(marks[keep])) keep++;
    close(keep);
    for (const mark of marks.slice(keep)) {
      const code = mark.type.name === "code" ? codeRun(content, index) : "";
      out += opener(mark, code);
      open.push(mark);
      starts.push(out.length);
    }
    const code = marks.some((m) => m.type.name === "code");
    const text = String(node.text ?? "");
    const piece = node.isText ? (code || !escape ? text : escapeText(text, out)).replace(/\n/g, newline) : atomSource(node);
    out += piece;
  });
  close(0);
  return out;
}

/** The text of the code span that starts at child `index` (code excludes other marks: one run of text nodes). */
function codeRun(content: Fragment, index: number): string {
  let text = "";
  for (let k = index; k < content.childCount && content.child(k).marks.some((m) => m.type.name === "code"); k++) text += content.child(k).text ?? "";
  return text;
}

function atomSource(node: Node): string {
  switch (node.type.name) {
    case "hard_break":
      return String(node.attrs.raw || "\\\n");
    case "image":
      return String(node.attrs.raw) || `![${node.attrs.alt}](${node.attrs.src}${node.attrs.title ? ` "${node.attrs.title}"` : ""})`;
    default:
      return String(node.attrs.raw ?? "");
  }
}

const INLINE_SPECIAL = /[\\`*_[\]<>&~$|]/g;

/** Text as Markdown that shows exactly it: characters that would be markup get a backslash. */
export function escapeText(text: string, before: string): string {
  let escaped = text.replace(INLINE_SPECIAL, "\\$&");
  const atLineStart = before === "" || before.endsWith("\n");
  escaped = escaped.replace(/(^|\n)([ \t]*)([#>+=-]|\d+[.)])/g, (whole, brk: string, space: string, lead: string, offset: number) => {
    if (offset === 0 && brk === "" && !atLineStart) return whole;
    return `${brk}${space}${lead.replace(/^(\d+)([.)])$/, "$1\\$2").replace(/^([#>+=-])$/, "\\$1")}`;
  });
  return escaped;
}
