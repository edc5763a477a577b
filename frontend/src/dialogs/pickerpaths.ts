// The picker's pure parts: POSIX paths as the person types them, the breadcrumb of a folder, the filter's
// match, the words for a size. No DOM here (unit tested in test/pickerpaths.test.ts).

export interface PlaceLike {
  path: string;
  kind: string;
}

export interface Crumb {
  label: string;
  path: string;
}

export function joinPath(folder: string, name: string): string {
  return folder.endsWith("/") ? `${folder}${name}` : `${folder}/${name}`;
}

export function baseName(path: string): string {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, "") : path;
  return trimmed.slice(trimmed.lastIndexOf("/") + 1) || trimmed;
}

export function dirName(path: string): string {
  const cut = path.replace(/\/+$/, "").lastIndexOf("/");
  return cut <= 0 ? "/" : path.slice(0, cut);
}

/** Typed text that names a place rather than filtering: `/abs`, `~`, `~/x`, `..`, or anything with a slash. */
export function isPathLike(text: string): boolean {
  return text.startsWith("/") || text === "~" || text.startsWith("~/") || text === ".." || text.includes("/");
}

/** Where typed text leads from `current`: absolute and `~` paths as typed (the app resolves them), else below it. */
export function resolveTyped(current: string, text: string): string {
  if (text.startsWith("/") || text === "~" || text.startsWith("~/")) return text;
  return joinPath(current, text);
}

/** A name to save under: one without a suffix gets `suffix` (`.md`: VMark saves Markdown). */
export function withSuffix(name: string, suffix = ".md"): string {
  const base = baseName(name);
  return base.includes(".") && !base.endsWith(".") ? name : `${name.replace(/\.$/, "")}${suffix}`;
}

/** The breadcrumb of `path`: from the home folder (shown as `~`) when it holds the path, else from the widest
 * place holding it (each crumb is then a folder the picker lists), then each folder below it. */
export function crumbsOf(path: string, places: PlaceLike[], home: string): Crumb[] {
  const holds = (root: string): boolean => path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`);
  const widest = places
    .map((p) => p.path)
    .filter(holds)
    .sort((a, b) => a.length - b.length)[0];
  const root = home && holds(home) ? home : (widest ?? "/");
  const crumbs: Crumb[] = [{ label: root === home ? "~" : root, path: root }];
  const rest = path.slice(root.length).split("/").filter(Boolean);
  let at = root;
  for (const part of rest) {
    at = joinPath(at, part);
    crumbs.push({ label: part, path: at });
  }
  return crumbs;
}

/** Where `text` occurs in `name` (any case), or -1: the filter keeps names containing it. */
export function matchAt(name: string, text: string): number {
  return text === "" ? 0 : name.toLowerCase().indexOf(text.toLowerCase());
}

export function sizeText(bytes: number | null): string {
  if (bytes === null) return "";
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
