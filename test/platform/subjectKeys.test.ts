import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PERSONAL_DATA } from "../../src/events/personalData.ts";
import type { Sql } from "../../src/platform/db.ts";
import {
  type EventStore,
  type NewEvent,
  WrongExpectedRevisionError,
} from "../../src/platform/eventstore/eventStore.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { SEALED, withPersonalData } from "../../src/platform/personalData/codec.ts";
import { personalDataCodecOf } from "../../src/platform/personalData/codecOf.ts";
import {
  DEVELOPMENT_MASTER_KEY,
  destroySubjectKey,
  keyWrapping,
  seal,
} from "../../src/platform/personalData/keyring.ts";
import { createTestDatabase } from "../support/testDatabase.ts";

// A subject's new data key commits in the append that first seals with it (docs/personal-data.md):
// no key without its events, no events without their key, and a writer whose new key clashes with
// the one kept (another process's, or an erasure) seals again with what is kept.

const registered = (tenant: string, id: string, last_name: string): NewEvent => ({
  event_id: randomUUID(),
  type: "LesseeRegistered",
  data: { lessee_id: id, category: "individual", first_name: "Anne", last_name, email: `${id}@keys.test` },
  metadata: { tenant_id: tenant } as NewEvent["metadata"],
});
const updated = (tenant: string, id: string, last_name: string): NewEvent => ({
  event_id: randomUUID(),
  type: "LesseeUpdated",
  data: { lessee_id: id, changes: { last_name } },
  metadata: { tenant_id: tenant } as NewEvent["metadata"],
});

const lastName = (data: Record<string, any>) => ("changes" in data ? data.changes.last_name : data.last_name);

describe.runIf(process.env.TEST_DATABASE_URL)("data keys stored with their events", () => {
  let sql: Sql;
  let drop: () => Promise<void>;
  /** Two processes of the service: two keyrings, each with its own caches. */
  let first: EventStore;
  let second: EventStore;
  const tenant = randomUUID();
  beforeAll(async () => {
    ({ sql, drop } = await createTestDatabase("postgres"));
    first = withPersonalData(createPostgresEventStore(sql), personalDataCodecOf({}, sql, PERSONAL_DATA));
    second = withPersonalData(createPostgresEventStore(sql), personalDataCodecOf({}, sql, PERSONAL_DATA));
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await drop();
  });

  const keyRows = (subject: string) =>
    sql.query<{ xmin: string; wrapped: boolean }>(
      "SELECT xmin::text, wrapped_key IS NOT NULL AS wrapped FROM personal_data_keys WHERE tenant_id = $1 AND subject = $2",
      [tenant, subject],
    );
  const storedData = async (stream: string) =>
    (
      await sql.query<{ data: Record<string, unknown> }>(
        "SELECT data FROM events WHERE stream_name = $1 ORDER BY stream_revision",
        [stream],
      )
    ).map((r) => r.data);

  it("commits a new subject's key in the transaction of its first events", async () => {
    const id = randomUUID();
    const stream = `lessee-${id}`;
    await first.appendToStreams!([
      { stream_name: stream, events: [registered(tenant, id, "Keyed")], expected_revision: "no_stream" },
      {
        stream_name: `lessee_email-${id}`,
        events: [
          {
            ...registered(tenant, id, "x"),
            type: "LesseeEmailReserved",
            data: { lessee_id: id, email: `${id}@keys.test` },
          },
        ],
        expected_revision: "no_stream",
      },
    ]);
    const [key] = await keyRows(stream);
    const [event] = await sql.query<{ xmin: string }>(
      "SELECT xmin::text FROM events WHERE stream_name = $1",
      [stream],
    );
    expect(key).toEqual({ xmin: event.xmin, wrapped: true });
    expect(await keyRows(stream)).toHaveLength(1);
    // Both streams sealed with that one key: each reads back in clear in the other process.
    expect(JSON.stringify(await storedData(stream))).not.toContain("Keyed");
    expect((await second.readStream(stream))[0].data.last_name).toBe("Keyed");
    expect((await second.readStream(`lessee_email-${id}`))[0].data.email).toBe(`${id}@keys.test`);
  });

  it("reads the keys of a batch of events in one statement", async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids)
      await first.appendToStream(`lessee-${id}`, [registered(tenant, id, `Batch ${id}`)], {
        expected_revision: "no_stream",
      });
    // A third process, cold: counts its key reads.
    let keyReads = 0;
    const counting: Sql = {
      ...sql,
      query: (text, params, options) => {
        if (/FROM personal_data_keys/.test(text)) keyReads++;
        return sql.query(text, params, options);
      },
    };
    const cold = withPersonalData(
      createPostgresEventStore(counting),
      personalDataCodecOf({}, counting, PERSONAL_DATA),
    );
    try {
      // The events as stored (readAll's horizon may lag behind other databases' transactions), then
      // decoded as one batch, as the projector decodes what it read.
      const bare = createPostgresEventStore(sql);
      const stored = (await Promise.all(ids.map((id) => bare.readStream(`lessee-${id}`)))).flat();
      const decoded = await cold.decodeRead!(stored);
      expect(keyReads).toBe(1);
      expect(decoded.map((e) => lastName(e.data))).toEqual(ids.map((id) => `Batch ${id}`));
    } finally {
      await cold.close();
    }
  });

  it("reads events whose key was wrapped the former way (AES-256-GCM), one at a time or in a batch", async () => {
    const ids = [randomUUID(), randomUUID()];
    for (const id of ids) {
      await first.appendToStream(`lessee-${id}`, [registered(tenant, id, `Former ${id}`)], {
        expected_revision: "no_stream",
      });
      // The key as an earlier version stored it: sealed by GCM, bound to tenant and subject.
      const [{ wrapped_key }] = await sql.query<{ wrapped_key: Buffer }>(
        "SELECT wrapped_key FROM personal_data_keys WHERE tenant_id = $1 AND subject = $2",
        [tenant, `lessee-${id}`],
      );
      expect(wrapped_key).toHaveLength(32);
      const key = keyWrapping(DEVELOPMENT_MASTER_KEY).unwrapAll([{ key: wrapped_key, aad: "" }])[0];
      await sql.query(
        "UPDATE personal_data_keys SET wrapped_key = $3 WHERE tenant_id = $1 AND subject = $2",
        [tenant, `lessee-${id}`, seal(DEVELOPMENT_MASTER_KEY, key, `${tenant}/lessee-${id}`)],
      );
    }
    const cold = withPersonalData(createPostgresEventStore(sql), personalDataCodecOf({}, sql, PERSONAL_DATA));
    const batch = withPersonalData(
      createPostgresEventStore(sql),
      personalDataCodecOf({}, sql, PERSONAL_DATA),
    );
    try {
      expect(lastName((await cold.readStream(`lessee-${ids[0]}`))[0].data)).toBe(`Former ${ids[0]}`);
      const bare = createPostgresEventStore(sql);
      const stored = (await Promise.all(ids.map((id) => bare.readStream(`lessee-${id}`)))).flat();
      expect((await batch.decodeRead!(stored)).map((e) => lastName(e.data))).toEqual(
        ids.map((id) => `Former ${id}`),
      );
    } finally {
      await cold.close();
      await batch.close();
    }
  });

  it("stores no key when the append is refused", async () => {
    const id = randomUUID();
    const stream = `lessee-${id}`;
    await first.appendToStream(stream, [updated(tenant, id, "Plain")], { expected_revision: "any" });
    const before = await keyRows(stream);
    await expect(
      second.appendToStream(stream, [registered(tenant, id, "Refused")], { expected_revision: "no_stream" }),
    ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(await keyRows(stream)).toEqual(before);
  });

  it("seals again with the kept key when another process created the subject's key meanwhile", async () => {
    const id = randomUUID();
    const stream = `lessee-${id}`;
    await first.appendToStream(stream, [registered(tenant, id, "Winner")], {
      expected_revision: "no_stream",
    });
    // The second process prepared a new key for the subject (its create came second)...
    await expect(
      second.appendToStream(stream, [registered(tenant, id, "Loser")], { expected_revision: "no_stream" }),
    ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    // ...then writes to the stream: its key clashes with the kept one, it seals with the kept one.
    await second.appendToStream(stream, [updated(tenant, id, "Second")], { expected_revision: "any" });
    await first.appendToStream(stream, [updated(tenant, id, "First")], { expected_revision: "any" });
    expect(await keyRows(stream)).toHaveLength(1);
    for (const store of [first, second]) {
      const names = (await store.readStream(stream)).map((e) => lastName(e.data));
      expect(names).toEqual(["Winner", "Second", "First"]);
    }
  });

  it("keeps no personal value of an erased subject written by a process that had not heard of the erasure", async () => {
    const id = randomUUID();
    const stream = `lessee-${id}`;
    await first.appendToStream(stream, [registered(tenant, id, "Before")], {
      expected_revision: "no_stream",
    });
    // Erased in the database only: no keyring of this process is told (another process erased it).
    await sql.query(
      "UPDATE personal_data_keys SET wrapped_key = NULL, destroyed_at = now() WHERE tenant_id = $1 AND subject = $2",
      [tenant, stream],
    );
    // A process that never read the subject prepares a new key for it (a create, refused)...
    await expect(
      second.appendToStream(stream, [registered(tenant, id, "x")], { expected_revision: "no_stream" }),
    ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    await second.appendToStream(stream, [updated(tenant, id, "AfterErasure")], { expected_revision: "any" });
    const stored = await storedData(stream);
    expect(JSON.stringify(stored)).not.toContain("AfterErasure");
    expect((stored[1].changes as Record<string, unknown>)[SEALED]).toBeUndefined();
    // The second process read the erasure when its key clashed.
    expect((await second.readStream(stream)).map((e) => lastName(e.data))).toEqual([null, null]);
    await destroySubjectKey(sql, tenant, stream);
  });
});
