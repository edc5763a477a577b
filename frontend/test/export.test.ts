// Unit tests of the export's rendering (src/export/render.ts): the HTML it makes of Markdown, before the export
// page draws diagrams and embeds images.
import assert from "node:assert/strict";
import { test } from "node:test";
import { renderMarkdown, slugOf } from "../src/export/render";

test("headings get GitHub's ids, unique, and are listed in order", () => {
  const { html, headings } = renderMarkdown("# Café *au lait*\n\n## Café au lait\n\n### `code` & more!\n\n# ?\n");
  assert.deepEqual(headings, [
    { level: 1, text: "Café au lait", id: "café-au-lait" },
    { level: 2, text: "Café au lait", id: "café-au-lait-1" },
    { level: 3, text: "code & more!", id: "code--more" },
    { level: 1, text: "?", id: "section" },
  ]);
  assert.match(html, /<h1 id="café-au-lait">Café <em>au lait<\/em><\/h1>/);
  assert.equal(slugOf("  Hello, World  "), "hello-world");
});

test("front matter and reference definitions are not shown; links still resolve", () => {
  const { html } = renderMarkdown("---\ntitle: T\n---\n\nSee [the site][s].\n\n[s]: https://example.org\n");
  assert.equal(html, '<p>See <a href="https://example.org">the site</a>.</p>\n');
});

test("math: inline and display through KaTeX (HTML and MathML), an error shown as its source", () => {
  const { html } = renderMarkdown("Area $\\pi r^2$ here.\n\n$$\n\\frac{a}{b}\n$$\n\nBad $\\frac{$ end.\n");
  assert.match(html, /<p>Area <span class="katex"><span class="katex-mathml"><math/);
  assert.match(html, /<annotation encoding="application\/x-tex">\\pi r\^2<\/annotation>/);
  assert.match(html, /<div class="math-display"><span class="katex-display">/);
  assert.match(html, /<annotation encoding="application\/x-tex">\\frac\{a\}\{b\}<\/annotation>/);
  assert.match(html, /class="katex-error"/); // KaTeX's own rendering of a formula it cannot read
});

test("code: highlighted by the highlighter given, with the language's name; Mermaid becomes a placeholder", () => {
  const highlight = (info: string, text: string) => (info === "py" ? [{ from: 0, to: 3, classes: "tok-keyword" }] : []);
  const { html, diagrams } = renderMarkdown("```py\ndef f(): <x>\n```\n\n```mermaid\ngraph TD\nA-->B\n```\n\n    indented <b>\n", {
    highlight,
    languageName: (info) => (info === "py" ? "Python" : info),
  });
  assert.match(
    html,
    /<div class="code-block" data-lang="py"><span class="code-lang">Python<\/span><pre><code class="language-py"><span class="tok-keyword">def<\/span> f\(\): &lt;x&gt;\n<\/code><\/pre><\/div>/,
  );
  assert.deepEqual(diagrams, ["graph TD\nA-->B\n"]);
  assert.match(html, /<figure class="vmark-diagram" data-diagram="0"><pre class="diagram-source">graph TD\nA--&gt;B\n<\/pre><\/figure>/);
  assert.match(html, /<pre><code>indented &lt;b&gt;\n<\/code><\/pre>/);
});

test("footnotes: numbered by first reference, defined anywhere, linked both ways; unknown labels stay text", () => {
  const { html } = renderMarkdown("[^b]: Second note.\n\nOne[^a] two[^b] again[^a] none[^x].\n\n[^a]: First note\n    continued.\n");
  assert.match(html, /One<sup class="footnote-ref"><a href="#fn-a" id="fnref-a">1<\/a><\/sup>/);
  assert.match(html, /two<sup class="footnote-ref"><a href="#fn-b" id="fnref-b">2<\/a><\/sup>/);
  assert.match(html, /none\[\^x\]\./);
  assert.match(html, /<li id="fn-a"><p>First note\ncontinued. <a href="#fnref-a" class="footnote-back"/);
  assert.match(html, /<li id="fn-b"><p>Second note\. <a href="#fnref-b"/);
  assert.ok(html.indexOf('id="fn-a"') < html.indexOf('id="fn-b"'));
});

test("images keep their source for the export page to embed; tables are tables", () => {
  const { html } = renderMarkdown("![a *b*](pics/x%20y.png \"T\")\n\n| a | b |\n|---|--:|\n| 1 | 2 |\n");
  assert.match(html, /<img src="pics\/x%20y.png" alt="a b" title="T" data-vmark-src="pics\/x%20y.png">/);
  assert.match(html, /<table>\n<thead>\n<tr>\n<th>a<\/th>\n<th style="text-align:right">b<\/th>/);
});
