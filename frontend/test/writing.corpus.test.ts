// Random key sequences (writingkeys.ts) on the shared corpus's real Markdown files. Apart from writing.test.ts so
// that the two test processes share the work.
import { test } from "node:test";
import fc from "fast-check";
import { corpus, noCorpus } from "./corpus";
import { checkKeys, keys, runs, seed } from "./writingkeys";

test("random keys on real Markdown files keep the view true and untouched blocks as they were", { skip: noCorpus }, () => {
  fc.assert(fc.property(fc.constantFrom(...corpus), fc.nat(), keys, checkKeys), { numRuns: Math.ceil(runs / 3), seed });
});
