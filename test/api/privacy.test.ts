import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runRetention } from "../../src/commands/lessees/erase.ts";
import { LESSEE_FIELDS, legacyEmailHash, lesseeEmailStream } from "../../src/events/lessees.ts";
import { PERSONAL_DATA } from "../../src/events/personalData.ts";
import { canonical } from "../../src/platform/eventstore/chain.ts";
import { chainStreams } from "../../src/platform/eventstore/postgres/backfillChain.ts";
import { createPostgresEventStore } from "../../src/platform/eventstore/postgres/postgresEventStore.ts";
import { chainLine, verifyLines } from "../../src/platform/eventstore/verifyChain.ts";
import { queueMessage } from "../../src/platform/outbox/queueMessage.ts";
import { personalDataCodecOf } from "../../src/platform/personalData/codecOf.ts";
import { destroySubjectKey } from "../../src/platform/personalData/keyring.ts";
import { encryptExistingEvents } from "../../src/platform/personalData/migrate.ts";
import { renameLegacyReservations } from "../../src/platform/personalData/reservationNames.ts";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { lesseesProjection } from "../../src/projections/lessees.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { erasedMessage, messageOnce } from "../support/messages.ts";
import { createTestApp, eventCount, type TestApp } from "../support/testApp.ts";

// Personal data (docs/personal-data.md): encrypted at rest per subject, erased by destroying the
// subject's key (GDPR art. 17) unless a retention applies, exported (art. 15 and 20).

const PERSON = {
  category: "individual",
  title: "Mme",
  first_name: "Zoéprivacy",
  last_name: "Secretname",
  email: "zoe.secret@privacy.example",
  birth_date: "1980-02-03",
  birth_place: "Quimperlé",
  mobile_phone: "+33 6 11 22 33 44",
  address_street: "12 rue Cachée",
  iban: "FR7630006000011234567890189",
  identity_documents: { passport: { number: "PASS-SECRET-1" } },
  custom_fields: { note: "custom-secret" },
};
const SECRETS = [
  "Zoéprivacy",
  "Secretname",
  "zoe.secret@privacy.example",
  "Quimperlé",
  "11 22 33 44",
  "rue Cachée",
  "FR7630006000011234567890189",
  "PASS-SECRET-1",
  "custom-secret",
];
const ERASED_FIELDS = [
  "title",
  "first_name",
  "last_name",
  "email",
  "birth_date",
  "birth_place",
  "mobile_phone",
  "address_street",
  "iban",
  "identity_documents",
  "custom_fields",
];

describe("personal data", () => {
  let t: TestApp;
  const logs: string[] = [];
  const fx = leaseFixtures(() => t);
  beforeAll(async () => {
    // Every log line the service writes (requests included) is kept, to look for personal data.
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      logs.push(String(chunk));
      return true;
    });
    t = await createTestApp("postgres", { LOG_LEVEL: "trace", LOG_FORMAT: "pretty" });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await t?.close();
  });

  const rawEvents = async (lesseeId: string) =>
    JSON.stringify(
      await t.sql.query("SELECT data FROM events WHERE stream_name = $1 OR data->>'lessee_id' = $2", [
        `lessee-${lesseeId}`,
        lesseeId,
      ]),
    );
  const createLessee = async (email = PERSON.email) => {
    const res = await t.request("POST", "/api/lessees", { body: { ...PERSON, email } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  /** A lease of `lesseeId` from `start`, activated, then over on `end`. */
  const pastLease = async (lesseeId: string, start: string, notice: string, end: string) => {
    const { id } = await fx.newLease({ primary_lessee_id: lesseeId, start_date: start });
    expect((await fx.setStatus(id, "ACTIVE", { effective_date: start, reason: "signed" })).statusCode).toBe(
      200,
    );
    const n = await fx.setStatus(id, "NOTICE", { effective_date: notice });
    expect(n.statusCode, n.body).toBe(200);
    expect((await fx.setStatus(id, "FINALISATION")).statusCode).toBe(200);
    const done = await fx.setStatus(id, "TERMINATED", { effective_date: end });
    expect(done.statusCode, done.body).toBe(200);
    return id;
  };

  it("stores personal fields encrypted and reads them back in clear", async () => {
    const id = await createLessee();
    const stored = await rawEvents(id);
    expect(stored).toContain("$personal");
    for (const secret of SECRETS) expect(stored).not.toContain(secret);
    // The email reservation holds no personal value: its stream's name is the email's keyed hash.
    const [reservation] = await t.sql.query(
      "SELECT stream_name, data FROM events WHERE type = 'LesseeEmailReserved' AND data->>'lessee_id' = $1",
      [id],
    );
    expect(reservation.stream_name).toBe(
      lesseeEmailStream(t.tenant.id, PERSON.email, t.service.platform.store.pseudonym),
    );
    expect(reservation.data).toEqual({ lessee_id: id, lessee_revision: -1 });
    // The lessee reads as written.
    const got = (await t.request("GET", `/api/lessees/${id}`)).json();
    expect(got).toMatchObject({ ...PERSON, erased_at: null });
    const put = await t.request("PUT", `/api/lessees/${id}`, { body: { last_name: "Othersecret" } });
    expect(put.json().last_name).toBe("Othersecret");
    expect(await rawEvents(id)).not.toContain("Othersecret");
    const history = (await t.request("GET", `/api/lessees/${id}/history`)).json();
    expect(history[1].data.changes.last_name).toBe("Othersecret");
    const [key] = await t.sql.query(
      "SELECT wrapped_key, destroyed_at FROM personal_data_keys WHERE subject = $1",
      [`lessee-${id}`],
    );
    expect(key.wrapped_key).not.toBeNull();
    expect(key.destroyed_at).toBeNull();
  });

  it("refuses erasure with a 409 naming the retention while a lease is in progress, and writes nothing", async () => {
    const id = await createLessee("active.lease@privacy.example");
    const { id: leaseId } = await fx.newLease({ primary_lessee_id: id });
    await fx.writesNothing(async () => {
      const res = await t.request("POST", `/api/lessees/${id}/erase`, {
        body: { reason: "asked by the lessee" },
      });
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json().message).toMatch(/RGPD art\. 6\(1\)\(b\)/);
      expect(res.json().details[0].message).toMatch(/ACTIVE_LEASE/);
    });
    expect((await t.request("GET", `/api/lessees/${id}`)).json().first_name).toBe(PERSON.first_name);
    expect(leaseId).toBeTruthy();
  });

  it("refuses erasure for 3 years after the last lease ended (loi n° 89-462 art. 7-1)", async () => {
    const id = await createLessee("recent.lease@privacy.example");
    await pastLease(id, "2025-01-01", "2025-06-01", "2025-09-01");
    const res = await t.request("POST", `/api/lessees/${id}/erase`, { body: { reason: "asked" } });
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().message).toMatch(/art\. 7-1.*2028-09-01/);
  });

  it("erases a lessee whose retention is over: unreadable everywhere, the lease history unchanged", async () => {
    const id = await createLessee("erase.me@privacy.example");
    const leaseId = await pastLease(id, "2015-01-01", "2019-06-01", "2019-09-01");
    const leaseBefore = (await t.request("GET", `/api/leases/${leaseId}`)).json();
    const leaseHistoryBefore = (await t.request("GET", `/api/leases/${leaseId}/history`)).json();
    const asOf = `/api/leases/${leaseId}?as_of=${encodeURIComponent(new Date().toISOString())}`;
    const leaseAsOfBefore = (await t.request("GET", asOf)).json();

    // The retention job lists it (and not the lessee whose lease is in progress).
    const listed = await runRetention(t.service.platform, { erase: false, tenantId: t.tenant.id });
    expect(listed.due.map((d) => d.lessee_id)).toContain(id);
    expect(listed.erased).toEqual([]);

    const before = await eventCount(t);
    const res = await t.request("POST", `/api/lessees/${id}/erase`, {
      body: { reason: "GDPR request 2026-11" },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().retention.map((v: { rule: string }) => v.rule)).toContain("LEASE_LIMITATION");
    const erasedAt = res.json().erased_at;
    // One PersonalDataErased and the email's release.
    expect(await eventCount(t)).toBe(before + 2);

    const got = (await t.request("GET", `/api/lessees/${id}`)).json();
    for (const f of ERASED_FIELDS) expect(got[f], f).toBeNull();
    expect(got.erased_at).toBe(erasedAt);
    expect(got.category).toBe("individual");

    const history = (await t.request("GET", `/api/lessees/${id}/history`)).json();
    expect(history.at(-1)).toMatchObject({
      type: "PersonalDataErased",
      data: { reason: "GDPR request 2026-11", erased_at: erasedAt },
    });
    expect(history[0].data.first_name).toBeNull();
    expect(history[0].data.email).toBeNull();

    const exported = (await t.request("GET", `/api/lessees/${id}/export`)).json();
    expect(exported.lessee.erased_at).toBe(erasedAt);
    expect(exported.leases.map((l: { lease_id: string }) => l.lease_id)).toEqual([leaseId]);

    // The lease: same answers, same history, same replay.
    expect((await t.request("GET", `/api/leases/${leaseId}`)).json()).toEqual(leaseBefore);
    expect((await t.request("GET", `/api/leases/${leaseId}/history`)).json()).toEqual(leaseHistoryBefore);
    expect((await t.request("GET", asOf)).json()).toEqual(leaseAsOfBefore);

    // A rebuild from the log gives the same erased row.
    await rebuildProjection(t.sql, t.service.platform.store, lesseesProjection);
    expect((await t.request("GET", `/api/lessees/${id}`)).json()).toEqual(got);

    // Nowhere in clear: answers above, the log, the read models, the keys, the logs.
    const everything = JSON.stringify([got, history, exported]) + (await rawEvents(id));
    const tables = JSON.stringify(await t.sql.query("SELECT * FROM lessees WHERE id = $1", [id]));
    for (const secret of SECRETS) {
      expect(everything).not.toContain(secret);
      expect(tables).not.toContain(secret);
    }
    const [key] = await t.sql.query(
      "SELECT wrapped_key, destroyed_at FROM personal_data_keys WHERE subject = $1",
      [`lessee-${id}`],
    );
    expect(key.wrapped_key).toBeNull();
    expect(key.destroyed_at).not.toBeNull();
    expect(logs.join("")).toContain(`/api/lessees/${id}/erase`);
    for (const secret of SECRETS) expect(logs.join("")).not.toContain(secret);

    // Erased for good: a repeat is a no-op, an update is refused, the email is free again.
    expect(
      (await t.request("POST", `/api/lessees/${id}/erase`, { body: { reason: "again" } })).statusCode,
    ).toBe(200);
    expect((await t.request("PUT", `/api/lessees/${id}`, { body: { first_name: "Back" } })).statusCode).toBe(
      409,
    );
    expect(await createLessee("erase.me@privacy.example")).not.toBe(id);
    const after = await runRetention(t.service.platform, { erase: false, tenantId: t.tenant.id });
    expect(after.due.map((d) => d.lessee_id)).not.toContain(id);
  });

  it("erases the messages about an erased lessee: recipients and content unreadable, never sent", async () => {
    const id = await createLessee("erase.mail@privacy.example");
    await pastLease(id, "2015-01-01", "2019-06-01", "2019-09-01");
    const message_id = randomUUID();
    await queueMessage(t.service.platform, {
      tenant_id: t.tenant.id,
      message_id,
      to: [{ email: "erase.mail@privacy.example", name: "Zoéprivacy Secretname" }],
      subject: "Quittance de Zoéprivacy",
      text: "Bonjour Zoéprivacy Secretname, rue Cachée",
      topic: "test",
      data_subjects: [`lessee-${id}`],
    });
    const other = randomUUID();
    await queueMessage(t.service.platform, {
      tenant_id: t.tenant.id,
      message_id: other,
      to: [{ email: "someone.else@privacy.example", name: null }],
      subject: "Another",
      text: "Not about the lessee",
      topic: "test",
    });
    // Encrypted at rest from the start, as the lessee's own fields.
    const raw = async (m: string) =>
      JSON.stringify(
        await t.sql.query("SELECT type, data FROM events WHERE stream_name = $1", [`message-${m}`]),
      );
    expect(await raw(message_id)).not.toContain("Secretname");
    await messageOnce(t, message_id);

    const res = await t.request("POST", `/api/lessees/${id}/erase`, { body: { reason: "GDPR request" } });
    expect(res.statusCode, res.body).toBe(200);
    const erased = await erasedMessage(t, message_id);
    expect(erased.json()).toMatchObject({ to: null, subject: null });
    expect(["DELIVERED", "FAILED"]).toContain(erased.json().status);
    expect(await raw(message_id)).toContain("MessagePersonalDataErased");
    const stream = await t.service.platform.store.readStream(`message-${message_id}`);
    expect(stream[0].data).toMatchObject({ to: null, subject: null, text: null });
    const table = JSON.stringify(await t.sql.query("SELECT * FROM messages WHERE id = $1", [message_id]));
    expect(table).not.toContain("Secretname");
    // A message not about the lessee is untouched.
    expect((await t.request("GET", `/api/messages/${other}`)).json()).toMatchObject({
      subject: "Another",
      erased_at: null,
    });
  });

  it("erases the messages sent to an erased lessee's addresses, the earlier one too, though they name no subject", async () => {
    const id = await createLessee("first.addr@privacy.example");
    const put = await t.request("PUT", `/api/lessees/${id}`, {
      body: { email: "second.addr@privacy.example" },
    });
    expect(put.statusCode, put.body).toBe(200);
    await pastLease(id, "2015-01-01", "2019-06-01", "2019-09-01");
    // Queued with an address only, as messages were before they named their subjects.
    const queue = async (email: string, data_subjects?: string[], tenant = t.tenant) => {
      const message_id = randomUUID();
      await queueMessage(t.service.platform, {
        tenant_id: tenant.id,
        message_id,
        to: [{ email, name: "Zoéprivacy Secretname" }],
        subject: `Pour ${email}`,
        text: "Bonjour Zoéprivacy Secretname",
        topic: "test",
        data_subjects,
      });
      return message_id;
    };
    const toFirst = await queue("First.Addr@privacy.example");
    const toSecond = await queue("second.addr@privacy.example");
    const toOther = await queue("not.the.lessee@privacy.example");
    // Naming its subject (someone else), it is left to that subject's erasure.
    const namingAnother = await queue("second.addr@privacy.example", [`lessee-${randomUUID()}`]);
    // The same address in another tenant is another company's letter.
    const inOtherTenant = await queue("second.addr@privacy.example", undefined, t.other);
    for (const m of [toFirst, toSecond, toOther, namingAnother]) await messageOnce(t, m);
    await messageOnce(t, inOtherTenant, { as: t.other });

    const res = await t.request("POST", `/api/lessees/${id}/erase`, { body: { reason: "GDPR request" } });
    expect(res.statusCode, res.body).toBe(200);
    for (const m of [toFirst, toSecond]) {
      const erased = await erasedMessage(t, m);
      expect(erased.json()).toMatchObject({ to: null, subject: null });
      const [event] = await t.service.platform.store.readStream(`message-${m}`);
      expect(event.data).toMatchObject({ to: null, subject: null, text: null });
    }
    expect((await t.request("GET", `/api/messages/${toOther}`)).json()).toMatchObject({
      subject: "Pour not.the.lessee@privacy.example",
      erased_at: null,
    });
    expect((await t.request("GET", `/api/messages/${namingAnother}`)).json()).toMatchObject({
      subject: "Pour second.addr@privacy.example",
      erased_at: null,
    });
    expect((await t.request("GET", `/api/messages/${inOtherTenant}`, { as: t.other })).json()).toMatchObject({
      subject: "Pour second.addr@privacy.example",
      erased_at: null,
    });
  });

  it("exports everything about a lessee as JSON: its data, leases, accounts and history", async () => {
    const id = await createLessee("export.me@privacy.example");
    const { id: leaseId } = await fx.newLease({ primary_lessee_id: id });
    const res = await t.request("GET", `/api/lessees/${id}/export`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.subject).toEqual({ type: "lessee", id });
    expect(body.lessee).toMatchObject({ ...PERSON, email: "export.me@privacy.example" });
    expect(body.leases).toEqual([
      expect.objectContaining({
        lease_id: leaseId,
        role: expect.any(String),
        status: "DRAFT",
        rent_amount: 800,
      }),
    ]);
    expect(body.accounts).toEqual([expect.objectContaining({ lease_id: leaseId, balance: 0 })]);
    expect(body.history[0]).toMatchObject({
      type: "LesseeRegistered",
      data: { first_name: PERSON.first_name },
    });
    // Another tenant's lessee is unknown.
    expect((await t.request("GET", `/api/lessees/${id}/export`, { as: t.other })).statusCode).toBe(404);
    expect(
      (await t.request("POST", `/api/lessees/${id}/erase`, { body: { reason: "x" }, as: t.other }))
        .statusCode,
    ).toBe(404);
    expect((await t.request("POST", `/api/lessees/${id}/erase`, { body: {} })).statusCode).toBe(400);
  });

  it("encrypts events written in plaintext before encryption, resumably, reads unchanged", async () => {
    // Events as the service wrote them before encryption: appended past the encoding layer.
    const raw = createPostgresEventStore(t.sql);
    const ids = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    for (const [i, id] of ids.entries()) {
      await raw.appendToStream(
        `lessee-${id}`,
        [
          {
            event_id: crypto.randomUUID(),
            type: "LesseeRegistered",
            data: { lessee_id: id, ...emptyLessee(), ...PERSON, email: `legacy${i}@privacy.example` },
            metadata: {
              tenant_id: t.tenant.id,
              actor_key_id: null,
              correlation_id: null,
              causation_id: null,
              occurred_at: new Date().toISOString(),
            },
          },
        ],
        { expected_revision: "no_stream" },
      );
    }
    const history = async (id: string) => (await t.request("GET", `/api/lessees/${id}/history`)).json();
    const before = await Promise.all(ids.map(history));
    expect(before[0][0].data.first_name).toBe(PERSON.first_name);
    expect(await rawEvents(ids[0])).toContain(PERSON.first_name);

    const codec = personalDataCodecOf({}, t.sql, PERSONAL_DATA);
    const categories = Object.keys(PERSONAL_DATA);
    // Stopped after one small batch, then resumed from its checkpoint.
    const first = await encryptExistingEvents(t.sql, codec, { categories, batch: 2, maxBatches: 1 });
    expect(first.done).toBe(false);
    const rest = await encryptExistingEvents(t.sql, codec, { categories, batch: 2 });
    expect(rest.done).toBe(true);
    expect(rest.last_position).toBeGreaterThan(first.last_position);
    expect(first.encrypted + rest.encrypted).toBeGreaterThanOrEqual(ids.length);
    for (const id of ids) {
      const stored = await rawEvents(id);
      expect(stored).toContain("$personal");
      expect(stored).not.toContain(PERSON.first_name);
    }
    expect(await Promise.all(ids.map(history))).toEqual(before);
    // The hash chain is over the stored form: the rewritten streams are chained again and verify.
    for (const id of ids) {
      const stored = await raw.readStream(`lessee-${id}`);
      expect(stored[0].hash).toMatch(/^[0-9a-f]{64}$/);
      expect(verifyLines(stored.map((e) => canonical(chainLine(e))))).toMatchObject({ ok: true });
    }
    // A second run finds nothing more to do.
    const again = await encryptExistingEvents(t.sql, codec, { categories });
    expect(again).toMatchObject({ encrypted: 0, done: true });
    await codec.keyring.close();
  });

  it("names email reservations by a keyed hash, and renames those named by the email's bare SHA-256", async () => {
    const { store } = t.service.platform;
    const address = `renamed-${randomUUID()}@privacy.example`;
    const legacy = legacyEmailHash(address);
    const keyed = lesseeEmailStream(t.tenant.id, address, store.pseudonym);
    expect(keyed).toMatch(new RegExp(`^lessee_email-${t.tenant.id}-k[0-9a-f]{64}$`));
    expect(keyed).not.toContain(legacy);
    // The start already ran the renaming on this fresh database, and marked it done.
    const doneRow = "SELECT 1 FROM personal_data_migration WHERE name = 'keyed-reservation-names'";
    expect(await t.sql.query(doneRow)).toHaveLength(1);
    const id = await createLessee(address);
    const streamsNamed = async (hash: string) =>
      (
        await t.sql.query("SELECT DISTINCT stream_name FROM events WHERE stream_name LIKE $1", [`%${hash}`])
      ).map((r) => r.stream_name);
    expect(await streamsNamed(keyed.slice(-64))).toEqual([keyed]);
    expect(await streamsNamed(legacy)).toEqual([]);

    // The log as an earlier version left it: the same reservation under the email's bare hash.
    const old = `lessee_email-${t.tenant.id}-${legacy}`;
    await t.sql.query(
      "UPDATE events SET stream_name = $2, hash = NULL, previous_hash = NULL WHERE stream_name = $1",
      [keyed, old],
    );
    await chainStreams(t.sql, [old]);
    await t.sql.query("DELETE FROM personal_data_migration WHERE name = 'keyed-reservation-names'");

    expect(await renameLegacyReservations(t.sql, store.pseudonym!)).toBeGreaterThanOrEqual(1);
    expect(await streamsNamed(legacy)).toEqual([]);
    const renamed = await createPostgresEventStore(t.sql).readStream(keyed);
    expect(renamed.map((e) => e.type)).toEqual(["LesseeEmailReserved"]);
    expect(verifyLines(renamed.map((e) => canonical(chainLine(e))))).toMatchObject({ ok: true });
    // The reservation still binds: the email stays taken, and is free again once the lessee is deleted.
    const again = await t.request("POST", "/api/lessees", { body: { ...PERSON, email: address } });
    expect(again.statusCode, again.body).toBe(409);
    expect((await t.request("DELETE", `/api/lessees/${id}`)).statusCode).toBe(204);
    await createLessee(address);
    // Done: a second run scans nothing.
    expect(await renameLegacyReservations(t.sql, store.pseudonym!)).toBe(0);
  });
});

describe("personal data inside lease signing streams", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp("postgres");
  });
  afterAll(async () => {
    await t?.close();
  });

  const leaseId = randomUUID();
  const stream = `lease_signing-${leaseId}`;
  const signatory = (name: string, email: string) => ({
    signatory_id: randomUUID(),
    role: "Primary",
    lessee_id: randomUUID(),
    auth_user_id: null,
    name,
    email,
  });
  const step = {
    at: "2020-01-02T10:00:00.000Z",
    ip: "203.0.113.9",
    user_agent: "LegacyAgent/1",
    channel: "api",
    actor: "key-1",
  };
  const initiated = {
    lease_id: leaseId,
    process_id: randomUUID(),
    reservation_id: randomUUID(),
    lease_revision: 3,
    contract: { pdf_id: randomUUID(), sha256: "c".repeat(64), filename: "bail.pdf" },
    annexes: [],
    document_sha256: "d".repeat(64),
    signatories: [
      signatory("Legacy Signer", "legacy.signer@privacy.example"),
      signatory("Other Signer", "other@privacy.example"),
    ],
    step,
  };
  const metadata = () => ({
    tenant_id: t.tenant.id,
    actor_key_id: null,
    correlation_id: null,
    causation_id: null,
    occurred_at: new Date().toISOString(),
  });
  const secrets = [
    "Legacy Signer",
    "legacy.signer@privacy.example",
    "Other Signer",
    "203.0.113.9",
    "LegacyAgent/1",
    "key-1",
  ];
  const stored = async () =>
    JSON.stringify(await t.sql.query("SELECT data FROM events WHERE stream_name = $1", [stream]));

  it("seals the signatories' names and emails and the step's origin, and keeps the rest readable", async () => {
    // Events written before signing streams were sealed: appended past the encoding layer.
    const raw = createPostgresEventStore(t.sql);
    await raw.appendToStream(
      stream,
      [{ event_id: randomUUID(), type: "LeaseSignatureInitiated", data: initiated, metadata: metadata() }],
      { expected_revision: "no_stream" },
    );
    expect(await stored()).toContain("Legacy Signer");
    // A deployment that ran encrypt-existing before: its one checkpoint is past this event.
    await t.sql.query("DELETE FROM personal_data_migration");
    await t.sql.query(
      "INSERT INTO personal_data_migration (name, last_position) SELECT 'encrypt-existing', max(position) FROM events",
    );
    const codec = personalDataCodecOf({}, t.sql, PERSONAL_DATA);
    const run = await encryptExistingEvents(t.sql, codec, { categories: Object.keys(PERSONAL_DATA) });
    await codec.keyring.close();
    // The lease signing category has its own checkpoint, from the start; the others went on from theirs.
    expect(run).toMatchObject({ encrypted: 1, done: true });
    for (const secret of secrets) expect(await stored()).not.toContain(secret);
    const [read] = await t.service.platform.store.readStream(stream);
    expect(read.data).toEqual(initiated);

    // Written through the service, sealed from the first append.
    const signed = {
      lease_id: leaseId,
      process_id: initiated.process_id,
      signatory_id: initiated.signatories[0].signatory_id,
      document_sha256: initiated.document_sha256,
      step: { ...step, at: "2020-01-03T10:00:00.000Z" },
    };
    await t.service.platform.store.appendToStream(
      stream,
      [{ event_id: randomUUID(), type: "LeaseSignatorySigned", data: signed, metadata: metadata() }],
      { expected_revision: 0n },
    );
    for (const secret of secrets) expect(await stored()).not.toContain(secret);
    expect((await t.service.platform.store.readStream(stream))[1].data).toEqual(signed);
  });

  it("reads them as null once the stream's key is destroyed, the ids, roles and dates intact", async () => {
    await destroySubjectKey(t.sql, t.tenant.id, stream);
    const [first, second] = await t.service.platform.store.readStream(stream);
    expect(first.data).toEqual({
      ...initiated,
      signatories: initiated.signatories.map((s) => ({ ...s, name: null, email: null })),
      step: { ...step, ip: null, user_agent: null, actor: null },
    });
    expect((second.data as { step: unknown }).step).toEqual({
      at: "2020-01-03T10:00:00.000Z",
      ip: null,
      user_agent: null,
      channel: "api",
      actor: null,
    });
    // A process that had not heard of the erasure writes no personal value.
    await t.service.platform.store.appendToStream(
      stream,
      [
        {
          event_id: randomUUID(),
          type: "LeaseSignatureEnded",
          data: {
            lease_id: leaseId,
            process_id: initiated.process_id,
            reservation_id: initiated.reservation_id,
            cause: "CANCELLED",
            reason: "x",
            step,
          },
          metadata: metadata(),
        },
      ],
      { expected_revision: 1n },
    );
    for (const secret of secrets) expect(await stored()).not.toContain(secret);
    expect((await t.service.platform.store.readStream(stream))[2].data).toMatchObject({
      step: { at: step.at, ip: null, user_agent: null, channel: "api", actor: null },
    });
  });
});

/** Every field of a lessee but its category and email, null: what the PERSON literal fills in. */
function emptyLessee() {
  return Object.fromEntries(
    LESSEE_FIELDS.filter((f) => f !== "category" && f !== "email").map((f) => [f, null]),
  );
}
