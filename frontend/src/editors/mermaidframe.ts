// The diagram renderer: a same-origin frame of its own (served at /mermaid-frame with a policy that lets
// Mermaid style its measuring SVG, which the editor page's policy does not). The page posts a diagram's
// source; the frame answers the SVG, which the page shows as an image (nothing of it runs there).
import mermaid from "mermaid";

interface Ask {
  vmarkMermaid: number;
  source: string;
  theme: "dark" | "default";
}

let configured = "";

window.addEventListener("message", (event: MessageEvent<Ask>) => {
  if (event.origin !== location.origin || event.source !== window.parent) return;
  const ask = event.data;
  if (typeof ask?.vmarkMermaid !== "number" || typeof ask.source !== "string") return;
  void render(ask).then((answer) => window.parent.postMessage({ vmarkMermaid: ask.vmarkMermaid, ...answer }, location.origin));
});

async function render(ask: Ask): Promise<{ svg?: string; error?: string }> {
  if (configured !== ask.theme) {
    mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: ask.theme, flowchart: { htmlLabels: false } });
    configured = ask.theme;
  }
  try {
    const { svg } = await mermaid.render(`vmark-diagram-${ask.vmarkMermaid}`, ask.source);
    return { svg };
  } catch (err) {
    document.querySelectorAll("[id^='dvmark-diagram-']").forEach((e) => e.remove());
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

window.parent.postMessage({ vmarkMermaidReady: true }, location.origin);
