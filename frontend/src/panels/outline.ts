// The outline (a navigation landmark named "Outline"): the document's headings, the one the cursor is
// under marked, a click jumps there. In source mode the headings come from the text's lines (fenced code
// skipped); in WYSIWYG from the view's heading nodes.
import { el, setHidden, setText } from "../shared/dom";
import { live, onEditorUpdate } from "../shared/live";
import { type Heading, shownHeadings, jumpToHeading } from "../editors/headings";

export class Outline {
  readonly panel: HTMLElement;
  readonly toggle: HTMLButtonElement;
  private list: HTMLElement;
  private empty: HTMLElement;
  private headings: Heading[] = [];
  /** What each item of the list shows (`titleKey`), in order. */
  private shownKeys: string[] = [];
  private readDoc: unknown = null;
  private readTimer: number | undefined;
  /** The heading marked as the cursor's (an index of `headings`, -1 for none). */
  private current = -1;

  constructor() {
    this.list = el("ol", { class: "outline-list" });
    this.empty = el("p", { class: "hint outline-empty" });
    this.panel = el(
      "nav",
      { id: "outline", class: "outline-panel", "aria-label": "Outline", "data-testid": "outline" },
      el("h2", {}, "Outline"),
      this.list,
      this.empty,
    );
    const main = document.querySelector(".main");
    main?.querySelector(".work")?.after(this.panel);
    this.toggle = el("button", { id: "outline-toggle", type: "button", title: "The document's headings", "aria-pressed": "true", "data-command": "Outline" }, "Outline");
    document.getElementById("comments-toggle")?.after(this.toggle);
    const shown = localStorage.getItem("vmark.outline") !== "hidden";
    this.setShown(shown);
    this.toggle.addEventListener("click", () => this.setShown(this.panel.hidden !== false));
    onEditorUpdate(() => this.update());
    this.update();
  }

  private setShown(shown: boolean): void {
    this.panel.hidden = !shown;
    this.toggle.setAttribute("aria-pressed", String(shown));
    localStorage.setItem("vmark.outline", shown ? "shown" : "hidden");
    if (shown) this.update();
  }

  update(): void {
    if (this.panel.hidden) return;
    const { headings, current } = this.read();
    this.headings = headings;
    // Positions move with every edit above a heading: only the items whose level or words changed are drawn
    // again (a long document's fill appends headings; an edit changes one), and a click reads the position of
    // the moment.
    const keys = headings.map(titleKey);
    const change = listChange(this.shownKeys, keys);
    if (change) {
      const { start, removed, added } = change;
      const items = [...this.list.children];
      const fresh = headings.slice(start, start + added).map((h, k) => this.item(h, start + k));
      if (removed) items.slice(start, start + removed).forEach((item, k) => (k < fresh.length ? item.replaceWith(fresh[k]) : item.remove()));
      const after = items[start + removed] ?? null;
      for (const item of fresh.slice(removed)) this.list.insertBefore(item, after);
      if (added !== removed) items.slice(start + removed).forEach((item, k) => item.firstElementChild?.setAttribute("data-index", String(start + added + k)));
      this.shownKeys = keys;
      this.current = -1;
      this.list.querySelector("[aria-current]")?.removeAttribute("aria-current");
    }
    if (current !== this.current) {
      const links = this.list.querySelectorAll("a");
      links[this.current]?.removeAttribute("aria-current");
      links[current]?.setAttribute("aria-current", "location");
      this.current = current;
    }
    const hasEditor = live.cm !== null || live.pm !== null;
    setText(this.empty, !hasEditor ? "Open a document to see its headings here." : headings.length === 0 ? "No headings yet: start a line with # to add one." : "");
    setHidden(this.empty, this.empty.textContent === "");
  }

  /**
   * The headings (read again only when the document changed) and the current one. WYSIWYG reads them from
   * the changed blocks only (`pmHeadings`); a long text in source mode is read again once typing rests.
   */
  private read(): { headings: Heading[]; current: number } {
    const doc = live.cm ? live.cm.state.doc : live.pm ? live.pm.state.doc : null;
    if (doc === null) {
      this.readDoc = null;
      return { headings: [], current: -1 };
    }
    let headings = this.headings;
    if (doc !== this.readDoc) {
      window.clearTimeout(this.readTimer);
      if (live.cm && live.cm.state.doc.length > 100_000 && this.readDoc !== null) {
        this.readTimer = window.setTimeout(() => {
          this.readDoc = null;
          this.update();
        }, 400);
      } else {
        this.readDoc = doc;
        headings = shownHeadings();
      }
    }
    const at = live.cm ? live.cm.state.doc.lineAt(live.cm.state.selection.main.head).number : (live.pm?.state.selection.from ?? 0);
    return { headings, current: lastAtOrBefore(headings, at) };
  }

  /** The list item of `heading`, the `index`-th. */
  private item(heading: Heading, index: number): HTMLElement {
    const link = el("a", { href: "#", class: "outline-item", "data-level": String(heading.level), "data-index": String(index) }, heading.text || "(untitled heading)");
    link.addEventListener("click", (event) => {
      event.preventDefault();
      void this.jump(Number(link.dataset.index));
    });
    return el("li", { class: `outline-level-${heading.level}` }, link);
  }

  private async jump(index: number): Promise<void> {
    const heading = this.headings[index];
    if (!heading) return;
    await jumpToHeading(heading);
    this.update();
  }
}

/** What an outline item shows of a heading: its level and its words. */
function titleKey(heading: Heading): string {
  return `${heading.level} ${heading.text}`;
}

/**
 * The items of `before` to replace to get `after`: `removed` items from `start` on give way to `added` ones (the
 * common start and end kept); null when the two are the same.
 */
export function listChange(before: readonly string[], after: readonly string[]): { start: number; removed: number; added: number } | null {
  let start = 0;
  const shorter = Math.min(before.length, after.length);
  while (start < shorter && before[start] === after[start]) start++;
  if (start === before.length && start === after.length) return null;
  let end = 0;
  while (end < shorter - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end++;
  return { start, removed: before.length - start - end, added: after.length - start - end };
}

/** The last heading at or before `at` (headings are in document order), -1 for none. */
function lastAtOrBefore(headings: Heading[], at: number): number {
  let lo = 0;
  let hi = headings.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (headings[mid].at <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}
