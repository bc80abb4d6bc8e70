import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { STREAM_CATEGORIES } from "../../src/events/streams.ts";

/** The EventStoreDB adapter skips categories it is not told of (issue 22): none may be missing. */
describe("stream categories", () => {
  it("lists every category a stream function of src/events names, and no other", () => {
    const dir = join(import.meta.dirname, "../../src/events");
    const named = new Set<string>();
    // Areas shaped as folders (src/events/bank/) too.
    for (const file of readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) =>
      f.endsWith(".ts"),
    )) {
      for (const [, category] of readFileSync(join(dir, file), "utf8").matchAll(/`([a-z_]+)-\$\{/g))
        named.add(category);
    }
    expect([...STREAM_CATEGORIES].sort()).toEqual([...named].sort());
  });
});
