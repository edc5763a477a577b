// The export page (export.html): loaded by VMark's own headless Chromium (src/vmark/export/browser.py), never
// by the person's browser. Python routes every request it makes: the page's files from the built UI, the
// document's images through the path scope (/files/export/<path>), nothing else (the network is cut off).
//
// `vmarkExport.render` makes the exported HTML: one self-contained file (styles, the KaTeX fonts the math
// uses, images as data: URIs, Mermaid diagrams as inline SVG). `vmarkExport.drawDiagrams` draws diagrams
// alone, for Python to photograph as PNG (the Pandoc formats embed them as images).
import "katex/dist/katex.min.css";
import "./export.css";
import { highlightTokens, languageName } from "../editors/mdsource/rich";
import { imageAddress, setRemoteImages } from "../shared/renderctx";
import { escapeHtml, renderMarkdown } from "./render";

interface RenderAsk {
  /** the Markdown without its front matter */
  markdown: string;
  title: string;
  /** the document's file (images resolve against its folder), or null for an untitled one */
  docPath: string | null;
  /** a web (https) image: kept as an image of the HTML (`keep`) or written as a link to it (`link`: PDF) */
  remote: "keep" | "link";
  lang: string | null;
}

interface RenderAnswer {
  html: string;
  warnings: string[];
  headings: { level: number; text: string; id: string }[];
}

const EXPORT_WINDOW = "export";
let diagramCount = 0;

setRemoteImages(false); // a web image is never fetched while exporting

type Mermaid = (typeof import("mermaid"))["default"];
let mermaidLoaded: Promise<Mermaid> | null = null;

/** Mermaid, loaded with the first diagram (a document without one renders without its large bundle). */
function loadMermaid(): Promise<Mermaid> {
  mermaidLoaded ??= import("mermaid").then(({ default: mermaid }) => {
    mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: "default", flowchart: { htmlLabels: false } });
    return mermaid;
  });
  return mermaidLoaded;
}

async function render(ask: RenderAsk): Promise<RenderAnswer> {
  const warnings: string[] = [];
  const rendered = renderMarkdown(ask.markdown, { highlight: highlightTokens, languageName });
  const article = document.createElement("article");
  article.className = "vmark-document";
  article.innerHTML = rendered.html;
  document.body.replaceChildren(article);
  markTasks(article);
  await Promise.all([embedImages(article, ask, warnings), drawInto(article, rendered.diagrams, warnings)]);
  await document.fonts.ready;
  const css = await styles();
  const lang = ask.lang ? ` lang="${escapeHtml(ask.lang)}"` : "";
  const html =
    `<!doctype html>\n<html${lang}>\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
    `<meta name="generator" content="VMark">\n<title>${escapeHtml(ask.title)}</title>\n<style>\n${css}\n</style>\n</head>\n` +
    `<body>\n${article.outerHTML}\n</body>\n</html>\n`;
  return { html, warnings, headings: rendered.headings };
}

/** `[ ]` and `[x]` at the start of a list item: a checkbox (as GitHub shows them), read-only. */
function markTasks(root: HTMLElement): void {
  for (const item of root.querySelectorAll("li")) {
    const holder = item.firstElementChild?.tagName === "P" ? item.firstElementChild : item;
    const first = holder.firstChild;
    if (!(first instanceof Text)) continue;
    const match = /^\[([ xX])\] /.exec(first.data);
    if (!match) continue;
    first.data = first.data.slice(match[0].length);
    const box = document.createElement("input");
    box.type = "checkbox";
    box.disabled = true;
    box.checked = match[1] !== " ";
    box.className = "task-box";
    holder.insertBefore(box, first);
    item.classList.add("task");
  }
}

async function embedImages(root: HTMLElement, ask: RenderAsk, warnings: string[]): Promise<void> {
  const images = [...root.querySelectorAll<HTMLImageElement>("img[data-vmark-src]")];
  await Promise.all(images.map((img) => embedImage(img, ask, warnings)));
}

async function embedImage(img: HTMLImageElement, ask: RenderAsk, warnings: string[]): Promise<void> {
  const src = img.dataset.vmarkSrc ?? "";
  img.removeAttribute("data-vmark-src");
  img.removeAttribute("src"); // nothing loads before it is checked
  if (/^https:/i.test(src.trim())) {
    if (ask.remote === "keep") {
      img.setAttribute("src", src);
      warnings.push(`${src}: an image from the web, left as a link to it (not embedded)`);
    } else {
      replaceWithNote(img, src, "an image from the web (not embedded)", true);
      warnings.push(`${src}: an image from the web, written as a link`);
    }
    return;
  }
  const address = imageAddress(src, { window: EXPORT_WINDOW, docPath: ask.docPath });
  if (address === null) {
    replaceWithNote(img, src, ask.docPath === null && !src.startsWith("/") ? "the document has no folder yet" : "not an image VMark loads");
    warnings.push(`${src}: ${ask.docPath === null ? "an untitled document's image cannot be found" : "not an image VMark loads"}; left out`);
    return;
  }
  if (address.startsWith("data:")) {
    img.setAttribute("src", address);
    return;
  }
  try {
    const response = await fetch(address);
    if (!response.ok) {
      const why = (await response.text()).trim();
      replaceWithNote(img, src, why);
      warnings.push(`${src}: ${why}; left out`);
      return;
    }
    img.setAttribute("src", await dataUri(await response.blob()));
    await img.decode().catch(() => warnings.push(`${src}: the file is not an image this browser can show`));
  } catch (err) {
    replaceWithNote(img, src, String(err));
    warnings.push(`${src}: ${String(err)}; left out`);
  }
}

/** An image that cannot be embedded: its description and why, where it stood. */
function replaceWithNote(img: HTMLImageElement, src: string, why: string, link = false): void {
  const alt = img.getAttribute("alt") || src;
  const note = document.createElement(link ? "a" : "span");
  note.className = "missing-image";
  note.textContent = `[${alt}]`;
  note.title = `${src}: ${why}`;
  if (link) note.setAttribute("href", src);
  img.replaceWith(note);
}

function dataUri(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error("cannot read the image"));
    reader.readAsDataURL(blob);
  });
}

/** Each Mermaid placeholder drawn as inline SVG; one that cannot be drawn keeps its source and says why. */
async function drawInto(root: HTMLElement, sources: string[], warnings: string[]): Promise<void> {
  // One at a time: Mermaid measures text in the page, and two drawings at once disturb each other.
  for (const figure of root.querySelectorAll<HTMLElement>("figure.vmark-diagram")) {
    const source = sources[Number(figure.dataset.diagram)] ?? "";
    const drawn = await drawDiagram(source);
    if ("svg" in drawn) {
      figure.innerHTML = drawn.svg;
      figure.dataset.state = "drawn";
    } else {
      const caption = document.createElement("figcaption");
      caption.textContent = `This diagram cannot be drawn: ${drawn.error}`;
      figure.append(caption);
      figure.dataset.state = "error";
      warnings.push(`diagram ${Number(figure.dataset.diagram) + 1}: ${drawn.error}`);
    }
  }
}

async function drawDiagram(source: string): Promise<{ svg: string; width: number } | { error: string }> {
  const id = `vmark-diagram-${++diagramCount}`;
  const mermaid = await loadMermaid();
  try {
    const { svg } = await mermaid.render(id, source);
    const width = Number(/max-width:\s*([\d.]+)px/.exec(svg)?.[1] ?? 0);
    return { svg, width };
  } catch (err) {
    document.querySelectorAll(`#d${id}, #${id}`).forEach((e) => e.remove());
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/** Diagrams alone, each in a box of its own width (`#diagram-shot-N`), for Python to photograph. */
async function drawDiagrams(sources: string[]): Promise<({ ok: true; width: number } | { ok: false; error: string })[]> {
  const answers: ({ ok: true; width: number } | { ok: false; error: string })[] = [];
  const boxes: HTMLElement[] = [];
  for (const [n, source] of sources.entries()) {
    const drawn = await drawDiagram(source);
    const box = document.createElement("div");
    box.className = "diagram-shot";
    box.id = `diagram-shot-${n}`;
    if ("svg" in drawn) {
      box.innerHTML = drawn.svg;
      const svg = box.querySelector("svg");
      if (svg && drawn.width > 0) {
        svg.setAttribute("width", String(Math.ceil(drawn.width)));
        svg.style.maxWidth = "none";
      }
      answers.push({ ok: true, width: Math.ceil(drawn.width) });
    } else answers.push({ ok: false, error: drawn.error });
    boxes.push(box);
  }
  document.body.replaceChildren(...boxes);
  return answers;
}

/** The page's styles as one sheet: KaTeX's fonts only those the math used, each as a data: URI. */
async function styles(): Promise<string> {
  const fetched = new Set(performance.getEntriesByType("resource").map((entry) => entry.name));
  const parts: string[] = [];
  for (const sheet of document.styleSheets) {
    for (const rule of sheet.cssRules) {
      if (rule instanceof CSSFontFaceRule) {
        const face = await inlineFace(rule, sheet.href ?? location.href, fetched);
        if (face) parts.push(face);
      } else parts.push(rule.cssText);
    }
  }
  return parts.join("\n");
}

async function inlineFace(rule: CSSFontFaceRule, base: string, fetched: Set<string>): Promise<string | null> {
  const urls = [...rule.style.getPropertyValue("src").matchAll(/url\(["']?([^"')]+)["']?\)/g)].map((m) => new URL(m[1], base).href);
  const used = urls.find((url) => fetched.has(url));
  if (!used) return null; // a face the document never needed
  const response = await fetch(used);
  const data = await dataUri(await response.blob());
  const format = used.endsWith(".woff2") ? "woff2" : used.endsWith(".woff") ? "woff" : "truetype";
  const keep = ["font-family", "font-style", "font-weight", "font-display"]
    .map((name) => [name, rule.style.getPropertyValue(name)])
    .filter(([, value]) => value)
    .map(([name, value]) => `${name}: ${value};`)
    .join(" ");
  return `@font-face { ${keep} src: url(${data}) format("${format}"); }`;
}

(window as unknown as { vmarkExport: unknown }).vmarkExport = { render, drawDiagrams };
document.documentElement.dataset.ready = "true";
