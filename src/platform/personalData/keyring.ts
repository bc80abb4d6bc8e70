import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from "node:crypto";
import sodium from "sodium-native";
import type { Sql } from "../db.ts";
import type { NewSubjectKey } from "../eventstore/eventStore.ts";

/**
 * Data keys of data subjects (docs/personal-data.md): one AES-256 key per subject, kept in
 * `personal_data_keys` (PostgreSQL, outside the log; on EventStoreDB the read-model database),
 * sealed with the master key. Destroying the key erases the subject's personal fields in every
 * event at once (crypto-shredding): the log itself stays append-only.
 */

/** Development only: `npm start` without PMS_DATA_KEY. Anyone with this repository can read it. */
export const DEVELOPMENT_MASTER_KEY = createHash("sha256")
  .update("pms development master key: not a secret, set PMS_DATA_KEY")
  .digest();

/** PMS_DATA_KEY: 32 bytes, base64 or hex. */
export function parseMasterKey(text: string | undefined): Buffer | null {
  if (!text) return null;
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, "hex") : Buffer.from(text, "base64");
  return key.length === 32 ? key : null;
}

const IV = 12;
const KEYS_AHEAD = 64;
const TAG = 16;

/**
 * Random bytes taken from a block drawn from the CSPRNG 64 KiB at a time: one `randomBytes` call
 * per create cost more than the AES-GCM itself (docs/performance.md). Each byte is handed out once.
 */
const RANDOM_BLOCK = 64 * 1024;
let randomBlock = Buffer.alloc(0);
let randomAt = 0;
export function freshRandom(n: number): Buffer {
  if (randomAt + n > randomBlock.length) {
    randomBlock = randomBytes(RANDOM_BLOCK);
    randomAt = 0;
  }
  // A copy: a key kept in a cache must not pin the whole block.
  const out = Buffer.from(randomBlock.subarray(randomAt, randomAt + n));
  randomBlock.fill(0, randomAt, randomAt + n);
  randomAt += n;
  return out;
}

/**
 * A subject's key as a cipher takes it. Node 24's createCipheriv checks a Buffer key against
 * KeyObject and then CryptoKey by catching two thrown errors, about 30 µs a call (measured: opening
 * an event 38 to 52 µs with a Buffer key, 14 to 19 µs with a KeyObject made for it); a KeyObject
 * passes the first check at once. On Node 20 and 22 a KeyObject costs more to make (3 to 6 µs) than
 * it saves: the Buffer is kept (docs/performance.md, "Personal data on Node 24").
 */
export type DataKey = Buffer | KeyObject;
const KEY_OBJECTS = Number(process.versions.node.split(".")[0]) >= 24;
export const dataKey = (raw: Buffer): DataKey => (KEY_OBJECTS ? createSecretKey(raw) : raw);
export const isLiveKey = (key: SubjectKey | undefined): key is DataKey =>
  key !== null && key !== undefined && key !== "erased";

/** AES-256-GCM: iv (12) | tag (16) | ciphertext; `aad` binds it to its tenant and subject. */
export function seal(key: DataKey, plaintext: Buffer, aad: string): Buffer {
  const iv = freshRandom(IV);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = cipher.update(plaintext);
  // GCM's final() returns nothing more: it computes the tag.
  cipher.final();
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

export function open(key: DataKey, sealed: Buffer, aad: string): Buffer {
  // Subject keys are raw Buffers since envelopes are XChaCha20-Poly1305 (sealEnvelope); an envelope
  // of the former format takes a KeyObject made for the call on Node 24 (see DataKey).
  const cipherKey = KEY_OBJECTS && Buffer.isBuffer(key) ? createSecretKey(key) : key;
  const decipher = createDecipheriv("aes-256-gcm", cipherKey, sealed.subarray(0, IV));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(sealed.subarray(IV, IV + TAG));
  const plaintext = decipher.update(sealed.subarray(IV + TAG));
  // GCM's final() returns nothing more: it checks the tag (and throws when it does not match).
  decipher.final();
  return plaintext;
}

/**
 * The envelope of an event's personal values since format 2: XChaCha20-Poly1305 (libsodium through
 * sodium-native), nonce (24, random) | ciphertext | tag (16). One call with no cipher object to
 * build: sealing 3 to 6 µs and opening 2.5 to 5 µs against 12 to 18 µs and 8 to 12 µs for Node's
 * AES-256-GCM with a KeyObject, on Node 22, 24 and 26 on the bench machine (docs/performance.md).
 * A 24-byte random nonce is safe to draw for every envelope (no counter to keep per key).
 */
const NONCE = sodium.crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
const ABYTES = sodium.crypto_aead_xchacha20poly1305_ietf_ABYTES;
const rawKey = (key: DataKey): Buffer => (Buffer.isBuffer(key) ? key : key.export());

export function sealEnvelope(key: DataKey, plaintext: Buffer, aad: string): Buffer {
  const out = Buffer.allocUnsafe(NONCE + plaintext.length + ABYTES);
  const nonce = out.subarray(0, NONCE);
  sodium.randombytes_buf(nonce);
  sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(
    out.subarray(NONCE),
    plaintext,
    Buffer.from(aad),
    null,
    nonce,
    rawKey(key),
  );
  return out;
}

/** Throws when the key, the associated data or any byte of `sealed` differs from the sealing. */
export function openEnvelope(key: DataKey, sealed: Buffer, aad: string): Buffer {
  if (sealed.length < NONCE + ABYTES) throw new Error("A sealed envelope too short");
  const out = Buffer.allocUnsafe(sealed.length - NONCE - ABYTES);
  sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(
    out,
    null,
    sealed.subarray(NONCE),
    Buffer.from(aad),
    sealed.subarray(0, NONCE),
    rawKey(key),
  );
  return out;
}

/**
 * A subject's key wrapped with the master key: AES-256 over its two blocks (ECB, no padding). The
 * key is 32 random bytes, so each block is random and this reveals nothing; a wrapped key altered
 * unwraps to a wrong key that every event's GCM tag then refuses. One cipher context per keyring,
 * reused: new keys are wrapped KEYS_AHEAD in a block cipher call, not a context each (a GCM wrap
 * per key was a third of a create and of a decrypting catch-up, docs/performance.md), and a batch
 * unwraps in one call. Keys wrapped before (60 bytes: iv | tag | AES-256-GCM, bound to tenant and
 * subject) still open.
 */
export function keyWrapping(masterKey: Buffer) {
  const wrapper = createCipheriv("aes-256-ecb", masterKey, null).setAutoPadding(false);
  const unwrapper = createDecipheriv("aes-256-ecb", masterKey, null).setAutoPadding(false);
  const GCM_WRAPPED = IV + TAG + 32;
  // New keys are drawn and wrapped KEYS_AHEAD at a time: a wrap call cost about 4 µs of each create
  // in the service (docs/performance.md). ECB wraps each block alone, so a batch's wrap is its keys'
  // wraps side by side.
  let ahead: { raw: Buffer; wrapped: Buffer; at: number } = {
    raw: Buffer.alloc(0),
    wrapped: Buffer.alloc(0),
    at: 0,
  };
  return {
    /** A new random key and its wrapped form. */
    newKey(): { raw: Buffer; wrapped: Buffer } {
      if (ahead.at === ahead.raw.length) {
        const raw = freshRandom(32 * KEYS_AHEAD);
        ahead = { raw, wrapped: wrapper.update(raw), at: 0 };
      }
      const { raw, wrapped, at } = ahead;
      ahead.at += 32;
      // Copies: a key kept in a cache must not pin the whole batch; each raw key is handed out once.
      const key = {
        raw: Buffer.from(raw.subarray(at, at + 32)),
        wrapped: Buffer.from(wrapped.subarray(at, at + 32)),
      };
      raw.fill(0, at, at + 32);
      return key;
    },
    /** Unwraps many keys in one call; `aad` of each is used only by a key wrapped the former way. */
    unwrapAll(wrapped: readonly { key: Buffer; aad: string }[]): Buffer[] {
      const current = wrapped.filter((w) => w.key.length === 32);
      const opened = current.length > 0 ? unwrapper.update(Buffer.concat(current.map((w) => w.key))) : null;
      let at = 0;
      return wrapped.map((w) => {
        if (w.key.length === GCM_WRAPPED) return open(masterKey, w.key, w.aad);
        if (w.key.length !== 32) throw new Error(`A wrapped key of ${w.key.length} bytes`);
        // A copy: a key kept in a cache must not pin the whole batch.
        return Buffer.from(opened!.subarray(32 * at, 32 * ++at));
      });
    },
  };
}

/** A subject's key: live, destroyed by an erasure, or none yet (nothing of it was encrypted). */
export type SubjectKey = DataKey | "erased" | null;

export interface Keyring {
  /** The subject's key, created when it has none; throws SubjectErasedError when it was destroyed. */
  keyForWriting(tenantId: string, subject: string): Promise<DataKey>;
  /**
   * Whether new keys go with the append that first uses them (`keyForAppend`), in the log's own
   * transaction: the log is in this keyring's PostgreSQL database.
   */
  readonly keysWithAppend: boolean;
  /**
   * The subject's key for an append that will store `row` with its events when the key is new.
   * `isNew`: the subject's own stream is created by that append, so no key can be kept yet and none
   * is looked up. Throws SubjectErasedError when the key was destroyed.
   */
  keyForAppend(
    tenantId: string,
    subject: string,
    isNew: boolean,
  ): Promise<{ key: DataKey; row: NewSubjectKey | null }>;
  /** The append that carried these new keys committed: they are the subjects' keys now. */
  confirm(rows: readonly NewSubjectKey[]): void;
  /**
   * Reads the keys of these subjects not held yet in one statement, for a batch of events read
   * before it: each subject's key, or null when it has none (its events of that batch are plaintext:
   * a sealed event commits with its key). Keyed by `<tenant>/<subject>`.
   */
  preload(
    subjects: readonly { tenantId: string; subject: string; id?: string }[],
    options?: { remember: boolean },
  ): Promise<Map<string, SubjectKey>>;
  /**
   * The subject's key when this keyring holds it (no database read), else undefined. `id`: the
   * caller's `<tenant>/<subject>` string, when it has one (a fresh string costs a hash per look-up).
   */
  cachedKey(tenantId: string, subject: string, id?: string): DataKey | "erased" | undefined;
  /** The subject's key, "erased" when destroyed, null when never created (nothing of it was encrypted). */
  keyForReading(tenantId: string, subject: string): Promise<SubjectKey>;
  /** Forgets what this keyring holds of a subject (a key or a new one), so the next use reads it. */
  discard(tenantId: string, subject: string): void;
  /** Forgets a cached key (its subject was erased). */
  forget(tenantId: string, subject: string): void;
  /** A keyed name for a personal value (pseudonymFor): the same value, the same name. */
  pseudonym(value: string): string;
  close(): Promise<void>;
}

export class SubjectErasedError extends Error {
  readonly subject: string;
  constructor(subject: string) {
    super(`The personal data of ${subject} was erased`);
    this.subject = subject;
    this.name = "SubjectErasedError";
  }
}

const CHANNEL = "pms_personal_data_erased";

/** The keyrings of this process, so an erasure here forgets the key at once in each. */
const local = new Set<Keyring>();

/**
 * Destroys a subject's key for good (idempotent): the erasure itself. Every keyring of this
 * process forgets it at once, those of other processes on the notification (or within TTL_MS).
 */
export async function destroySubjectKey(sql: Sql, tenantId: string, subject: string): Promise<void> {
  await sql.query(
    `INSERT INTO personal_data_keys (tenant_id, subject, wrapped_key, destroyed_at) VALUES ($1, $2, NULL, now())
     ON CONFLICT (tenant_id, subject) DO UPDATE SET wrapped_key = NULL,
       destroyed_at = coalesce(personal_data_keys.destroyed_at, now())`,
    [tenantId, subject],
  );
  for (const keyring of local) keyring.forget(tenantId, subject);
  await sql.query("SELECT pg_notify($1, $2)", [CHANNEL, `${tenantId}/${subject}`]);
}

/** When the subject's key was destroyed, or null. */
export async function keyDestroyedAt(sql: Sql, tenantId: string, subject: string): Promise<string | null> {
  const [row] = await sql.query<{ destroyed_at: Date | null }>(
    "SELECT destroyed_at FROM personal_data_keys WHERE tenant_id = $1 AND subject = $2",
    [tenantId, subject],
  );
  return row?.destroyed_at ? new Date(row.destroyed_at).toISOString() : null;
}
/** SQLSTATE of an append whose new key clashes with the subject's kept key (migration 126). */
export const SUBJECT_KEY_CLASH = "PMS21";

/** Bounds how long a process that missed a notification may still hold a destroyed key. */
const TTL_MS = 5 * 60_000;
/**
 * Names derived from a personal value (an email's reservation stream) without revealing it: the
 * HMAC-SHA-256 of the value under a key derived from the master key (HKDF, RFC 5869), in hex. An
 * unkeyed hash would let anyone holding a guess test it against the log, erasure or not
 * (docs/personal-data.md, "Names made of personal values").
 */
export function pseudonymFor(masterKey: Buffer): (value: string) => string {
  // A KeyObject on Node 24 (dataKey): there an HMAC under a Buffer key took 21 µs against 3 µs.
  const key = dataKey(
    Buffer.from(hkdfSync("sha256", masterKey, Buffer.alloc(0), "pms stream name pseudonyms", 32)),
  );
  return (value) => createHmac("sha256", key).update(value).digest("hex");
}

const CACHE_MAX = 100_000;

/**
 * `logInSameDatabase`: the events table is in `sql`'s database (PostgreSQL and embedded engines). A
 * new key then commits without waiting for its WAL flush: the append that follows it flushes the
 * WAL up to its own commit, the key's included, so no durable event ever lacks its key, and a
 * create costs no second disk flush. On EventStoreDB the key is flushed before the append.
 */
export function createKeyring(
  sql: Sql,
  masterKey: Buffer,
  options: { logInSameDatabase?: boolean } = {},
): Keyring {
  const keyring = openKeyring(sql, masterKey, options.logInSameDatabase ?? false);
  local.add(keyring);
  const close = keyring.close;
  keyring.close = async () => {
    local.delete(keyring);
    await close();
  };
  return keyring;
}

function openKeyring(sql: Sql, masterKey: Buffer, asyncCommit: boolean): Keyring {
  const cache = new Map<string, { key: SubjectKey; at: number }>();
  const id = (tenantId: string, subject: string) => `${tenantId}/${subject}`;
  const remember = (k: string, key: SubjectKey) => {
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
    cache.set(k, { key, at: Date.now() });
  };
  const cached = (k: string) => {
    const hit = cache.get(k);
    if (hit && Date.now() - hit.at < TTL_MS) return hit;
    cache.delete(k);
    return undefined;
  };
  const wrapping = keyWrapping(masterKey);
  const unwrap = (tenantId: string, subject: string, wrapped: Buffer) =>
    wrapping.unwrapAll([{ key: wrapped, aad: id(tenantId, subject) }])[0];
  let unlisten: Promise<(() => Promise<void>) | null> = sql
    .listen(CHANNEL, (payload) => cache.delete(payload))
    .catch(() => null);

  // New keys of concurrent writes go in one statement, one statement out at a time (as appends
  // are grouped, docs/architecture.md): a create then costs a share of a round trip, not one.
  type Pending = {
    tenantId: string;
    subject: string;
    wrapped: Buffer;
    done: (inserted: boolean | Error) => void;
  };
  let pending: Pending[] = [];
  let flushing = false;
  const insertKey = (tenantId: string, subject: string, wrapped: Buffer) =>
    new Promise<boolean>((resolve, reject) => {
      pending.push({
        tenantId,
        subject,
        wrapped,
        done: (r) => (r instanceof Error ? reject(r) : resolve(r)),
      });
      if (!flushing) void flush();
    });
  async function flush() {
    flushing = true;
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      // A subject twice in one batch: the first inserts, the others read its key back.
      const first = new Map<string, Pending>();
      for (const p of batch)
        if (!first.has(id(p.tenantId, p.subject))) first.set(id(p.tenantId, p.subject), p);
      const rows = [...first.values()];
      try {
        // set_config(..., true) in the statement's own transaction: no BEGIN/COMMIT round trips.
        const inserted = await sql.query<{ tenant_id: string; subject: string }>(
          `INSERT INTO personal_data_keys (tenant_id, subject, wrapped_key)
           SELECT k.t, k.s, k.w FROM unnest($1::uuid[], $2::text[], $3::bytea[]) AS k(t, s, w)
            WHERE set_config('synchronous_commit', coalesce($4::text, current_setting('synchronous_commit')), true) IS NOT NULL
           ON CONFLICT DO NOTHING RETURNING tenant_id::text, subject`,
          [
            rows.map((p) => p.tenantId),
            rows.map((p) => p.subject),
            rows.map((p) => p.wrapped),
            asyncCommit ? "off" : null,
          ],
          { prepare: true },
        );
        const written = new Set(inserted.map((r) => id(r.tenant_id, r.subject)));
        for (const p of batch)
          p.done(first.get(id(p.tenantId, p.subject)) === p && written.has(id(p.tenantId, p.subject)));
      } catch (error) {
        for (const p of batch) p.done(error as Error);
      }
    }
    flushing = false;
  }

  async function load(tenantId: string, subject: string): Promise<{ key: SubjectKey; exists: boolean }> {
    const [row] = await sql.query<{ wrapped_key: Buffer | null }>(
      "SELECT wrapped_key FROM personal_data_keys WHERE tenant_id = $1 AND subject = $2",
      [tenantId, subject],
    );
    if (!row) return { key: null, exists: false };
    return { key: row.wrapped_key ? unwrap(tenantId, subject, row.wrapped_key) : "erased", exists: true };
  }

  // New keys handed to appends not yet committed: concurrent writes for one new subject (a
  // lessee and its email reservation) seal with the same key and carry the same row.
  const fresh = new Map<string, { key: DataKey; row: NewSubjectKey }>();

  const pseudonym = pseudonymFor(masterKey);

  return {
    keysWithAppend: asyncCommit,
    pseudonym,
    async keyForAppend(tenantId, subject, isNew) {
      const k = id(tenantId, subject);
      const hit = cached(k);
      if (isLiveKey(hit?.key)) return { key: hit.key, row: null };
      if (hit?.key === "erased") throw new SubjectErasedError(subject);
      if (!fresh.has(k) && !isNew) {
        const { key, exists } = await load(tenantId, subject);
        if (exists) {
          remember(k, key);
          if (isLiveKey(key)) return { key, row: null };
          throw new SubjectErasedError(subject);
        }
      }
      let entry = fresh.get(k);
      if (!entry) {
        const { raw, wrapped } = wrapping.newKey();
        entry = { key: raw, row: { tenant_id: tenantId, subject, wrapped_key: wrapped } };
        if (fresh.size >= CACHE_MAX) fresh.delete(fresh.keys().next().value!);
        fresh.set(k, entry);
      }
      return entry;
    },
    confirm(rows) {
      for (const row of rows) {
        const k = id(row.tenant_id, row.subject);
        const entry = fresh.get(k);
        if (entry?.row !== row) continue;
        fresh.delete(k);
        remember(k, entry.key);
      }
    },
    discard(tenantId, subject) {
      fresh.delete(id(tenantId, subject));
      cache.delete(id(tenantId, subject));
    },
    async keyForWriting(tenantId, subject) {
      const k = id(tenantId, subject);
      const hit = cached(k);
      if (isLiveKey(hit?.key)) return hit.key;
      const { raw, wrapped } = wrapping.newKey();
      const inserted = await insertKey(tenantId, subject, wrapped);
      const key = inserted ? raw : (await load(tenantId, subject)).key;
      if (!isLiveKey(key)) throw new SubjectErasedError(subject);
      remember(k, key);
      return key;
    },
    async preload(subjects, options = { remember: true }) {
      // Keyed by `id` when the caller built it already (one string per event, hashed once).
      const missing = new Map<string, { tenantId: string; subject: string }>();
      for (const s of subjects) {
        const k = s.id ?? id(s.tenantId, s.subject);
        if (!missing.has(k) && !cached(k)) missing.set(k, s);
      }
      const found = new Map<string, SubjectKey>();
      if (missing.size < 2) return found;
      const ids = [...missing.keys()];
      const wanted = [...missing.values()];
      // Rows come back by their place in the request: no key string rebuilt from what PostgreSQL prints.
      const rows = await sql.query<{ n: number; wrapped_key: Buffer | null }>(
        `SELECT w.n::int AS n, k.wrapped_key FROM personal_data_keys k
          JOIN unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS w(t, s, n) ON k.tenant_id = w.t AND k.subject = w.s`,
        [wanted.map((w) => w.tenantId), wanted.map((w) => w.subject)],
      );
      for (const k of ids) found.set(k, null);
      const live = rows.filter((r) => r.wrapped_key !== null);
      const keys = wrapping.unwrapAll(live.map((r) => ({ key: r.wrapped_key!, aad: ids[r.n - 1] })));
      for (const r of rows) if (r.wrapped_key === null) found.set(ids[r.n - 1], "erased");
      for (let i = 0; i < live.length; i++) found.set(ids[live[i].n - 1], keys[i]);
      // Subjects without a key are not remembered beyond the batch: the next write may create theirs.
      if (options.remember) for (const r of rows) remember(ids[r.n - 1], found.get(ids[r.n - 1])!);
      return found;
    },
    cachedKey(tenantId, subject, known) {
      return cached(known ?? id(tenantId, subject))?.key ?? undefined;
    },
    async keyForReading(tenantId, subject) {
      const k = id(tenantId, subject);
      const hit = cached(k);
      if (hit) return hit.key;
      const { key, exists } = await load(tenantId, subject);
      // A key not created yet may be created by the next write: only keys seen are remembered.
      if (exists) remember(k, key);
      return key;
    },
    forget(tenantId, subject) {
      fresh.delete(id(tenantId, subject));
      cache.set(id(tenantId, subject), { key: "erased", at: Date.now() });
    },
    async close() {
      const stop = await unlisten;
      unlisten = Promise.resolve(null);
      await stop?.().catch(() => {});
    },
  };
}
