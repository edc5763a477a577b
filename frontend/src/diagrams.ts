// Mermaid diagrams for WYSIWYG: one hidden frame (/mermaid-frame, loaded on the first diagram) renders
// a fenced `mermaid` block's source to SVG; the code block view shows it as an image.
type Answer = { svg?: string; error?: string };

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

/** The SVG of a Mermaid diagram (in the theme the page shows), or why it has none. */
export async function renderDiagram(source: string): Promise<Answer> {
  await start();
  const id = ++next;
  const theme = document.documentElement.dataset.theme === "dark" ? "dark" : "default";
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    frame?.contentWindow?.postMessage({ vmarkMermaid: id, source, theme }, location.origin);
  });
}
