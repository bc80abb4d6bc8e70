import { createHash } from "node:crypto";
import type { Sql } from "../db.ts";
import type { BlobInfo, BlobStore, StoredBlob } from "./blobStore.ts";

/** The PostgreSQL adapter: one bytea row per key. */
export function sqlBlobStore(sql: Sql): BlobStore {
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
