// Loaded before every Node test file (package.json's `test`): fast-check's property tests run on a fixed seed, so
// `npm test` gives the same answer every time. FC_SEED=random (or another number) explores; a test that sets its
// own seed keeps it.
import fc from "fast-check";

const seed = process.env.FC_SEED;
if (seed !== "random") fc.configureGlobal({ seed: Number(seed ?? 20261202) });
