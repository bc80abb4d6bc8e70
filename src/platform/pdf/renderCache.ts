import { createHash } from "node:crypto";
import type { Sql } from "../db.ts";

/**
 * A render cache for generated PDFs (docs/pdf.md, "Cache"), in PostgreSQL so every API instance
 * shares it. An entry is found only when the subject's revision, the template version and the
 * hash of the view model all match; one entry per subject (the newest render replaces the
 * previous one), so the cache is bounded by the number of subjects. Hits and misses are counted
 * per tenant and kind in the same statement as the look-up.
 */
export interface RenderKey {
  tenant_id: string;
  /** What is rendered, e.g. `lease-contract`. */
  kind: string;
  subject_id: string;
  subject_revision: number;
  template_version: string;
  /** SHA-256 of the view model: facts from other streams change it without a new revision. */
  content_sha256: string;
}

export interface Rendered {
  bytes: Buffer;
  size: number;
  sha256: string;
  hit: boolean;
}

export interface RenderCacheStats {
  entries: number;
  bytes: number;
  hits: number;
  misses: number;
}

export const sha256Of = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

/** JSON with object keys sorted, so equal view models hash equally whatever their key order. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

const toBuffer = (content: Uint8Array) =>
  Buffer.isBuffer(content) ? content : Buffer.from(content.buffer, content.byteOffset, content.byteLength);

/** The entry of a render key ($1..$6 as in `cachedRender`). */
const LOOK_UP = `SELECT content, size, sha256 FROM pdf_render_cache
  WHERE tenant_id = $1 AND kind = $2 AND subject_id = $3 AND subject_revision = $4
    AND template_version = $5 AND content_sha256 = $6`;

/** The look-up that counts a hit or a miss in the same statement. */
const COUNTED_LOOK_UP = `WITH hit AS (${LOOK_UP}), counted AS (
    INSERT INTO pdf_render_cache_counters AS c (tenant_id, kind, hits, misses)
    SELECT $1, $2, count(*), 1 - count(*) FROM hit
    ON CONFLICT (tenant_id, kind) DO UPDATE
      SET hits = c.hits + excluded.hits, misses = c.misses + excluded.misses
  )
  SELECT content, size, sha256 FROM hit`;

/**
 * The cached bytes for the key, or a fresh render stored for the next caller. The look-up counts
 * a hit or a miss unless `count` is false (the caller counted this request already).
 */
export async function cachedRender(
  sql: Sql,
  key: RenderKey,
  render: () => Promise<Buffer>,
  options: { count?: boolean } = {},
): Promise<Rendered> {
  const params = [
    key.tenant_id,
    key.kind,
    key.subject_id,
    key.subject_revision,
    key.template_version,
    key.content_sha256,
  ];
  const lookUp = options.count === false ? LOOK_UP : COUNTED_LOOK_UP;
  const [found] = await sql.query<{ content: Uint8Array; size: number; sha256: string }>(lookUp, params, {
    prepare: true,
  });
  if (found)
    return { bytes: toBuffer(found.content), size: Number(found.size), sha256: found.sha256, hit: true };
  const bytes = await render();
  const sha256 = sha256Of(bytes);
  // An older revision rendered late never replaces a newer entry.
  await sql.query(
    `INSERT INTO pdf_render_cache AS p (tenant_id, kind, subject_id, subject_revision, template_version,
       content_sha256, content, size, sha256)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (tenant_id, kind, subject_id) DO UPDATE SET
       subject_revision = excluded.subject_revision, template_version = excluded.template_version,
       content_sha256 = excluded.content_sha256, content = excluded.content, size = excluded.size,
       sha256 = excluded.sha256, created_at = now()
     WHERE excluded.subject_revision >= p.subject_revision`,
    [...params, bytes, bytes.byteLength, sha256],
  );
  return { bytes, size: bytes.byteLength, sha256, hit: false };
}

/**
 * Counts a hit without a look-up: the caller reuses a render it already holds (a PDF record).
 * Committed without waiting for the WAL flush (a crash may lose the last increments of a
 * counter): this is the only write of a reused PDF's POST, and the flush was most of its cost.
 */
export async function countRenderCacheHit(sql: Sql, tenantId: string, kind: string): Promise<void> {
  await sql.query(
    `WITH async_commit AS (SELECT set_config('synchronous_commit', 'off', true))
     INSERT INTO pdf_render_cache_counters AS c (tenant_id, kind, hits, misses)
     SELECT $1, $2, 1, 0 FROM async_commit
     ON CONFLICT (tenant_id, kind) DO UPDATE SET hits = c.hits + 1`,
    [tenantId, kind],
    { prepare: true },
  );
}

/** The tenant's entries and their bytes, and its hit/miss counters (since the first render). */
export async function renderCacheStats(sql: Sql, tenantId: string, kind: string): Promise<RenderCacheStats> {
  const [row] = await sql.query<{ entries: number; bytes: number; hits: number; misses: number }>(
    `SELECT
       (SELECT count(*) FROM pdf_render_cache WHERE tenant_id = $1 AND kind = $2)::bigint AS entries,
       (SELECT coalesce(sum(size), 0) FROM pdf_render_cache WHERE tenant_id = $1 AND kind = $2)::bigint AS bytes,
       coalesce((SELECT hits FROM pdf_render_cache_counters WHERE tenant_id = $1 AND kind = $2), 0)::bigint AS hits,
       coalesce((SELECT misses FROM pdf_render_cache_counters WHERE tenant_id = $1 AND kind = $2), 0)::bigint AS misses`,
    [tenantId, kind],
  );
  return {
    entries: Number(row.entries),
    bytes: Number(row.bytes),
    hits: Number(row.hits),
    misses: Number(row.misses),
  };
}

/** Drops the entries of these subjects (an erasure: docs/personal-data.md). */
export async function dropRenderCache(sql: Sql, tenantId: string, kind: string, subjectIds: string[]) {
  await sql.query(
    "DELETE FROM pdf_render_cache WHERE tenant_id = $1 AND kind = $2 AND subject_id = ANY($3::uuid[])",
    [tenantId, kind, subjectIds],
  );
}

/** Drops the tenant's entries (never a PDF record's bytes); the counters keep counting. */
export async function clearRenderCache(sql: Sql, tenantId: string, kind: string): Promise<number> {
  const rows = await sql.query(
    "DELETE FROM pdf_render_cache WHERE tenant_id = $1 AND kind = $2 RETURNING 1",
    [tenantId, kind],
  );
  return rows.length;
}
