// Work a long document's page can do after it shows, in slices while the page is idle, until nothing is left.
// A slice that dispatches costs a redraw check of every top-level block: the slices prepare (parse, count,
// cache) and dispatch what they made once, when it is complete.
import type { EditorView } from "prosemirror-view";

/** A slice's clock: at least this many ms of work, at most what the browser says the idle period has left. */
const MIN_SLICE_MS = 8;
const MAX_SLICE_MS = 40;
/** A page that is never idle (a loaded machine) still gets a slice this often, of `BUSY_SLICE_MS`. */
const TIMEOUT_MS = 250;
const BUSY_SLICE_MS = 16;

/** Runs `work(until)` in the page's next idle period (`until`: the `performance.now()` to stop by); gives its cancel. */
export function inIdle(work: (until: number) => void): () => void {
  const task = window.requestIdleCallback(
    (deadline) => work(performance.now() + (deadline.didTimeout ? BUSY_SLICE_MS : Math.max(MIN_SLICE_MS, Math.min(MAX_SLICE_MS, deadline.timeRemaining())))),
    { timeout: TIMEOUT_MS },
  );
  return () => window.cancelIdleCallback(task);
}

/**
 * A plugin view that calls `slice(view, until)` in idle time while `pending(view)` says there is work left;
 * `until` is the `performance.now()` by which the slice should stop (and dispatch what it made, if complete).
 */
export function idleSlices(pending: (view: EditorView) => boolean, slice: (view: EditorView, until: number) => void): (view: EditorView) => { update(): void; destroy(): void } {
  return (view) => {
    let cancel: (() => void) | null = null;
    const run = (until: number): void => {
      cancel = null;
      if (view.isDestroyed || !pending(view)) return;
      slice(view, until);
      schedule(); // a slice that did not finish goes on in the next idle period
    };
    function schedule(): void {
      if (cancel === null && !view.isDestroyed && pending(view)) cancel = inIdle(run);
    }
    schedule();
    return {
      update: schedule,
      destroy: () => cancel?.(),
    };
  };
}
