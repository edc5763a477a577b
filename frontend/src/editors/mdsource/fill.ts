// Opening a long document in WYSIWYG: the view starts with the blocks of its first screens, and the rest of the
// text's blocks are appended after it, a chunk per task, so the first screen shows before the whole DOM is built
// (docs/wysiwyg-speed.md, "Opening").
//
// The text is the truth from the start (`SourceDoc` holds all of it, and the agents' tools read the app's text),
// but only its first part is parsed before the view is made: the fill parses the rest in parts (partial.ts) ahead
// of what it appends, and once all is parsed, shows anew the blocks whose reference links the whole text reads
// otherwise than the first guess did. While the fill runs, the view's document is a prefix of the text's blocks:
// children 0..n-1 are blocks 0..n-1, the same nodes. An edit in the shown part changes the blocks and the
// children alike; a change that reaches past the shown part replaces the children up to its end only, and the
// fill appends the rest of it (`shownPart`). A fill transaction changes nothing of the text, is no step of the
// undo history (`addToHistory` false) and is not the person's edit (it never reaches `dispatchTransaction`).
// What reads the whole document at once (find, select all, the end of the document, opening at a search match)
// finishes the fill first (`wholeDocument` in shared/live.ts).
import type { Node } from "prosemirror-model";
import { closeHistory } from "prosemirror-history";
import { Plugin, Selection, TextSelection, type Transaction } from "prosemirror-state";
import type { EditorView } from "prosemirror-view";
import { inIdle } from "../../shared/idle";
import { blockCount, forEachBlock } from "./blocks";
import { appendBlocks } from "./sections";
import { editorScroller, whileFilling, wholeDocument } from "../../shared/live";

/** Transaction meta of a fill step: blocks the text had all along, now shown (plugins may draw them later). */
export const FILL = "vmark.fill";

export function isFill(tr: Transaction): boolean {
  return tr.getMeta(FILL) === true;
}

/** The text's blocks, as the fill reads them (a `SourceDoc`). */
export interface FillSource {
  /** The blocks parsed so far. */
  readonly blockCount: number;
  blockNode(k: number): Node;
  /** Block `k`'s source range. */
  blockRange(k: number): [number, number] | null;
  readonly length: number;
  /** Some of the text is not parsed yet. */
  readonly parsing: boolean;
  /** Parses more (at least a part), until `stop()` (or all, without it). */
  parseMore(stop?: () => boolean): void;
  /** Once all is parsed: the indices of the blocks parsed again with the real reference definitions. */
  settleReferences(): number[];
}

/** A long document is parsed up to a cut after this many characters before its first frame (the rest by the fill). */
export const FIRST_PARSE = 24_000;

/** The first document shows blocks up to this many positions: a few screens of a tall window. */
const FIRST_SCREENS = 20_000;
/** A fill step's aim (ms of script); the number of blocks per step follows the time the last one took. */
const STEP_MS = 25;
const FIRST_STEP_BLOCKS = 200;
/** The steps wait until the person's keys and clicks pause this long (ms). */
const INPUT_PAUSE_MS = 400;

/** How many blocks the view starts with. */
export function firstBlocks(source: FillSource): number {
  let size = 0;
  let k = 0;
  while (k < source.blockCount && size < FIRST_SCREENS) size += source.blockNode(k++).nodeSize;
  return Math.max(1, k);
}

/**
 * Blocks `from..to` of the view's document (block indices) as far as the view shows them: where a change
 * reaches past the shown part, only the children shown are replaced. Null: the change is all in the part not
 * shown yet (the fill shows it).
 */
export function shownPart<T extends { from: number; to: number }>(change: T, shown: number): T | null {
  if (change.from >= shown) return null;
  return change.to <= shown ? change : { ...change, to: shown };
}

/**
 * Keys that act on the whole document finish the fill first: select all, and Ctrl+Home / Ctrl+End (with Shift:
 * extending the selection), which the editor does itself: the browser's own caret movement does not reach into
 * blocks it has not laid out (`content-visibility: auto`) and stops at the start of the last one.
 */
export function wholeDocumentKeys(): Plugin {
  return new Plugin({
    props: {
      handleKeyDown(view, event) {
        if (!(event.ctrlKey || event.metaKey) || event.altKey) return false;
        if (event.key.toLowerCase() === "a") wholeDocument(view); // the keymap selects all of it
        if (event.key !== "End" && event.key !== "Home") return false;
        wholeDocument(view);
        const { doc, selection } = view.state;
        const edge = event.key === "End" ? Selection.atEnd(doc) : Selection.atStart(doc);
        const next = event.shiftKey ? TextSelection.between(selection.$anchor, edge.$head) : edge;
        view.dispatch(view.state.tr.setSelection(next).scrollIntoView());
        followCaret(view);
        return true;
      },
    },
  });
}

/**
 * Frames a jump's caret is followed for at most (about a second), and how many in a row it must stay in view to end
 * it: the browser lays out the blocks that come into view some frames after the scroll, not in the next one.
 */
const FOLLOW_FRAMES = 60;
const FOLLOW_STEADY = 15;
/** Space kept between the followed caret and the view's edge (px), as ProseMirror's `scrollMargin`. */
const CARET_MARGIN = 5;

/**
 * After a jump far into a long document: the blocks laid out around the caret for the first time are taller than
 * the placeholder size they had (`content-visibility: auto`), and push the caret out of the view the jump scrolled
 * to. The caret is scrolled to again each frame until it stays in view, or until the person scrolls, clicks or
 * presses a key (what they do next wins).
 */
function followCaret(view: EditorView): void {
  const scroller = editorScroller(view);
  if (!scroller) return;
  let steady = 0;
  let stopped = false;
  const stop = (): void => {
    stopped = true;
    for (const kind of STOPS) scroller.removeEventListener(kind, stop, true);
  };
  // The key that made the jump is still being handled: listen from the next frame on.
  requestAnimationFrame(() => {
    if (!stopped) for (const kind of STOPS) scroller.addEventListener(kind, stop, true);
  });
  const step = (left: number): void => {
    requestAnimationFrame(() => {
      if (stopped || view.isDestroyed || left === 0 || steady >= FOLLOW_STEADY) return stop();
      const caret = view.coordsAtPos(view.state.selection.head);
      const box = scroller.getBoundingClientRect();
      if (caret.top >= box.top && caret.bottom <= box.bottom) steady++;
      else {
        steady = 0;
        scroller.scrollTop += caret.top < box.top ? caret.top - box.top - CARET_MARGIN : caret.bottom - box.bottom + CARET_MARGIN;
      }
      step(left - 1);
    });
  };
  step(FOLLOW_FRAMES);
}

/** What the person does that ends following a jump's caret. */
const STOPS = ["wheel", "pointerdown", "keydown", "touchstart"] as const;


/** Appends the blocks the view does not show yet, in steps, then calls `done`. */
export class Filler {
  private cancel: (() => void) | null = null;
  /** When the person last pressed a key or a button in the editor (`performance.now()`). */
  private lastInput = -Infinity;
  private onInput = (): void => {
    this.lastInput = performance.now();
  };
  private frame = 0;
  private perStep = FIRST_STEP_BLOCKS;
  private spacer: HTMLElement | null = null;
  /** Height per character of text of what is shown (px), for the space the blocks not shown yet hold. */
  private density = 0;
  private unregister: () => void;
  private finished = false;
  /** The whole text is parsed and its reference definitions settled. */
  private settled = false;
  /** Steps put off in a row for a selection ProseMirror had not read yet. */
  private waited = 0;

  /** Whether `source` shows in `view` only after a fill. */
  static needed(view: EditorView, source: FillSource): boolean {
    return source.parsing || blockCount(view.state.doc) < source.blockCount;
  }

  constructor(
    private view: EditorView,
    private source: FillSource,
    private done: () => void,
  ) {
    this.unregister = whileFilling(view, () => this.finish());
    view.dom.setAttribute("aria-busy", "true");
    // The first step after the first frame is painted: the first screen shows before any of the rest is built.
    // The space the rest will take is measured from the first screen's layout, which that frame makes anyway.
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      if (this.finished || view.isDestroyed) return;
      this.density = view.dom.offsetHeight / Math.max(1, this.shownEnd());
      this.hold();
      this.later();
    });
    view.dom.addEventListener("keydown", this.onInput, true);
    view.dom.addEventListener("pointerdown", this.onInput, true);
  }

  get filling(): boolean {
    return !this.finished;
  }

  /** The text offset where the shown part ends (what lies after it is not in the view yet). */
  shownEnd(): number {
    if (this.finished) return this.source.length;
    return this.source.blockRange(blockCount(this.view.state.doc) - 1)?.[1] ?? 0;
  }

  /** Every block shown now (one step). */
  finish(): void {
    if (this.finished) return;
    this.source.parseMore();
    this.relink();
    this.append(this.source.blockCount);
    this.complete();
  }

  /** The editor goes away: the fill stops (the view's document is not touched). */
  stop(): void {
    if (this.finished) return;
    this.finished = true;
    this.clear();
  }

  private step(until: number): void {
    this.cancel = null;
    if (this.finished || this.view.isDestroyed) return;
    // A key or a click waiting to be handled goes first (it would wait for the whole step).
    if (inputPending()) return this.later();
    // A selection the browser moved (Home, a click) reaches ProseMirror in a `selectionchange` task of its own; a
    // redraw before it would put the old one back. The step waits for it (a few times at most: a selection the
    // DOM shows otherwise for good, e.g. a node selection, must not stop the fill).
    if (this.waited < 3 && this.selectionUnread()) {
      this.waited++;
      this.later();
      return;
    }
    this.waited = 0;
    const have = blockCount(this.view.state.doc);
    if (this.source.parsing && this.source.blockCount < have + this.perStep) {
      // The blocks the next append needs: parsed in a step of their own, which stops for input.
      this.source.parseMore(() => performance.now() >= until || inputPending());
      return this.later();
    }
    this.relink();
    const start = performance.now();
    this.append(Math.min(this.source.blockCount, have + this.perStep));
    const took = performance.now() - start;
    // Each step also costs the view's walk over every child it has (and the plugins'): steps of at least a sixteenth
    // of what is shown keep the steps few (logarithmically many), on a loaded machine too.
    const least = Math.max(FIRST_STEP_BLOCKS, blockCount(this.view.state.doc) >> 4);
    this.perStep = Math.max(least, Math.round(this.perStep * Math.min(2, STEP_MS / Math.max(1, took))));
    if (!this.source.parsing && blockCount(this.view.state.doc) >= this.source.blockCount) return this.complete();
    this.hold();
    this.later();
  }

  /**
   * The next step in the page's next idle period (on a busy page at least four times a second, shared/idle.ts):
   * the person's keys and clicks, and what reads the page, go first. While the person types or clicks, the
   * steps wait for a pause.
   */
  private later(): void {
    const quiet = this.lastInput + INPUT_PAUSE_MS - performance.now();
    if (quiet > 0) {
      const timer = window.setTimeout(() => this.later(), quiet);
      this.cancel = () => window.clearTimeout(timer);
      return;
    }
    this.cancel = inIdle((until) => this.step(until));
  }

  /** The DOM's selection in the editor is not the one ProseMirror has. */
  private selectionUnread(): boolean {
    const dom = document.getSelection();
    if (!dom?.anchorNode || !dom.focusNode || !this.view.dom.contains(dom.focusNode)) return false;
    try {
      const anchor = this.view.posAtDOM(dom.anchorNode, dom.anchorOffset);
      const head = this.view.posAtDOM(dom.focusNode, dom.focusOffset);
      const { from, to } = this.view.state.selection;
      return Math.min(anchor, head) !== from || Math.max(anchor, head) !== to;
    } catch {
      return false; // a point ProseMirror has no position for
    }
  }

  /** The blocks the real reference definitions parsed again (once all is parsed), shown anew where shown. */
  private relink(): void {
    if (this.source.parsing || this.settled) return;
    this.settled = true;
    performance.mark("vmark:parsed-all"); // bench/profile_open.py
    const state = this.view.state;
    const changed = new Set(this.source.settleReferences().filter((k) => k < blockCount(state.doc)));
    if (changed.size === 0) return;
    const places: [number, number, Node][] = [];
    forEachBlock(state.doc, (child, offset, k) => {
      if (changed.has(k)) places.push([offset, offset + child.nodeSize, this.source.blockNode(k)]);
    });
    const tr = state.tr;
    for (const [from, to, node] of places.reverse()) tr.replaceWith(from, to, node);
    // Not the person's edit (no step to undo), and no fill: the blocks shown changed.
    this.view.updateState(state.apply(closeHistory(tr).setMeta("addToHistory", false)));
  }

  private append(to: number): void {
    const state = this.view.state;
    const have = blockCount(state.doc);
    if (to <= have) return;
    const nodes: Node[] = [];
    for (let k = have; k < to; k++) nodes.push(this.source.blockNode(k));
    const tr = state.tr;
    appendBlocks(tr, nodes);
    this.view.updateState(state.apply(tr.setMeta(FILL, true).setMeta("addToHistory", false)));
  }

  /** The space the blocks not shown yet will take, below the view: the scrollbar is about right from the start. */
  private hold(): void {
    const height = Math.round(this.density * Math.max(0, this.source.length - this.shownEnd()));
    if (!this.spacer) {
      this.spacer = document.createElement("div");
      this.spacer.className = "md-fill-rest";
      this.spacer.setAttribute("aria-hidden", "true");
      this.view.dom.after(this.spacer);
    }
    this.spacer.style.height = `${height}px`;
  }

  private complete(): void {
    this.finished = true;
    this.clear();
    this.done();
  }

  private clear(): void {
    this.cancel?.();
    this.cancel = null;
    this.view.dom.removeEventListener("keydown", this.onInput, true);
    this.view.dom.removeEventListener("pointerdown", this.onInput, true);
    cancelAnimationFrame(this.frame);
    this.spacer?.remove();
    this.spacer = null;
    this.view.dom.removeAttribute("aria-busy");
    this.unregister();
  }
}

/** Input waits to be handled (Chromium's `navigator.scheduling.isInputPending`; false where there is none). */
function inputPending(): boolean {
  const scheduling = (navigator as { scheduling?: { isInputPending?: () => boolean } }).scheduling;
  return scheduling?.isInputPending?.() ?? false;
}
