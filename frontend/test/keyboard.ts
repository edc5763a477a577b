// A ProseMirror editor over a SourceDoc in Node, driven by key names as the page's keymaps see them (no DOM): the
// writing commands' unit of test. What the page adds (rendering, composition) is the Chromium suite's.
import { baseKeymap } from "prosemirror-commands";
import { history } from "prosemirror-history";
import { keymap } from "prosemirror-keymap";
import type { Node } from "prosemirror-model";
import { EditorState, type Plugin, TextSelection, type Transaction } from "prosemirror-state";
import type { EditorView } from "prosemirror-view";
import { sectionsPlugin } from "../src/editors/mdsource/sections";
import { registerSourceDoc } from "../src/editors/mdsource/sourceedit";
import { SOURCE_SPLICE, SourceDoc, type Span } from "../src/editors/mdsource/sourcedoc";
import { writingPlugins } from "../src/editors/mdsource/writing";

/** Every position inside a textblock of `doc` (where a cursor can be). */
export function textPositions(doc: Node): number[] {
  const positions: number[] = [];
  doc.descendants((node, pos) => {
    if (!node.isTextblock) return true;
    for (let k = 0; k <= node.content.size; k++) positions.push(pos + 1 + k);
    return false;
  });
  return positions;
}

/** `textPositions(doc)[choice % count]` without making the list (tens of thousands in a corpus file); null when there is none. */
export function textPositionAt(doc: Node, choice: number): number | null {
  let count = 0;
  _eachTextblock(doc, (node) => {
    count += node.content.size + 1;
  });
  if (count === 0) return null;
  let rest = choice % count;
  let found = -1;
  _eachTextblock(doc, (node, pos) => {
    if (found >= 0) return;
    if (rest <= node.content.size) found = pos + 1 + rest;
    else rest -= node.content.size + 1;
  });
  return found;
}

function _eachTextblock(doc: Node, f: (node: Node, pos: number) => void): void {
  doc.descendants((node, pos) => {
    if (!node.isTextblock) return true;
    f(node, pos);
    return false;
  });
}

/**
 * The editor's plugins, made once for every editor of a test file: each keeps what it knows in the state or asks the
 * view, never in itself, so editors can share them (a spec test makes thousands of editors; making the keymaps
 * again for each was a tenth of its time).
 */
let _plugins: Plugin[] | null = null;

export class KeyboardEditor {
  state: EditorState;
  source: SourceDoc;
  readonly editable = true;
  readonly composing = false;

  constructor(text: string) {
    this.source = new SourceDoc(text);
    _plugins ??= [sectionsPlugin(), history(), ...writingPlugins(), keymap(baseKeymap)];
    this.state = EditorState.create({ doc: this.source.doc(), plugins: _plugins });
    registerSourceDoc(this as unknown as EditorView, () => this.source);
  }

  get view(): EditorView {
    return this as unknown as EditorView;
  }

  dispatch = (tr: Transaction): void => {
    const before = this.state;
    let state = before.apply(tr);
    if (tr.docChanged) {
      const change = this.source.personEdit(before.doc, state.doc, (tr.getMeta(SOURCE_SPLICE) as Span | undefined) ?? null);
      if (change?.adopt) {
        const doc = this.source.doc();
        const at = Math.min(state.selection.head, doc.content.size);
        state = EditorState.create({ doc, plugins: state.plugins, selection: TextSelection.near(doc.resolve(at)) });
      }
    }
    this.state = state;
  };

  focus(): void {}

  /** As a view answers it for a cursor without line wrapping: at the textblock's start or end. */
  endOfTextblock(dir: string): boolean {
    const { $head } = this.state.selection;
    return dir === "backward" || dir === "left" || dir === "up" ? $head.parentOffset === 0 : $head.parentOffset === $head.parent.content.size;
  }

  get text(): string {
    return this.source.text;
  }

  /** Put the cursor after the `nth` occurrence of `needle` in the view's text (or at a view position). */
  cursorAfter(needle: string, nth = 0): this {
    let found = -1;
    let count = 0;
    this.state.doc.descendants((node, pos) => {
      if (found >= 0 || !node.isText) return found < 0;
      let at = (node.text ?? "").indexOf(needle);
      while (at >= 0) {
        if (count++ === nth) {
          found = pos + at + needle.length;
          return false;
        }
        at = (node.text ?? "").indexOf(needle, at + 1);
      }
      return true;
    });
    if (found < 0) throw new Error(`no ${JSON.stringify(needle)} in the view`);
    return this.cursorAt(found);
  }

  cursorAt(pos: number): this {
    this.dispatch(this.state.tr.setSelection(TextSelection.create(this.state.doc, pos)));
    return this;
  }

  /** Type characters, each through the plugins' text input handlers as the view does. */
  type(text: string): this {
    for (const ch of Array.from(text)) {
      const { from, to } = this.state.selection;
      const handled = this.state.plugins.some((p: Plugin) => (p.props.handleTextInput as ((v: EditorView, f: number, t: number, s: string) => boolean) | undefined)?.call(p, this.view, from, to, ch));
      if (!handled) this.dispatch(this.state.tr.insertText(ch, from, to));
    }
    return this;
  }

  /** Press a key ("Enter", "Shift-Enter", "Mod-z", "Backspace", "Tab", "Ctrl-Digit1"...). */
  press(name: string): this {
    const parts = name.split("-");
    const base = parts[parts.length - 1];
    const mods = new Set(parts.slice(0, -1));
    const code = /^Digit\d$|^Key[A-Z]$/.test(base) ? base : "";
    const key = code.startsWith("Digit") ? code.slice(5) : code.startsWith("Key") ? code.slice(3).toLowerCase() : base;
    const event = {
      key,
      code,
      keyCode: 0,
      ctrlKey: mods.has("Mod") || mods.has("Ctrl"),
      metaKey: false,
      altKey: mods.has("Alt"),
      shiftKey: mods.has("Shift"),
      preventDefault() {},
    } as unknown as KeyboardEvent;
    for (const p of this.state.plugins) {
      const handler = p.props.handleKeyDown as ((v: EditorView, e: KeyboardEvent) => boolean) | undefined;
      if (handler?.call(p, this.view, event)) return this;
    }
    if (base === "ArrowLeft" || base === "ArrowRight") {
      const { $head } = this.state.selection;
      const to = $head.pos + (base === "ArrowLeft" ? -1 : 1);
      const target = TextSelection.near(this.state.doc.resolve(Math.max(0, Math.min(to, this.state.doc.content.size))), base === "ArrowLeft" ? -1 : 1);
      this.dispatch(this.state.tr.setSelection(target));
    }
    if (base === "Home") this.cursorAt(this.state.selection.$head.start());
    if (base === "End") this.cursorAt(this.state.selection.$head.end());
    if (base === "Backspace") {
      const { from, to, empty } = this.state.selection;
      if (!empty) this.dispatch(this.state.tr.delete(from, to));
      else if (this.state.selection.$head.parentOffset > 0) this.dispatch(this.state.tr.delete(from - 1, from));
    }
    return this;
  }
}
