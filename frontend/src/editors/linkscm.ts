// Links in source mode (docs/links.md): wikilinks are a construct of the Markdown parse (a Lezer inline parser,
// the same matcher as WYSIWYG's), shown as links (unresolved ones apart); Ctrl+click on a link, an autolink,
// a reference definition or a wikilink follows it; hovering one says where it goes; `[[` completes the
// workspace's file names (Enter or Tab takes one, Escape closes the list).
import { acceptCompletion, autocompletion, type Completion, type CompletionContext, type CompletionResult } from "@codemirror/autocomplete";
import { syntaxTree } from "@codemirror/language";
import { EditorState, type Extension, Prec, RangeSetBuilder, StateEffect } from "@codemirror/state";
import { Decoration, type DecorationSet, EditorView, hoverTooltip, keymap, ViewPlugin, type ViewUpdate } from "@codemirror/view";
import type { SyntaxNode } from "@lezer/common";
import type { MarkdownConfig } from "@lezer/markdown";
import { el } from "../shared/dom";
import { followClick, followLink, hoverText, type LinkTarget, linkTarget, wikilinkTarget } from "./links";
import { MAX_INNER, matchWikilink, wikilinkTarget as targetOf } from "./mdsource/wikilink";
import { renderContext } from "../shared/renderctx";
import { onWorkspaceFiles, wikilinkOptions } from "./wikilinks";

/** The parse's wikilink: a `Wikilink` node (with its `WikilinkMark` brackets), tried before links. */
export const wikilinkSyntax: MarkdownConfig = {
  defineNodes: ["Wikilink", "WikilinkMark"],
  parseInline: [
    {
      name: "Wikilink",
      before: "Link",
      parse(cx, next, pos) {
        if (next !== 0x5b || cx.char(pos + 1) !== 0x5b) return -1;
        const text = cx.slice(pos, Math.min(cx.end, pos + MAX_INNER + 4));
        const found = matchWikilink(text, 0);
        if (!found) return -1;
        const end = pos + found.end;
        return cx.addElement(cx.elt("Wikilink", pos, end, [cx.elt("WikilinkMark", pos, pos + 2), cx.elt("WikilinkMark", end - 2, end)]));
      },
    },
  ],
};

/** Where nothing is a link: code and raw HTML. */
const CODE = new Set(["InlineCode", "FencedCode", "CodeBlock", "CodeText", "HTMLBlock", "HTMLTag", "Comment", "CommentBlock"]);

interface Found {
  from: number;
  to: number;
  target: LinkTarget;
}

/** The link at `pos` of the text (a wikilink, a link, an autolink, a reference definition), or null. */
export function linkAt(state: EditorState, pos: number): Found | null {
  const tree = syntaxTree(state);
  for (const side of [1, -1] as const) {
    for (let node: SyntaxNode | null = tree.resolveInner(pos, side); node; node = node.parent) {
      if (CODE.has(node.name)) return null;
      const target = targetOfNode(state, node);
      if (target) return { from: node.from, to: node.to, target };
    }
  }
  return null;
}

function targetOfNode(state: EditorState, node: SyntaxNode): LinkTarget | null {
  const text = (n: SyntaxNode) => state.sliceDoc(n.from, n.to);
  switch (node.name) {
    case "Wikilink": {
      const link = matchWikilink(text(node), 0);
      return link ? wikilinkTarget(targetOf(link), renderContext().docPath) : null;
    }
    case "Link":
    case "Autolink":
    case "LinkReference": {
      const url = node.getChild("URL");
      if (url) return linkTarget(destination(text(url)));
      if (node.name !== "Link") return null;
      // A reference link (`[text][label]`, `[label][]`, `[label]`): by the document's definition of its label.
      const [open, close] = node.getChildren("LinkMark");
      const label = node.getChild("LinkLabel");
      const named = label && label.to - label.from > 2 ? state.sliceDoc(label.from + 1, label.to - 1) : open && close ? state.sliceDoc(open.to, close.from) : "";
      const href = definition(state, named);
      return href === null ? null : linkTarget(destination(href));
    }
    default:
      return null;
  }
}

/** A destination as written (`<a b.md>`, `a\_b.md`) as the parse reads it. */
function destination(written: string): string {
  const bare = written.startsWith("<") && written.endsWith(">") ? written.slice(1, -1) : written;
  return bare.replace(/\\([!-/:-@[-`{-~])/g, "$1");
}

function normalLabel(label: string): string {
  return label.trim().replace(/\s+/g, " ").toLowerCase();
}

/** The destination the document's definition `[label]: ...` gives, or null. */
function definition(state: EditorState, label: string): string | null {
  const wanted = normalLabel(label);
  let found: string | null = null;
  syntaxTree(state).iterate({
    enter: (node) => {
      if (found !== null) return false;
      if (node.name !== "LinkReference") return node.name === "Document" || node.name === "Blockquote" || node.name.endsWith("List") || node.name === "ListItem";
      const name = node.node.getChild("LinkLabel");
      const url = node.node.getChild("URL");
      if (name && url && normalLabel(state.sliceDoc(name.from + 1, name.to - 1)) === wanted) found = state.sliceDoc(url.from, url.to);
      return false;
    },
  });
  return found;
}

// --- how wikilinks look ----------------------------------------------------------------------------------
const filesChanged = StateEffect.define<null>();

function wikilinkMarks(view: EditorView): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  const docPath = renderContext().docPath;
  for (const { from, to } of view.visibleRanges) {
    syntaxTree(view.state).iterate({
      from,
      to,
      enter: (node) => {
        if (node.name !== "Wikilink") return;
        const link = matchWikilink(view.state.sliceDoc(node.from, node.to), 0);
        if (!link) return;
        const target = wikilinkTarget(targetOf(link), docPath);
        const unresolved = target.kind === "wikilink" && target.path === null;
        builder.add(node.from, node.to, Decoration.mark({ class: unresolved ? "cm-wikilink cm-wikilink-unresolved" : "cm-wikilink" }));
      },
    });
  }
  return builder.finish();
}

const wikilinkLook = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet;
    private stop: () => void;

    constructor(view: EditorView) {
      this.decorations = wikilinkMarks(view);
      // The workspace's files came (or changed): whether each wikilink resolves may have changed.
      this.stop = onWorkspaceFiles(() => view.dispatch({ effects: filesChanged.of(null) }));
    }

    update(update: ViewUpdate): void {
      const refresh = update.transactions.some((tr) => tr.effects.some((e) => e.is(filesChanged)));
      if (refresh || update.docChanged || update.viewportChanged || syntaxTree(update.startState) !== syntaxTree(update.state)) {
        this.decorations = wikilinkMarks(update.view);
      }
    }

    destroy(): void {
      this.stop();
    }
  },
  { decorations: (plugin) => plugin.decorations },
);

// --- following and hovering --------------------------------------------------------------------------------
const follow = EditorView.domEventHandlers({
  mousedown(event, view) {
    if (!followClick(event)) return false;
    const pos = view.posAtCoords({ x: event.clientX, y: event.clientY }, false);
    const found = linkAt(view.state, pos);
    // The pointer is on the link's own characters (not past the end of its line).
    if (!found || !onText(view, pos, event)) return false;
    event.preventDefault(); // not a second cursor (CodeMirror's Ctrl+click)
    void followLink(found.target);
    return true;
  },
});

function onText(view: EditorView, pos: number, event: MouseEvent): boolean {
  const before = view.coordsAtPos(pos, -1);
  const after = view.coordsAtPos(pos, 1);
  const box = [before, after].filter((c) => c !== null);
  return box.some((c) => event.clientY >= c.top && event.clientY <= c.bottom && Math.abs(event.clientX - c.left) < 24);
}

const hover = hoverTooltip((view, pos) => {
  const found = linkAt(view.state, pos);
  if (!found) return null;
  return {
    pos: found.from,
    end: found.to,
    above: false,
    create: () => ({ dom: el("div", { class: "link-hover", "data-testid": "link-hover" }, hoverText(found.target)) }),
  };
});

// --- `[[` completion -----------------------------------------------------------------------------------------
function inCode(state: EditorState, pos: number): boolean {
  for (let node: SyntaxNode | null = syntaxTree(state).resolveInner(pos, -1); node; node = node.parent) if (CODE.has(node.name)) return true;
  return false;
}

/** The workspace's files for the `[[query` before the cursor (a `]]` after it is replaced too). */
function wikilinkCompletions(context: CompletionContext): CompletionResult | null {
  const line = context.state.doc.lineAt(context.pos);
  const before = line.text.slice(Math.max(0, context.pos - line.from - 200), context.pos - line.from);
  const match = /\[\[([^[\]|#`]*)$/.exec(before);
  if (!match || inCode(context.state, context.pos)) return null;
  const open = context.pos - match[0].length;
  const closing = line.text.slice(context.pos - line.from, context.pos - line.from + 2) === "]]" ? 2 : 0;
  const options: Completion[] = wikilinkOptions(match[1], renderContext().docPath, undefined, 50).map((option) => ({
    label: option.label,
    detail: option.detail,
    type: "file",
    apply: (view: EditorView, _completion: Completion, _from: number, to: number) => {
      const insert = `[[${option.insert}]]`;
      view.dispatch({ changes: { from: open, to: to + closing, insert }, selection: { anchor: open + insert.length }, userEvent: "input.complete" });
    },
  }));
  return { from: context.pos - match[1].length, options, filter: false };
}

/** Everything source mode does with links; `markdown({ extensions: [wikilinkSyntax] })` parses wikilinks. */
export function sourceLinks(): Extension {
  return [
    wikilinkLook,
    follow,
    hover,
    // `[[`: the completion of the file names (basicSetup's autocompletion asks every source the language has).
    EditorState.languageData.of(() => [{ autocomplete: wikilinkCompletions }]),
    Prec.highest(keymap.of([{ key: "Tab", run: acceptCompletion }])),
    // Enter takes the highlighted name at once (as WYSIWYG's list does), however soon after the list opened.
    autocompletion({ interactionDelay: 0 }),
  ];
}
