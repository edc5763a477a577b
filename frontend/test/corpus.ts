// The shared Markdown corpus (real files from public repositories), which lies beside the repository
// (`../shared/corpora/markdown`, as CI has it). A clone standing alone has none: the tests that read it are
// skipped with `noCorpus` as their reason.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const CORPUS = join(import.meta.dirname, "../../../shared/corpora/markdown");

/** Every `.md` file of the corpus, line endings made `\n`; empty when the corpus is not there. */
export const corpus: string[] = existsSync(CORPUS)
  ? readdirSync(CORPUS)
      .filter((name) => name.endsWith(".md"))
      .map((name) => readFileSync(join(CORPUS, name), "utf8").replace(/\r\n?/g, "\n"))
  : [];

/** The reason to skip a corpus test, or false when the corpus is there. */
export const noCorpus: string | false = corpus.length === 0 && `the shared corpus ${CORPUS} is not there (a clone beside ../shared has it)`;
