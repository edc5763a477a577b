// The WYSIWYG splice's property (splice.ts) on the shared corpus's real Markdown files: random edit sequences in the
// view keep every byte outside the splice and the text true to the view. Apart from sourcedoc.test.ts so that the
// two test processes share the work.
import { test } from "node:test";
import fc from "fast-check";
import { corpus, noCorpus } from "./corpus";
import { check, edits, seed } from "./splice";

test("random edits of real Markdown files keep every untouched byte", { skip: noCorpus }, () => {
  fc.assert(fc.property(fc.constantFrom(...corpus), edits, check), { numRuns: Number(process.env.SPLICE_RUNS ?? 150), seed });
});
