// The Backlinks panel's narrowing (panels/backlinks.ts shownBacklinks): the app lists wikilinks by name,
// broadly; the page keeps one only when its own rule (resolveWikilink, nearest first) names this file.
import assert from "node:assert/strict";
import { test } from "node:test";
import { shownBacklinks } from "../src/panels/backlinks";
import type { WorkspaceFile } from "../src/editors/wikilinks";
import { setWorkspaceFiles } from "../src/editors/wikilinks";

const ROOT = "/ws";
const FILES: WorkspaceFile[] = ["a.md", "b.md", "notes/c.md", "other/b.md", "other/x.md"].map((path) => ({ root: ROOT, path }));

test("a wikilink is kept only where the page's rule resolves it to this file", () => {
  setWorkspaceFiles(FILES);
  const listed = [
    { path: "/ws/a.md", line: 3, text: "See [b](b.md)." },
    { path: "/ws/notes/c.md", line: 2, text: "[[b|bee]]", wikilinks: ["b"] },
    { path: "/ws/other/x.md", line: 1, text: "[[b]]", wikilinks: ["b"] },
    { path: "/ws/other/x.md", line: 2, text: "[[nope]] [[B.md]]", wikilinks: ["nope", "B.md"] },
  ];
  assert.deepEqual(
    shownBacklinks(listed, "/ws/b.md").map((b) => `${b.path}:${b.line}`),
    ["/ws/a.md:3", "/ws/notes/c.md:2"],
  );
  // from other/b.md's side, the neighbour's [[b]] and [[B.md]] are its own
  assert.deepEqual(
    shownBacklinks(listed, "/ws/other/b.md").map((b) => `${b.path}:${b.line}`),
    ["/ws/a.md:3", "/ws/other/x.md:1", "/ws/other/x.md:2"],
  );
});
