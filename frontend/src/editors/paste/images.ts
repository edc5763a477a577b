// Image files the person pastes or drops, in either mode: the app writes each beside the document
// (`ui.image_save`, into the `editor.image_folder` folder, `assets/` by default) and the text gets
// `![name](assets/name.png)`: never a `data:` URI. A file the page knows the path of (dragged from the file
// tree, or an image the page itself shows) is linked by its path relative to the document, not copied.
//
// An untitled document has no folder for its images: the person is asked to save it first (the Save as
// dialog opens) and the image is not kept; pasting it again after the save writes it.
import { byId, toast } from "../../shared/dom";
import { type Channel, errorText } from "../../shared/protocol";
import { renderContext } from "../../shared/renderctx";
import { MAX_PASTED_IMAGE_BYTES } from "../../wire.gen";

const TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml"]);
const IMAGE_NAME = /\.(png|jpe?g|gif|webp|svg|avif|bmp)$/i;
/** Where the file tree's drags carry a file's absolute path. */
export const TREE_PATH_TYPE = "application/x-vmark-path";

interface Store {
  channel: Channel;
  tabId: () => string | null;
}

let store: Store | null = null;

/** The page names how images are written: its channel to the app and the tab being shown. */
export function configureImages(channel: Channel, tabId: () => string | null): void {
  store = { channel, tabId };
}

/** The image files of a paste or a drop (PNG, JPEG, GIF, WebP, SVG). */
export function imageFiles(data: DataTransfer | null): File[] {
  if (!data) return [];
  const files = [...data.files];
  if (files.length === 0) {
    for (const item of data.items ?? []) {
      const file = item.kind === "file" ? item.getAsFile() : null;
      if (file) files.push(file);
    }
  }
  return files.filter((file) => TYPES.has(file.type));
}

/** `![alt](link)` for each image, a space apart. */
export function imagesMarkdown(images: { alt: string; link: string }[]): string {
  return images.map((image) => `![${image.alt}](${image.link})`).join(" ");
}

/** Alt text from a file name: its stem, without what would end the alt text early. */
export function altOf(name: string): string {
  return name
    .replace(/^.*[\\/]/, "")
    .replace(/\.[^.]*$/, "")
    .replace(/[[\]\\]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Write `files` beside the shown document, in order; the links of those written (a refusal is shown and
 * skipped). None for an untitled document: the person is asked to save it first.
 */
export async function saveImages(files: File[]): Promise<{ alt: string; link: string }[]> {
  const tabId = store?.tabId() ?? null;
  if (!store || !tabId) return [];
  if (!renderContext().docPath) {
    toast("Save the document first: pasted images are written into a folder beside it", "warning");
    byId("save-as-open").click();
    return [];
  }
  const written: { alt: string; link: string }[] = [];
  for (const file of files) {
    if (file.size > MAX_PASTED_IMAGE_BYTES) {
      toast(`${file.name || "The image"} is larger than ${MAX_PASTED_IMAGE_BYTES / (1024 * 1024)} MB: not pasted`, "error");
      continue;
    }
    try {
      const saved = await store.channel.request("ui.image_save", { tabId, name: file.name || "image.png", data: await base64(file) });
      written.push({ alt: altOf(file.name || "image"), link: saved.link });
    } catch (err) {
      toast(`The image was not written: ${errorText(err)}`, "error");
    }
  }
  return written;
}

function base64(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).slice(String(reader.result).indexOf(",") + 1));
    reader.onerror = () => reject(reader.error ?? new Error("the file cannot be read"));
    reader.readAsDataURL(file);
  });
}

// --- files the page knows by path -----------------------------------------------------------------------

/** Absolute paths a drop carries: a file of the tree, an image the page shows (`/files/...`), a `file:` URL. */
export function droppedPaths(data: DataTransfer | null): string[] {
  if (!data) return [];
  const own = data.getData(TREE_PATH_TYPE);
  if (own) return [own];
  const paths: string[] = [];
  for (const line of (data.getData("text/uri-list") ?? "").split(/\r?\n/)) {
    const uri = line.trim();
    if (!uri || uri.startsWith("#")) continue;
    const path = localPath(uri);
    if (path === null) return []; // a web address among them: the drop is a link, not files
    paths.push(path);
  }
  return paths;
}

function localPath(uri: string): string | null {
  try {
    const url = new URL(uri, location.href);
    if (url.protocol === "file:") return decodeURIComponent(url.pathname);
    if (url.origin === location.origin && url.pathname.startsWith("/files/")) {
      const rest = url.pathname.slice("/files/".length);
      return decodeURIComponent(rest.slice(rest.indexOf("/")));
    }
  } catch {
    return null;
  }
  return null;
}

/** Markdown links to `paths` from the shown document: images as images, other files as links. */
export function pathsMarkdown(paths: string[]): string {
  const docPath = renderContext().docPath;
  const folder = docPath ? docPath.slice(0, docPath.lastIndexOf("/")) : null;
  return paths
    .map((path) => {
      const link = folder === null ? encodeLink(path) : relativeLink(folder, path);
      const name = altOf(path);
      return IMAGE_NAME.test(path) ? `![${name}](${link})` : `[${name}](${link})`;
    })
    .join(" ");
}

/** The path of `target` from folder `from` (both absolute), as a Markdown link destination. */
export function relativeLink(from: string, target: string): string {
  const a = from.split("/").filter(Boolean);
  const b = target.split("/").filter(Boolean);
  let common = 0;
  while (common < a.length && common < b.length - 1 && a[common] === b[common]) common++;
  return encodeLink([...a.slice(common).map(() => ".."), ...b.slice(common)].join("/"));
}

/** A path as a link destination: what would end or break one (and `%`, which the page decodes) percent-encoded. */
function encodeLink(path: string): string {
  return path.replace(/[\s()<>%]/g, (c) => encodeURIComponent(c));
}
