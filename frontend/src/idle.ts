// Work a long document's view can do after it shows: in slices while the page is idle, each slice one
// transaction (what the slice made, as the transaction's meta), until nothing is left.
import type { EditorView } from "prosemirror-view";

/** The slice's clock: at least this many ms of work, at most what the browser says the idle period has left. */
const MIN_SLICE_MS = 8;
const MAX_SLICE_MS = 40;
/** A busy page still gets its slices this often. */
const TIMEOUT_MS = 2000;

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
    };
    const schedule = (): void => {
      if (task === undefined && !view.isDestroyed && pending(view)) task = window.requestIdleCallback(run, { timeout: TIMEOUT_MS });
    };
    schedule();
    return {
      update: schedule,
      destroy: () => {
        if (task !== undefined) window.cancelIdleCallback(task);
      },
    };
  };
}
