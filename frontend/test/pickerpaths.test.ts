// Unit tests of the picker's pure parts: typed paths, the breadcrumb, the filter's match, sizes, suffixes.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { baseName, crumbsOf, dirName, isPathLike, joinPath, matchAt, resolveTyped, sizeText, withSuffix } from "../src/dialogs/pickerpaths";

test("paths: join, base name and folder of POSIX paths", () => {
  assert.equal(joinPath("/home/me", "notes"), "/home/me/notes");
  assert.equal(joinPath("/", "srv"), "/srv");
  assert.equal(baseName("/home/me/notes"), "notes");
  assert.equal(baseName("/home/me/notes/"), "notes");
  assert.equal(baseName("/"), "/");
  assert.equal(dirName("/home/me/notes"), "/home/me");
  assert.equal(dirName("/srv"), "/");
  assert.equal(dirName("~/notes"), "~");
  fc.assert(
    fc.property(fc.array(fc.stringMatching(/^[^/]+$/), { minLength: 1, maxLength: 5 }), (parts) => {
      const path = `/${parts.join("/")}`;
      assert.equal(joinPath(dirName(path), baseName(path)), path);
    }),
  );
});

test("typed text: a path goes somewhere, anything else filters", () => {
  for (const text of ["/srv", "~", "~/notes", "..", "notes/", "a/b"]) assert.equal(isPathLike(text), true, text);
  for (const text of ["", "notes", "~notes", ".md", "a b"]) assert.equal(isPathLike(text), false, text);
  assert.equal(resolveTyped("/home/me", "/srv/docs"), "/srv/docs");
  assert.equal(resolveTyped("/home/me", "~/notes"), "~/notes");
  assert.equal(resolveTyped("/home/me", "notes/old"), "/home/me/notes/old");
  assert.equal(resolveTyped("/home/me", ".."), "/home/me/..");
});

test("the breadcrumb starts at home (~) when home holds the folder, else at the widest place holding it", () => {
  const places = [
    { path: "/home/me", kind: "home" },
    { path: "/home/me/notes", kind: "workspace" },
    { path: "/srv/docs", kind: "readable" },
    { path: "/srv", kind: "granted" },
  ];
  assert.deepEqual(crumbsOf("/home/me/notes/old", places, "/home/me"), [
    { label: "~", path: "/home/me" },
    { label: "notes", path: "/home/me/notes" },
    { label: "old", path: "/home/me/notes/old" },
  ]);
  assert.deepEqual(crumbsOf("/home/me", places, "/home/me"), [{ label: "~", path: "/home/me" }]);
  assert.deepEqual(crumbsOf("/srv/docs/a", places, "/home/me"), [
    { label: "/srv", path: "/srv" },
    { label: "docs", path: "/srv/docs" },
    { label: "a", path: "/srv/docs/a" },
  ]);
  // No prefix collision: /home/me2 is not in /home/me.
  assert.deepEqual(crumbsOf("/home/me2/x", [...places, { path: "/home/me2", kind: "readable" }], "/home/me"), [
    { label: "/home/me2", path: "/home/me2" },
    { label: "x", path: "/home/me2/x" },
  ]);
});

test("the filter: a name containing the text, in any case", () => {
  assert.equal(matchAt("Projects", "JEC"), 3);
  assert.equal(matchAt("notes", "x"), -1);
  assert.equal(matchAt("notes", ""), 0);
});

test("sizes in words, and a name saved as Markdown", () => {
  assert.deepEqual([0, 1023, 1024, 1536, 10 * 1024, 5 * 1024 * 1024].map(sizeText), ["0 B", "1023 B", "1.0 KB", "1.5 KB", "10 KB", "5.0 MB"]);
  assert.equal(sizeText(null), "");
  assert.equal(withSuffix("draft"), "draft.md");
  assert.equal(withSuffix("draft."), "draft.md");
  assert.equal(withSuffix("draft.md"), "draft.md");
  assert.equal(withSuffix("deploy.yml"), "deploy.yml");
  assert.equal(withSuffix("v1.2/notes"), "v1.2/notes.md");
});
