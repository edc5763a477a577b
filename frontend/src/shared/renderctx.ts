// Where the shown document lives (its window and file): what WYSIWYG resolves a document's images against.
// Kept apart from the views so the page's first bundle does not carry ProseMirror.
import type { Text } from "@codemirror/state";

/** Where the shown document lives: images resolve against its folder, through the window's scope. */
export interface RenderContext {
  window: string;
  docPath: string | null;
}

let context: RenderContext = { window: "", docPath: null };
/** The `editor.remote_images` setting: off, the page does not even ask for an https image. */
let remoteImages = true;

export function setRemoteImages(allowed: boolean): void {
  remoteImages = allowed;
}

export function setRenderContext(next: RenderContext): void {
  context = next;
}

/** The shown document's window and file (links resolve against its folder; pasted images are written beside it). */
export function renderContext(): RenderContext {
  return context;
}

/** The address the page loads an image `src` of the document from, or null (nothing to load). */
export function imageAddress(src: string, ctx: RenderContext = context): string | null {
  const trimmed = src.trim();
  if (trimmed === "") return null;
  if (/^https:/i.test(trimmed)) return remoteImages ? trimmed : null;
  if (/^data:image\//i.test(trimmed)) return trimmed;
  if (/^http:/i.test(trimmed)) return null; // the page's policy never admits plain http
  let path: string;
  if (/^file:\/\//i.test(trimmed)) path = trimmed.replace(/^file:\/\/(localhost)?/i, "");
  else if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed)) return null; // another scheme: nothing we load
  else if (trimmed.startsWith("/")) path = trimmed;
  else {
    if (!ctx.docPath) return null; // an untitled document has no folder
    path = `${ctx.docPath.slice(0, ctx.docPath.lastIndexOf("/") + 1)}${trimmed}`;
  }
  path = path.replace(/[?#].*$/, "");
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    decoded = path;
  }
  const parts: string[] = [];
  for (const part of decoded.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  if (!ctx.window) return null;
  return `/files/${encodeURIComponent(ctx.window)}/${parts.map(encodeURIComponent).join("/")}`;
}

/** What the WYSIWYG engine answers about where a view position is in the text. */
interface SourceMap {
  sourceRange(doc: never, from: number, to: number): [number, number] | null;
  /** The text as CodeMirror's rope: its unchanged parts stay the same objects from one edit to the next. */
  readonly rope: Text;
  slice(from: number, to: number): string;
}

const sources = new WeakMap<object, () => SourceMap>();

/** The WYSIWYG editor names the SourceDoc behind its view (for the status bar's line and column). */
export function registerSource(view: object, source: () => SourceMap): void {
  sources.set(view, source);
}

/** The text (UTF-16 offsets `from..to`) behind the WYSIWYG view, or null for a view that is not one. */
export function sourceSlice(view: object, from: number, to: number): string | null {
  const source = sources.get(view);
  return source ? source().slice(from, to) : null;
}

/** The text behind the WYSIWYG view as a rope, or null for a view that is not one. */
export function sourceRope(view: object): Text | null {
  return sources.get(view)?.().rope ?? null;
}

/** The text offset (UTF-16) of view position `pos`, or null where the view has no source there. */
export function sourceOffset(view: { state: { doc: unknown } }, pos: number): number | null {
  const source = sources.get(view);
  if (!source) return null;
  try {
    return source().sourceRange(view.state.doc as never, pos, pos)?.[0] ?? null;
  } catch {
    return null;
  }
}
