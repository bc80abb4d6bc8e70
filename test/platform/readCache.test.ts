import { describe, expect, it } from "vitest";
import { createReadCache } from "../../src/platform/http/readCache.ts";

/** The read cache's bookkeeping (src/platform/http/readCache.ts), no database: versions, tenants, the bound. */
describe("read cache", () => {
  const text = (n: number) => "x".repeat(n);
  const version = (v: string | null) => async () => v;

  it("serves a value while its version holds, produces again when it moves", async () => {
    const cache = createReadCache(1 << 20);
    let produced = 0;
    const read = (v: string) =>
      cache.through(
        "t1",
        "k",
        version(v),
        async () => `${v}:${++produced}`,
        (s) => s.length,
      );
    expect(await read("1")).toBe("1:1");
    expect(await read("1")).toBe("1:1");
    expect(await read("2")).toBe("2:2");
    expect(await read("1")).toBe("1:3");
    expect(cache.stats()).toMatchObject({ entries: 1, hits: 1, misses: 3 });
  });

  it("keys by tenant: the same key of two tenants is two entries", async () => {
    const cache = createReadCache(1 << 20);
    expect(
      await cache.through(
        "a",
        "k",
        version("1"),
        async () => "A",
        (s) => s.length,
      ),
    ).toBe("A");
    expect(
      await cache.through(
        "b",
        "k",
        version("1"),
        async () => "B",
        (s) => s.length,
      ),
    ).toBe("B");
    expect(
      await cache.through(
        "a",
        "k",
        version("1"),
        async () => "?",
        (s) => s.length,
      ),
    ).toBe("A");
    expect(cache.stats().entries).toBe(2);
  });

  it("a null version or a 0-byte cache keeps nothing (and a 0-byte cache reads no version)", async () => {
    const none = createReadCache(1 << 20);
    await none.through(
      "t",
      "k",
      version(null),
      async () => "v",
      (s) => s.length,
    );
    expect(none.stats().entries).toBe(0);
    const off = createReadCache(0);
    let versionsRead = 0;
    await off.through(
      "t",
      "k",
      async () => String(++versionsRead),
      async () => "v",
      (s) => s.length,
    );
    expect(versionsRead).toBe(0);
    expect(off.stats().entries).toBe(0);
  });

  it("holds its bound, evicting the least recently used first", async () => {
    const max = 64 * 1024;
    const cache = createReadCache(max);
    const put = (key: string) =>
      cache.through(
        "t",
        key,
        version("1"),
        async () => text(5000),
        (s) => s.length * 2,
      );
    for (let i = 0; i < 20; i++) {
      await put(`k${i}`);
      if (i === 3) await put("k0"); // k0 used again: not the first evicted
      expect(cache.stats().bytes).toBeLessThanOrEqual(max);
    }
    const kept = cache.stats().entries;
    expect(kept).toBeGreaterThan(1);
    expect(kept).toBeLessThan(20);
    let produced = 0;
    const probe = (key: string) =>
      cache.through(
        "t",
        key,
        version("1"),
        async () => text(++produced),
        () => 0,
      );
    await probe("k19"); // most recent: kept
    expect(produced).toBe(0);
    await probe("k1"); // least recent: evicted
    expect(produced).toBe(1);
    // A value larger than the whole cache is answered, not kept.
    await cache.through(
      "t",
      "big",
      version("1"),
      async () => text(max),
      (s) => s.length * 2,
    );
    expect(cache.stats().bytes).toBeLessThanOrEqual(max);
  });
});
