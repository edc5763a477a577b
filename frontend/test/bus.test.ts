// Unit tests of the page's event bus (src/shared/bus.ts) and a panel's loads (src/shared/reloads.ts): the order handlers
// and loads run in, a failure kept to its own handler or load, and "load again soon" as one load per burst.
import assert from "node:assert/strict";
import { mock, test } from "node:test";
import { EventBus } from "../src/shared/bus";
import { Reloads } from "../src/shared/reloads";

/** A promise and the function that settles it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = (): void => {};
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

test("handlers run in the order they subscribed, each done before the next starts", async () => {
  const bus = new EventBus();
  const seen: string[] = [];
  const first = gate();
  bus.on("coherence", async () => {
    seen.push("first starts");
    await first.wait;
    seen.push("first ends");
  });
  bus.on("coherence", () => void seen.push("second"));
  const delivered = bus.emit("coherence", {});
  await Promise.resolve();
  assert.deepEqual(seen, ["first starts"]);
  first.open();
  await delivered;
  assert.deepEqual(seen, ["first starts", "first ends", "second"]);
});

test("a handler's payload is the event's; an app event is dispatched by its name", async () => {
  const bus = new EventBus();
  const got: unknown[] = [];
  bus.on("notification", (payload) => void got.push(payload));
  bus.on("divergent", () => void got.push("not this one"));
  await bus.dispatch({ event: "notification", payload: { message: "saved", level: "info" } });
  assert.deepEqual(got, [{ message: "saved", level: "info" }]);
});

test("one handler's failure is reported and the others still run", async () => {
  const bus = new EventBus();
  const errors = mock.method(console, "error", () => {});
  const seen: string[] = [];
  bus.on("files", () => {
    throw new Error("panel broke");
  });
  bus.on("files", () => void seen.push("after"));
  await bus.emit("files", null);
  assert.deepEqual(seen, ["after"]);
  assert.equal(errors.mock.callCount(), 1);
  assert.equal((errors.mock.calls[0].arguments[1] as Error).message, "panel broke");
  errors.mock.restore();
});

test("an unsubscribed handler hears nothing more; the others still do", async () => {
  const bus = new EventBus();
  const seen: string[] = [];
  const off = bus.on("active", () => void seen.push("a"));
  bus.on("active", () => void seen.push("b"));
  await bus.emit("active", null);
  off();
  off(); // twice is harmless
  await bus.emit("active", null);
  assert.deepEqual(seen, ["a", "b", "b"]);
});

test("loads run one at a time in order, a failed one does not stop the next", async () => {
  const seen: string[] = [];
  const gates = [gate(), gate()];
  let n = 0;
  const reloads = new Reloads(
    async () => {
      const k = n++;
      seen.push(`start ${k}`);
      await gates[k]?.wait;
      seen.push(`end ${k}`);
      if (k === 0) throw new Error("first load failed");
    },
    150,
    () => {},
  );
  const first = reloads.now();
  const second = reloads.now();
  await Promise.resolve();
  assert.deepEqual(seen, ["start 0"]);
  gates[0].open();
  await assert.rejects(first, /first load failed/);
  gates[1].open();
  await second;
  assert.deepEqual(seen, ["start 0", "end 0", "start 1", "end 1"]);
});

test("'load again soon' loads once after a burst of asks; a failure goes to its handler", async () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    let loads = 0;
    const failures: unknown[] = [];
    const done = gate();
    const reloads = new Reloads(
      async () => {
        loads++;
        done.open();
        throw new Error("the app refused");
      },
      150,
      (err) => failures.push((err as Error).message),
    );
    reloads.soon();
    mock.timers.tick(100);
    reloads.soon();
    mock.timers.tick(100);
    reloads.soon();
    assert.equal(loads, 0); // each ask put the load off again
    mock.timers.tick(150);
    await done.wait;
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(loads, 1);
    assert.deepEqual(failures, ["the app refused"]);
  } finally {
    mock.timers.reset();
  }
});
