// Work a long document's view can do after it shows, in slices while the page is idle, until nothing is left.
// A slice that dispatches costs a redraw check of every top-level block: the slices prepare (parse, cache) and
// dispatch what they made once, when it is complete.
import type { EditorView } from "prosemirror-view";

/** The slice's clock: at least this many ms of work, at most what the browser says the idle period has left. */
const MIN_SLICE_MS = 8;
const MAX_SLICE_MS = 40;
/** A page busy for this long still gets its slice. */
const TIMEOUT_MS = 10_000;

/**
 * A plugin view that calls `slice(view, until)` in idle time while `pending(view)` says there is work left;
 * `until` is the `performance.now()` by which the slice should stop (and dispatch what it made).
 */
export function idleSlices(pending: (view: EditorView) => boolean, slice: (view: EditorView, until: number) => void): (view: EditorView) => { update(): void; destroy(): void } {
  return (view) => {
    let task: number | undefined;
    const run = (deadline: IdleDeadline): void => {
      task = undefined;
      if (view.isDestroyed || !pending(view)) return;
      slice(view, performance.now() + Math.max(MIN_SLICE_MS, Math.min(MAX_SLICE_MS, deadline.timeRemaining())));
      schedule(); // a slice that did not finish goes on in the next idle period
    };
    function schedule(): void {
      if (task === undefined && !view.isDestroyed && pending(view)) task = window.requestIdleCallback(run, { timeout: TIMEOUT_MS });
    }
    schedule();
    return {
      update: schedule,
      destroy: () => {
        if (task !== undefined) window.cancelIdleCallback(task);
      },
    };
  };
}
