// Links in WYSIWYG (docs/links.md): Ctrl+click follows a link, an autolink or a wikilink; hovering one shows
// where it goes; a wikilink shows whether its file exists; `[[` offers the workspace's files.
//
// A wikilink is a `raw_inline` atom (kind "wikilink") whose `raw` is its source, written back byte for byte.
// The completion and a typed closing `]]` put such an atom in place of the characters typed, naming the exact
// splice of the text (SOURCE_SPLICE): `[[` + the name + `]]`, nothing escaped, nothing else touched.
import type { Node } from "prosemirror-model";
import { type EditorState, Plugin, PluginKey, TextSelection, type Transaction } from "prosemirror-state";
import type { EditorView, NodeView } from "prosemirror-view";
import { el } from "../shared/dom";
import { followClick, followLink, hoverText, type LinkTarget, linkTarget, wikilinkTarget } from "./links";
import { schema } from "./mdsource/schema";
import { SOURCE_SPLICE } from "./mdsource/sourcedoc";
import { matchWikilink, wikilinkLabel, wikilinkTarget as targetOf } from "./mdsource/wikilink";
import { renderContext, sourceOffset, sourceSlice } from "../shared/renderctx";
import { onWorkspaceFiles, type WikilinkOption, wikilinkOptions } from "./wikilinks";

/** A wikilink atom for `raw` (`[[...]]`), with the attributes the parse gives it (or null: not a wikilink). */
export function wikilinkNode(raw: string): Node | null {
  const link = matchWikilink(raw, 0);
  if (!link || link.end !== raw.length) return null;
  return schema.nodes.raw_inline.create({ kind: "wikilink", raw, href: targetOf(link), text: wikilinkLabel(link) });
}

/** A wikilink as shown: a link, marked `data-state="unresolved"` while no workspace file has its name. */
export class WikilinkView implements NodeView {
  dom: HTMLElement;
  private stop: () => void;

  constructor(node: Node) {
    const target = String(node.attrs.href);
    this.dom = el("a", { class: "md-wikilink", "data-target": target, "data-raw": String(node.attrs.raw) }, String(node.attrs.text));
    this.mark(target);
    this.stop = onWorkspaceFiles(() => this.mark(target));
  }

  private mark(target: string): void {
    const resolved = wikilinkTarget(target, renderContext().docPath);
    this.dom.dataset.state = resolved.kind === "wikilink" && resolved.path === null ? "unresolved" : "resolved";
  }

  ignoreMutation(): boolean {
    return true;
  }

  destroy(): void {
    this.stop();
  }
}

/** What the link element under the pointer names, or null. */
function targetAt(view: EditorView, element: EventTarget | null): { anchor: HTMLElement; target: LinkTarget } | null {
  if (!(element instanceof Element)) return null;
  const anchor = element.closest<HTMLElement>("a");
  if (!anchor || !view.dom.contains(anchor)) return null;
  if (anchor.classList.contains("md-wikilink")) return { anchor, target: wikilinkTarget(anchor.dataset.target ?? "", renderContext().docPath) };
  const href = anchor.getAttribute("href");
  return href === null ? null : { anchor, target: linkTarget(href) };
}

// --- hover -------------------------------------------------------------------------------------------------
/** The one hover card of WYSIWYG links (source mode uses CodeMirror's hover tooltips, with the same words). */
class HoverCard {
  private card: HTMLElement | null = null;
  private over: HTMLElement | null = null;

  show(anchor: HTMLElement, text: string): void {
    this.over = anchor;
    this.card ??= el("div", { class: "link-hover link-hover-card", role: "tooltip", "data-testid": "link-hover" });
    this.card.textContent = text;
    if (!this.card.isConnected) document.body.append(this.card);
    const box = anchor.getBoundingClientRect();
    const width = Math.min(this.card.offsetWidth, window.innerWidth - 16);
    this.card.style.setProperty("left", `${Math.max(8, Math.min(box.left, window.innerWidth - width - 8))}px`);
    this.card.style.setProperty("top", `${box.bottom + 4}px`);
  }

  hide(anchor?: HTMLElement): void {
    if (anchor && anchor !== this.over) return;
    this.over = null;
    this.card?.remove();
  }
}

// --- `[[` completion -----------------------------------------------------------------------------------------
interface Typing {
  /** Where `[[` starts, and the cursor (after the query). */
  from: number;
  to: number;
  query: string;
  /** A `]]` right after the cursor (it goes too: the completion writes its own). */
  closing: boolean;
}

const OPEN = /\[\[([^[\]|#`\n\ufffc]*)$/;

/** The `[[query` the cursor is at the end of, outside code, or null. */
function typingAt(state: EditorState): Typing | null {
  const { selection } = state;
  if (!selection.empty || !(selection instanceof TextSelection)) return null;
  const $at = selection.$from;
  if ($at.parent.type.spec.code || !$at.parent.inlineContent) return null;
  if ($at.marks().some((m) => m.type === schema.marks.code)) return null;
  const start = Math.max(0, $at.parentOffset - 200);
  const before = $at.parent.textBetween(start, $at.parentOffset, undefined, "\ufffc");
  const match = OPEN.exec(before);
  if (!match) return null;
  const after = $at.parent.textBetween($at.parentOffset, Math.min($at.parent.content.size, $at.parentOffset + 2), undefined, "\ufffc");
  return { from: $at.pos - match[0].length, to: $at.pos, query: match[1], closing: after === "]]" };
}

/** The transaction that puts the wikilink atom `raw` over `from..to`, naming its splice where it can. */
function insertWikilink(view: EditorView, from: number, to: number, raw: string): Transaction | null {
  const node = wikilinkNode(raw);
  if (!node) return null;
  const tr = view.state.tr.replaceWith(from, to, node);
  tr.setSelection(TextSelection.create(tr.doc, from + node.nodeSize));
  // The characters replaced are text typed as it is: their source ends where the cursor's does.
  const end = sourceOffset(view, to);
  const start = end === null ? null : end - (to - from);
  if (start !== null && end !== null && start >= 0 && sourceSlice(view, start, end) === view.state.doc.textBetween(from, to)) {
    tr.setMeta(SOURCE_SPLICE, { from: start, to: end, insert: raw });
  }
  return tr;
}

class Completion {
  readonly list: HTMLElement;
  private options: WikilinkOption[] = [];
  private index = 0;
  private typing: Typing | null = null;
  /** Escape closed the list for this `[[` and query (typing on opens it again). */
  private dismissed: { from: number; query: string } | null = null;

  constructor(private view: EditorView) {
    this.list = el("ul", { class: "wikilink-complete", role: "listbox", "aria-label": "Files", "data-testid": "wikilink-complete" });
    this.list.addEventListener("mousedown", (event) => event.preventDefault());
  }

  get open(): boolean {
    return this.list.isConnected;
  }

  update(): void {
    const typing = this.view.hasFocus() || this.open ? typingAt(this.view.state) : null;
    if (this.dismissed && (typing?.from !== this.dismissed.from || typing.query !== this.dismissed.query)) this.dismissed = null;
    if (!typing || this.dismissed) {
      this.close();
      return;
    }
    const changed = typing.query !== this.typing?.query || typing.from !== this.typing?.from;
    this.typing = typing;
    if (changed) {
      this.options = wikilinkOptions(typing.query, renderContext().docPath, undefined, 30);
      this.index = 0;
    }
    if (this.options.length === 0) {
      this.close();
      return;
    }
    this.render();
  }

  private render(): void {
    this.list.replaceChildren(
      ...this.options.map((option, k) => {
        const item = el(
          "li",
          { role: "option", class: "wikilink-option", "aria-selected": String(k === this.index), id: `wikilink-option-${k}` },
          el("span", { class: "wikilink-option-label" }, option.label),
          el("span", { class: "wikilink-option-detail" }, option.detail),
        );
        item.addEventListener("click", () => this.accept(k));
        return item;
      }),
    );
    if (!this.list.isConnected) document.body.append(this.list);
    const at = this.view.coordsAtPos(this.typing?.from ?? this.view.state.selection.from);
    this.list.style.setProperty("left", `${Math.max(8, Math.min(at.left, window.innerWidth - this.list.offsetWidth - 8))}px`);
    const below = at.bottom + 4;
    const fits = below + this.list.offsetHeight < window.innerHeight;
    this.list.style.setProperty("top", `${fits ? below : Math.max(8, at.top - this.list.offsetHeight - 4)}px`);
    this.list.querySelector("[aria-selected=true]")?.scrollIntoView({ block: "nearest" });
  }

  close(): void {
    this.list.remove();
    this.typing = null;
  }

  /** A key while the list is open: answers whether it was the list's. */
  key(event: KeyboardEvent): boolean {
    if (!this.open || event.ctrlKey || event.metaKey || event.altKey) return false;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      const count = this.options.length;
      this.index = (this.index + (event.key === "ArrowDown" ? 1 : -1) + count) % count;
      this.render();
      return true;
    }
    if (event.key === "Enter" || event.key === "Tab") {
      this.accept(this.index);
      return true;
    }
    if (event.key === "Escape") {
      this.dismissed = this.typing ? { from: this.typing.from, query: this.typing.query } : null;
      this.close();
      return true;
    }
    return false;
  }

  private accept(index: number): void {
    const typing = typingAt(this.view.state);
    const option = this.options[index];
    this.close();
    if (!typing || !option) return;
    const tr = insertWikilink(this.view, typing.from, typing.to + (typing.closing ? 2 : 0), `[[${option.insert}]]`);
    if (tr) this.view.dispatch(tr.scrollIntoView());
    this.view.focus();
  }
}

// --- the plugin ---------------------------------------------------------------------------------------------
const key = new PluginKey("vmark-links");

/** Following, hovering and completing links in WYSIWYG. */
export function linkPlugin(): Plugin {
  const card = new HoverCard();
  let completion: Completion | null = null;
  return new Plugin({
    key,
    view(view) {
      completion = new Completion(view);
      return {
        update: () => completion?.update(),
        destroy: () => {
          completion?.close();
          card.hide();
        },
      };
    },
    props: {
      // A typed "]" that closes `[[name]`: the wikilink, as typed, becomes the atom.
      handleTextInput(view, from, to, text) {
        if (text !== "]" || from !== to) return false;
        const $at = view.state.doc.resolve(from);
        if ($at.parent.type.spec.code || $at.marks().some((m) => m.type === schema.marks.code)) return false;
        const before = $at.parent.textBetween(Math.max(0, $at.parentOffset - 1100), $at.parentOffset, undefined, "\ufffc");
        const open = before.lastIndexOf("[[");
        if (open < 0 || !before.endsWith("]")) return false;
        const raw = `${before.slice(open)}]`;
        if (raw.includes("\ufffc")) return false; // an atom inside: not one wikilink
        const start = from - (before.length - open);
        const tr = insertWikilink(view, start, from, raw);
        if (!tr) return false;
        view.dispatch(tr.scrollIntoView());
        return true;
      },
      handleDOMEvents: {
        mousedown(view, event) {
          if (!followClick(event)) return false;
          const found = targetAt(view, event.target);
          if (!found) return false;
          event.preventDefault(); // no selection change, no browser navigation
          card.hide();
          void followLink(found.target);
          return true;
        },
        click(view, event) {
          // The browser's own handling of a link in the page (a new tab of the app's address) never happens.
          if (targetAt(view, event.target)) event.preventDefault();
          return false;
        },
        mouseover(view, event) {
          const found = targetAt(view, event.target);
          if (found) card.show(found.anchor, hoverText(found.target));
          return false;
        },
        mouseout(view, event) {
          const found = targetAt(view, event.target);
          if (found && !(event.relatedTarget instanceof globalThis.Node && found.anchor.contains(event.relatedTarget))) card.hide(found.anchor);
          return false;
        },
        // Before any keymap (the list's Enter and Tab are not a new paragraph or an indent).
        keydown: (_view, event) => {
          card.hide();
          if (!completion?.key(event)) return false;
          event.preventDefault();
          return true;
        },
      },
    },
  });
}
