// What each view of the Coherence panel is (a Part), what it may ask of the panel, and the small
// elements the views build with.
import { el } from "../../shared/dom";
import type { Channel } from "../../shared/protocol";
import { shortQuote } from "../../shared/quote";
import type { Claim, CoherenceOverview as Overview, Edge } from "../../wire.gen";

/** What the panel's parts need of it. */
export interface Panel {
  channel: Channel;
  /** Load the panel again: after an action the app's answer, not a guess, is what shows. */
  reload(): Promise<void>;
  /** Open a document in a tab and show it. */
  openDocument(path: string): Promise<void>;
}

export interface Part {
  readonly element: HTMLElement;
  show(overview: Overview): Promise<void>;
}

const NOT_TRACKED = "Provenance is not tracked in this workspace: switch it on in Breakdown first.";

/** A view with nothing to show until provenance is tracked: its section, the hint until then, its content. */
export class TrackedView {
  readonly element: HTMLElement;
  readonly content = el("div", {});
  private hint = el("p", { class: "hint" }, NOT_TRACKED);

  constructor(view: string) {
    this.element = el("section", { class: "coherence-view", "data-view": view }, this.hint, this.content);
  }

  /** The content while provenance is tracked, the hint otherwise; whether it is tracked. */
  show(overview: Overview): boolean {
    const tracked = overview.status.initialized;
    this.hint.hidden = tracked;
    this.content.hidden = !tracked;
    return tracked;
  }
}

export function edgeKey(edge: Edge): string {
  return `${edge.txf}:${edge.input}`;
}

export function button(cls: string, label: string, title = ""): HTMLButtonElement {
  const b = el("button", { type: "button", class: cls }, label);
  if (title) b.title = title;
  return b;
}

export function badge(cls: string, state: string, label: string): HTMLElement {
  return el("span", { class: `coherence-badge ${cls}`, "data-state": state, title: state }, label);
}

export function counter(name: string, value: number, one: string, many: string, words?: string): HTMLElement {
  return el("span", { class: "coherence-counter", "data-counter": name, "data-value": String(value) }, words ?? `${value} ${value === 1 ? one : many}`);
}

/** A revision id, shortened for the eye (the whole id in the title). */
export function revision(rev: string): HTMLElement {
  const hash = rev.slice(rev.indexOf(":") + 1);
  return el("code", { class: "coherence-rev", title: rev }, hash.slice(0, 10));
}

export function select(cls: string, options: [string, string][], value: string, focus = ""): HTMLSelectElement {
  const field = el("select", { class: cls }, ...options.map(([v, label]) => el("option", { value: v }, label)));
  if (focus) field.dataset.focus = focus;
  field.value = value;
  return field;
}

/** A select's value, typed: each select here offers only the values of its type (built with them). */
export function chosen<T extends string>(field: HTMLSelectElement): T {
  return field.value as T;
}

export function maturitySelect(id: string, value = "draft"): HTMLSelectElement {
  const field = select("coherence-maturity-select", [
    ["draft", "Draft"],
    ["established", "Established"],
  ], value);
  if (id) field.id = id;
  return field;
}

/** One checkbox per claim for a context's include or exclude list; what was ticked stays ticked. */
export function picks(box: HTMLElement, list: string, claims: Claim[]): void {
  const ticked = new Set([...box.querySelectorAll<HTMLInputElement>("input:checked")].map((input) => input.value));
  const boxes = claims.map((c) => {
    const input = el("input", { type: "checkbox", value: c.claim, "data-list": list });
    input.checked = ticked.has(c.claim);
    return el("label", { class: "coherence-check", title: c.claim }, input, shortQuote(c.statement, 60));
  });
  box.replaceChildren(...(boxes.length ? boxes : [el("span", { class: "hint" }, "No claims yet.")]));
}

/** Epoch seconds as a UTC time to the minute. */
export function formatTime(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** The element the pointer was pressed on, until it is released: a click in progress. */
let pressed: Element | null = null;
/** Lists drawn again during a click inside them, drawn once it ends (the latest items of each). */
const waiting = new Map<HTMLElement, Node[]>();
let listening = false;

function trackPresses(): void {
  if (listening) return;
  listening = true;
  document.addEventListener("pointerdown", (event) => (pressed = event.target instanceof Element ? event.target : null), true);
  const released = (): void => {
    pressed = null;
    // After the click this release makes (it comes right after the release, in the same task).
    setTimeout(() => {
      for (const [container, children] of waiting) draw(container, children);
      waiting.clear();
    }, 0);
  };
  document.addEventListener("pointerup", released, true);
  document.addEventListener("pointercancel", released, true);
}

/** Replace a list's items; the field being typed in (named by `data-focus`) gets the focus back, caret too.
 * While the pointer is pressed inside the list the items wait for its release (`data-redraw-waits` says so): a
 * background refresh replacing the button under a click (pressed on one element, released on another) would
 * lose the click, and the person's click acts on what they saw. */
export function rebuild(container: HTMLElement, children: Node[]): void {
  trackPresses();
  if (pressed !== null && container.contains(pressed)) {
    waiting.set(container, children);
    container.toggleAttribute("data-redraw-waits", true);
    return;
  }
  waiting.delete(container);
  draw(container, children);
}

function draw(container: HTMLElement, children: Node[]): void {
  container.removeAttribute("data-redraw-waits");
  const active = document.activeElement;
  const name = active instanceof HTMLElement && container.contains(active) ? active.dataset.focus : undefined;
  const caret =
    active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement
      ? [active.selectionStart, active.selectionEnd]
      : [null, null];
  container.replaceChildren(...children);
  if (!name) return;
  const again = container.querySelector<HTMLElement>(`[data-focus="${CSS.escape(name)}"]`);
  again?.focus();
  if ((again instanceof HTMLInputElement || again instanceof HTMLTextAreaElement) && caret[0] !== null) {
    again.setSelectionRange(caret[0], caret[1]);
  }
}
