import type {
  EventStore,
  NewEvent,
  NewSubjectKey,
  RecordedEvent,
  StreamWrite,
} from "../eventstore/eventStore.ts";
import {
  type DataKey,
  isLiveKey,
  type Keyring,
  open,
  openEnvelope,
  SUBJECT_KEY_CLASH,
  type SubjectKey,
  sealEnvelope,
} from "./keyring.ts";

/**
 * The encoding of personal fields in events (docs/personal-data.md), one layer above the event
 * store port: what the store keeps (and what a hash chain over stored events covers) is the
 * ciphertext; every reader gets the plaintext back, or nulls once the subject was erased.
 *
 * An object holding personal fields (an event's `data`, or its `changes`) is stored without them
 * and with `"$personal": {fields, sealed}`: the names of the fields it held (names are not
 * personal) and their values as JSON sealed with the subject's key (AES-256-GCM, keyring.ts).
 * A field declared `within` is kept in the clear with its personal sub-fields set to null; the
 * envelope holds those sub-fields (an object, or an array of objects by index) and reading merges
 * them back. Events written before encryption (plaintext) read as they are while the subject's key lives,
 * with nulls once it is destroyed; `pms privacy encrypt-existing` rewrites them (migrate.ts).
 */

export const SEALED = "$personal";

export interface PersonalDataKind {
  /** Fields holding personal data, at the top of `data` or of `data.changes`. */
  fields: readonly string[];
  /**
   * Personal fields inside a top-level field holding an object or an array of objects, e.g.
   * `{signatories: ["name", "email"]}`: only those are sealed (and erased), the rest of each
   * object (ids, roles, dates) stays readable, so a fold still finds its way once they are gone.
   */
  within?: Readonly<Record<string, readonly string[]>>;
  /** The data subject an event of this stream is about: the subject's stream name. */
  subject: (streamName: string, data: Record<string, unknown>) => string | null;
}

/** Stream category (the part of the stream name before the first `-`) -> its personal data. */
export type PersonalDataDeclaration = Record<string, PersonalDataKind>;

/**
 * `v` absent: format 1, AES-256-GCM bound to `<tenant>/<subject>` (still read). `v: 2`:
 * XChaCha20-Poly1305 bound to `<tenant>/<subject>/<stream>/<event id>/<data|changes>`, so an
 * envelope copied to another event, stream or place in its event opens nothing.
 */
interface Sealed {
  fields: string[];
  sealed: string;
  v?: 2;
}
export const ENVELOPE_VERSION = 2;
const envelopeAad = (subjectId: string, stream: string, eventId: string, place: "data" | "changes") =>
  `${subjectId}/${stream}/${eventId}/${place}`;

/**
 * `obj` without its envelope, with `values` set. An object grown key by key (`out[k] = v`) turns
 * to dictionary mode past 16 properties (V8's limit for keyed stores), and the projections'
 * `...data` and field reads are then several times slower (a lessee has 26 fields); so each shape
 * is built once with `Object.fromEntries` and then copied (a spread keeps the copy's fast shape)
 * and filled in (decode and spread of a lessee event 17 to 25 µs against 23 to 36 µs with
 * `Object.fromEntries`, measured).
 */
const shapes = new Map<string, Record<string, unknown>>();
function withValues(obj: Record<string, unknown>, values: Record<string, unknown>): Record<string, unknown> {
  let signature = "";
  for (const k in obj) if (k !== SEALED) signature += `${k},`;
  for (const k in values) signature += `${k},`;
  let shape = shapes.get(signature);
  if (!shape) {
    const entries: [string, unknown][] = [];
    for (const k in obj) if (k !== SEALED) entries.push([k, null]);
    for (const k in values) entries.push([k, null]);
    shape = Object.fromEntries(entries);
    // Bounded: shapes are few (event types by their fields), but data is not trusted to be.
    if (shapes.size < 1000) shapes.set(signature, shape);
  }
  const out = { ...shape };
  for (const k in obj) if (k !== SEALED) out[k] = obj[k];
  for (const k in values) out[k] = values[k];
  return out;
}

export const categoryOf = (streamName: string) => streamName.slice(0, streamName.indexOf("-"));

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * A `within` field's value split in two: `clear`, with the personal sub-fields set to null, and
 * `personal`, those sub-fields' values (for an array, one object or null per element). Null when
 * it holds no personal value.
 */
function splitWithin(value: unknown, subFields: readonly string[]) {
  const one = (o: unknown): { clear: unknown; personal: Record<string, unknown> | null } => {
    if (!isObject(o)) return { clear: o, personal: null };
    let personal: Record<string, unknown> | null = null;
    let clear = o;
    for (const f of subFields)
      if (o[f] != null) {
        personal ??= {};
        personal[f] = o[f];
        clear = { ...clear, [f]: null };
      }
    return { clear, personal };
  };
  if (Array.isArray(value)) {
    const parts = value.map(one);
    if (parts.every((p) => p.personal === null)) return null;
    return { clear: parts.map((p) => p.clear), personal: parts.map((p) => p.personal) };
  }
  const part = one(value);
  return part.personal ? part : null;
}

/** The inverse of splitWithin: the sealed sub-fields put back into the clear value. */
function mergeWithin(clear: unknown, personal: unknown): unknown {
  const one = (o: unknown, p: unknown) => (isObject(o) && isObject(p) ? { ...o, ...p } : o);
  if (Array.isArray(clear)) return clear.map((o, i) => one(o, Array.isArray(personal) ? personal[i] : null));
  return one(clear, personal);
}

/** Where new keys go when they are stored with the append (Keyring.keysWithAppend). */
export interface AppendKeys {
  /** Streams the append creates: their subjects have no key yet. */
  created: ReadonlySet<string>;
  /** New keys the append must store, pushed by `encode`. */
  rows: NewSubjectKey[];
}

export interface PersonalDataCodec {
  encode(streamName: string, events: NewEvent[], keys?: AppendKeys): Promise<NewEvent[]>;
  decode(events: RecordedEvent[]): Promise<RecordedEvent[]>;
  /** Whether `data` (or its `changes`) still holds a personal field in plaintext. */
  hasPlaintext(streamName: string, data: unknown): boolean;
  keyring: Keyring;
}

/** Sealed values already opened: a stream read again (commands, history) costs no decryption. */
const OPENED_MAX = 4_000;
/** Reads of at most this many events use that cache. */
const OPENED_BATCH = 100;

export function personalDataCodec(declaration: PersonalDataDeclaration, keyring: Keyring): PersonalDataCodec {
  // Only ever read behind a live key: an erased subject's entries are never served (openObject).
  const opened = new Map<string, Record<string, unknown>>();
  const remember = (sealed: string, values: Record<string, unknown>) => {
    if (opened.size >= OPENED_MAX) opened.delete(opened.keys().next().value!);
    opened.set(sealed, values);
  };
  const kindOf = (streamName: string) => declaration[categoryOf(streamName)];
  // Field names as sets: an event's keys are looked up, not each field searched for in a list.
  const personal = new Map(Object.values(declaration).map((k) => [k, new Set(k.fields)]));
  const isPersonal = (kind: PersonalDataKind, field: string) => personal.get(kind)!.has(field);
  const withinOf = new Map(
    Object.values(declaration).map((k) => [k, new Map(Object.entries(k.within ?? {}))] as const),
  );
  // A null is no personal data: it stays as it is, in the clear (a smaller envelope to write and read).
  const present = (kind: PersonalDataKind, obj: Record<string, unknown>) =>
    kind.fields.filter((f) => obj[f] != null);
  /** `within` fields of `obj` holding personal values in the clear, split. */
  const plainWithin = (kind: PersonalDataKind, obj: Record<string, unknown>) => {
    const found: [string, NonNullable<ReturnType<typeof splitWithin>>][] = [];
    for (const [field, subFields] of withinOf.get(kind)!) {
      const split = obj[field] != null ? splitWithin(obj[field], subFields) : null;
      if (split) found.push([field, split]);
    }
    return found;
  };

  function sealObject(
    obj: Record<string, unknown>,
    kind: PersonalDataKind,
    key: DataKey | null,
    aad: string,
  ) {
    if (SEALED in obj) return obj;
    const rest: Record<string, unknown> = {};
    const values: Record<string, unknown> = {};
    const fields: string[] = [];
    const personalFields = personal.get(kind)!;
    for (const k in obj) {
      const v = obj[k];
      if (v != null && personalFields.has(k)) {
        values[k] = v;
        fields.push(k);
      } else rest[k] = v;
    }
    for (const [field, split] of plainWithin(kind, obj)) {
      rest[field] = split.clear;
      values[field] = split.personal;
      fields.push(field);
    }
    if (fields.length === 0) return obj;
    // An erased subject's key is gone: whatever personal value still comes is dropped, never stored.
    if (!key) {
      const within = withinOf.get(kind)!;
      for (const f of fields) if (!within.has(f)) rest[f] = null;
      return rest;
    }
    const sealed = sealEnvelope(key, Buffer.from(JSON.stringify(values)), aad).toString("base64");
    rest[SEALED] = { fields, sealed, v: ENVELOPE_VERSION } satisfies Sealed;
    // The projector reads these events next: it finds them opened.
    remember(`${aad} ${sealed}`, values);
    return rest;
  }

  function openObject(
    obj: Record<string, unknown>,
    kind: PersonalDataKind,
    key: SubjectKey,
    /** The subject's id (`<tenant>/<subject>`): format 1's associated data. */
    subjectId: string,
    /** Format 2's associated data (envelopeAad). */
    aad: string,
    cache: boolean,
  ) {
    const envelope = obj[SEALED] as Sealed | undefined;
    const within = withinOf.get(kind)!;
    if (!envelope) {
      if (key !== "erased") return obj;
      // Plaintext written before encryption, of an erased subject: erased on read too.
      const erased: Record<string, unknown> = Object.fromEntries(present(kind, obj).map((f) => [f, null]));
      if (within.size > 0) for (const [field, split] of plainWithin(kind, obj)) erased[field] = split.clear;
      return Object.keys(erased).length === 0 ? obj : withValues(obj, erased);
    }
    // Erased: a `within` field's clear value already holds nulls where its personal sub-fields were.
    if (!isLiveKey(key))
      return withValues(
        obj,
        Object.fromEntries(envelope.fields.filter((f) => !within.has(f)).map((f) => [f, null])),
      );
    // Cached under its associated data too: an envelope moved elsewhere is not found opened.
    const cacheKey = `${envelope.v === ENVELOPE_VERSION ? aad : subjectId} ${envelope.sealed}`;
    let values = cache ? opened.get(cacheKey) : undefined;
    if (!values) {
      const bytes = Buffer.from(envelope.sealed, "base64");
      const plain =
        envelope.v === ENVELOPE_VERSION ? openEnvelope(key, bytes, aad) : open(key, bytes, subjectId);
      values = JSON.parse(plain.toString()) as Record<string, unknown>;
      if (cache) remember(cacheKey, values);
    }
    if (within.size > 0) {
      // A copy: `values` may be the opened-values cache's.
      const merged = { ...values };
      for (const field of envelope.fields)
        if (within.has(field)) merged[field] = mergeWithin(obj[field], values[field]);
      values = merged;
    }
    return withValues(obj, values);
  }

  /** Applies `fn` to `data` and to `data.changes`, where personal fields live. */
  const mapData = (
    data: unknown,
    fn: (obj: Record<string, unknown>, place: "data" | "changes") => Record<string, unknown>,
  ) => {
    if (!isObject(data)) return data;
    const top = fn(data, "data");
    return isObject(top.changes) ? { ...top, changes: fn(top.changes, "changes") } : top;
  };

  const holds = (kind: PersonalDataKind, o: Record<string, unknown>) => {
    if (SEALED in o) return true;
    for (const k in o) if (o[k] != null && isPersonal(kind, k)) return true;
    return withinOf.get(kind)!.size > 0 && plainWithin(kind, o).length > 0;
  };
  const touches = (kind: PersonalDataKind, data: unknown) =>
    isObject(data) && (holds(kind, data) || (isObject(data.changes) && holds(kind, data.changes)));

  return {
    keyring,
    async encode(streamName, events, keys) {
      const kind = kindOf(streamName);
      if (!kind) return events;
      const out: NewEvent[] = [];
      for (const event of events) {
        const subject = kind.subject(streamName, event.data as Record<string, unknown>);
        if (!subject || !touches(kind, event.data)) {
          out.push(event);
          continue;
        }
        const tenantId = event.metadata.tenant_id;
        const key = await (keys
          ? keyring.keyForAppend(tenantId, subject, keys.created.has(subject)).then(({ key, row }) => {
              if (row && !keys.rows.includes(row)) keys.rows.push(row);
              return key;
            })
          : keyring.keyForWriting(tenantId, subject)
        ).catch((error) => {
          if ((error as Error).name === "SubjectErasedError") return null;
          throw error;
        });
        const id = `${tenantId}/${subject}`;
        out.push({
          ...event,
          data: mapData(event.data, (o, place) =>
            sealObject(o, kind, key, envelopeAad(id, streamName, event.event_id, place)),
          ),
        });
      }
      return out;
    },
    async decode(events) {
      // The events holding personal data, each with its subject; `id` (`<tenant>/<subject>`) is
      // also the AAD its values were sealed with.
      const personal: { i: number; kind: PersonalDataKind; tenantId: string; subject: string; id: string }[] =
        [];
      for (let i = 0; i < events.length; i++) {
        const event = events[i];
        const kind = kindOf(event.stream_name);
        if (!kind || !touches(kind, event.data)) continue;
        const subject = kind.subject(event.stream_name, event.data);
        const tenantId = event.metadata.tenant_id;
        if (subject) personal.push({ i, kind, tenantId, subject, id: `${tenantId}/${subject}` });
      }
      if (personal.length === 0) return events;
      // Small reads (a command's stream, the live projector) may find keys and values this process
      // used before, and keep them; a rebuild's batches would only churn the caches (and grow them:
      // 100,000 keys kept are 30 MB).
      const cache = events.length <= OPENED_BATCH;
      // A batch (catch-up, a rebuild, a long stream) reads its subjects' keys in one statement.
      const batch = personal.length > 1 ? await keyring.preload(personal, { remember: cache }) : null;
      const out = events.slice();
      for (const { i, kind, tenantId, subject, id } of personal) {
        const event = events[i];
        // One look-up: a batch maps every subject it read (null: no key), undefined when it skipped one.
        const fromBatch = batch?.get(id);
        const key =
          fromBatch !== undefined
            ? fromBatch
            : (keyring.cachedKey(tenantId, subject, id) ?? (await keyring.keyForReading(tenantId, subject)));
        out[i] = {
          ...event,
          data: mapData(event.data, (o, place) =>
            openObject(o, kind, key, id, envelopeAad(id, event.stream_name, event.event_id, place), cache),
          ),
        } as RecordedEvent;
      }
      return out;
    },
    hasPlaintext(streamName, data) {
      const kind = kindOf(streamName);
      if (!kind || !isObject(data)) return false;
      const plain = (o: Record<string, unknown>) =>
        !(SEALED in o) && (present(kind, o).length > 0 || plainWithin(kind, o).length > 0);
      return plain(data) || (isObject(data.changes) && plain(data.changes));
    },
  };
}

/**
 * The event store with personal fields encrypted on append and decrypted on every read
 * (including the live subscription). `decodeRead` decodes events a caller read past the port
 * (the projector's and the rebuild's direct PostgreSQL reads).
 */
export function withPersonalData(store: EventStore, codec: PersonalDataCodec): EventStore {
  const appendToStreams = store.appendToStreams?.bind(store);
  const readStreams = store.readStreams?.bind(store);
  const keysWithAppend = codec.keyring.keysWithAppend && store.keepsSubjectKeys === true;

  /**
   * Seals the writes and sends them. New keys ride in the append's own transaction when the store
   * keeps them; a clash with a key kept meanwhile (another writer's, or an erasure) drops ours,
   * and the writes are sealed again with what is kept.
   */
  async function sealAndSend<R>(writes: StreamWrite[], send: (sealed: StreamWrite[]) => Promise<R>) {
    if (!keysWithAppend) {
      const sealed = await Promise.all(
        writes.map(async (w) => ({ ...w, events: await codec.encode(w.stream_name, w.events) })),
      );
      return send(sealed);
    }
    for (let attempt = 1; ; attempt++) {
      const created = new Set(
        attempt === 1
          ? writes.filter((w) => w.expected_revision === "no_stream").map((w) => w.stream_name)
          : [],
      );
      const rows: NewSubjectKey[] = [];
      const sealed = await Promise.all(
        writes.map(async (w) => ({
          ...w,
          events: await codec.encode(w.stream_name, w.events, { created, rows }),
        })),
      );
      if (rows.length > 0) sealed[0] = { ...sealed[0], subject_keys: rows };
      try {
        const result = await send(sealed);
        codec.keyring.confirm(rows);
        return result;
      } catch (error) {
        if ((error as { code?: string }).code !== SUBJECT_KEY_CLASH || attempt >= 3) throw error;
        for (const row of rows) codec.keyring.discard(row.tenant_id, row.subject);
      }
    }
  }

  return {
    ...store,
    engine: store.engine,
    appendToStream: (stream, events, options) =>
      sealAndSend([{ stream_name: stream, events, expected_revision: options.expected_revision }], ([w]) =>
        store.appendToStream(stream, w.events, { ...options, subject_keys: w.subject_keys }),
      ),
    appendToStreams: appendToStreams ? (writes) => sealAndSend(writes, appendToStreams) : undefined,
    readStream: async (stream, options) => codec.decode(await store.readStream(stream, options)),
    readStreams: readStreams
      ? async (streams) => Promise.all((await readStreams(streams)).map((events) => codec.decode(events)))
      : undefined,
    readAll: async (options) => codec.decode(await store.readAll(options)),
    subscribeToAll: (options, onEvent) =>
      store.subscribeToAll(options, async (event) => onEvent((await codec.decode([event]))[0])),
    onAppended: store.onAppended.bind(store),
    headPosition: store.headPosition.bind(store),
    decodeRead: (events) => codec.decode(events),
    // EventStoreDB streams cannot be renamed: its reservations keep their unkeyed names (reservationNames.ts).
    pseudonym: store.engine === "postgres" ? codec.keyring.pseudonym : undefined,
    close: async () => {
      await codec.keyring.close();
      await store.close();
    },
  };
}
