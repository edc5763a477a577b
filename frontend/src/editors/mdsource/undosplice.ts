// Undo and redo give the text back byte for byte. ProseMirror's history undoes a step of the view; which splice of
// the text that means is not in the view (a table's padding, a list's markers): without help the engine would
// write the block anew. So every splice of the person's edits is remembered with the documents before and after
// it, and an undo (redo) that takes the view back (forward) over a run of them is the inverse (the replay) of
// their splices, composed into one: tried first and checked like any splice.
import { ChangeSet } from "@codemirror/state";
import { isHistoryTransaction } from "prosemirror-history";
import type { Node } from "prosemirror-model";
import type { Transaction } from "prosemirror-state";

interface Splice {
  from: number;
  to: number;
  insert: string;
}

interface Step {
  before: Node;
  after: Node;
  span: Splice;
  /** The text the span replaced. */
  removed: string;
  /** The text's length before it. */
  length: number;
}

/** What the journal reads of the text. */
interface TextNow {
  readonly length: number;
  slice(from: number, to: number): string;
}

const LIMIT = 500;
/** The meta prosemirror-history puts on its transactions (its plugin key "history"): `{ redo }`. */
const HISTORY_META = "history$";

export class SpliceHistory {
  private steps: Step[] = [];
  /** Steps `0..done` are in the text; the ones after it were undone. */
  private done = 0;
  private planned: { span: Splice; done: number } | null = null;

  /** For an undo or redo: the splice that gives the text back as it was (null: none known). */
  preferred(tr: Transaction, before: Node, after: Node, text: TextNow): Splice | null {
    this.planned = null;
    if (!isHistoryTransaction(tr)) return null;
    // Which one it is (prosemirror-history's meta): the view may be the same after an undo as after a redo.
    const redo = (tr.getMeta(HISTORY_META) as { redo?: boolean } | undefined)?.redo;
    const found = redo === true ? this.redoRun(before, after) : redo === false ? this.undoRun(before, after) : (this.undoRun(before, after) ?? this.redoRun(before, after));
    if (!found) return null;
    const span = single(found.changes, text);
    if (span) this.planned = { span, done: found.done };
    return span;
  }

  /**
   * What the person's transaction did to the text (`removed`: what its span replaced; `length`: the text's length
   * before). An undo or redo moves along the steps; an edit ends the undone ones; an edit the text's engine made
   * otherwise than the view (it adopted the parse) or an unknown undo breaks the chain.
   */
  record(tr: Transaction, before: Node, after: Node, change: { span: Splice; removed: string; adopted: boolean } | null, length: number): void {
    const planned = this.planned;
    this.planned = null;
    if (!change) return;
    if (change.adopted) return this.forget();
    if (isHistoryTransaction(tr)) {
      if (planned && sameSplice(planned.span, change.span)) this.done = planned.done;
      else this.forget();
      return;
    }
    this.steps.length = this.done;
    this.steps.push({ before, after, span: change.span, removed: change.removed, length });
    if (this.steps.length > LIMIT) this.steps.shift();
    this.done = this.steps.length;
  }

  /** The text changed from elsewhere: the remembered offsets no longer hold. */
  forget(): void {
    this.steps = [];
    this.done = 0;
    this.planned = null;
  }

  /** Undo: the latest steps back from the view `before` to the view `after`, their inverses composed. */
  private undoRun(before: Node, after: Node): { changes: ChangeSet; done: number } | null {
    const last = this.steps[this.done - 1];
    if (!last || !sameDoc(last.after, before)) return null;
    let changes: ChangeSet | null = null;
    for (let k = this.done - 1; k >= 0; k--) {
      const step = this.steps[k];
      const inverse = ChangeSet.of([{ from: step.span.from, to: step.span.from + step.span.insert.length, insert: step.removed }], newLength(step));
      changes = changes ? changes.compose(inverse) : inverse;
      if (sameDoc(step.before, after)) return { changes, done: k };
    }
    return null;
  }

  /** Redo: the undone steps from the view `before` to the view `after`, composed. */
  private redoRun(before: Node, after: Node): { changes: ChangeSet; done: number } | null {
    const first = this.steps[this.done];
    if (!first || !sameDoc(first.before, before)) return null;
    let changes: ChangeSet | null = null;
    for (let k = this.done; k < this.steps.length; k++) {
      const step = this.steps[k];
      const forward = ChangeSet.of([step.span], step.length);
      changes = changes ? changes.compose(forward) : forward;
      if (sameDoc(step.after, after)) return { changes, done: k + 1 };
    }
    return null;
  }
}

function newLength(step: Step): number {
  return step.length - (step.span.to - step.span.from) + step.span.insert.length;
}

/** The changes as one splice of the text now: from the first to the last, the text between them as it is. */
function single(changes: ChangeSet, text: TextNow): Splice | null {
  if (changes.length !== text.length) return null;
  let from = -1;
  let at = 0;
  let insert = "";
  changes.iterChanges((fromA, toA, _fromB, _toB, inserted) => {
    if (from < 0) {
      from = fromA;
      at = fromA;
    }
    insert += text.slice(at, fromA) + inserted.toString();
    at = toA;
  });
  // Steps that cancel out (a row added, then taken out): the text stays as it is.
  return from < 0 ? { from: 0, to: 0, insert: "" } : { from, to: at, insert };
}

function sameDoc(a: Node, b: Node): boolean {
  return a === b || (a.content.size === b.content.size && a.eq(b));
}

function sameSplice(a: Splice, b: Splice): boolean {
  return a.from === b.from && a.to === b.to && a.insert === b.insert;
}
