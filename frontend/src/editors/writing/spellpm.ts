// Spelling in WYSIWYG: the browser's checker runs on the editor's text when the setting says so (the
// `spellcheck` attribute of the editable root), never in code: code blocks, front matter, math and HTML blocks
// (`code` textblocks) and inline code say `spellcheck="false"`.
import type { Node } from "prosemirror-model";
import type { Plugin } from "prosemirror-state";
import { Decoration, type DecorationSet } from "prosemirror-view";
import { blockDecorations, inline } from "./pmblocks";
import { prefs } from "./prefs";

const NO_SPELL = { spellcheck: "false" };

function noSpellIn(block: Node, pos: number, out: Decoration[]): void {
  const visit = (node: Node, at: number): boolean => {
    if (node.isTextblock && node.type.spec.code) {
      out.push(Decoration.node(at, at + node.nodeSize, NO_SPELL));
      return false;
    }
    if (node.isText && node.marks.some((mark) => mark.type.name === "code")) out.push(inline(at, at + node.nodeSize, NO_SPELL));
    return true;
  };
  if (visit(block, pos)) block.descendants((node, offset) => visit(node, pos + 1 + offset));
}

/** The editable root's `spellcheck` (as the setting says) and the ranges that are never checked. */
export function spellPlugin(): Plugin<DecorationSet> {
  return blockDecorations("vmark-spellcheck", noSpellIn, {
    attributes: () => ({ spellcheck: prefs.spellcheck ? "true" : "false" }),
  });
}
