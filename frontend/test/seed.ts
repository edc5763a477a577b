// Loaded before every Node test file (package.json's `test`): fast-check's property tests run on a fixed seed, so
// `npm test` gives the same answer every time. FC_SEED=random (or another number) explores; a test that sets its
// own seed keeps it.
import { register } from "node:module";
import fc from "fast-check";

// The page's modules import their style sheets (Vite bundles them): to Node each is an empty module.
register("./cssloader.mjs", import.meta.url);

const seed = process.env.FC_SEED;
if (seed !== "random") fc.configureGlobal({ seed: Number(seed ?? 20261202) });
