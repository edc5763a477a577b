// Following a link, in both modes (docs/links.md): Ctrl+click (Cmd+click on a Mac) on a link, an autolink or
// a wikilink. What a link names is decided here, once, from its destination as written:
//
// - `#heading`: a heading of this document (its GitHub-style slug, or its text);
// - `http:` / `https:`: the person's browser, in a new tab that cannot reach back (`noopener,noreferrer`);
//   the app's page never navigates;
// - another scheme (`javascript:`, `data:`, `file:`, `mailto:` ...): refused, with a notice;
// - anything else: a file, relative to the document's folder (or absolute), percent-decoded, `.md` added
//   when its name has no suffix, opened by the app only inside the window's path scope (`ui.open_link`),
//   then `#heading` in it. A file that does not exist is offered for creation (`ui.file_create`).
//
// A wikilink names a workspace file by name (wikilinks.ts); an unresolved one creates its file beside the
// document. The page gives this module its channel and how to show a tab (`setLinkHost`).
import { el, modalAnswer, toast } from "../shared/dom";
import { type Heading, jumpToHeading, shownHeadings } from "./headings";
import { type Channel, errorText } from "../shared/protocol";
import { renderContext } from "../shared/renderctx";
import { newWikilinkPath, resolveWikilink, workspaceFiles } from "./wikilinks";

export type LinkTarget =
  | { kind: "web"; url: string }
  | { kind: "heading"; heading: string }
  | { kind: "file"; path: string; heading: string | null; written: string }
  | { kind: "wikilink"; name: string; heading: string | null; path: string | null }
  | { kind: "refused"; scheme: string; written: string };

/** What the page gives: the channel, the shown tab and its file, and how to show a tab the app opened. */
export interface LinkHost {
  channel: Channel;
  tabId(): string | null;
  show(tabId: string): Promise<void>;
  /** A folder for a new file when the document has none (an untitled one): the workspace's. */
  workspaceRoot(): string | null;
  /** A file was created: the tree (and the wikilinks' list of files) load again. */
  filesChanged(): Promise<void>;
}

let host: LinkHost | null = null;

export function setLinkHost(next: LinkHost): void {
  host = next;
}

const TEXT_SUFFIX = /\.[A-Za-z0-9]+$/;

/** Percent-decoded (as written where it is no valid percent-encoding). */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** What a link's destination (its `href` as the parse gave it, or as written) names. */
export function linkTarget(href: string): LinkTarget {
  const written = href.trim();
  if (written.startsWith("#")) return { kind: "heading", heading: decoded(written.slice(1)) };
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(written)?.[1]?.toLowerCase();
  if (scheme === "http" || scheme === "https") return { kind: "web", url: written };
  if (scheme !== undefined || written.startsWith("//")) return { kind: "refused", scheme: scheme ?? "//", written };
  const hash = written.indexOf("#");
  const heading = hash < 0 ? null : decoded(written.slice(hash + 1)) || null;
  let path = decoded((hash < 0 ? written : written.slice(0, hash)).replace(/\?.*$/, ""));
  if (path === "") return { kind: "heading", heading: heading ?? "" };
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (name !== "" && !TEXT_SUFFIX.test(name)) path += ".md";
  return { kind: "file", path, heading, written };
}

/** What a wikilink's target (`name`, `name#heading`, `#heading`) names, resolved in the workspace now. */
export function wikilinkTarget(target: string, docPath: string | null): LinkTarget {
  const hash = target.indexOf("#");
  const name = (hash < 0 ? target : target.slice(0, hash)).trim();
  const heading = hash < 0 ? null : target.slice(hash + 1).trim() || null;
  if (name === "") return { kind: "heading", heading: heading ?? "" };
  return { kind: "wikilink", name, heading, path: resolveWikilink(name, docPath) };
}

const MAC = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);
/** The modifier a click needs to follow a link, as this machine names it. */
export const FOLLOW_KEY = MAC ? "Cmd" : "Ctrl";

/** Whether a click asks to follow a link (Ctrl+click, Cmd+click on a Mac). */
export function followClick(event: MouseEvent): boolean {
  return event.button === 0 && (MAC ? event.metaKey : event.ctrlKey || event.metaKey) && !event.altKey;
}

/** The words a link shows on hover. */
export function hoverText(target: LinkTarget): string {
  const click = `${FOLLOW_KEY}+click`;
  switch (target.kind) {
    case "web":
      return `${target.url} — ${click} to open in your browser`;
    case "heading":
      return `#${target.heading} — ${click} to go to the heading`;
    case "file":
      return `${target.path}${target.heading ? `#${target.heading}` : ""} — ${click} to open`;
    case "wikilink": {
      const heading = target.heading ? `#${target.heading}` : "";
      if (target.path === null) return `${target.name}${heading} does not exist yet — ${click} to create it`;
      return `${workspacePath(target.path)}${heading} — ${click} to open`;
    }
    case "refused":
      return `${target.written} — VMark does not open ${target.scheme === "//" ? "addresses without a scheme" : `${target.scheme}: links`}`;
  }
}

/** A workspace file's path as the tree shows it (relative to its workspace), else as it is. */
function workspacePath(path: string): string {
  const file = workspaceFiles().find((f) => `${f.root}/${f.path}` === path);
  return file ? file.path : path;
}

/** Follow `target` (the person Ctrl+clicked it); every failure is a notice, nothing throws. */
export async function followLink(target: LinkTarget): Promise<void> {
  try {
    await follow(target);
  } catch (err) {
    toast(`The link was not opened: ${errorText(err)}`, "error");
  }
}

async function follow(target: LinkTarget): Promise<void> {
  switch (target.kind) {
    case "web":
      // A new tab of the person's browser that cannot reach this page (and is not told where it came from).
      window.open(target.url, "_blank", "noopener,noreferrer");
      return;
    case "refused":
      toast(`VMark does not open ${target.scheme === "//" ? "addresses without a scheme" : `${target.scheme}: links`} (${short(target.written)}): only web pages (http, https) and files`, "warning");
      return;
    case "heading":
      goToHeading(target.heading);
      return;
    case "file":
      await openFile(target.path, target.heading);
      return;
    case "wikilink": {
      const docPath = renderContext().docPath;
      const path = target.path ?? newWikilinkPath(target.name, docPath, host?.workspaceRoot() ?? null);
      if (path === null) {
        toast(`${target.name}: save the document first (a new file goes beside it)`, "warning");
        return;
      }
      await openFile(path, target.heading);
    }
  }
}

function short(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** Open `path` (relative to the document, or absolute) in its tab through the app, then go to `heading`. */
async function openFile(path: string, heading: string | null): Promise<void> {
  const page = host;
  const tabId = page?.tabId();
  if (!page || !tabId) return;
  let answer = await page.channel.request("ui.open_link", { tabId, path });
  if (answer.tabId === undefined) {
    if (!(await askCreate(answer.path))) return;
    await page.channel.request("ui.file_create", { path: answer.path });
    await page.filesChanged();
    answer = await page.channel.request("ui.open_link", { tabId, path: answer.path });
    if (answer.tabId === undefined) return;
  }
  await page.show(answer.tabId);
  if (heading) goToHeading(heading);
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingSlug(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
}

/** The heading `fragment` names: by its slug (repeated slugs get -1, -2 ... as on GitHub), else by its text. */
export function findHeading(headings: Heading[], fragment: string): Heading | null {
  const seen = new Map<string, number>();
  const wanted = fragment.trim().toLowerCase();
  for (const heading of headings) {
    const base = headingSlug(heading.text);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    if ((count === 0 ? base : `${base}-${count}`) === wanted) return heading;
  }
  const words = wanted.replace(/\s+/g, " ");
  return headings.find((h) => h.text.trim().toLowerCase().replace(/\s+/g, " ") === words) ?? null;
}

function goToHeading(fragment: string): void {
  if (fragment === "") return;
  const heading = findHeading(shownHeadings(), fragment);
  if (heading) void jumpToHeading(heading);
  else toast(`There is no heading “${fragment}” in this document`, "warning");
}

/** Ask whether to create the missing file a link names (its place is already checked by the app). */
function askCreate(path: string): Promise<boolean> {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const create = el("button", { type: "submit", value: "create", class: "primary" }, `Create ${name}`);
  const cancel = el("button", { type: "button" }, "Cancel");
  const form = el(
    "form",
    { method: "dialog" },
    el("h2", {}, `${name} does not exist`),
    el("p", {}, "The link names a file that is not there yet. Create it (empty) and open it?"),
    el("p", { class: "hint link-create-path" }, path),
    el("div", { class: "actions" }, cancel, create),
  );
  const dialog = el("dialog", { class: "dialog link-create", "data-testid": "link-create", "aria-label": `${name} does not exist` }, form);
  let answer = false;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    answer = true;
    dialog.close();
  });
  cancel.addEventListener("click", () => dialog.close());
  return modalAnswer(dialog, create, () => answer);
}
