// Which file a wikilink names, and what `[[` offers: the workspace's files (the list the file tree and quick
// open show, `ui.files`), kept here as the tree loads it. Pure functions over that list (no editor):
// both modes' views, the completion and the following of a link use them (docs/links.md).
//
// The rule: `[[name]]` names a file called `name.md` (or `name` itself, when it ends with .md, .txt or another
// suffix VMark opens as text) in any folder
// of the window's workspaces, case-insensitively; `[[folder/name]]` a file whose path ends with
// `folder/name.md` at a folder boundary. When several match, the nearest to the current document wins: the
// fewest folder steps from the document's folder to the file's (up, then down), then the shallower file,
// then the path in alphabetical order. A document with no file (untitled) has no place: fewest steps
// from the workspace root.
import { fuzzyScore } from "../shared/fuzzy";

/** One file the app opens, in one of the window's workspaces. */
export interface WorkspaceFile {
  root: string;
  /** Relative to `root`, "/"-separated. */
  path: string;
}

let files: WorkspaceFile[] = [];
const listeners = new Set<() => void>();

/** The window's workspace files, as the tree just loaded them (every view of a wikilink updates). */
export function setWorkspaceFiles(next: WorkspaceFile[]): void {
  const same = next.length === files.length && next.every((f, k) => f.root === files[k].root && f.path === files[k].path);
  files = next;
  if (!same) for (const listener of listeners) listener();
}

export function workspaceFiles(): readonly WorkspaceFile[] {
  return files;
}

/** Call `listener` whenever the list changes; answers the function that stops it. */
export function onWorkspaceFiles(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The suffixes of the files VMark opens as text (core/kinds.py): a name without one means `name.md`. */
const TEXT_SUFFIX = /\.(md|markdown|mdown|mkd|mdx|txt)$/i;

function folderOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/"));
}

function segments(folder: string): string[] {
  return folder.split("/").filter((s) => s !== "");
}

/** Folder steps from folder `a` to folder `b` (up to their common folder, then down). */
function steps(a: string[], b: string[]): number {
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  return a.length - common + (b.length - common);
}

/** The files of a list by their own name, lower case (a wikilink looks up its last segment, not every file). */
const byName = new WeakMap<readonly WorkspaceFile[], Map<string, WorkspaceFile[]>>();

function named(list: readonly WorkspaceFile[], base: string): WorkspaceFile[] {
  let index = byName.get(list);
  if (!index) {
    index = new Map();
    for (const file of list) {
      const key = file.path.slice(file.path.lastIndexOf("/") + 1).toLowerCase();
      index.set(key, [...(index.get(key) ?? []), file]);
    }
    byName.set(list, index);
  }
  return index.get(base) ?? [];
}

/** The files `name` names: by their own name, or by a path ending with it at a folder boundary. */
function namedBy(name: string, list: readonly WorkspaceFile[]): WorkspaceFile[] {
  const wanted = name.toLowerCase().replace(/^\.?\/+/, "");
  const candidates = TEXT_SUFFIX.test(wanted) ? [wanted, `${wanted}.md`] : [`${wanted}.md`];
  return candidates.flatMap((c) => {
    const base = c.slice(c.lastIndexOf("/") + 1);
    return named(list, base).filter((f) => {
      const path = f.path.toLowerCase();
      return path === c || path.endsWith(`/${c}`);
    });
  });
}

/** Every file `name` names, the nearest to `docPath` first (see the rule above). */
export function wikilinkMatches(name: string, docPath: string | null, list: readonly WorkspaceFile[] = files): string[] {
  if (name.trim() === "") return [];
  const found = namedBy(name.trim(), list).map((f) => `${f.root}/${f.path}`);
  const from = docPath ? segments(folderOf(docPath)) : null;
  const rootOf = (abs: string) => list.find((f) => `${f.root}/${f.path}` === abs)?.root ?? "";
  const distance = (abs: string): number => steps(from ?? segments(rootOf(abs)), segments(folderOf(abs)));
  const depth = (abs: string): number => segments(abs).length;
  return found.sort((a, b) => distance(a) - distance(b) || depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/** The file `[[name]]` opens from the document at `docPath`, or null (an unresolved wikilink). */
export function resolveWikilink(name: string, docPath: string | null, list: readonly WorkspaceFile[] = files): string | null {
  return wikilinkMatches(name, docPath, list)[0] ?? null;
}

/** Where `[[name]]` creates its file when none exists: beside the document (`name.md` unless it has a suffix). */
export function newWikilinkPath(name: string, docPath: string | null, fallbackFolder: string | null): string | null {
  const folder = docPath ? folderOf(docPath) : fallbackFolder;
  if (folder === null) return null;
  const clean = name.trim().replace(/^\.?\/+/, "");
  return `${folder}/${TEXT_SUFFIX.test(clean) ? clean : `${clean}.md`}`;
}

export interface WikilinkOption {
  /** The file's name as the list shows it (without `.md`). */
  label: string;
  /** Its path in the workspace. */
  detail: string;
  /** What goes between `[[` and `]]`: the shortest name that resolves to this file from the document. */
  insert: string;
  /** Its absolute path. */
  path: string;
}

/** The files `[[query` may complete to, best first (fuzzy, as quick open), at most `limit`. */
export function wikilinkOptions(query: string, docPath: string | null, list: readonly WorkspaceFile[] = files, limit = 50): WikilinkOption[] {
  const several = new Set(list.map((f) => f.root)).size > 1;
  const scored: [number, WikilinkOption][] = [];
  for (const file of list) {
    const base = file.path.slice(file.path.lastIndexOf("/") + 1);
    const label = base.toLowerCase().endsWith(".md") ? base.slice(0, -3) : base;
    const score = query.trim() === "" ? 0 : Math.max(fuzzyScore(query, file.path) ?? -Infinity, fuzzyScore(query, label) ?? -Infinity);
    if (score === -Infinity) continue;
    const rootName = file.root.slice(file.root.lastIndexOf("/") + 1);
    const path = `${file.root}/${file.path}`;
    scored.push([score, { label, detail: several ? `${rootName}/${file.path}` : file.path, insert: "", path }]);
  }
  if (query.trim() !== "") scored.sort((a, b) => b[0] - a[0]);
  return scored.slice(0, limit).map(([, option]) => ({ ...option, insert: shortestName(option.path, docPath, list) }));
}

/** The shortest `[[...]]` name (its file name, else with as many folders as it takes) that opens `path`. */
function shortestName(path: string, docPath: string | null, list: readonly WorkspaceFile[]): string {
  const file = list.find((f) => `${f.root}/${f.path}` === path);
  const relative = file ? file.path : path.slice(path.lastIndexOf("/") + 1);
  const parts = relative.split("/");
  const last = parts.length - 1;
  if (parts[last].toLowerCase().endsWith(".md")) parts[last] = parts[last].slice(0, -3);
  for (let k = last; k >= 0; k--) {
    const name = parts.slice(k).join("/");
    if (resolveWikilink(name, docPath, list) === path) return name;
  }
  return parts.join("/");
}
