import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PERSONAL_DATA } from "../../src/events/personalData.ts";
import type { Sql } from "../../src/platform/db.ts";
import type { EventStore, NewEvent } from "../../src/platform/eventstore/eventStore.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { ENVELOPE_VERSION, SEALED, withPersonalData } from "../../src/platform/personalData/codec.ts";
import { personalDataCodecOf } from "../../src/platform/personalData/codecOf.ts";
import {
  destroySubjectKey,
  openEnvelope,
  seal,
  sealEnvelope,
} from "../../src/platform/personalData/keyring.ts";
import { createTestDatabase } from "../support/testDatabase.ts";

// The envelope of an event's personal values (docs/personal-data.md, format 2): XChaCha20-Poly1305
// bound to its tenant, subject, stream, event id and place; format 1 (AES-256-GCM bound to tenant
// and subject) still read.

const registered = (tenant: string, id: string, last_name: string): NewEvent => ({
  event_id: randomUUID(),
  type: "LesseeRegistered",
  data: { lessee_id: id, category: "individual", first_name: "Anne", last_name, email: `${id}@env.test` },
  metadata: { tenant_id: tenant } as NewEvent["metadata"],
});

describe("the format 2 envelope", () => {
  const key = Buffer.alloc(32, 7);
  it("opens with its key and associated data only", () => {
    const sealed = sealEnvelope(key, Buffer.from("Anne"), "a");
    expect(openEnvelope(key, sealed, "a").toString()).toBe("Anne");
    expect(() => openEnvelope(key, sealed, "b")).toThrow();
    expect(() => openEnvelope(Buffer.alloc(32, 8), sealed, "a")).toThrow();
    const changed = Buffer.from(sealed);
    changed[changed.length - 20] ^= 1;
    expect(() => openEnvelope(key, changed, "a")).toThrow();
    expect(() => openEnvelope(key, sealed.subarray(0, 10), "a")).toThrow();
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)("envelopes in the log", () => {
  let sql: Sql;
  let drop: () => Promise<void>;
  let store: EventStore;
  let bare: EventStore;
  const tenant = randomUUID();
  beforeAll(async () => {
    ({ sql, drop } = await createTestDatabase("postgres"));
    bare = createPostgresEventStore(sql);
    store = withPersonalData(createPostgresEventStore(sql), personalDataCodecOf({}, sql, PERSONAL_DATA));
  });
  afterAll(async () => {
    await store.close();
    await drop();
  });
  const rows = (stream: string) =>
    sql.query<{ data: Record<string, any>; event_id: string }>(
      "SELECT data, event_id::text FROM events WHERE stream_name = $1 ORDER BY stream_revision",
      [stream],
    );

  it("stores one format 2 envelope, no plaintext and no key, and reads it back", async () => {
    const id = randomUUID();
    await store.appendToStream(`lessee-${id}`, [registered(tenant, id, "Martin")], {
      expected_revision: "no_stream",
    });
    const [row] = await rows(`lessee-${id}`);
    expect(row.data[SEALED].v).toBe(ENVELOPE_VERSION);
    expect(JSON.stringify(row.data)).not.toContain("Martin");
    expect(JSON.stringify(row.data)).not.toContain("Anne");
    const keyRow = await sql.query<{ wrapped_key: Buffer }>(
      "SELECT wrapped_key FROM personal_data_keys WHERE tenant_id = $1 AND subject = $2",
      [tenant, `lessee-${id}`],
    );
    const raw = await store.readStream(`lessee-${id}`);
    expect((raw[0].data as any).last_name).toBe("Martin");
    const all = await sql.query<{ text: string }>(
      "SELECT string_agg(data::text || metadata::text, '') AS text FROM events",
    );
    expect(all[0].text).not.toContain(keyRow[0].wrapped_key.toString("base64"));
  });

  it("opens nothing once moved to another event of the same subject, or to another stream", async () => {
    const id = randomUUID();
    const other = randomUUID();
    await store.appendToStream(
      `lessee-${id}`,
      [registered(tenant, id, "Martin"), registered(tenant, id, "Petit")],
      {
        expected_revision: "no_stream",
      },
    );
    await store.appendToStream(`lessee-${other}`, [registered(tenant, other, "Durand")], {
      expected_revision: "no_stream",
    });
    const [a, b] = await rows(`lessee-${id}`);
    // The first event's envelope put in the second event, same subject, same key.
    await sql.query("UPDATE events SET data = $1 WHERE event_id = $2", [a.data, b.event_id]);
    await expect(store.readStream(`lessee-${id}`)).rejects.toThrow();
    const [c] = await rows(`lessee-${other}`);
    await sql.query("UPDATE events SET data = $1 WHERE event_id = $2", [
      { ...c.data, [SEALED]: b.data[SEALED] },
      c.event_id,
    ]);
    await expect(store.readStream(`lessee-${other}`)).rejects.toThrow();
  });

  it("reads an event stored in format 1 (AES-256-GCM, per tenant and subject) and erases it", async () => {
    const id = randomUUID();
    const stream = `lessee-${id}`;
    // The subject's key, made by a format 2 append first.
    await store.appendToStream(stream, [registered(tenant, id, "Martin")], {
      expected_revision: "no_stream",
    });
    const codec = personalDataCodecOf({}, sql, PERSONAL_DATA);
    const key = await codec.keyring.keyForWriting(tenant, stream);
    const values = { first_name: "Anne", last_name: "Ancien", email: `${id}@env.test` };
    const legacy = seal(key, Buffer.from(JSON.stringify(values)), `${tenant}/${stream}`).toString("base64");
    await bare.appendToStream(
      stream,
      [
        {
          event_id: randomUUID(),
          type: "LesseeUpdated",
          data: { lessee_id: id, changes: { [SEALED]: { fields: Object.keys(values), sealed: legacy } } },
          metadata: { tenant_id: tenant } as NewEvent["metadata"],
        },
      ],
      { expected_revision: 0n },
    );
    const events = await store.readStream(stream);
    expect((events[1].data as any).changes.last_name).toBe("Ancien");
    await codec.keyring.close();

    await destroySubjectKey(sql, tenant, stream);
    const fresh = withPersonalData(
      createPostgresEventStore(sql),
      personalDataCodecOf({}, sql, PERSONAL_DATA),
    );
    const erased = await fresh.readStream(stream);
    expect((erased[0].data as any).last_name).toBeNull();
    expect((erased[1].data as any).changes.last_name).toBeNull();
    expect(JSON.stringify(erased.map((e) => e.data))).not.toContain("Ancien");
    await fresh.close();
  });
});
