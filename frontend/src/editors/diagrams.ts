// Mermaid diagrams for WYSIWYG: one hidden frame (/mermaid-frame, loaded on the first diagram) renders
// a fenced `mermaid` block's source to SVG; the code block view shows it as an image. Mermaid bakes the
// theme's colours into the SVG, so a theme switch (the toolbar, the settings, or the system's while the
// setting follows it) draws every diagram shown again in the new theme.
type Answer = { svg?: string; error?: string };
type DiagramTheme = "dark" | "default";

let frame: HTMLIFrameElement | null = null;
let ready: Promise<void> | null = null;
let next = 0;
const waiting = new Map<number, (answer: Answer) => void>();

function start(): Promise<void> {
  if (ready) return ready;
  ready = new Promise((resolve) => {
    window.addEventListener("message", (event) => {
      if (event.origin !== location.origin || event.source !== frame?.contentWindow) return;
      const data = event.data as { vmarkMermaid?: number; vmarkMermaidReady?: boolean } & Answer;
      if (data.vmarkMermaidReady) resolve();
      else if (typeof data.vmarkMermaid === "number") {
        waiting.get(data.vmarkMermaid)?.({ svg: data.svg, error: data.error });
        waiting.delete(data.vmarkMermaid);
      }
    });
    frame = document.createElement("iframe");
    frame.className = "diagram-frame";
    frame.title = "Diagram renderer";
    frame.setAttribute("aria-hidden", "true");
    frame.tabIndex = -1;
    frame.src = "/mermaid-frame";
    document.body.append(frame);
  });
  return ready;
}

function shownTheme(): DiagramTheme {
  return document.documentElement.dataset.theme === "dark" ? "dark" : "default";
}

function ask(source: string, theme: DiagramTheme): Promise<Answer> {
  const id = ++next;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    frame?.contentWindow?.postMessage({ vmarkMermaid: id, source, theme }, location.origin);
  });
}

/** The SVG of a Mermaid diagram in the theme the page shows (again if it switched meanwhile), or why it has none. */
export async function renderDiagram(source: string): Promise<Answer> {
  await start();
  watchTheme();
  for (;;) {
    const theme = shownTheme();
    const answer = await ask(source, theme);
    if (theme === shownTheme()) return answer;
  }
}

let watching = false;

/** From the first diagram on: a theme switch redraws the diagrams shown. */
function watchTheme(): void {
  if (watching) return;
  watching = true;
  let theme = shownTheme();
  new MutationObserver(() => {
    if (theme === shownTheme()) return;
    theme = shownTheme();
    void redrawAll();
  }).observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
}

/**
 * Every diagram on the page drawn again from its block's source (the code the block holds, which the editor
 * keeps as the person's text): its image gets the new SVG; a block still rendering gets it from its own request.
 */
async function redrawAll(): Promise<void> {
  const blocks = [...document.querySelectorAll<HTMLElement>(".md-diagram-block")];
  await Promise.all(
    blocks.map(async (block) => {
      const source = block.querySelector("pre code")?.textContent;
      const image = block.querySelector<HTMLImageElement>(".md-diagram img");
      if (source == null || !image) return;
      const answer = await renderDiagram(source);
      // The block may show other text by now (then its own, newer request draws it).
      if (answer.svg && block.querySelector("pre code")?.textContent === source && image.isConnected) {
        image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(answer.svg)}`;
        image.dataset.theme = shownTheme();
      }
    }),
  );
}
