import { defineConfig } from "vite";

// The app serves the build from src/vmark/ui/dist (see src/vmark/app/ui_server.py).
export default defineConfig({
  base: "/",
  build: {
    outDir: "../src/vmark/ui/dist",
    emptyOutDir: true,
    // No inline scripts or styles: the page's Content-Security-Policy allows only our own files.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 2000,
    sourcemap: false,
    // The page, the frame that renders Mermaid diagrams (loaded only when a document has one), and the page
    // VMark's own headless Chromium renders exports with (src/vmark/export/, never served to a browser).
    rollupOptions: { input: { index: "index.html", mermaid: "mermaid.html", export: "export.html" } },
  },
});
