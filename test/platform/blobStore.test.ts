import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlBlobStore, sweepBlobParts } from "../../src/platform/blobs/sqlBlobStore.ts";
import { MAX_MEDIA_BYTES, peekBytes, withinLimit } from "../../src/platform/blobs/uploads.ts";
import type { Sql } from "../../src/platform/db.ts";
import { createTestDatabase, databaseKinds } from "../support/testDatabase.ts";

/** A source of `count` chunks of `size` bytes; `fail` makes it throw after that many chunks. */
async function* chunksOf(data: Buffer, size: number, fail?: number) {
  for (let at = 0, n = 0; at < data.length; at += size, n++) {
    if (n === fail) throw new Error("upload broke");
    yield data.subarray(at, at + size);
  }
}

describe.each(databaseKinds)("the blob store's streamed writes on %s", (kind) => {
  let db: { sql: Sql; drop(): Promise<void> };
  beforeAll(async () => {
    db = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await db?.drop();
  });
  const count = async (table: string) =>
    Number((await db.sql.query(`SELECT count(*)::int AS n FROM ${table}`))[0].n);

  it("stores a multi-part stream with its sha256 and size, leaving no parts", async () => {
    const store = sqlBlobStore(db.sql);
    const data = randomBytes(3 * 1024 * 1024 + 17);
    const info = await store.putBlobStream("k/1", chunksOf(data, 64 * 1024), {
      content_type: "application/pdf",
    });
    expect(info).toEqual({
      key: "k/1",
      content_type: "application/pdf",
      size: data.length,
      sha256: createHash("sha256").update(data).digest("hex"),
    });
    const read = await store.getBlob("k/1");
    expect(read?.bytes.equals(data)).toBe(true);
    expect(read?.sha256).toBe(info.sha256);
    expect(await count("blob_parts")).toBe(0);
  });

  it("the sweep removes only the parts of uploads idle past the limit (what a crash mid-upload leaves)", async () => {
    const part = (key: string, seq: number, age: string) =>
      db.sql.query(
        `INSERT INTO blob_parts (key, seq, content, written_at) VALUES ($1, $2, '\\x00', now() - $3::interval)`,
        [key, seq, age],
      );
    // A crashed upload (every part old), a slow live one (one recent part), a fresh one.
    await part("sweep/crashed", 0, "3 hours");
    await part("sweep/crashed", 1, "2 hours");
    await part("sweep/slow", 0, "3 hours");
    await part("sweep/slow", 1, "1 minute");
    await part("sweep/fresh", 0, "0 seconds");
    expect(await sweepBlobParts(db.sql, 3600)).toBe(2);
    const left = await db.sql.query(
      "SELECT key, seq FROM blob_parts WHERE key LIKE 'sweep/%' ORDER BY key, seq",
    );
    expect(left).toEqual([
      { key: "sweep/fresh", seq: 0 },
      { key: "sweep/slow", seq: 0 },
      { key: "sweep/slow", seq: 1 },
    ]);
    expect(await sweepBlobParts(db.sql, 3600)).toBe(0);
    await db.sql.query("DELETE FROM blob_parts WHERE key LIKE 'sweep/%'");
  });

  it("leaves nothing when the source fails part-way (after parts were written)", async () => {
    const store = sqlBlobStore(db.sql);
    const data = randomBytes(4 * 1024 * 1024);
    const before = await count("blobs");
    await expect(
      store.putBlobStream("k/2", chunksOf(data, 256 * 1024, 10), { content_type: "application/pdf" }),
    ).rejects.toThrow("upload broke");
    expect(await count("blobs")).toBe(before);
    expect(await count("blob_parts")).toBe(0);
  });
});

describe("upload stream helpers", () => {
  it("withinLimit answers 413 as soon as the parser marks the file truncated, reading no further", async () => {
    let read = 0;
    const state = { truncated: false };
    const source = (async function* () {
      for (let i = 0; i < 100; i++) {
        read++;
        if (i === 2) state.truncated = true;
        yield Buffer.alloc(10);
      }
    })();
    const file = Object.defineProperty(source, "truncated", {
      get: () => state.truncated,
    }) as typeof source & {
      truncated: boolean;
    };
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const chunk of withinLimit(file, MAX_MEDIA_BYTES)) seen.push(chunk.byteLength);
      })(),
    ).rejects.toMatchObject({ status: 413 });
    expect(seen).toEqual([10, 10]);
    expect(read).toBe(3);
  });

  it("peekBytes gives the first bytes and the whole stream again", async () => {
    const data = Buffer.from("%PDF-1.7 and the rest of it");
    const { head, chunks } = await peekBytes(chunksOf(data, 3), 8);
    expect(head.toString()).toBe("%PDF-1.7");
    const all: Buffer[] = [];
    for await (const c of chunks) all.push(Buffer.from(c));
    expect(Buffer.concat(all).equals(data)).toBe(true);
    const short = await peekBytes(chunksOf(Buffer.from("ab"), 1), 8);
    expect(short.head.toString()).toBe("ab");
  });
});
