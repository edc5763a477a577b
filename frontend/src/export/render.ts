// The exported document's body: Markdown to HTML with the editor's own parser (mdsource/markdown.ts: math,
// footnotes, front matter, reference definitions), KaTeX for math, the editor's highlighting for code. Pure:
// no DOM, so it runs in the export page and in the unit tests alike. Diagrams and images are left as marked
// placeholders (`figure.vmark-diagram`, `img[data-vmark-src]`) for the export page to draw and embed.
import katex from "katex";
import type Token from "markdown-it/lib/token.mjs";
import { createMarkdown } from "../editors/mdsource/markdown";

/** Highlighted stretches of a code block's text (the editor's Lezer highlighting: `rich.ts`). */
export type Highlighter = (info: string, text: string) => { from: number; to: number; classes: string }[];

export interface RenderOptions {
  /** Code highlighting (none when left out). */
  highlight?: Highlighter;
  /** A language's name for a code block's label (`py` -> `Python`); the info string's word when left out. */
  languageName?: (info: string) => string;
}

export interface Rendered {
  /** The article's HTML (headings with ids, footnotes at the end). */
  html: string;
  /** The headings, in order: level, text, id. */
  headings: { level: number; text: string; id: string }[];
  /** The source of each Mermaid block, by the index its placeholder carries. */
  diagrams: string[];
}

interface Env {
  documentStart: boolean;
  headings: Rendered["headings"];
  ids: Map<string, number>;
  diagrams: string[];
  footnotes: Map<string, string>;
  /** footnote labels in the order of their first reference (their numbers) */
  noted: string[];
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** A heading's id as GitHub makes it: lower case, letters, digits, `-` and `_`, spaces as `-`. */
export function slugOf(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function uniqueId(env: Env, text: string): string {
  const base = slugOf(text) || "section";
  const seen = env.ids.get(base) ?? 0;
  env.ids.set(base, seen + 1);
  return seen === 0 ? base : `${base}-${seen}`;
}

/** The text a reader sees of an inline token's children (markup left out). */
function plainText(children: Token[] | null): string {
  return (children ?? [])
    .map((t) => (t.type === "text" || t.type === "code_inline" || t.type === "math_inline" ? t.content : t.type === "image" ? plainText(t.children) : ""))
    .join("");
}

/** `$$…$$` / `\[…\]` block or inline source to its TeX (the same reading as WYSIWYG's `texOf`). */
function displayTex(raw: string): string {
  const trimmed = raw.trim();
  if (trimmed.startsWith("$$")) {
    const body = trimmed.slice(2);
    return (body.endsWith("$$") ? body.slice(0, -2) : body).trim();
  }
  if (trimmed.startsWith("\\[")) return trimmed.slice(2, trimmed.endsWith("\\]") ? -2 : undefined).trim();
  return trimmed;
}

export function mathHtml(tex: string, display: boolean): string {
  try {
    return katex.renderToString(tex, { displayMode: display, throwOnError: false, output: "htmlAndMathml", strict: "ignore", trust: false });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return `<code class="math-error" title="${escapeHtml(why)}">${escapeHtml(tex)}</code>`;
  }
}

/** `[^label]: text` with its continuation lines: the label and the note's own Markdown. */
function footnoteOf(raw: string): { label: string; body: string } | null {
  const match = /^\[\^([^\]\s]+)\]:[ \t]?/.exec(raw);
  if (!match) return null;
  const lines = raw.slice(match[0].length).split("\n");
  const body = [lines[0], ...lines.slice(1).map((line) => line.replace(/^( {1,4}|\t)/, ""))].join("\n");
  return { label: match[1], body };
}

function codeHtml(text: string, info: string, options: RenderOptions): string {
  const tokens = options.highlight?.(info, text) ?? [];
  let out = "";
  let at = 0;
  for (const token of tokens) {
    if (token.from < at) continue;
    out += escapeHtml(text.slice(at, token.from));
    out += `<span class="${escapeHtml(token.classes)}">${escapeHtml(text.slice(token.from, token.to))}</span>`;
    at = token.to;
  }
  return out + escapeHtml(text.slice(at));
}

export function languageOf(info: string): string {
  return info.trim().split(/[\s{]/)[0].toLowerCase();
}

/** The Markdown body of a document (its front matter already taken off, or not: it is left out either way). */
export function renderMarkdown(text: string, options: RenderOptions = {}): Rendered {
  const md = createMarkdown();
  const rules = md.renderer.rules;
  rules.front_matter = () => "";
  rules.reference_def = () => "";
  rules.math_block = (tokens, i) => `<div class="math-display">${mathHtml(displayTex(tokens[i].content), true)}</div>\n`;
  rules.math_inline = (tokens, i) => mathHtml(tokens[i].content, tokens[i].markup.startsWith("$$"));
  rules.footnote_def = (tokens, i, _options, env: Env) => {
    const note = footnoteOf(tokens[i].content);
    if (note && !env.footnotes.has(note.label)) env.footnotes.set(note.label, note.body);
    return "";
  };
  rules.footnote_ref = (tokens, i, _options, env: Env) => {
    const label = tokens[i].content;
    if (!env.footnotes.has(label)) return escapeHtml(tokens[i].markup);
    if (!env.noted.includes(label)) env.noted.push(label);
    const n = env.noted.indexOf(label) + 1;
    const id = slugOf(label) || String(n);
    return `<sup class="footnote-ref"><a href="#fn-${escapeHtml(id)}" id="fnref-${escapeHtml(id)}">${n}</a></sup>`;
  };
  rules.heading_open = (tokens, i, _options, env: Env) => {
    const level = Number(tokens[i].tag.slice(1));
    const words = plainText(tokens[i + 1]?.children ?? null);
    const id = uniqueId(env, words);
    env.headings.push({ level, text: words, id });
    return `<${tokens[i].tag} id="${escapeHtml(id)}">`;
  };
  rules.fence = (tokens, i, _options, env: Env) => {
    const token = tokens[i];
    const lang = languageOf(token.info);
    if (lang === "mermaid") {
      env.diagrams.push(token.content);
      const n = env.diagrams.length - 1;
      return `<figure class="vmark-diagram" data-diagram="${n}"><pre class="diagram-source">${escapeHtml(token.content)}</pre></figure>\n`;
    }
    const name = lang === "" ? "" : (options.languageName?.(token.info) ?? lang);
    const label = name ? `<span class="code-lang">${escapeHtml(name)}</span>` : "";
    const cls = lang ? ` class="language-${escapeHtml(lang)}"` : "";
    return `<div class="code-block"${lang ? ` data-lang="${escapeHtml(lang)}"` : ""}>${label}<pre><code${cls}>${codeHtml(token.content, token.info, options)}</code></pre></div>\n`;
  };
  rules.code_block = (tokens, i) => `<div class="code-block"><pre><code>${escapeHtml(tokens[i].content)}</code></pre></div>\n`;
  const baseImage = rules.image;
  rules.image = (tokens, i, opts, env, self) => {
    tokens[i].attrSet("data-vmark-src", tokens[i].attrGet("src") ?? "");
    return baseImage ? baseImage(tokens, i, opts, env, self) : self.renderToken(tokens, i, opts);
  };

  const env: Env = { documentStart: true, headings: [], ids: new Map(), diagrams: [], footnotes: new Map(), noted: [] };
  const tokens = md.parse(text, env);
  // The definitions may follow their references: gather them first.
  for (const token of tokens) if (token.type === "footnote_def") rules.footnote_def(tokens, tokens.indexOf(token), md.options, env, md.renderer);
  let html = md.renderer.render(tokens, md.options, env);
  if (env.noted.length > 0) html += footnotesHtml(env, options);
  return { html, headings: env.headings, diagrams: env.diagrams };
}

/** The notes, numbered in the order of their first reference; each links back to it. */
function footnotesHtml(env: Env, options: RenderOptions): string {
  const items = env.noted.map((label, k) => {
    const id = escapeHtml(slugOf(label) || String(k + 1));
    const inner = renderMarkdown(env.footnotes.get(label) ?? "", options).html.trim();
    const back = ` <a href="#fnref-${id}" class="footnote-back" aria-label="Back to the text">↩</a>`;
    const withBack = inner.endsWith("</p>") ? `${inner.slice(0, -4)}${back}</p>` : `${inner}${back}`;
    return `<li id="fn-${id}">${withBack}</li>`;
  });
  return `<section class="footnotes" role="doc-endnotes"><hr>\n<ol>\n${items.join("\n")}\n</ol>\n</section>\n`;
}
