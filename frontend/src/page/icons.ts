// The toolbar's icons: each button's drawn by an inline <svg> of its own, first in the button. They were CSS masks
// of `data:` SVG images, and Chromium builds a document of its own for every such image: inline, a page start
// costs the renderer about 50 ms less (bench/bench_page_start.py, docs/wysiwyg-speed.md). An icon is drawn in the
// button's colour (`currentColor`) and hidden from screen readers: the button's words name it.
const SVG_NS = "http://www.w3.org/2000/svg";

type Shape = [tag: "path" | "circle" | "rect", attrs: Record<string, string>];

/** Each button's icon (by the button's id): 24×24, stroked 2 wide with round ends and joins. */
const ICONS: Record<string, Shape[]> = {
  "new-tab": [["path", { d: "M14 3H6a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V9z" }], ["path", { d: "M14 3v6h6" }], ["path", { d: "M12 12v6M9 15h6" }]],
  "save-tab": [["path", { d: "M5 3h11l5 5v11a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2z" }], ["path", { d: "M7 3v5h8V3" }], ["path", { d: "M7 21v-7h10v7" }]],
  "save-as-open": [["path", { d: "M5 3h9l4 4v5" }], ["path", { d: "M5 3a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h6" }], ["path", { d: "M7 3v5h6" }], ["path", { d: "M14 20l6-6 2 2-6 6h-2z" }]],
  "mode-toggle": [["path", { d: "M3 5h18v14H3z" }], ["path", { d: "M7 9l3 3-3 3M12 15h5" }]],
  "cjk-format": [["path", { d: "M4 7V4h16v3M9 20h6M12 4v16" }]],
  "history-toggle": [["path", { d: "M3 12a9 9 0 1 0 3-6.7L3 8" }], ["path", { d: "M3 3v5h5M12 7v5l3 2" }]],
  "comment-add": [["path", { d: "M21 12a8 8 0 0 1-11.6 7.1L4 21l1.9-5.4A8 8 0 1 1 21 12z" }], ["path", { d: "M12 8v8M8 12h8" }]],
  "comments-toggle": [["path", { d: "M21 12a8 8 0 0 1-11.6 7.1L4 21l1.9-5.4A8 8 0 1 1 21 12z" }], ["path", { d: "M8 11h8M8 14h5" }]],
  "outline-toggle": [["path", { d: "M4 6h16M8 12h12M12 18h8" }], ["circle", { cx: "4", cy: "12", r: "0.8" }], ["circle", { cx: "8", cy: "18", r: "0.8" }]],
  "coherence-toggle": [["circle", { cx: "6", cy: "6", r: "2.5" }], ["circle", { cx: "18", cy: "18", r: "2.5" }], ["circle", { cx: "18", cy: "6", r: "2.5" }], ["path", { d: "M8.5 6h7M6 8.5v3a6.5 6.5 0 0 0 9.5 5.8" }]],
  "browser-toggle": [["circle", { cx: "12", cy: "12", r: "9" }], ["path", { d: "M3 12h18M12 3a14 14 0 0 1 0 18M12 3a14 14 0 0 0 0 18" }]],
  "backlinks-toggle": [["path", { d: "M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z" }], ["path", { d: "M14 3v5h5M16 15H9M12 12l-3 3 3 3" }]],
  "theme-toggle": [["path", { d: "M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z" }]],
  "settings-open": [["circle", { cx: "12", cy: "12", r: "3" }], ["path", { d: "M19.4 15a1.7 1.7 0 0 0 .3 1.8l.1.1a2 2 0 1 1-2.8 2.8l-.1-.1a1.7 1.7 0 0 0-1.8-.3 1.7 1.7 0 0 0-1 1.5V21a2 2 0 1 1-4 0v-.1a1.7 1.7 0 0 0-1.1-1.5 1.7 1.7 0 0 0-1.8.3l-.1.1a2 2 0 1 1-2.8-2.8l.1-.1a1.7 1.7 0 0 0 .3-1.8 1.7 1.7 0 0 0-1.5-1H3a2 2 0 1 1 0-4h.1a1.7 1.7 0 0 0 1.5-1.1 1.7 1.7 0 0 0-.3-1.8l-.1-.1a2 2 0 1 1 2.8-2.8l.1.1a1.7 1.7 0 0 0 1.8.3H9a1.7 1.7 0 0 0 1-1.5V3a2 2 0 1 1 4 0v.1a1.7 1.7 0 0 0 1 1.5 1.7 1.7 0 0 0 1.8-.3l.1-.1a2 2 0 1 1 2.8 2.8l-.1.1a1.7 1.7 0 0 0-.3 1.8V9a1.7 1.7 0 0 0 1.5 1H21a2 2 0 1 1 0 4h-.1a1.7 1.7 0 0 0-1.5 1z" }]],
  "shortcuts-open": [["rect", { x: "2", y: "6", width: "20", height: "12", rx: "2" }], ["path", { d: "M6 10h.01M10 10h.01M14 10h.01M18 10h.01M7 14h10" }]],
  "export-open": [["path", { d: "M14 3H6a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V9z" }], ["path", { d: "M14 3v6h6" }], ["path", { d: "M12 18v-7M9 14l3 3 3-3" }]],
};

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string>): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  return node;
}

/** Puts its icon first in each button of `root` that has one and shows none yet. */
export function showIcons(root: Document): void {
  for (const [name, shapes] of Object.entries(ICONS)) {
    const button = root.getElementById(name);
    if (!button || button.querySelector(":scope > svg.icon")) continue;
    const icon = svg("svg", { class: "icon", width: "16", height: "16", viewBox: "0 0 24 24", fill: "none", stroke: "currentColor", "stroke-width": "2", "stroke-linecap": "round", "stroke-linejoin": "round", "aria-hidden": "true", focusable: "false" });
    for (const [tag, attrs] of shapes) icon.append(svg(tag, attrs));
    button.prepend(icon);
  }
}

/** A button's words, its icon kept (`textContent` would take the icon away). */
export function setLabel(button: HTMLElement, text: string): void {
  const words = [...button.childNodes].filter((node) => node.nodeType === Node.TEXT_NODE);
  if (words.length === 1 && words[0].textContent === text) return;
  for (const node of words) node.remove();
  button.append(text);
}
