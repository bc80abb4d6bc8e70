import { createHash } from "node:crypto";
import type { Sql } from "../db.ts";
import type { BlobInfo, BlobStore, StoredBlob } from "./blobStore.ts";

/** Streamed uploads are written in parts of about this size (memory held per upload). */
const PART_BYTES = 1024 * 1024;

const asBuffer = (bytes: Uint8Array) =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * Removes the parts of uploads that stopped writing more than `idleSeconds` ago: only a crash
 * mid-upload leaves parts behind (a live upload writes a part per MiB received). The number of
 * parts removed.
 */
export async function sweepBlobParts(sql: Sql, idleSeconds: number): Promise<number> {
  const rows = await sql.query(
    `DELETE FROM blob_parts p USING (
       SELECT key FROM blob_parts GROUP BY key HAVING max(written_at) < now() - make_interval(secs => $1)
     ) idle WHERE p.key = idle.key RETURNING 1`,
    [idleSeconds],
  );
  return rows.length;
}

/** The PostgreSQL adapter: one bytea row per key; streamed uploads pass through `blob_parts`. */
export function sqlBlobStore(sql: Sql): BlobStore {
  const dropParts = (key: string) => sql.query("DELETE FROM blob_parts WHERE key = $1", [key]);
  return {
    async putBlob(key, bytes, { content_type }) {
      const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const info: BlobInfo = {
        key,
        content_type,
        size: buffer.byteLength,
        sha256: createHash("sha256").update(buffer).digest("hex"),
      };
      await sql.query(
        `INSERT INTO blobs (key, content, content_type, size, sha256) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (key) DO UPDATE SET content = excluded.content, content_type = excluded.content_type,
           size = excluded.size, sha256 = excluded.sha256`,
        [key, buffer, content_type, info.size, info.sha256],
      );
      return info;
    },

    async putBlobStream(key, chunks, { content_type }) {
      const hash = createHash("sha256");
      let size = 0;
      let seq = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const flush = async () => {
        if (pendingBytes === 0) return;
        const part = Buffer.concat(pending, pendingBytes);
        pending = [];
        pendingBytes = 0;
        await sql.query("INSERT INTO blob_parts (key, seq, content) VALUES ($1, $2, $3)", [key, seq++, part]);
      };
      try {
        await dropParts(key); // leftovers of an earlier attempt at the same key
        for await (const chunk of chunks) {
          const bytes = asBuffer(chunk);
          hash.update(bytes);
          size += bytes.byteLength;
          pending.push(bytes);
          pendingBytes += bytes.byteLength;
          if (pendingBytes >= PART_BYTES) await flush();
        }
        await flush();
        const info: BlobInfo = { key, content_type, size, sha256: hash.digest("hex") };
        await sql.transaction(async (tx) => {
          await tx.query(
            `INSERT INTO blobs (key, content, content_type, size, sha256)
             SELECT $1, coalesce(string_agg(content, ''::bytea ORDER BY seq), ''::bytea), $2, $3, $4
               FROM blob_parts WHERE key = $1
             ON CONFLICT (key) DO UPDATE SET content = excluded.content, content_type = excluded.content_type,
               size = excluded.size, sha256 = excluded.sha256`,
            [key, content_type, info.size, info.sha256],
          );
          await tx.query("DELETE FROM blob_parts WHERE key = $1", [key]);
        });
        return info;
      } catch (error) {
        await dropParts(key).catch(() => {});
        throw error;
      }
    },

    async getBlob(key) {
      const [row] = await sql.query<{
        content: Uint8Array;
        content_type: string;
        size: number | string;
        sha256: string;
      }>("SELECT content, content_type, size, sha256 FROM blobs WHERE key = $1", [key]);
      if (!row) return null;
      const blob: StoredBlob = {
        key,
        content_type: row.content_type,
        size: Number(row.size),
        sha256: row.sha256,
        bytes: Buffer.isBuffer(row.content)
          ? row.content
          : Buffer.from(row.content.buffer, row.content.byteOffset, row.content.byteLength),
      };
      return blob;
    },

    async deleteBlob(key) {
      const rows = await sql.query("DELETE FROM blobs WHERE key = $1 RETURNING key", [key]);
      return rows.length > 0;
    },
  };
}
