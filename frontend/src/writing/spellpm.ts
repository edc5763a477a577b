// Spelling in WYSIWYG: the browser's checker runs on the editor's text when the setting says so (the
// `spellcheck` attribute of the editable root), never in code: code blocks, front matter, math and HTML blocks
// (`code` textblocks) and inline code say `spellcheck="false"`. The textblocks say it in their node views
// (mdsource/views.ts, rich.ts): a node decoration on each of a long document's code blocks would sit on the
// document itself, which the view reads through once per top-level block on every update.
import type { Node } from "prosemirror-model";
import type { Plugin } from "prosemirror-state";
import type { Decoration } from "prosemirror-view";
import { blockDecorations, inline } from "./pmblocks";
import { prefs } from "./prefs";

const NO_SPELL = { spellcheck: "false" };

function noSpellIn(block: Node, pos: number, out: Decoration[]): void {
  const visit = (node: Node, at: number): boolean => {
    if (node.isTextblock && node.type.spec.code) return false; // its node view says so
    if (node.isText && node.marks.some((mark) => mark.type.name === "code")) out.push(inline(at, at + node.nodeSize, NO_SPELL));
    return true;
  };
  if (visit(block, pos)) block.descendants((node, offset) => visit(node, pos + 1 + offset));
}

/** The editable root's `spellcheck` (as the setting says) and the ranges that are never checked. */
export function spellPlugin(): Plugin {
  return blockDecorations("vmark-spellcheck", noSpellIn, {
    attributes: () => ({ spellcheck: prefs.spellcheck ? "true" : "false" }),
  });
}
