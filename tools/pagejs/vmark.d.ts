// What the page scripts share besides the DOM (src/vmark/browser/js/*.js, run by src/vmark/browser/isolated.py).

/** recorder.js: the driver puts runtime.js here, in a closure of the shim's own (browser/recorder.py). */
declare const __RUNTIME__: void;

/** A ref the runtime issued (`e12`, `f2e7`): it names one element for the life of its document. */
type Ref = string;
/** Why a ref names no element of the current view. */
type RefError = "malformed" | "stale" | "gone" | "unknown";
/** What a walk carries down the tree (snapshot.js: inherited inertness and aria-disabled). */
interface WalkContext {
  inert?: boolean;
  ariaDisabled?: boolean;
}
/** What a walk collects besides its visits: frames it could not enter, closed-root candidates. */
interface WalkFound {
  frames: { frame: number; at: number }[];
  hosts: Element[];
  /** where the walk is now (snapshot.js: how many nodes it has), for the frames it meets */
  mark?: () => number;
}
/** A visit's answer: false prunes the subtree, 'stop' ends the walk, a context goes to the children. */
type Visit = (el: Element, ctx: WalkContext) => boolean | "stop" | WalkContext | undefined;

/**
 * The runtime object the page scripts share in their isolated world (runtime.js defines it, read-only,
 * as `globalThis.__vmark`; snapshot.js, act.js, query.js and style.js add their entry points to it, which
 * the driver calls by name).
 */
interface VmarkRuntime {
  // --- runtime.js ---
  S: {
    next: number;
    base: number;
    refs: Map<Ref, WeakRef<Element>>;
    byEl: WeakMap<Element, Ref>;
    frameIndex: WeakMap<Element, number>;
    frameByIndex: Map<number, WeakRef<Element>>;
    nextFrame: number;
    unentered: Element[];
  };
  SKIP_TAGS: Set<string>;
  NAME_LIMIT: number;
  init(base: number): number;
  frameKind(index: number): "same" | "cross" | "gone";
  unenteredFrames(): Element[];
  frameByIndex(index: number): Element | null;
  frameIndexOf(frame: Element): number;
  inCurrentView(el: Element): boolean;
  checkRef(ref: Ref): RefError | null;
  refElements(ref: Ref): Element[];
  refOf(el: Element): Ref;
  resolve(ref: Ref): { el: Element; error?: undefined } | { el?: undefined; error: RefError };
  style(el: Element): CSSStyleDeclaration;
  flatParent(node: Node): Element | null;
  composedParent(node: Node): Element | null;
  roleOf(el: Element): string | null;
  nameOf(el: Element, role: string | null, includeHidden: boolean): string;
  normalize(text: string): string;
  headingLevel(el: Element): number;
  checkedOf(el: Element, role: string): boolean | "mixed" | undefined;
  isDisabled(el: Element): boolean;
  ariaDisabled(el: Element): boolean;
  inertOrModalOutside(el: Element): boolean;
  /** true when the visit stopped it */
  walk(visit: Visit, found: WalkFound | null): boolean;
  notRendered(el: Element): string | null;
  describe(el: Element): string;
  contentText(root: Element, includeHidden: boolean, skip: Element | null, limit: number): string;
  // --- snapshot.js, query.js, style.js, act.js: entry points the driver calls ---
  snapshot(): unknown;
  snapshotHosts(limit: number): Element[];
  query(selector: unknown, fields: QueryFields | null | undefined): unknown;
  restyle(target: StyleTarget, op: StyleOp): unknown;
  actFind(role: string, name: string): unknown;
  framePoint(index: number, x: number, y: number, hitTest: boolean): unknown;
  actPrepare(ref: Ref, op: string): unknown;
  focus(ref: Ref): unknown;
  fieldValue(ref: Ref): unknown;
  selectOption(ref: Ref, choice: unknown): unknown;
  keyArm(): unknown;
  keyResult(): unknown;
  navArm(): boolean;
  navResult(): boolean;
  scrollTo(ref: Ref): unknown;
  selectAllIn(ref: Ref): unknown;
}

/** query.js: what each element's entry carries besides its ref, tag and text. */
interface QueryFields {
  attributes?: boolean;
  box?: boolean;
  styles?: unknown[];
}
/** style.js: the elements a style change applies to, by ref or by selector. */
interface StyleTarget {
  ref?: Ref | null;
  selector?: string;
}
/** style.js: one style change. */
interface StyleOp {
  set?: Record<string, unknown>;
  addClasses?: unknown[];
  removeClasses?: unknown[];
  injectCss?: string;
}

declare var __vmark: VmarkRuntime;
