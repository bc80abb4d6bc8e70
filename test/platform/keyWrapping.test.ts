import { createCipheriv, KeyObject, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { dataKey, isLiveKey, keyWrapping, open, seal } from "../../src/platform/personalData/keyring.ts";

// Subject keys wrapped with the master key (docs/personal-data.md): a block cipher over the key's
// two blocks, a batch in one call; keys wrapped the former way (AES-256-GCM) still open.
describe("subject key wrapping", () => {
  const master = randomBytes(32);

  it("makes new keys ahead in batches, wraps each over its two blocks, and unwraps one or a batch", () => {
    const { newKey, unwrapAll } = keyWrapping(master);
    // Past two batches, so keys of a fresh batch are checked too.
    const made = Array.from({ length: 150 }, () => newKey());
    const hex = (keys: Buffer[]) => keys.map((k) => k.toString("hex"));
    expect(new Set(hex(made.map((k) => k.raw))).size).toBe(150);
    // The stored form, the same as every key wrapped before: AES-256 over the key's two blocks.
    const ecb = createCipheriv("aes-256-ecb", master, null).setAutoPadding(false);
    for (const k of made) {
      expect(k.raw).toHaveLength(32);
      expect(k.wrapped.equals(k.raw)).toBe(false);
      expect(k.wrapped.equals(ecb.update(k.raw))).toBe(true);
    }
    const opened = unwrapAll(made.map((k) => ({ key: k.wrapped, aad: "unused" })));
    expect(hex(opened)).toEqual(hex(made.map((k) => k.raw)));
    expect(unwrapAll([{ key: made[7].wrapped, aad: "" }])[0].equals(made[7].raw)).toBe(true);
  });

  it("opens a key wrapped the former way (GCM bound to tenant and subject) among current ones", () => {
    const { newKey, unwrapAll } = keyWrapping(master);
    const former = randomBytes(32);
    const current = newKey();
    const opened = unwrapAll([
      { key: current.wrapped, aad: "t/lessee-2" },
      { key: seal(master, former, "t/lessee-1"), aad: "t/lessee-1" },
    ]);
    expect(opened[0].equals(current.raw)).toBe(true);
    expect(opened[1].equals(former)).toBe(true);
    expect(() => unwrapAll([{ key: seal(master, former, "t/lessee-1"), aad: "t/lessee-9" }])).toThrow();
  });

  it("unwraps with another master key to a key that opens nothing sealed with the right one", () => {
    const { raw: key, wrapped } = keyWrapping(master).newKey();
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
