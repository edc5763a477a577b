// Whether a KeyboardEditor's view is true to its text (the writing tests' check after every key): the blocks the view
// shows are the blocks its text parses to, whole.
import type { Node } from "prosemirror-model";
import { sameShown, SourceDoc } from "../src/editors/mdsource/sourcedoc";
import type { KeyboardEditor } from "./keyboard";
import * as lazy from "./lazyassert";
import { blockList } from "./viewblocks";

/** The blocks the view shows; two lists of a kind and marker with empty paragraphs between read as one until typed in. */
function shown(doc: Node): Node[] {
  const nodes: Node[] = [];
  let skipped = false;
  blockList(doc).forEach((child) => {
    if (child.type.name === "paragraph" && child.childCount === 0) {
      skipped = true;
      return;
    }
    const last = nodes[nodes.length - 1];
    if (skipped && last && last.type === child.type && /_list$/.test(child.type.name) && last.attrs.markup === child.attrs.markup) nodes[nodes.length - 1] = last.copy(last.content.append(child.content));
    else nodes.push(child);
    skipped = false;
  });
  return nodes;
}

/**
 * What `text` parses to, whole, as `shown` has it. The last text's answer is kept: a key that leaves the text as it
 * was (an arrow, Home, a command with nothing to do) needs no parse of a whole corpus file again.
 */
let lastParsed: { text: string; blocks: Node[] } | null = null;
function parsedShown(text: string): Node[] {
  if (lastParsed?.text !== text) lastParsed = { text, blocks: shown(new SourceDoc(text).doc()) };
  return lastParsed.blocks;
}

/** The view shows what its text parses to. */
export function assertTrue(editor: KeyboardEditor, label: () => string = () => ""): void {
  const view = shown(editor.state.doc);
  const parsed = parsedShown(editor.text);
  lazy.equal(view.length, parsed.length, () => `${label()}: the text ${JSON.stringify(editor.text)} parses to ${parsed.length} blocks, the view shows ${view.length}`);
  view.forEach((node, k) => lazy.ok(sameShown(node, parsed[k]), () => `${label()}: block ${k} of ${JSON.stringify(editor.text)}: view ${node} parse ${parsed[k]}`));
}
