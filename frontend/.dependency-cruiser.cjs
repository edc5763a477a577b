// The page's folders and which way they may depend (docs/architecture.md, "The page, folder by folder"),
// checked by `make lint` (`npm run depcheck`): the page's counterpart of import-linter's layer contracts.
//
//   main.ts -> page/ -> panels/ -> dialogs/ -> sync/ -> editors/ -> shared/ -> wire.gen.ts
//
// A folder may use the ones to its right, never one to its left; a side panel uses no other panel (what two
// panels share lives in shared/). export/ is the export page (export.html): it may use editors/ and shared/.
// Type-only imports count (swc reads them as imports): a folder that needs another's types depends on it.
const folder = (name) => `^src/${name}/`;

/** `from` may not import any of `to`. */
const never = (name, from, to, comment) => ({
  name,
  comment,
  severity: "error",
  from: { path: folder(from) },
  to: { path: `^src/(${to.join("|")})/` },
});

module.exports = {
  forbidden: [
    never("shared-uses-nothing-above", "shared", ["editors", "sync", "dialogs", "panels", "page", "export"],
      "shared/ is what every folder may use: it uses only itself and the wire types."),
    never("editors-stay-editors", "editors", ["sync", "dialogs", "panels", "page", "export"],
      "An editor knows nothing of the tab's sync, the dialogs, the panels or the page's frame."),
    never("sync-below-the-page", "sync", ["dialogs", "panels", "page", "export"],
      "A tab's sync with the app is under the dialogs and panels that show it."),
    never("dialogs-below-panels", "dialogs", ["panels", "page", "export"],
      "A dialog is opened by the page or a panel; it does not reach into them."),
    never("panels-below-the-page", "panels", ["page", "export"],
      "A panel gets what it needs of the page through panels/host.ts (PanelHost) and the event bus."),
    never("export-page-apart", "export", ["sync", "dialogs", "panels", "page"],
      "The export page renders Markdown with the editors' parser; it has no editor page around it."),
    {
      name: "panels-apart",
      comment: "A panel (a module or a folder of panels/) uses no other panel: what they share goes to shared/.",
      severity: "error",
      from: { path: "^src/panels/([^/.]+)", pathNot: "^src/panels/(index|host)[.]ts$" },
      to: { path: "^src/panels/", pathNot: ["^src/panels/$1([.]ts$|/)", "^src/panels/host[.]ts$"] },
    },
    {
      name: "the-root-holds-the-entry",
      comment: "A module goes into its folder: the root holds the entry and the generated wire types only (tools/page_folders.py moved the rest).",
      severity: "error",
      from: {},
      to: { path: "^src/[^/]+[.]ts$", pathNot: "^src/(main|wire[.]gen)[.]ts$" },
    },
    {
      name: "nothing-imports-the-entry",
      comment: "main.ts puts the page together; nothing depends on it.",
      severity: "error",
      from: {},
      to: { path: "^src/main[.]ts$" },
    },
    {
      name: "no-circular",
      comment: "No module depends on itself through others at run time (a lazy import() is how the first bundle stays small).",
      severity: "error",
      from: {},
      to: {
        circular: true,
        // swc reads `import type` as an import: the one cycle made by a type alone (keepsplices.ts takes
        // sourcedoc.ts's Span type; sourcedoc.ts calls keepsplices.ts) runs nothing, and is let be.
        viaOnly: { dependencyTypesNot: ["dynamic-import"], pathNot: "^src/editors/mdsource/keepsplices[.]ts$" },
      },
    },
    {
      name: "no-unresolvable",
      comment: "Every relative import names a module that exists.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true, path: "^[.]" },
    },
  ],
  options: {
    // TypeScript 7 has no JavaScript API for dependency-cruiser: swc parses the page's modules.
    parser: "swc",
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "node_modules" },
  },
};
