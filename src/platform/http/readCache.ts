import type { FastifyInstance } from "fastify";
import type { Sql } from "../db.ts";

/**
 * Cached reads (docs/performance.md, "Cached reads"; docs/decisions.md, "Read cache"): an answer
 * PostgreSQL wrote (a list page's JSON, an account) kept in process, keyed by tenant and query,
 * and valid for one version of the read model it comes from. The version is read on every
 * request before the cache is looked at (one index probe, not the page): a write the projection
 * committed before that read has moved it, so an entry from before the write is never served
 * (read-your-writes holds). A value produced after reading version V reflects V or later, never
 * less. Bounded by the bytes of the values, least recently used evicted first; tenants never
 * share an entry (the tenant is part of the key).
 */
export interface ReadCache {
  /**
   * The value of `key` for the tenant as of the version `versionOf` reads (first, before the
   * value is produced): the kept one when its version is the same, else `produce()`'s, kept. A
   * null version (unknown) bypasses the cache; a cache of 0 bytes reads no version.
   */
  through<T>(
    tenantId: string,
    key: string,
    versionOf: () => Promise<string | null>,
    produce: () => Promise<T>,
    bytesOf: (value: T) => number,
  ): Promise<T>;
  stats(): { entries: number; bytes: number; hits: number; misses: number };
}

interface Entry {
  version: string;
  value: unknown;
  bytes: number;
}

/** A cache of at most `maxBytes` of values (0: nothing kept, every read produced). */
export function createReadCache(maxBytes: number): ReadCache {
  // A Map iterates in insertion order: re-inserting on a hit makes its first key the least recent.
  const entries = new Map<string, Entry>();
  let bytes = 0;
  let hits = 0;
  let misses = 0;
  const remove = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    bytes -= entry.bytes;
  };
  return {
    async through(tenantId, key, versionOf, produce, bytesOf) {
      if (maxBytes <= 0) return produce();
      const version = await versionOf();
      if (version === null) return produce();
      const full = `${tenantId}\u0000${key}`;
      const entry = entries.get(full);
      if (entry && entry.version === version) {
        hits++;
        entries.delete(full);
        entries.set(full, entry);
        return entry.value as Awaited<ReturnType<typeof produce>>;
      }
      misses++;
      const value = await produce();
      // Keys and bookkeeping count too: a small value still costs its key.
      const size = bytesOf(value) + full.length * 2 + version.length * 2 + 64;
      remove(full);
      if (size > maxBytes) return value;
      entries.set(full, { version, value, bytes: size });
      bytes += size;
      for (const oldest of entries.keys()) {
        if (bytes <= maxBytes) break;
        remove(oldest);
      }
      return value;
    },
    stats: () => ({ entries: entries.size, bytes, hits, misses }),
  };
}

const caches = new WeakMap<object, ReadCache>();

/** The app's read cache (one per service, sized by PMS_READ_CACHE_BYTES). */
export function readCacheOf(app: FastifyInstance): ReadCache {
  const { platform } = app;
  let cache = caches.get(platform);
  if (!cache) {
    cache = createReadCache(platform.config.PMS_READ_CACHE_BYTES);
    caches.set(platform, cache);
  }
  return cache;
}

/**
 * The version of a projection's read model: its checkpoint (rebuild version and position), which
 * the projector moves in the transaction that writes the tables. Global, not per tenant: another
 * tenant's write costs this one a miss, never a stale answer. Read on the writer pool: the
 * reader role sees tenant tables only. Null when the projection has no checkpoint yet.
 */
export async function projectionVersion(sql: Sql, projection: string): Promise<string | null> {
  const [row] = await sql.query<{ v: string }>(
    `SELECT version || ':' || commit_position || ':' || prepare_position AS v
     FROM projection_checkpoints WHERE name = $1`,
    [projection],
    { prepare: true },
  );
  return row?.v ?? null;
}

/** A string's size in memory (UTF-16). */
export const textBytes = (text: string) => text.length * 2;
