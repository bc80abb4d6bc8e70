import { KeyObject, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { dataKey, isLiveKey, keyWrapping, open, seal } from "../../src/platform/personalData/keyring.ts";

// Subject keys wrapped with the master key (docs/personal-data.md): a block cipher over the key's
// two blocks, a batch in one call; keys wrapped the former way (AES-256-GCM) still open.
describe("subject key wrapping", () => {
  const master = randomBytes(32);

  it("unwraps what it wrapped, one key or a batch, and hides the key", () => {
    const { wrap, unwrapAll } = keyWrapping(master);
    const keys = Array.from({ length: 50 }, () => randomBytes(32));
    const wrapped = keys.map((k) => wrap(k));
    for (const [i, w] of wrapped.entries()) {
      expect(w).toHaveLength(32);
      expect(w.equals(keys[i])).toBe(false);
    }
    const opened = unwrapAll(wrapped.map((key) => ({ key, aad: "unused" })));
    expect(opened.map((k) => k.toString("hex"))).toEqual(keys.map((k) => k.toString("hex")));
    expect(unwrapAll([{ key: wrapped[7], aad: "" }])[0].equals(keys[7])).toBe(true);
  });

  it("makes new keys ahead in batches: each one distinct, each wrapped form its own key's", () => {
    const { newKey, wrap, unwrapAll } = keyWrapping(master);
    // Past two batches, so keys from a fresh batch are checked too.
    const made = Array.from({ length: 150 }, () => newKey());
    const raws = new Set(made.map((k) => k.raw.toString("hex")));
    expect(raws.size).toBe(150);
    for (const k of made) {
      expect(k.raw).toHaveLength(32);
      expect(k.wrapped.equals(wrap(k.raw))).toBe(true);
    }
    const opened = unwrapAll(made.map((k) => ({ key: k.wrapped, aad: "" })));
    expect(opened.map((k) => k.toString("hex"))).toEqual(made.map((k) => k.raw.toString("hex")));
  });

  it("opens a key wrapped the former way (GCM bound to tenant and subject) among current ones", () => {
    const { wrap, unwrapAll } = keyWrapping(master);
    const former = randomBytes(32);
    const current = randomBytes(32);
    const opened = unwrapAll([
      { key: wrap(current), aad: "t/lessee-2" },
      { key: seal(master, former, "t/lessee-1"), aad: "t/lessee-1" },
    ]);
    expect(opened[0].equals(current)).toBe(true);
    expect(opened[1].equals(former)).toBe(true);
    expect(() => unwrapAll([{ key: seal(master, former, "t/lessee-1"), aad: "t/lessee-9" }])).toThrow();
  });

  it("unwraps with another master key to a key that opens nothing sealed with the right one", () => {
    const key = randomBytes(32);
    const wrapped = keyWrapping(master).wrap(key);
    const wrong = keyWrapping(randomBytes(32)).unwrapAll([{ key: wrapped, aad: "" }])[0];
    expect(wrong.equals(key)).toBe(false);
    const sealed = seal(key, Buffer.from('{"last_name":"Martin"}'), "t/lessee-1");
    expect(open(key, sealed, "t/lessee-1").toString()).toBe('{"last_name":"Martin"}');
    expect(() => open(wrong, sealed, "t/lessee-1")).toThrow();
  });

  it("refuses a wrapped key of neither length", () => {
    expect(() => keyWrapping(master).unwrapAll([{ key: randomBytes(20), aad: "" }])).toThrow(/20 bytes/);
  });

  it("hands keys to ciphers as KeyObjects on Node 24 and later, and either form opens what the other sealed", () => {
    const raw = randomBytes(32);
    const key = dataKey(raw);
    expect(key instanceof KeyObject).toBe(Number(process.versions.node.split(".")[0]) >= 24);
    expect(isLiveKey(key)).toBe(true);
    expect([null, "erased", undefined].some((k) => isLiveKey(k as never))).toBe(false);
    // A value sealed by a process on one runtime opens on the other (the key's bytes are the key).
    const values = Buffer.from('{"last_name":"Martin"}');
    const asBuffer = seal(raw, values, "t/lessee-1");
    const asObject = seal(key, values, "t/lessee-1");
    expect(open(key, asBuffer, "t/lessee-1").equals(values)).toBe(true);
    expect(open(raw, asObject, "t/lessee-1").equals(values)).toBe(true);
    expect(() => open(key, asBuffer, "t/lessee-2")).toThrow();
    expect(() => open(dataKey(randomBytes(32)), asObject, "t/lessee-1")).toThrow();
  });
});
