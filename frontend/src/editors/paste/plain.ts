// Plain text pasted literally (Ctrl+Shift+V): paragraphs of the text as it reads, whatever Markdown it
// looks like; written out, it is escaped only where a parse would read markup (paste/markdown.ts).
import type { Node } from "prosemirror-model";
import { schema } from "../mdsource/schema";

/**
 * The paragraphs of `text`: blank lines part them, a line break inside one stays a line break. The spaces
 * Markdown cannot keep go: at a line's end (two would make a hard break) and at its start (a paragraph's
 * lines lose their indentation in any parse; four spaces before its first word would make code).
 */
export function literalBlocks(text: string): Node[] {
  const normal = text.replace(/\r\n?/g, "\n");
  const blocks: Node[] = [];
  for (const part of normal.split(/\n[ \t\u00a0]*\n/)) {
    const lines = part.split("\n").map((line) => line.replace(/^[ \t\u00a0]+|[ \t\u00a0]+$/g, ""));
    const body = lines.filter((line) => line !== "").join("\n");
    if (!body) continue;
    blocks.push(schema.nodes.paragraph.create(null, schema.text(body)));
  }
  return blocks;
}
