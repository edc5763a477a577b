// The block menu of WYSIWYG: `/` typed at the start of an empty paragraph lists the blocks it can become. Typing
// filters it, the arrows move, Enter (or a click) makes the block (the `/` and the filter go), Escape leaves the
// `/` as text. Others add their blocks with `registerSlashItem` (a table, for one).
import { type EditorState, Plugin, PluginKey } from "prosemirror-state";
import type { EditorView } from "prosemirror-view";
import { setHidden } from "../shared/dom";
import { TABLE_BLOCK } from "./mdsource/tables";
import { BLOCK } from "./mdsource/writing";
import { BLOCK_COMMANDS, type BlockCommandId } from "./writingkeys";

export interface SlashItem {
  id: string;
  label: string;
  /** More words the filter finds it by. */
  keywords?: string;
  /** Make the block where the cursor is (an empty paragraph, the `/` already gone); false if it cannot. */
  run: (view: EditorView) => boolean;
}

const items: SlashItem[] = [];

/** Add a block to the menu (its place: after the built-in ones, in the order added). */
export function registerSlashItem(item: SlashItem): void {
  const at = items.findIndex((i) => i.id === item.id);
  if (at >= 0) items.splice(at, 1, item);
  else items.push(item);
}

const WORDS: Partial<Record<BlockCommandId, string>> = {
  heading1: "title h1",
  heading2: "h2 section",
  heading3: "h3",
  bullet: "ul unordered",
  ordered: "ol numbered",
  task: "todo checkbox checklist",
  quote: "blockquote",
  code: "fence pre",
  math: "latex tex equation formula",
  rule: "divider hr horizontal line separator",
};

for (const spec of BLOCK_COMMANDS) {
  if (spec.id === "leave" || spec.id === "paragraph" || spec.id === "heading4" || spec.id === "heading5" || spec.id === "heading6") continue;
  registerSlashItem({
    id: spec.id,
    label: spec.action.replace(" (horizontal rule)", ""),
    keywords: WORDS[spec.id],
    run: (view) => BLOCK[spec.id](view.state, view.dispatch, view),
  });
}

registerSlashItem({
  id: TABLE_BLOCK.id,
  label: TABLE_BLOCK.label,
  keywords: TABLE_BLOCK.keywords.join(" "),
  run: (view) => TABLE_BLOCK.command(view.state, view.dispatch, view),
});

interface MenuState {
  /** Where the `/` is; null: the menu is closed. */
  from: number | null;
  query: string;
  index: number;
}

const key = new PluginKey<MenuState>("vmark-slash");
const CLOSED: MenuState = { from: null, query: "", index: 0 };

/** The items whose label or keywords hold every word of the query. */
export function matchingItems(query: string): SlashItem[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return items.filter((item) => {
    const hay = `${item.label} ${item.keywords ?? ""}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

function menuState(state: EditorState): MenuState {
  return key.getState(state) ?? CLOSED;
}

/** The text after the `/` while the cursor is still in its paragraph, right after it (else null: the menu closes). */
function queryAt(state: EditorState, from: number): string | null {
  const { $head, empty } = state.selection;
  if (!empty || from < 0 || from >= state.doc.content.size) return null;
  const $from = state.doc.resolve(from);
  if ($head.parent !== $from.parent || $from.parentOffset !== 0) return null;
  const text = $head.parent.textBetween(0, $head.parentOffset);
  if (!text.startsWith("/") || $head.parentOffset !== $head.parent.content.size) return null;
  const query = text.slice(1);
  return query.length > 40 || query.includes("  ") ? null : query;
}

function choose(view: EditorView, item: SlashItem): void {
  const { from, query } = menuState(view.state);
  if (from === null) return;
  // The `/` and the filter go first (the paragraph is empty again), then the block is made there.
  view.dispatch(view.state.tr.delete(from, from + 1 + query.length).setMeta(key, CLOSED));
  item.run(view);
  view.focus();
}

export function slashMenuPlugin(): Plugin<MenuState> {
  return new Plugin<MenuState>({
    key,
    state: {
      init: () => CLOSED,
      apply(tr, value, _old, state) {
        const meta = tr.getMeta(key) as MenuState | undefined;
        if (meta) return meta;
        if (value.from === null) return value;
        const from = tr.mapping.map(value.from, -1);
        const query = queryAt(state, from);
        if (query === null) return CLOSED;
        const index = query === value.query ? value.index : 0;
        return { from, query, index };
      },
    },
    props: {
      handleTextInput(view, from, to, text) {
        if (text !== "/" || from !== to) return false;
        const $from = view.state.doc.resolve(from);
        if ($from.parent.type.name !== "paragraph" || $from.parent.content.size !== 0) return false;
        view.dispatch(view.state.tr.insertText("/", from).setMeta(key, { from, query: "", index: 0 }));
        return true;
      },
      handleKeyDown(view, event) {
        const menu = menuState(view.state);
        if (menu.from === null) return false;
        const shown = matchingItems(menu.query);
        const move = (index: number): boolean => {
          view.dispatch(view.state.tr.setMeta(key, { ...menu, index }));
          return true;
        };
        if (event.key === "ArrowDown") return move(shown.length ? (menu.index + 1) % shown.length : 0);
        if (event.key === "ArrowUp") return move(shown.length ? (menu.index - 1 + shown.length) % shown.length : 0);
        if (event.key === "Escape") {
          view.dispatch(view.state.tr.setMeta(key, CLOSED));
          return true;
        }
        if (event.key === "Enter" || event.key === "Tab") {
          const item = shown[menu.index];
          if (!item) {
            view.dispatch(view.state.tr.setMeta(key, CLOSED));
            return event.key === "Tab";
          }
          choose(view, item);
          return true;
        }
        return false;
      },
    },
    view: (view) => new MenuView(view),
  });
}

class MenuView {
  private dom: HTMLElement;

  constructor(private view: EditorView) {
    this.dom = document.createElement("div");
    this.dom.className = "slash-menu";
    this.dom.setAttribute("role", "listbox");
    this.dom.setAttribute("aria-label", "Insert a block");
    this.dom.hidden = true;
    document.body.append(this.dom);
    this.update(view);
  }

  update(view: EditorView): void {
    this.view = view;
    const menu = menuState(view.state);
    if (menu.from === null) {
      setHidden(this.dom, true);
      return;
    }
    const shown = matchingItems(menu.query);
    this.dom.replaceChildren();
    if (shown.length === 0) {
      const none = document.createElement("div");
      none.className = "slash-empty";
      none.textContent = "No block matches";
      this.dom.append(none);
    }
    shown.forEach((item, k) => {
      const row = document.createElement("div");
      row.className = "slash-item";
      row.setAttribute("role", "option");
      row.setAttribute("aria-selected", String(k === menu.index));
      row.dataset.id = item.id;
      row.textContent = item.label;
      row.addEventListener("mousedown", (event) => {
        event.preventDefault();
        choose(this.view, item);
      });
      this.dom.append(row);
    });
    const coords = view.coordsAtPos(menu.from);
    this.dom.style.left = `${Math.round(coords.left + window.scrollX)}px`;
    this.dom.style.top = `${Math.round(coords.bottom + window.scrollY + 4)}px`;
    this.dom.hidden = false;
  }

  destroy(): void {
    this.dom.remove();
  }
}
