import { describe, expect, it } from "vitest";
import { groupReads } from "../../src/platform/groupReads.ts";

/** Grouped look-ups (src/platform/groupReads.ts), without a database: the read is a function. */
describe("grouped reads", () => {
  const recording = () => {
    const calls: { group: string; keys: string[] }[] = [];
    const lookUp = groupReads<string>(async (group, keys) => {
      calls.push({ group, keys });
      await new Promise((r) => setTimeout(r, 5));
      return new Map(keys.filter((k) => k !== "absent").map((k) => [k, `${group}:${k}`]));
    });
    return { calls, lookUp };
  };

  it("a lone look-up goes at once; those asked while it is out go together, each key once", async () => {
    const { calls, lookUp } = recording();
    const answers = await Promise.all([
      lookUp("t1", "a"),
      lookUp("t1", "b"),
      lookUp("t1", "c"),
      lookUp("t1", "b"),
      lookUp("t1", "absent"),
    ]);
    expect(answers).toEqual(["t1:a", "t1:b", "t1:c", "t1:b", undefined]);
    expect(calls).toEqual([
      { group: "t1", keys: ["a"] },
      { group: "t1", keys: ["b", "c", "absent"] },
    ]);
  });

  it("groups never mix: each tenant's keys go in its own read", async () => {
    const { calls, lookUp } = recording();
    expect(await Promise.all([lookUp("t1", "a"), lookUp("t2", "a"), lookUp("t2", "b")])).toEqual([
      "t1:a",
      "t2:a",
      "t2:b",
    ]);
    expect(calls.map((c) => c.group).sort()).toEqual(["t1", "t2", "t2"]);
    for (const c of calls) expect(c.keys.length).toBeGreaterThan(0);
  });

  it("a failed read fails the look-ups it carried, not later ones", async () => {
    let fail = true;
    const lookUp = groupReads<string>(async (_group, keys) => {
      await new Promise((r) => setTimeout(r, 5));
      if (fail) {
        fail = false;
        throw new Error("refused");
      }
      return new Map(keys.map((k) => [k, k]));
    });
    const first = lookUp("t", "a");
    const later = lookUp("t", "b");
    await expect(first).rejects.toThrow("refused");
    await expect(later).resolves.toBe("b");
    await expect(lookUp("t", "c")).resolves.toBe("c");
  });
});
