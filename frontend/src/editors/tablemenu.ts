// The table menu of WYSIWYG: right-click a cell, or press the ContextMenu key or Shift+F10 in one. A list of the
// table commands (tableactions.ts) with their keys; Up/Down/Home/End move, Enter or Space runs, Escape (or Tab,
// or a click elsewhere) closes it and gives the keys back to the text. What cannot be done here is shown greyed,
// with the reason as its tooltip.
import "./tablemenu.css";
import { Plugin, TextSelection } from "prosemirror-state";
import type { EditorView } from "prosemirror-view";
import { el, toast } from "../shared/dom";
import { live } from "../shared/live";
import { cellAt, insertTable, tableActionState, tableCommand, tablePlugins, type TableText } from "./mdsource/tables";
import { TABLE_ACTIONS, type TableAction } from "./tableactions";

/** Everything tables need in the editor: the commands' keys and the menu. Put it first among the plugins. */
export function tableEditing(text: () => TableText): Plugin[] {
  return [...tablePlugins(text, (reason) => toast(reason, "warning")), menuPlugin()];
}

/** Run a table command (the palette's way in): on the WYSIWYG view, where its selection is. */
export function runTableAction(action: TableAction | "insertTable" | "insertSmallTable"): void {
  const view = live.pm;
  if (!view) {
    toast("Table commands work in WYSIWYG mode: switch the tab to WYSIWYG first.", "warning");
    return;
  }
  if (!view.editable) {
    toast("This document is read-only.", "warning");
    return;
  }
  view.focus();
  if (action === "insertTable" || action === "insertSmallTable") {
    const size = action === "insertTable" ? 3 : 2;
    insertTable(size, size)(view.state, view.dispatch);
    return;
  }
  tableCommand(action)(view.state, view.dispatch);
}

let open: TableMenu | null = null;

function menuPlugin(): Plugin {
  return new Plugin({
    props: {
      handleDOMEvents: {
        contextmenu(view, event) {
          const target = event.target instanceof Element ? event.target : null;
          const cell = target?.closest("td, th");
          if (cell && view.dom.contains(cell)) {
            // A right click in another cell than the cursor's puts the cursor there first.
            const pos = view.posAtCoords({ left: event.clientX, top: event.clientY });
            const here = cellAt(view.state);
            if (pos && (!here || !cell.contains(view.domAtPos(view.state.selection.head).node))) {
              view.dispatch(view.state.tr.setSelection(TextSelection.near(view.state.doc.resolve(pos.pos))));
            }
            if (!cellAt(view.state) || !view.editable) return false;
            event.preventDefault();
            showMenu(view, event.clientX, event.clientY);
            return true;
          }
          // The ContextMenu key or Shift+F10: the event comes to the editor itself.
          if (target === view.dom && cellAt(view.state) && view.editable) {
            event.preventDefault();
            if (!open) showAtCaret(view);
            return true;
          }
          return false;
        },
      },
      handleKeyDown(view, event) {
        const asked = event.key === "ContextMenu" || (event.key === "F10" && event.shiftKey && !event.ctrlKey && !event.altKey && !event.metaKey);
        if (!asked || !cellAt(view.state) || !view.editable) return false;
        showAtCaret(view);
        return true;
      },
    },
    view: () => ({ destroy: () => open?.close(false) }),
  });
}

function showAtCaret(view: EditorView): void {
  const at = view.coordsAtPos(view.state.selection.head);
  showMenu(view, at.left, at.bottom + 2);
}

function showMenu(view: EditorView, x: number, y: number): void {
  open?.close(false);
  open = new TableMenu(view);
  open.show(x, y);
}

class TableMenu {
  private root: HTMLElement;
  private items: HTMLButtonElement[] = [];
  private onOutside = (event: Event): void => {
    if (!this.root.contains(event.target as globalThis.Node)) this.close(false);
  };

  constructor(private view: EditorView) {
    this.root = el("div", { class: "table-menu", role: "menu", "aria-label": "Table", "data-testid": "table-menu", tabindex: "-1" });
    let section = "";
    for (const spec of TABLE_ACTIONS) {
      if (section && spec.section !== section) this.root.append(el("div", { class: "table-menu-sep", role: "separator" }));
      section = spec.section;
      const allowed = tableActionState(view.state, spec.action);
      const item = el(
        "button",
        { type: "button", role: "menuitem", class: "table-menu-item", tabindex: "-1", "data-action": spec.action },
        el("span", { class: "table-menu-label" }, spec.label),
      );
      if (spec.keys) item.append(el("kbd", {}, spec.keys));
      if (allowed !== true) {
        item.setAttribute("aria-disabled", "true");
        item.title = allowed;
      }
      item.addEventListener("click", () => this.run(spec.action, item));
      this.items.push(item);
      this.root.append(item);
    }
    this.root.addEventListener("keydown", (event) => this.onKey(event));
    // The keyboard's own context menu event follows the key: not the browser's menu over ours.
    this.root.addEventListener("contextmenu", (event) => event.preventDefault());
  }

  show(x: number, y: number): void {
    document.body.append(this.root);
    const { innerWidth, innerHeight } = window;
    const box = this.root.getBoundingClientRect();
    this.root.style.left = `${Math.max(4, Math.min(x, innerWidth - box.width - 4))}px`;
    this.root.style.top = `${Math.max(4, y + box.height > innerHeight - 4 ? y - box.height : y)}px`;
    document.addEventListener("pointerdown", this.onOutside, true);
    this.enabled()[0]?.focus();
  }

  close(refocus: boolean): void {
    document.removeEventListener("pointerdown", this.onOutside, true);
    this.root.remove();
    if (open === this) open = null;
    if (refocus) this.view.focus();
  }

  private enabled(): HTMLButtonElement[] {
    return this.items.filter((item) => item.getAttribute("aria-disabled") !== "true");
  }

  private run(action: TableAction, item: HTMLButtonElement): void {
    if (item.getAttribute("aria-disabled") === "true") return;
    this.close(true);
    tableCommand(action)(this.view.state, this.view.dispatch);
  }

  private onKey(event: KeyboardEvent): void {
    const items = this.enabled();
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    const move = (to: number): void => {
      event.preventDefault();
      items[(to + items.length) % items.length]?.focus();
    };
    switch (event.key) {
      case "ArrowDown":
        return move(at + 1);
      case "ArrowUp":
        return move(at < 0 ? -1 : at - 1);
      case "Home":
        return move(0);
      case "End":
        return move(items.length - 1);
      case "Escape":
      case "Tab":
        event.preventDefault();
        event.stopPropagation();
        return this.close(true);
      case "Enter":
      case " ": {
        event.preventDefault();
        const item = items[at];
        const action = item?.dataset.action as TableAction | undefined;
        if (item && action) this.run(action, item);
        return;
      }
      default:
        // A letter goes to the first item whose label starts with it (after the focused one).
        if (event.key.length === 1 && !event.ctrlKey && !event.altKey && !event.metaKey) {
          const key = event.key.toLowerCase();
          const order = [...items.slice(at + 1), ...items.slice(0, at + 1)];
          const hit = order.find((i) => i.textContent?.trim().toLowerCase().startsWith(key));
          if (hit) {
            event.preventDefault();
            hit.focus();
          }
        }
    }
  }
}
