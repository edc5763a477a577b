// The text is the truth; the ProseMirror document is a view of it, block by block.
//
// A SourceDoc holds the Markdown text and its top-level blocks, one per block of the view's document
// (the same node objects). A person's edit in the view becomes a splice of the text: ProseMirror keeps
// untouched nodes identical, so only the blocks whose nodes changed are written, and inside one changed
// textblock typing is spliced straight into its source. Every candidate splice is checked by parsing
// the changed region again: it must give back exactly the nodes the person now sees. A change of the
// text from elsewhere re-parses only the blocks it touched.
import { Text } from "@codemirror/state";
import type { Mark, Node } from "prosemirror-model";
import { betweenBlocks, blockAt, blockCount, blockIndex, blockPos, type Blocks, blocksOf, changedBlocks } from "./blocks";
import { type Block, type Env, parseBlocks, type Segment, segmentsOf } from "./build";
import { changedRange, codeContinuation, codeSplices, delimiterSplices, labelSplices } from "./keepsplices";
import { differingLabels, PART_CHARS, PartialParse, referencesOf, relink } from "./partial";
import { schema } from "./schema";
import { docOf } from "./sections";
import { escapeText, serializeBlock, serializeInline } from "./serialize";

/** One replaced span of the text: `from..to` (UTF-16 offsets) became `insert`. */
export interface Span {
  from: number;
  to: number;
  insert: string;
}

/** What a person's edit did to the text, and, when the view must show the parse instead, what to show. */
export interface PersonChange {
  span: Span;
  /** The text the span replaced (what an undo gives back). */
  removed: string;
  /** Blocks `from..to` (mdsource/blocks.ts) of the edited document to replace with `nodes` (the text parsed otherwise). */
  adopt: { from: number; to: number; nodes: Node[] } | null;
}

/** Blocks `from..to` of the old document became `nodes` (a change from elsewhere, parsed). */
export interface ViewChange {
  from: number;
  to: number;
  nodes: Node[];
}

const BOM = "\uFEFF";

/**
 * Transaction meta: the splice of the text a command means (an input rule keeping the characters typed, Enter
 * in a list adding the list's own marker). It is tried before any other and still checked like every splice:
 * the text after it must parse to exactly what the view shows.
 */
export const SOURCE_SPLICE = "vmark.sourceSplice";

export class SourceDoc {
  private blocks: Block[];
  private env: Env = {};

  /** The text as a rope of lines: a keystroke in a 5 MB document must not copy 5 MB. */
  private textValue: Text;

  /** The text after a cut, not parsed yet (partial.ts), or null: every block is here. */
  private partial: PartialParse | null = null;

  /**
   * `parseFirst`: a text longer than that many characters is parsed only up to a cut after them; the rest with
   * `parseMore` (a long document's opening: mdsource/fill.ts), `partChars` at a time. Until then the blocks are the
   * whole parse's first.
   */
  constructor(text: string, parseFirst = Infinity, partChars = PART_CHARS) {
    this.textValue = Text.of(text.split("\n"));
    this.flat = text;
    if (text.length > parseFirst) {
      this.partial = new PartialParse(text, this.start, parseFirst, partChars);
      this.env = this.partial.env;
      this.blocks = this.partial.next(this.textValue);
      while (this.blocks.length === 0 && this.parsing) this.parseMore(() => true);
      this.settleReferences(); // parsed whole after all (no cut after the first part): nothing is shown yet
      if (this.blocks.length === 0) this.blocks = [placeholder(text.length)];
    } else this.blocks = this.parseAll(text);
  }

  /** Some of the text is not parsed yet: the blocks are the first of the whole parse's. */
  get parsing(): boolean {
    return this.partial !== null && !this.partial.done;
  }

  /** Parses the next parts of the text, at least one, until `stop()` or the end; their blocks follow the others. */
  parseMore(stop: () => boolean = () => false): void {
    const partial = this.partial;
    if (!partial) return;
    while (!partial.done) {
      for (const block of partial.next(this.textValue)) this.blocks.push(block);
      if (stop()) break;
    }
  }

  /**
   * Once all is parsed: the definitions the parts met are the references, and the blocks whose links read
   * otherwise with them than with the guessed ones are parsed again. Answers their indices (the view shows them
   * anew). Nothing, when the text was parsed whole in the meantime (an edit of a definition) or not partly at all.
   */
  settleReferences(): number[] {
    const partial = this.partial;
    if (!partial?.done) return [];
    this.partial = null;
    if (this.env !== partial.env) return [];
    const references = referencesOf(partial.definitions);
    // A block was parsed with the guess and the definitions met up to its part: where the guess and the real ones
    // differ, or a label the guess had not, blocks that may link to it are parsed again.
    const labels = differingLabels(references, partial.guess);
    this.env = { documentStart: true, references };
    this.projection = null; // made with the guessed references
    return labels.length ? relink(this.blocks, this.textValue, this.start, references, labels) : [];
  }

  /** An edit at or after block `k`, or at text offset `at`, needs the blocks after it: the rest is parsed first. */
  private parsedPast(k: number, at = -1): void {
    const last = this.blocks[this.blocks.length - 1];
    if (this.parsing && (k >= this.blocks.length - 1 || (last !== undefined && at >= last.from))) this.parseMore();
  }

  private flat: string | null = null;

  /** The whole text (made once per change, when asked). */
  get text(): string {
    this.flat ??= this.textValue.toString();
    return this.flat;
  }

  /** The text as a rope (shared with the one before an edit, except the lines it touched). */
  get rope(): Text {
    return this.textValue;
  }

  get length(): number {
    return this.textValue.length;
  }

  slice(from: number, to: number): string {
    return this.textValue.sliceString(from, to);
  }

  /** The view's document: one child per block (the first `count` blocks: a view that shows the rest later, mdsource/fill.ts). */
  doc(count = this.blocks.length): Node {
    return docOf(this.blocks.slice(0, count).map((b) => b.node));
  }

  get blockCount(): number {
    return this.blocks.length;
  }

  /** Block `k`'s node (the view's block `k`). */
  blockNode(k: number): Node {
    return this.blocks[k].node;
  }

  private get start(): number {
    return this.textValue.sliceString(0, 1) === BOM ? 1 : 0;
  }

  private parseAll(text: string): Block[] {
    this.env = { documentStart: true };
    const start = this.start;
    const { blocks } = parseBlocks(text.slice(start), start, this.env);
    return blocks.length ? blocks : [placeholder(text.length)];
  }

  // --- the person's edits ---------------------------------------------------------------------

  /** The splice that turns the text into what `after` shows (`before` is the document the blocks belong to). */
  personEdit(before: Node, after: Node, preferred: Span | null = null): PersonChange | null {
    const plan = this.plan(before, after, preferred);
    if (!plan) return null;
    const removed = this.slice(plan.span.from, plan.span.to);
    this.commit(plan.span, plan.outcome);
    return { span: plan.span, removed, adopt: plan.adopt };
  }

  /** The splice `personEdit` would make (with `preferred` tried first), changing nothing. */
  preview(before: Node, after: Node, preferred: Span | null): Span | null {
    return this.plan(before, after, preferred)?.span ?? null;
  }

  private plan(before: Node, after: Node, preferred: Span | null): Plan | null {
    const old = blocksOf(before);
    const fresh = blocksOf(after);
    const [i, oldEnd, newEnd] = changedBlocks(before, after);
    if (i === oldEnd && i === newEnd) return null;
    this.parsedPast(oldEnd);
    for (const span of this.candidates(old, fresh, preferred, i, oldEnd, newEnd)) {
      const outcome = this.check(span, i, oldEnd, fresh, newEnd);
      if (!outcome) continue;
      // Marks the text now writes otherwise (`__` became `**`): the view takes the parse's, which later edits write.
      const to = newEnd + (outcome.to - oldEnd);
      return { span, outcome, adopt: outcome.rewritten ? { from: outcome.from, to, nodes: outcome.nodes.map((b) => b.node) } : null };
    }
    const whole = this.blockSpan(i, oldEnd, childrenOf(fresh, i, newEnd), true);
    // The text says otherwise than the view (e.g. the edit made new Markdown structure): the view follows it.
    const outcome = this.reparse(applySpan(this.textValue, whole), whole, i, oldEnd);
    // In the edited document, old blocks `oldEnd..outcome.to` follow the new ones.
    const to = newEnd + (outcome.to - oldEnd);
    return { span: whole, outcome, adopt: { from: outcome.from, to, nodes: outcome.nodes.map((b) => b.node) } };
  }

  /**
   * The splices to try, in order, each made only when the one before it failed its check: typing in a
   * paragraph of a 2000-row table is spliced straight in and never writes the table anew.
   */
  private *candidates(before: Blocks, fresh: Blocks, preferred: Span | null, i: number, oldEnd: number, newEnd: number): Generator<Span> {
    if (preferred) yield preferred;
    if (oldEnd - i === 1 && newEnd - i === 1) yield* this.textblockSpans(this.blocks[i], before.child(i), fresh.child(i));
    // Blocks written anew: equal blocks keep their bytes; new text unescaped first, escaped where the parse needs it.
    const nodes = childrenOf(fresh, i, newEnd);
    const plain = this.blockSpan(i, oldEnd, nodes, false);
    yield plain;
    const whole = this.blockSpan(i, oldEnd, nodes, true);
    if (!sameSpan(plain, whole)) yield whole;
  }

  /** Splices for a change inside one textblock: straight into its source, else its inline content rewritten. */
  private textblockSpans(block: Block, before: Node, after: Node): Span[] {
    const pair = changedTextblock(before, after);
    if (!pair) return [];
    const [old, fresh] = pair;
    const segments = segmentsOf.get(old);
    if (!segments || segments.some((s) => s.src < 0)) return [];
    const spans: Span[] = [];
    const slice = (from: number, to: number) => this.textValue.sliceString(from, to);
    const reader = { slice, lineStart: (at: number) => this.textValue.lineAt(at).from };
    const continuation = (old.type.spec.code ? codeContinuation(old, segments, block.from, reader) : null) ?? this.continuation(segments, block);
    const direct = directSplices(old, fresh, segments, block.from, continuation);
    spans.push(...direct, ...codeSplices(old, fresh, segments, block.from, reader, continuation));
    spans.push(...labelSplices(old, fresh, segments, block.from, direct, slice));
    const inline = this.inlineSpan(old, fresh, segments, block);
    if (inline) {
      const plain = { ...inline, insert: serializeInline(fresh.content, `\n${this.continuation(segments, block)}`, false) };
      if (plain.insert !== inline.insert) spans.push(plain);
      spans.push(inline);
    }
    // After the rewrite: an escape it finds (`\_Q_foo_`) changes less than new delimiters.
    spans.push(...delimiterSplices(segments, block.from, direct, slice));
    return spans;
  }

  /** The textblock's inline content written anew, in place of its source. */
  private inlineSpan(old: Node, fresh: Node, segments: Segment[], block: Block): Span | null {
    if (segments.length === 0 || old.type.spec.code) return null;
    const from = block.from + segments[0].src;
    const to = block.from + segments[segments.length - 1].srcEnd;
    const newline = `\n${this.continuation(segments, block)}`;
    return { from, to, insert: serializeInline(fresh.content, newline, true) };
  }

  /** What follows a line break inside this textblock's source (container prefixes, indentation). */
  private continuation(segments: Segment[], block: Block): string {
    for (const s of segments) {
      const src = this.textValue.sliceString(block.from + s.src, block.from + s.srcEnd);
      if (s.pmEnd - s.pm === 1 && src.startsWith("\n")) return src.slice(1);
    }
    const first = block.from + (segments[0]?.src ?? 0);
    const lineStart = this.textValue.lineAt(first).from;
    return this.textValue.sliceString(lineStart, first).replace(/[-+*]|\d+[.)]/g, (m) => " ".repeat(m.length));
  }

  /**
   * Old blocks `i..oldEnd` written anew as `nodes` (empty paragraphs are the view's, not the text's). A node
   * equal to one the text had (among the blocks replaced, or remembered from a recent edit: what an undo
   * brings back) is written as it was, and two such nodes that stood together keep the gap they had.
   */
  private blockSpan(i: number, oldEnd: number, nodes: Node[], escape: boolean): Span {
    const shown = nodes.filter((n) => !isEmptyParagraph(n));
    const known = shown.map((n) => this.recall(n, i, oldEnd));
    let insert = "";
    shown.forEach((node, k) => {
      if (k > 0) insert += known[k - 1]?.next?.eq(node) ? String(known[k - 1]?.gap) : "\n\n";
      insert += known[k]?.text ?? serializeBlock(node, escape);
    });
    const blocks = this.blocks;
    if (oldEnd === i || blocks.slice(i, oldEnd).every((b) => b.from === b.to && isEmptyParagraph(b.node))) {
      // Only new blocks: after the block before them (or before the first one).
      const at = i > 0 ? blocks[i - 1].to : i < blocks.length ? blocks[i].from : this.textValue.length;
      if (insert === "") return { from: at, to: at, insert: "" };
      // An empty paragraph the view shows right before a block (Enter at the start of a table's first cell):
      // its text goes before that block, where the paragraph is, not after the block before.
      const next = blocks.slice(oldEnd).find((b) => b.to > b.from);
      if (oldEnd > i && next && blocks[i].from === next.from && at !== next.from) return { from: next.from, to: next.from, insert: `${insert}\n\n` };
      const hasBefore = blocks.slice(0, i).some((b) => b.to > b.from);
      const hasAfter = blocks.slice(oldEnd).some((b) => b.to > b.from);
      // Between two blocks the text has one line apart (a list the view splits, see `splitLists`): a blank line
      // after it too, or the block after would read as its continuation.
      const tight = next !== undefined && next.from > at && !/\n[ \t>]*\n/.test(this.textValue.sliceString(at, next.from));
      if (hasBefore) return { from: at, to: at, insert: `\n\n${insert}${tight ? "\n" : ""}` };
      return { from: at, to: at, insert: hasAfter ? `${insert}\n\n` : insert };
    }
    const from = blocks[i].from;
    const to = blocks[oldEnd - 1].to;
    if (insert !== "") return { from, to, insert };
    // Blocks removed: with the line breaks that kept them apart from the block before (or after).
    const before = i > 0 ? blocks[i - 1].to : null;
    if (before !== null) return { from: before, to, insert: "" };
    const after = oldEnd < blocks.length ? blocks[oldEnd].from : this.textValue.length;
    return { from, to: Math.max(to, after), insert: "" };
  }

  /** The source a block equal to `node` had: one of old blocks `i..oldEnd`, else one remembered. */
  private recall(node: Node, i: number, oldEnd: number): Remembered | null {
    for (let k = i; k < oldEnd; k++) {
      const block = this.blocks[k];
      if (block.to > block.from && block.node.eq(node)) return this.remembered(k);
    }
    for (let k = this.memory.length - 1; k >= 0; k--) if (this.memory[k].node.eq(node)) return this.memory[k];
    return null;
  }

  /** Block `k` as the text has it now: its source, and the gap to the block after it. */
  private remembered(k: number): Remembered {
    const block = this.blocks[k];
    let next: Block | null = null;
    for (let j = k + 1; j < this.blocks.length && next === null; j++) if (this.blocks[j].to > this.blocks[j].from) next = this.blocks[j];
    const text = this.textValue.sliceString(block.from, block.to);
    return { node: block.node, text, next: next?.node ?? null, gap: next ? this.textValue.sliceString(block.to, next.from) : "" };
  }

  /** The blocks an edit replaces (and those it makes) are remembered with their source, for an undo or redo. */
  private remember(from: number, to: number): void {
    for (let k = from; k < to; k++) if (this.blocks[k].to > this.blocks[k].from && this.blocks[k].to - this.blocks[k].from < MEMORY_BLOCK) this.memory.push(this.remembered(k));
    if (this.memory.length > MEMORY) this.memory.splice(0, this.memory.length - MEMORY);
  }

  private memory: Remembered[] = [];

  /** The blocks of the text after `span`, if they are exactly the nodes the view shows (else null). */
  private check(span: Span, i: number, oldEnd: number, fresh: Blocks, newEnd: number): Reparsed | null {
    const [text, outcome] = this.reparsed(span, i, oldEnd);
    const expected: Node[] = [];
    for (let k = outcome.from; k < i; k++) expected.push(this.blocks[k].node);
    for (let k = i; k < newEnd; k++) expected.push(fresh.child(k));
    for (let k = oldEnd; k < outcome.to; k++) expected.push(this.blocks[k].node);
    const shown = expected.filter((n) => !isEmptyParagraph(n));
    const parsed = splitLists(
      expected,
      outcome.nodes.filter((b) => !(b.from === b.to && isEmptyParagraph(b.node))),
      text,
    );
    if (shown.length !== parsed.length || !shown.every((n, k) => sameShown(n, parsed[k].node))) return null;
    // The view keeps its nodes (and the person's cursor); they take the parse's segments and ranges. A node whose
    // marks the text writes otherwise is the parse's.
    const nodes: Block[] = [];
    let rewritten = false;
    let next = 0;
    let at = outcome.nodes.length ? outcome.nodes[0].from : span.from;
    for (const node of expected) {
      if (isEmptyParagraph(node)) {
        nodes.push({ node, from: at, to: at });
        continue;
      }
      const block = parsed[next++];
      if (!node.eq(block.node) && sameWritten(node, block.node)) {
        rewritten = true;
        nodes.push(block);
      } else {
        adoptSegments(node, block.node, block.from, text);
        nodes.push({ node, from: block.from, to: block.to });
      }
      at = block.to;
    }
    return { ...outcome, nodes, rewritten };
  }

  /**
   * Parse the region of blocks `i..oldEnd` (and a neighbour on each side) of `text`, the text after
   * `span`; widened until the block after the region parses as it did (an unclosed fence swallows
   * what follows). A changed reference definition re-parses everything.
   */
  private reparse(text: Text, span: Span, i: number, oldEnd: number): Reparsed {
    const delta = span.insert.length - (span.to - span.from);
    const blocks = this.blocks;
    let from = Math.max(0, i - 1);
    // The view's empty paragraphs have no text: the block before them may continue past them (a split list).
    while (from > 0 && blocks[from].from === blocks[from].to && isEmptyParagraph(blocks[from].node)) from--;
    let to = Math.min(blocks.length, oldEnd + 1);
    for (;;) {
      // A region that reaches the last block parsed: the rest of the text is parsed first (into `blocks`).
      if (to === blocks.length) this.parsedPast(to);
      const whole = from === 0 && to === blocks.length;
      const first = text.sliceString(0, 1) === BOM ? 1 : 0;
      // Blocks before the region may be empty paragraphs of the view: the region starts the text if they are.
      const start = from === 0 ? first : Math.max(first, blocks[from].from);
      const documentStart = start === first;
      const end = to === blocks.length ? text.length : blocks[to - 1].to + delta;
      const touchesReferences = blocks.slice(from, to).some((b) => isReference(b.node)) || /^\s{0,3}\[[^\]]+\]:/m.test(span.insert);
      // Front matter ends at its closing line, wherever that is: only the whole text tells.
      const frontMatter = documentStart && /^\uFEFF?---/.test(text.sliceString(0, 4));
      if ((touchesReferences || frontMatter) && !whole) {
        from = 0;
        to = blocks.length;
        continue;
      }
      const env: Env = whole ? { documentStart: true } : { references: { ...this.env.references }, documentStart };
      const parsed = parseBlocks(text.sliceString(start, end), start, env).blocks;
      if (parsed.some((b) => isReference(b.node)) && !whole) {
        from = 0;
        to = blocks.length;
        continue;
      }
      const last = parsed[parsed.length - 1];
      const neighbour = to < blocks.length && to - 1 >= oldEnd ? blocks[to - 1] : null;
      const stable = neighbour === null || to === blocks.length || (last && last.to === end && last.node.eq(neighbour.node));
      if (stable || whole) {
        // A whole parse's definitions are the text's once it is committed (a candidate the check rejects is not).
        return { from, to, nodes: parsed.length ? parsed : whole ? [placeholder(text.length)] : [], delta, env: whole ? env : undefined };
      }
      to = Math.min(blocks.length, to + Math.max(1, to - from));
    }
  }

  private commit(span: Span, outcome: Reparsed): void {
    this.projection = null;
    this.remember(outcome.from, outcome.to);
    this.partial?.moved(span.from, span.to, span.insert.length);
    if (outcome.env) this.env = outcome.env;
    this.textValue = applySpan(this.textValue, span);
    this.flat = null;
    const after = this.blocks.slice(outcome.to);
    for (const block of after) {
      block.from += outcome.delta;
      block.to += outcome.delta;
    }
    this.blocks = [...this.blocks.slice(0, outcome.from), ...outcome.nodes, ...after];
    if (this.blocks.length === 0) this.blocks = [placeholder(this.textValue.length)];
    this.remember(outcome.from, outcome.from + outcome.nodes.length);
  }

  // --- commands that name their splice -----------------------------------------------------------

  /**
   * What the view would show if the text took `span` (nothing changes): children `from..to` of the view's
   * document become `blocks` (the parse of the region, with their new source ranges).
   */
  project(span: Span): { from: number; to: number; blocks: Block[] } {
    this.parsedPast(-1, span.to);
    const [i, oldEnd] = this.touched(span);
    const text = applySpan(this.textValue, span);
    const outcome = this.reparse(text, span, i, oldEnd);
    this.projection = { base: this.textValue, blocks: this.blocks.length, span, text, outcome };
    return { from: outcome.from, to: outcome.to, blocks: outcome.nodes };
  }

  /**
   * The last projection: the transaction built from it is dispatched next, and the check of its splice takes
   * the projection's parse instead of parsing the same region again (a paste of 100 KB parses it once).
   */
  private projection: Projection | null = null;

  /** The text after `span`, and the parse of a region of it that covers old blocks `i..oldEnd` and a neighbour on each side. */
  private reparsed(span: Span, i: number, oldEnd: number): [Text, Reparsed] {
    const p = this.projection;
    const covers = p !== null && p.outcome.from <= Math.max(0, i - 1) && p.outcome.to >= Math.min(this.blocks.length, oldEnd + 1);
    if (covers && p.base === this.textValue && p.blocks === this.blocks.length && sameSpan(p.span, span)) return [p.text, p.outcome];
    const text = applySpan(this.textValue, span);
    return [text, this.reparse(text, span, i, oldEnd)];
  }

  /** The text offset of view position `pos` (`bias` -1: the end of what is before it; 1: the start of what follows). */
  offsetAt(doc: Node, pos: number, bias: -1 | 1): number | null {
    return this.sourceAt(doc, pos, bias);
  }

  /** The source `[from, to)` of the content of the textblock around view position `pos` (markup at its edges included). */
  textblockRange(doc: Node, pos: number): [number, number] | null {
    const $pos = doc.resolve(pos);
    if (!$pos.parent.isTextblock || betweenBlocks($pos)) return null;
    const block = this.blocks[blockIndex($pos)];
    const segments = segmentsOf.get($pos.parent);
    if (!block || !segments || segments.length === 0 || segments.some((s) => s.src < 0)) return null;
    return [block.from + segments[0].src, block.from + segments[segments.length - 1].srcEnd];
  }

  /** The line of the text around `offset`: its start, end (before its line break) and text. */
  lineAt(offset: number): { from: number; to: number; text: string; number: number } {
    const line = this.textValue.lineAt(Math.max(0, Math.min(offset, this.textValue.length)));
    return { from: line.from, to: line.to, text: line.text, number: line.number };
  }

  /** Line `number` (1-based) of the text, or null past the last. */
  line(number: number): { from: number; to: number; text: string; number: number } | null {
    if (number < 1 || number > this.textValue.lines) return null;
    const line = this.textValue.line(number);
    return { from: line.from, to: line.to, text: line.text, number: line.number };
  }

  /** Top-level block `k`'s source range `[from, to)`. */
  blockRange(k: number): [number, number] | null {
    const block = this.blocks[k];
    return block ? [block.from, block.to] : null;
  }

  // --- changes from elsewhere -------------------------------------------------------------------

  /**
   * The view showed a change from elsewhere by a smaller replacement than whole blocks: children
   * `from..from + count` of `doc` are equal to the blocks there but other objects. They become the blocks'
   * nodes (with the parse's segments), so the view and the text stay one. False (nothing changed): not equal.
   */
  adoptView(doc: Node, from: number, count: number): boolean {
    const blocks = this.blocks.slice(from, from + count);
    if (blocks.length !== count || !blocks.every((b, k) => blockAt(doc, from + k).eq(b.node))) return false;
    blocks.forEach((block, k) => {
      const node = blockAt(doc, from + k);
      adoptSegments(node, block.node, block.from, this.textValue);
      block.node = node;
    });
    return true;
  }

  /** Apply a change of the text made elsewhere; answers which blocks of the view's document it replaced. */
  remoteEdit(spans: readonly Span[]): ViewChange | null {
    if (spans.length === 0) return null;
    // One span covering them all: the blocks between separate changes are re-parsed too (still few).
    const from = Math.min(...spans.map((s) => s.from));
    const to = Math.max(...spans.map((s) => s.to));
    let text = this.textValue;
    for (const s of [...spans].sort((a, b) => b.from - a.from)) text = text.replace(s.from, s.to, Text.of(s.insert.split("\n")));
    const delta = text.length - this.textValue.length;
    const span: Span = { from, to, insert: text.sliceString(from, to + delta) };
    if (this.parsing && this.partial && from > this.partial.at) {
      // All in the text not parsed yet, past the first character of its first line: the cut holds, no block changes.
      this.textValue = text;
      this.flat = null;
      return null;
    }
    this.parsedPast(-1, to);
    const [i, oldEnd] = this.touched(span);
    const outcome = this.reparse(text, span, i, oldEnd);
    const change: ViewChange = { from: outcome.from, to: outcome.to, nodes: outcome.nodes.map((b) => b.node) };
    this.commit(span, outcome);
    return change;
  }

  /** Old block indices `i..end` whose source the span touches (a span in a gap touches none). */
  private touched(span: Span): [number, number] {
    const blocks = this.blocks;
    let i = 0;
    while (i < blocks.length && blocks[i].to < span.from) i++;
    let end = i;
    while (end < blocks.length && blocks[end].from <= span.to) end++;
    if (end === i && i > 0 && blocks[i - 1].to === span.from) return [i - 1, i];
    return [i, end];
  }

  // --- positions --------------------------------------------------------------------------------

  /** The source range of view positions `from..to` (for a selection), or null where it has none. */
  sourceRange(doc: Node, from: number, to: number): [number, number] | null {
    const a = this.sourceAt(doc, from, -1);
    const b = this.sourceAt(doc, to, 1);
    return a !== null && b !== null && a <= b ? [a, b] : null;
  }

  /**
   * The view position of text offset `offset` (UTF-16): inside a textblock's content where the offset
   * falls in its source; markup that shows nothing (a list's marker, a table's pipes, a mark's
   * delimiters) maps to the content after it (`bias` 1) or before it (`bias` -1). An offset between
   * blocks, or at a block's end with `bias` 1, maps to the edge of the block before (-1) or after (1).
   */
  viewPosition(doc: Node, offset: number, bias: -1 | 1): number {
    const count = blockCount(doc);
    return positionIn(this.blocks, (k) => (k < count ? blockAt(doc, k) : null), (k) => blockPos(doc, k), offset, bias, doc.content.size);
  }

  private sourceAt(doc: Node, pos: number, bias: -1 | 1): number | null {
    const $pos = doc.resolve(pos);
    if (betweenBlocks($pos)) {
      const index = blockIndex($pos);
      if (index >= this.blocks.length) return this.textValue.length;
      return bias < 0 || index === 0 ? this.blocks[index].from : this.blocks[index - 1].to;
    }
    const block = this.blocks[blockIndex($pos)];
    if (!$pos.parent.isTextblock) return null;
    const segments = segmentsOf.get($pos.parent);
    if (!segments || !block) return null;
    const offset = $pos.parentOffset;
    for (const s of segments) {
      if (s.src < 0) continue;
      if (s.verbatim && offset > s.pm && offset < s.pmEnd) return block.from + s.src + (offset - s.pm);
      if (s.pmEnd > s.pm && offset === s.pm) return block.from + s.src;
      if (s.pmEnd > s.pm && offset === s.pmEnd && bias < 0) return block.from + s.srcEnd;
    }
    const last = [...segments].reverse().find((s) => s.src >= 0 && s.pmEnd === offset);
    return last ? block.from + last.srcEnd : null;
  }
}

/**
 * The view position of text offset `offset` among `blocks`, whose nodes `child(k)` start at view position
 * `startOf(k)` (the document's blocks, or a projected region of them). See `SourceDoc.viewPosition`.
 */
export function positionIn(blocks: Block[], child: (k: number) => Node | null, startOf: (k: number) => number, offset: number, bias: -1 | 1, size: number): number {
  let k = 0;
  // At a block's very end, a range that starts there (bias 1) starts in what follows it.
  const past = (b: Block, next: Block): boolean => b.to < offset || (bias > 0 && b.to === offset && next.from > offset);
  while (k < blocks.length - 1 && past(blocks[k], blocks[k + 1])) k++;
  const start = startOf(k);
  const block = blocks[k];
  const node = child(k);
  if (!block || !node) return Math.min(start, size);
  // Before the block: the end of the one before it (-1), or its own start.
  if (offset < block.from) return bias < 0 && k > 0 ? startOf(k - 1) + (child(k - 1)?.nodeSize ?? 1) - 1 : start;
  if (offset > block.to) return start + node.nodeSize;
  const rel = offset - block.from;
  let before: number | null = null;
  let after: number | null = null;
  let done = false;
  const visit = (textblock: Node, contentStart: number): void => {
    if (done) return;
    for (const s of segmentsOf.get(textblock) ?? []) {
      if (s.src < 0) continue;
      if (rel >= s.src && rel <= s.srcEnd) {
        if (s.verbatim) before = after = contentStart + Math.min(s.pm + (rel - s.src), s.pmEnd);
        else if (rel === s.src) before = after = contentStart + s.pm;
        else if (rel === s.srcEnd) before = after = contentStart + s.pmEnd;
        else [before, after] = [contentStart + s.pm, contentStart + s.pmEnd];
        if (bias > 0 || s.verbatim) {
          done = true;
          return;
        }
      } else if (s.srcEnd < rel) before = contentStart + s.pmEnd;
      else if (after === null && s.src > rel) after = contentStart + s.pm;
    }
  };
  if (node.isTextblock) visit(node, start + 1);
  else {
    node.descendants((child, pos) => {
      if (child.isTextblock) visit(child, start + 1 + pos + 1);
      return !child.isTextblock && !done;
    });
  }
  const found: number | null = bias < 0 ? (before ?? after) : (after ?? before);
  // A block without text (a rule, raw HTML, a diagram): its edge.
  return found ?? (bias < 0 ? start : start + node.nodeSize);
}

interface Plan {
  span: Span;
  outcome: Reparsed;
  adopt: PersonChange["adopt"];
}

/** A block the text had: its source and what followed it (for an undo that brings it back). */
interface Remembered {
  node: Node;
  text: string;
  next: Node | null;
  gap: string;
}

/** How many blocks are remembered, and the largest remembered (a block of a megabyte is not kept twice). */
const MEMORY = 64;
const MEMORY_BLOCK = 200_000;

function sameSpan(a: Span, b: Span): boolean {
  return a.from === b.from && a.to === b.to && a.insert === b.insert;
}

/** A splice's projection (`SourceDoc.project`): the text it was made on and its parse. */
interface Projection {
  base: Text;
  /** How many blocks the text had then (a long document's fill adds some). */
  blocks: number;
  span: Span;
  text: Text;
  outcome: Reparsed;
}

interface Reparsed {
  /** Old block indices `from..to` the region covered. */
  from: number;
  to: number;
  nodes: Block[];
  delta: number;
  /** Some of `nodes` are the parse's in place of the view's equal ones that write a mark otherwise. */
  rewritten?: boolean;
  /** The whole text was parsed: its env (the reference definitions) is the text's once committed. */
  env?: Env;
}

function placeholder(at: number): Block {
  return { node: schema.nodes.paragraph.create(), from: at, to: at };
}

function isEmptyParagraph(node: Node): boolean {
  return node.type === schema.nodes.paragraph && node.childCount === 0;
}

/** Whether `node` is or holds a reference definition (a list item or a quote may hold one: its links are the
 * whole text's, so a change to it re-parses everything). */
function isReference(node: Node): boolean {
  if (node.type === schema.nodes.raw_block && node.attrs.kind === "reference") return true;
  let held = false;
  node.descendants((child) => {
    held = held || (child.type === schema.nodes.raw_block && child.attrs.kind === "reference");
    return !held && !child.isTextblock;
  });
  return held;
}

function applySpan(text: Text, span: Span): Text {
  return text.replace(span.from, span.to, Text.of(span.insert.split("\n")));
}

function childrenOf(fragment: Blocks, from: number, to: number): Node[] {
  const nodes: Node[] = [];
  for (let k = from; k < to; k++) nodes.push(fragment.child(k));
  return nodes;
}

/** `[first changed, old end, new end]`: children are compared by identity (untouched nodes are shared). */
function changedChildren(a: Blocks, b: Blocks): [number, number, number] {
  let i = 0;
  while (i < a.childCount && i < b.childCount && a.child(i) === b.child(i)) i++;
  let endA = a.childCount;
  let endB = b.childCount;
  while (endA > i && endB > i && a.child(endA - 1) === b.child(endB - 1)) {
    endA--;
    endB--;
  }
  return [i, endA, endB];
}

/** The one textblock that changed inside a block (the same structure around it), or null. */
function changedTextblock(a: Node, b: Node): [Node, Node] | null {
  if (a.type !== b.type || !sameAttrs(a, b)) return null;
  if (a.isTextblock) return [a, b];
  if (a.childCount !== b.childCount) return null;
  const [i, endA] = changedChildren(a.content, b.content);
  if (endA - i !== 1) return null;
  return changedTextblock(a.child(i), b.child(i));
}

function sameAttrs(a: Node, b: Node): boolean {
  return JSON.stringify(a.attrs) === JSON.stringify(b.attrs);
}

/**
 * Whether the view's node shows what the parse gives, but for spaces the person just typed at a
 * textblock's edge or before a line break (the source keeps them; a parse does not show them).
 */
export function sameShown(view: Node, parsed: Node): boolean {
  if (view.eq(parsed)) return true;
  if (view.type !== parsed.type || !sameAttrs(view, parsed)) return false;
  if (view.isTextblock) return typedSpaces(view, parsed) !== null || spacelessly(view) === spacelessly(parsed) || trailingBreak(view, parsed) !== null || sameButWritten(view, parsed);
  // An empty paragraph in a container is the view's (a new line of a quote the person has not typed in yet).
  const a = shownChildren(view);
  const b = shownChildren(parsed);
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (!sameShown(a[k], b[k])) return false;
  return true;
}

/** Attributes of marks that say how the text writes them (delimiters, a link's source after its text): not shown. */
const WRITTEN: Record<string, readonly string[]> = { em: ["markup"], strong: ["markup"], strike: ["markup"], code: ["markup"], link: ["tail", "label"] };

/** Whether two marks show the same (they may be written otherwise: `__` or `**`, `[ref]` or `[rQef][ref]`). */
function sameShownMark(a: Mark, b: Mark): boolean {
  if (a.eq(b)) return true;
  if (a.type !== b.type) return false;
  const written = WRITTEN[a.type.name] ?? [];
  return Object.keys(a.attrs).every((name) => written.includes(name) || a.attrs[name] === b.attrs[name]);
}

/**
 * Whether two textblocks differ only in how the text writes their marks: a letter typed next to `__foo__` makes
 * it `**foo**`, a reference link named by its text (`[ref]`) whose text changed names its label (`[rQef][ref]`).
 */
function sameButWritten(view: Node, parsed: Node): boolean {
  if (view.childCount !== parsed.childCount) return false;
  for (let k = 0; k < view.childCount; k++) {
    const a = view.child(k);
    const b = parsed.child(k);
    if (a.type !== b.type || a.text !== b.text || !sameAttrs(a, b) || a.marks.length !== b.marks.length) return false;
    if (!a.marks.every((m, i) => sameShownMark(m, b.marks[i]))) return false;
  }
  return true;
}

/**
 * The parse's blocks, with a list split in two where the view shows two lists of its kind with an empty paragraph
 * between them (Enter in an empty item in the middle of a list: the text cannot end the list there until the
 * paragraph has text, so it reads one list). The two parts are the parse's items, each part a block with its own
 * source range (from its first item's line, its segments rebased to it); the text between them is the gap.
 */
function splitLists(expected: readonly Node[], parsed: Block[], text: Text): Block[] {
  const out: Block[] = [];
  let next = 0;
  for (let k = 0; k < expected.length; k++) {
    const node = expected[k];
    if (isEmptyParagraph(node)) continue;
    const block = parsed[next++];
    if (!block) return parsed;
    let j = k + 1;
    while (j < expected.length && isEmptyParagraph(expected[j])) j++;
    const after = expected[j];
    const split = after && j > k + 1 && isList(node) && after.type === node.type && node.childCount + after.childCount === block.node.childCount && block.node.type === node.type ? splitList(block, node.childCount, text) : null;
    if (!split) {
      out.push(block);
      continue;
    }
    out.push(...split);
    k = j;
  }
  return next === parsed.length ? out : parsed;
}

function isList(node: Node): boolean {
  return node.type.name === "bullet_list" || node.type.name === "ordered_list";
}

/** List block `block` as two blocks: items `0..count` and the rest, or null where an item's source is unknown. */
function splitList(block: Block, count: number, text: Text): [Block, Block] | null {
  const list = block.node;
  let at = 0;
  for (let k = 0; k < count; k++) at += list.child(k).nodeSize;
  let first: Node = list.child(count);
  while (!first.isTextblock && first.firstChild) first = first.firstChild;
  const segments = first.isTextblock ? segmentsOf.get(first) : undefined;
  const src = segments?.find((seg) => seg.src >= 0)?.src;
  if (src === undefined) return null;
  const start = text.lineAt(block.from + src).from;
  let end = start - 1;
  while (end > block.from && /^[ \t]*$/.test(text.lineAt(end).text)) end = text.lineAt(end).from - 1;
  if (end <= block.from) return null;
  const rest = list.content.cut(at);
  const number = /^[ \t]*(\d+)[.)]/.exec(text.lineAt(start).text);
  const attrs = list.type.name === "ordered_list" && number ? { ...list.attrs, start: Number(number[1]) } : list.attrs;
  // The second part's segments are offsets from its own start.
  const shift = start - block.from;
  rest.descendants((child) => {
    const own = child.isTextblock ? segmentsOf.get(child) : undefined;
    if (own) segmentsOf.set(child, own.map((seg) => (seg.src < 0 ? seg : { ...seg, src: seg.src - shift, srcEnd: seg.srcEnd - shift })));
  });
  return [
    { node: list.type.create(list.attrs, list.content.cut(0, at)), from: block.from, to: end },
    { node: list.type.create(attrs, rest), from: start, to: block.to },
  ];
}

/** Whether `parsed` is `view` with some marks written otherwise, and nothing else different. */
function sameWritten(view: Node, parsed: Node): boolean {
  if (view.type !== parsed.type || !sameAttrs(view, parsed) || view.childCount !== parsed.childCount) return false;
  if (view.isTextblock) return sameButWritten(view, parsed);
  for (let k = 0; k < view.childCount; k++) if (!view.child(k).eq(parsed.child(k)) && !sameWritten(view.child(k), parsed.child(k))) return false;
  return true;
}

/** The parse's segments with the view's marks in place of the parse's (the two differ only in how they are written). */
function withViewMarks(view: Node, parsed: Node, segments: Segment[]): Segment[] {
  const pairs: [Mark, Mark][] = [];
  parsed.forEach((child, _offset, k) => child.marks.forEach((m, i) => pairs.push([m, view.child(k).marks[i]])));
  const own = (m: Mark): Mark => pairs.find(([p]) => p.eq(m))?.[1] ?? m;
  return segments.map((s) => ({ ...s, marks: s.marks.map(own) }));
}

/**
 * The children of a container as its text says them. The view may hold what the text cannot say yet (each written
 * with the first character typed in it, mdsource/unwritten.ts): an empty paragraph (a quote's new line); an empty
 * first item of a nested list right after its parent's paragraph (`- a\n  -` is a heading `a`); a list shown in two
 * parts by an empty paragraph between them (Enter in an empty middle item of a list in a quote: one list in the
 * text until the paragraph has text, as `splitLists` at the top level).
 */
function shownChildren(node: Node): Node[] {
  const item = node.type === schema.nodes.list_item;
  const nodes: Node[] = [];
  let parted = false;
  node.forEach((child, _offset, k) => {
    if (isEmptyParagraph(child) && !item) {
      parted = true;
      return;
    }
    const shown = item && k > 0 && node.child(k - 1).type === schema.nodes.paragraph ? withoutEmptyFirstItem(child) : child;
    if (!shown) return;
    const last = nodes[nodes.length - 1];
    if (parted && last && isList(shown) && last.type === shown.type && last.attrs.markup === shown.attrs.markup) nodes[nodes.length - 1] = last.copy(last.content.append(shown.content));
    else nodes.push(shown);
    parted = false;
  });
  if (item && nodes.length > 1) return nodes.filter((n) => !isEmptyParagraph(n));
  return nodes;
}

function sameChildTypes(a: Node, b: Node): boolean {
  if (a.childCount !== b.childCount) return false;
  for (let k = 0; k < a.childCount; k++) if (a.child(k).type !== b.child(k).type) return false;
  return true;
}

/** Whether `node` is a list whose first item is one empty paragraph. */
function emptyFirstItem(node: Node): boolean {
  const first = node.firstChild;
  return isList(node) && first !== null && first.childCount === 1 && isEmptyParagraph(first.firstChild as Node);
}

/** A list without its empty first item (null if that was all of it); any other node as it is. */
function withoutEmptyFirstItem(node: Node): Node | null {
  if (!emptyFirstItem(node)) return node;
  return node.childCount === 1 ? null : node.copy(node.content.cut((node.firstChild as Node).nodeSize));
}

/** A textblock's inline content without the spaces a parse drops (at its edges, before a line break). */
function spacelessly(node: Node): string {
  const items: unknown[] = [];
  node.forEach((child) => items.push(child.isText ? [child.text, child.marks.map((m) => m.toJSON())] : child.toJSON()));
  return JSON.stringify(items)
    .replace(/^\[\["[ \t]+/, '[["')
    .replace(/[ \t]+(",\[[^\]]*\]\]\])$/, "$1")
    .replace(/[ \t]+\\n/g, "\\n");
}

/** The run of spaces `[at, at + length)` the view has and the parse does not (its only difference), or null. */
function typedSpaces(view: Node, parsed: Node): [number, number] | null {
  const start = parsed.content.findDiffStart(view.content);
  const ends = parsed.content.findDiffEnd(view.content);
  if (start === null || !ends) return null;
  const length = ends.b - start;
  if (ends.a !== start || length <= 0) return null;
  return /^[ \t]+$/.test(view.textBetween(start, ends.b)) ? [start, length] : null;
}

/**
 * A hard break the person just put at the end of a textblock (Shift+Enter): the view's until a line follows it
 * (a parse shows no break at a textblock's end), written with that line. Answers the content size before it.
 */
function trailingBreak(view: Node, parsed: Node): number | null {
  const last = view.lastChild;
  if (!last || last.type.name !== "hard_break") return null;
  const rest = view.content.cut(0, view.content.size - last.nodeSize);
  return rest.eq(parsed.content) ? rest.size : null;
}

/** The view's node keeps the parse's segments (the two are equal, so positions agree; typed spaces get theirs). */
function adoptSegments(node: Node, parsed: Node, base: number, text: Text): void {
  if (node === parsed) return;
  const segments = segmentsOf.get(parsed);
  if (node.isTextblock) {
    if (segments) segmentsOf.set(node, node.eq(parsed) ? segments : withSpaces(node, parsed, segments, base, text));
    return;
  }
  if (sameChildTypes(node, parsed)) {
    node.forEach((child, _offset, k) => adoptSegments(child, parsed.child(k), base, text));
    return;
  }
  // The view holds what the text cannot say yet (see `shownChildren`): those keep their own segments.
  const shown = shownChildren(parsed);
  const item = node.type === schema.nodes.list_item;
  let k = 0;
  let used = 0; // items of the list `shown[k - 1]` that the view's lists took
  let parted = false;
  node.forEach((child, _offset, index) => {
    if (isEmptyParagraph(child) && !(shown[k] && isEmptyParagraph(shown[k]))) {
      parted = !item;
      return;
    }
    const list = shown[k - 1];
    if (parted && list && isList(child) && list.type === child.type && used < list.childCount) {
      // The second part of a list the view shows in two: its items are the parse's next ones.
      child.forEach((entry, _o, j) => used + j < list.childCount && adoptSegments(entry, list.child(used + j), base, text));
      used += child.childCount;
      parted = false;
      return;
    }
    parted = false;
    const skip = item && index > 0 && node.child(index - 1).type === schema.nodes.paragraph && emptyFirstItem(child) ? 1 : 0;
    if (skip && child.childCount === 1) return;
    const target = shown[k++];
    if (!target) return;
    if (skip) child.forEach((entry, _o, j) => j > 0 && j - 1 < target.childCount && adoptSegments(entry, target.child(j - 1), base, text));
    else adoptSegments(child, target, base, text);
    used = isList(child) ? child.childCount - skip : 0;
  });
}

/** The parse's segments, and the view's trailing hard break's: no source yet, at the end of the textblock's. */
function withBreak(segments: Segment[], size: number): Segment[] | null {
  const tail = [...segments].reverse().find((s) => s.src >= 0);
  if (!tail) return null;
  return [...segments, { pm: size, pmEnd: size + 1, src: tail.srcEnd, srcEnd: tail.srcEnd, verbatim: false, marks: [] }];
}

function withSpaces(node: Node, parsed: Node, segments: Segment[], base: number, text: Text): Segment[] {
  if (sameButWritten(node, parsed)) return withViewMarks(node, parsed, segments);
  const size = trailingBreak(node, parsed);
  if (size !== null) return withBreak(segments, size) ?? segments.map((s) => ({ ...s, src: -1, srcEnd: -1 }));
  const spaces = typedSpaces(node, parsed);
  if (!spaces) return segments.map((s) => ({ ...s, src: -1, srcEnd: -1 }));
  const [at, length] = spaces;
  const prev = [...segments].reverse().find((s) => s.pmEnd <= at && s.src >= 0);
  const next = segments.find((s) => s.pm >= at && s.pmEnd > s.pm && s.src >= 0);
  const candidates = [prev?.srcEnd, next ? next.src - length : undefined].filter((p): p is number => p !== undefined);
  const spaced = (p: number) => base + p + length <= text.length && /^[ \t]+$/.test(text.sliceString(base + p, base + p + length));
  const src = candidates.find((p) => p >= 0 && spaced(p));
  const out: Segment[] = [];
  for (const s of segments) {
    if (s.pmEnd <= at && !(s.pm === at && s.pmEnd === at && next && s.src >= (src ?? 0) + length)) out.push(s);
    else if (s.pm >= at) out.push({ ...s, pm: s.pm + length, pmEnd: s.pmEnd + length });
    else {
      const cut = at - s.pm;
      out.push({ ...s, pmEnd: at, srcEnd: s.src + cut });
      out.push({ ...s, pm: at + length, pmEnd: s.pmEnd + length, src: s.src + cut });
    }
  }
  if (src === undefined) return out.map((s) => ({ ...s, src: -1, srcEnd: -1 }));
  const marks = node.resolve(Math.min(at + 1, node.content.size)).marks();
  out.push({ pm: at, pmEnd: at + length, src, srcEnd: src + length, verbatim: true, marks });
  return out.sort((a, b) => a.pm - b.pm || a.src - b.src);
}

/**
 * Splices of a textblock change straight into its source: the deleted range of verbatim text (and the
 * markup wholly inside it) removed, the typed text put where text with its marks is. Plain first, then
 * escaped (the check tells which one reads back as typed). None if the change is not of that kind.
 */
function directSplices(old: Node, fresh: Node, segments: Segment[], base: number, continuation: string): Span[] {
  const changed = changedRange(old, fresh);
  if (!changed) return [];
  const { start, endA, endB } = changed;
  const inserted = fresh.content.cut(start, endB);
  let typed = "";
  let marks: readonly Mark[] | null = null;
  let plain = true;
  inserted.forEach((node) => {
    if (!node.isText || (marks !== null && !sameMarks(marks, node.marks))) plain = false;
    marks ??= node.marks;
    typed += node.text ?? "";
  });
  if (!plain) return [];
  const code = Boolean(old.type.spec.code) || (marks ?? []).some((m: Mark) => m.type.name === "code");
  if (typed.includes("\n") && !old.type.spec.code) return [];
  const breaks = (s: string) => s.replace(/\n/g, `\n${continuation}`);
  const texts = [breaks(typed)];
  if (!code) {
    const escaped = breaks(escapeText(typed, "x"));
    if (escaped !== texts[0]) texts.push(escaped);
    // Into an empty heading (`#`, `### ###`) the text goes with the space the construct needs.
    if (old.content.size === 0) texts.push(`${texts[0]} `, ` ${texts[0]}`);
  }
  let places: [number, number][];
  if (endA > start) {
    const from = srcOf(segments, start, "start");
    const to = srcOf(segments, endA, "end");
    if (from === null || to === null || to < from || !wholeSegments(segments, start, endA)) return [];
    places = [[from, to]];
  } else places = insertionPlaces(segments, start, marks ?? []).map((at) => [at, at]);
  return places.flatMap(([from, to]) => texts.map((insert) => ({ from: base + from, to: base + to, insert })));
}

/** Whether `from..to` cuts no markup segment (an escape, a soft break, an atom) in two. */
function wholeSegments(segments: Segment[], from: number, to: number): boolean {
  return segments.every((s) => s.verbatim || s.pmEnd <= from || s.pm >= to || (s.pm >= from && s.pmEnd <= to));
}

/** The source offset (block-relative) of content position `at`, as the start or the end of a deletion. */
function srcOf(segments: Segment[], at: number, role: "start" | "end"): number | null {
  const inside = segments.find((s) => s.verbatim && s.pm < at && at < s.pmEnd);
  if (inside) return inside.src + (at - inside.pm);
  const sized = segments.filter((s) => s.pmEnd > s.pm);
  const prev = [...sized].reverse().find((s) => s.pmEnd === at) ?? null;
  const next = sized.find((s) => s.pm === at) ?? null;
  if (role === "start") return next ? next.src : prev ? prev.srcEnd : null;
  return prev ? prev.srcEnd : next ? next.src : null;
}

/**
 * Where text with `marks` typed at content position `at` can go in the source: inside verbatim text with
 * those marks, or at a boundary where those marks hold (before or after the markup there: a markup
 * segment carries the marks outside it).
 */
function insertionPlaces(segments: Segment[], at: number, marks: readonly Mark[]): number[] {
  const inside = segments.find((s) => s.verbatim && s.pm < at && at < s.pmEnd);
  if (inside) return sameMarks(inside.marks, marks) ? [inside.src + (at - inside.pm)] : [];
  const places: number[] = [];
  const add = (pos: number, held: readonly Mark[]) => {
    if (sameMarks(held, marks) && !places.includes(pos)) places.push(pos);
  };
  for (const s of segments) {
    if (s.pmEnd === at && s.pmEnd > s.pm) add(s.srcEnd, s.marks);
    if (s.pm === at && s.pmEnd === s.pm) {
      add(s.src, s.marks);
      add(s.srcEnd, s.marks);
    }
  }
  for (const s of segments) if (s.pm === at && s.pmEnd > s.pm) add(s.src, s.marks);
  return places;
}

function sameMarks(a: readonly Mark[], b: readonly Mark[]): boolean {
  return a.length === b.length && a.every((m, i) => m.eq(b[i]));
}
