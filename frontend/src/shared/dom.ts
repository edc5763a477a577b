// Small DOM helpers: no framework, no inline styles or scripts (the page's CSP forbids them).
import { errorText } from "./protocol";

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`missing #${id}`);
  return el as T;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "class") node.className = value;
    else node.setAttribute(name, value);
  }
  node.append(...children);
  return node;
}

// Writes that leave the DOM alone when it already shows the value. A write of the same text still replaces the
// element's text node, and the same attribute still invalidates its style: in a frame of their own (a status
// bar refreshed after a key, the page's controls after the app's answer) the browser then lays out and
// re-checks every block of a long WYSIWYG document (its `content-visibility` observer, the hover hit test, paint).
export function setText(node: HTMLElement, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

export function setHidden(node: HTMLElement, hidden: boolean): void {
  if (node.hidden !== hidden) node.hidden = hidden;
}

/** An attribute set to `value`, or removed (null). */
export function setAttr(node: Element, name: string, value: string | null): void {
  if (node.getAttribute(name) === value) return;
  if (value === null) node.removeAttribute(name);
  else node.setAttribute(name, value);
}

const TOAST_MS = 8000;

export function toast(message: string, level = "info"): HTMLElement {
  const item = el("div", { class: `toast ${level}`, role: "status", "data-level": level }, message);
  byId("toasts").append(item);
  window.setTimeout(() => item.remove(), TOAST_MS);
  return item;
}

/** Run what a click asked for; a failure becomes an error toast (nothing a person does throws). */
export async function act(job: () => Promise<unknown>): Promise<void> {
  try {
    await job();
  } catch (err) {
    showError(err);
  }
}

/** The toggle button (`NAME-toggle`) and the hidden sidebar (`aside#NAME`, titled by `#NAME-title`) of a panel
 * that builds its own. */
export function sidebarParts(name: string, label: string, title: string): { toggle: HTMLButtonElement; panel: HTMLElement } {
  return {
    toggle: el("button", { id: `${name}-toggle`, type: "button", title, "aria-pressed": "false" }, label),
    panel: el("aside", { id: name, class: `${name}-panel`, "data-testid": name, "aria-labelledby": `${name}-title`, hidden: "" }),
  };
}

/** Show or hide a side panel, its toggle button pressed while it shows; true when it shows now. */
export function toggleSidebar(panel: HTMLElement, button: HTMLElement): boolean {
  panel.hidden = !panel.hidden;
  button.setAttribute("aria-pressed", String(!panel.hidden));
  return !panel.hidden;
}

/** A failure as an error toast. */
export function showError(err: unknown): void {
  toast(errorText(err), "error");
}

/**
 * Show `dialog` (appended to the page) as a modal, focusing `focus`; resolves with what `answer` says when it
 * closes, however it closes (a button, Escape), and takes the dialog off the page.
 */
export function modalAnswer<T>(dialog: HTMLDialogElement, focus: HTMLElement, answer: () => T): Promise<T> {
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(answer());
    });
    dialog.showModal();
    focus.focus();
  });
}

/** Up and Down move the focus through a menu's items, round; true when the key was one of them. */
export function menuArrows(menu: HTMLElement, event: KeyboardEvent): boolean {
  if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return false;
  event.preventDefault();
  const items = [...menu.querySelectorAll<HTMLElement>("[role=menuitem]")];
  const at = items.indexOf(document.activeElement as HTMLElement);
  items[(at + (event.key === "ArrowDown" ? 1 : -1) + items.length) % items.length]?.focus();
  return true;
}
