import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "vitest";

/**
 * Reads until `done` holds, 20 s at most, and fails the test if it never does: read models and
 * jobs follow a write a moment later (eventual consistency), so a test waits for the state it
 * needs instead of sleeping a fixed time.
 */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const end = Date.now() + 20_000;
  let value = await read();
  while (!done(value) && Date.now() < end) {
    await sleep(100);
    value = await read();
  }
  if (!done(value)) expect.fail(`Still not done after 20 s: ${describe(value)}`);
  return value;
}

/** A readable trace of the last value read (an HTTP response shows its status and body). */
const describe = (value: unknown) =>
  value && typeof value === "object" && "statusCode" in value && "body" in value
    ? `${value.statusCode} ${String(value.body).slice(0, 500)}`
    : JSON.stringify(value);
