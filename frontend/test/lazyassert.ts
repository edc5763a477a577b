// Assertions whose message is made only when they fail. A message may print a whole corpus file or a block as JSON:
// made eagerly for every passing check, it cost more than the check itself.
import assert from "node:assert/strict";

/** `assert.ok(value, message())`, with `message` called only when `value` is falsy. */
export function ok(value: unknown, message: () => string): asserts value {
  if (!value) assert.fail(message());
}

/** `assert.equal(actual, expected, message())`, with `message` called only when they differ. */
export function equal<T>(actual: T, expected: T, message: () => string): void {
  if (!Object.is(actual, expected)) assert.equal(actual, expected, message());
}
