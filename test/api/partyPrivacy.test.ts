import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { globalTypeIds } from "../../src/events/types.ts";
import { queueMessage } from "../../src/platform/outbox/queueMessage.ts";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { contactsProjection } from "../../src/projections/contacts.ts";
import { ownersProjection } from "../../src/projections/owners.ts";
import { erasedMessage, messageOnce } from "../support/messages.ts";
import { createTestApp, eventCount, type TestApp } from "../support/testApp.ts";

// Owners' and contacts' personal data (docs/personal-data.md): erased by the kit's
// `POST <item>/erase` unless a retention applies, exported by `GET <item>/export`.

const OWNER = {
  category: "individual",
  first_name: "Aurèleowner",
  last_name: "Hiddenowner",
  email: "aurele.hidden@owner.example",
  phone: "+33 6 98 76 54 32",
  address_street: "7 impasse Secrète",
  address_postal_code: "29300",
  address_city: "Quimperlé",
  iban: "FR7630006000011234567890189",
  custom_fields: { note: "owner-custom-secret" },
};
const OWNER_SECRETS = [
  "Aurèleowner",
  "Hiddenowner",
  "aurele.hidden@owner.example",
  "98 76 54 32",
  "impasse Secrète",
  "FR7630006000011234567890189",
  "owner-custom-secret",
];
const OWNER_ERASED = [
  "first_name",
  "last_name",
  "email",
  "phone",
  "address_street",
  "address_postal_code",
  "address_city",
  "iban",
  "custom_fields",
];
const CONTACT = {
  category: "tradesperson",
  first_name: "Basilecontact",
  last_name: "Plombiersecret",
  email: "basile@contact.example",
  phone: "+33 2 98 00 11 22",
  notes: "contact-notes-secret",
};
const CONTACT_SECRETS = ["Basilecontact", "Plombiersecret", "basile@contact.example", "contact-notes-secret"];

describe("owners' and contacts' personal data", () => {
  let t: TestApp;
  let placeId: string;
  beforeAll(async () => {
    t = await createTestApp("postgres");
    const place = await t.request("POST", "/api/places", { body: { name: "Résidence des secrets" } });
    placeId = place.json().id;
  });
  afterAll(async () => {
    await t?.close();
  });

  const rawEvents = async (stream: string) =>
    JSON.stringify(await t.sql.query("SELECT data FROM events WHERE stream_name = $1", [stream]));
  const key = async (stream: string) =>
    (
      await t.sql.query("SELECT wrapped_key, destroyed_at FROM personal_data_keys WHERE subject = $1", [
        stream,
      ])
    )[0];
  const newOwner = async (email = OWNER.email) => {
    const res = await t.request("POST", "/api/owners", { body: { ...OWNER, email } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  const estateOf = async (ownerId: string) => {
    const res = await t.request("POST", `/api/places/${placeId}/estates`, {
      body: {
        name: `Apt ${ownerId.slice(0, 8)}`,
        estate_type_id: globalTypeIds.estate.apartment,
        area: 40,
        fiscal_identifier: `FI-${ownerId.slice(0, 8)}`,
        owner_id: ownerId,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };

  it("refuses an owner's erasure with a 409 naming the retention while it owns an estate, writes nothing", async () => {
    const id = await newOwner("owns.estate@owner.example");
    const estateId = await estateOf(id);
    const before = await eventCount(t);
    const res = await t.request("POST", `/api/owners/${id}/erase`, {
      body: { reason: "asked by the owner" },
    });
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().message).toMatch(/owns 1 estate.*RGPD art\. 6\(1\)\(b\)/);
    expect(res.json().details).toEqual([
      { field: "retention", message: expect.stringMatching(/^ESTATES_OWNED: /) },
    ]);
    expect(await eventCount(t)).toBe(before);
    expect((await key(`owner-${id}`)).wrapped_key).not.toBeNull();
    expect((await t.request("GET", `/api/owners/${id}`)).json()).toMatchObject({
      ...OWNER,
      email: "owns.estate@owner.example",
      erased_at: null,
    });

    const owned = (await t.request("GET", `/api/owners/${id}/export`)).json().estates;
    expect(owned).toEqual([
      { estate_id: estateId, place_id: placeId, name: expect.any(String), owned: true },
    ]);

    // Once the estate is transferred away, the erasure goes ahead; the export still names it.
    const away = await t.request("PUT", `/api/places/${placeId}/estates/${estateId}`, {
      body: { owner_id: null },
    });
    expect(away.statusCode, away.body).toBe(200);
    expect((await t.request("GET", `/api/owners/${id}/export`)).json().estates).toEqual([
      { ...owned[0], owned: false },
    ]);
    const ok = await t.request("POST", `/api/owners/${id}/erase`, { body: { reason: "asked by the owner" } });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().retention.map((v: { rule: string; status: string }) => [v.rule, v.status])).toEqual([
      ["ESTATES_OWNED", "PASS"],
      ["ACTIVE_LEASE", "PASS"],
      ["ACCOUNTING_RECORDS", "NOT_APPLICABLE"],
    ]);
  });

  it("erases an owner: null everywhere (GET, list, export, rebuild), the rest stays; a repeat is a no-op", async () => {
    const id = await newOwner();
    await t.request("PUT", `/api/owners/${id}`, { body: { phone: "+33 6 98 76 54 33" } });
    const before = await eventCount(t);
    const res = await t.request("POST", `/api/owners/${id}/erase`, {
      body: { reason: "GDPR request 2026-11" },
    });
    expect(res.statusCode, res.body).toBe(200);
    const { erased_at } = res.json();
    expect(res.json()).toMatchObject({ id, erased_at: expect.any(String) });
    expect(await eventCount(t)).toBe(before + 1);

    const got = (await t.request("GET", `/api/owners/${id}`)).json();
    for (const f of OWNER_ERASED) expect(got[f], f).toBeNull();
    expect(got).toMatchObject({ id, category: "individual", legal_name: null, erased_at });
    expect(Date.parse(got.erased_at)).toBe(Date.parse(erased_at));
    const list = (await t.request("GET", "/api/owners?category=individual&limit=100")).json();
    expect(list.find((o: { id: string }) => o.id === id)).toEqual(got);
    // Not found by its former name or email any more.
    const found = (await t.request("GET", "/api/owners?q=hiddenowner&limit=100")).json();
    expect(found.map((o: { id: string }) => o.id)).not.toContain(id);

    const exported = (await t.request("GET", `/api/owners/${id}/export`)).json();
    expect(exported).toMatchObject({ subject: { type: "owner", id }, owner: got });
    expect(exported.history.map((e: { type: string }) => e.type)).toEqual([
      "OwnerRegistered",
      "OwnerUpdated",
      "OwnerPersonalDataErased",
    ]);
    expect(exported.history[0].data).toMatchObject({ first_name: null, email: null, category: "individual" });
    expect(exported.history[1].data).toEqual({ owner_id: id, changes: { phone: null } });
    expect(exported.history[2].data).toMatchObject({
      owner_id: id,
      reason: "GDPR request 2026-11",
      erased_at,
      erased_by: expect.any(String),
      retention: expect.arrayContaining([
        { rule: "ESTATES_OWNED", status: "PASS", legal_reference: expect.any(String) },
      ]),
    });

    await rebuildProjection(t.sql, t.service.platform.store, ownersProjection);
    expect((await t.request("GET", `/api/owners/${id}`)).json()).toEqual(got);

    const everything = JSON.stringify([got, list, exported]) + (await rawEvents(`owner-${id}`));
    const rows = JSON.stringify(await t.sql.query("SELECT * FROM owners WHERE id = $1", [id]));
    for (const secret of OWNER_SECRETS) {
      expect(everything).not.toContain(secret);
      expect(rows).not.toContain(secret);
    }
    expect(await key(`owner-${id}`)).toMatchObject({ wrapped_key: null, destroyed_at: expect.any(Date) });

    // Erased for good: a repeat answers the same and writes nothing; an update is refused; a delete is not.
    const count = await eventCount(t);
    const again = await t.request("POST", `/api/owners/${id}/erase`, { body: { reason: "again" } });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().erased_at).toBe(erased_at);
    expect(await eventCount(t)).toBe(count);
    const put = await t.request("PUT", `/api/owners/${id}`, { body: { first_name: "Back" } });
    expect(put.statusCode, put.body).toBe(409);
    expect(put.json().message).toBe(`Owner ${id} was erased (GDPR art. 17)`);
    expect((await t.request("DELETE", `/api/owners/${id}`)).statusCode).toBe(204);
    expect((await t.request("GET", `/api/owners/${id}/export`)).json()).toMatchObject({ owner: null });
  });

  it("exports everything about an owner as JSON: as GET shows it, and its history decrypted", async () => {
    const id = await newOwner("export.me@owner.example");
    await t.request("PUT", `/api/owners/${id}`, { body: { phone: null } });
    const res = await t.request("GET", `/api/owners/${id}/export`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(["exported_at", "subject", "owner", "estates", "history"]);
    expect(body.estates).toEqual([]);
    expect(body.subject).toEqual({ type: "owner", id });
    expect(body.owner).toEqual((await t.request("GET", `/api/owners/${id}`)).json());
    expect(body.owner).toMatchObject({
      ...OWNER,
      email: "export.me@owner.example",
      phone: null,
      erased_at: null,
    });
    expect(body.history).toEqual([
      expect.objectContaining({
        type: "OwnerRegistered",
        data: expect.objectContaining({ first_name: OWNER.first_name }),
      }),
      expect.objectContaining({ type: "OwnerUpdated", data: { owner_id: id, changes: { phone: null } } }),
    ]);
    // Another tenant's owner is unknown; so is an id never used; a reason is required.
    expect((await t.request("GET", `/api/owners/${id}/export`, { as: t.other })).statusCode).toBe(404);
    expect(
      (await t.request("POST", `/api/owners/${id}/erase`, { body: { reason: "x" }, as: t.other })).statusCode,
    ).toBe(404);
    expect((await t.request("GET", `/api/owners/${crypto.randomUUID()}/export`)).statusCode).toBe(404);
    const empty = await t.request("POST", `/api/owners/${id}/erase`, { body: { reason: " " } });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().message).toBe("Invalid erasure request");
  });

  it("erases a contact (no retention holds it): null in GET, list, history, export and a rebuild", async () => {
    const res = await t.request("POST", "/api/contacts", { body: CONTACT });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().id as string;
    expect((await t.request("GET", `/api/contacts/${id}/export`)).json()).toMatchObject({
      subject: { type: "contact", id },
      contact: { ...CONTACT, erased_at: null },
    });

    const erased = await t.request("POST", `/api/contacts/${id}/erase`, { body: { reason: "asked" } });
    expect(erased.statusCode, erased.body).toBe(200);
    expect(erased.json().retention.map((v: { rule: string }) => v.rule)).toEqual([
      "CONTRACT_IN_PROGRESS",
      "ACCOUNTING_RECORDS",
    ]);
    const got = (await t.request("GET", `/api/contacts/${id}`)).json();
    expect(got).toMatchObject({
      category: "tradesperson",
      first_name: null,
      last_name: null,
      email: null,
      phone: null,
      notes: null,
      erased_at: erased.json().erased_at,
    });
    const list = (await t.request("GET", "/api/contacts?category=tradesperson&limit=100")).json();
    expect(list.find((c: { id: string }) => c.id === id)).toEqual(got);
    const history = (await t.request("GET", `/api/contacts/${id}/history`)).json();
    expect(history.map((e: { type: string }) => e.type)).toEqual([
      "ContactCreated",
      "ContactPersonalDataErased",
    ]);
    expect(history[0].data).toMatchObject({ last_name: null, notes: null, category: "tradesperson" });
    const exported = (await t.request("GET", `/api/contacts/${id}/export`)).json();
    expect(exported).toMatchObject({ contact: got, history });
    await rebuildProjection(t.sql, t.service.platform.store, contactsProjection);
    expect((await t.request("GET", `/api/contacts/${id}`)).json()).toEqual(got);
    const everything = JSON.stringify([got, list, history, exported]) + (await rawEvents(`contact-${id}`));
    for (const secret of CONTACT_SECRETS) expect(everything).not.toContain(secret);
    expect((await t.request("PUT", `/api/contacts/${id}`, { body: { notes: "again" } })).statusCode).toBe(
      409,
    );
    expect(
      (await t.request("POST", `/api/contacts/${id}/erase`, { body: { reason: "again" } })).statusCode,
    ).toBe(200);
  });

  it("erases with a contact the messages sent to its address, though they name no subject", async () => {
    const created = await t.request("POST", "/api/contacts", {
      body: { ...CONTACT, email: "mailed.contact@contact.example" },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    const message_id = randomUUID();
    await queueMessage(t.service.platform, {
      tenant_id: t.tenant.id,
      message_id,
      to: [{ email: "Mailed.Contact@contact.example", name: "Basilecontact" }],
      subject: "Devis Plombiersecret",
      text: "Bonjour Basilecontact",
      topic: "test",
    });
    await messageOnce(t, message_id);
    const res = await t.request("POST", `/api/contacts/${id}/erase`, { body: { reason: "asked" } });
    expect(res.statusCode, res.body).toBe(200);
    const erased = await erasedMessage(t, message_id);
    expect(erased.json()).toMatchObject({ to: null, subject: null });
    expect(await rawEvents(`message-${message_id}`)).not.toContain("Plombiersecret");
  });

  it("guards the erase routes with the resource's delete access and the exports with its read access", () => {
    const access = (method: string, url: string) =>
      t.app.routeTable.find((r) => r.method === method && r.url === url)?.access;
    expect(access("POST", "/api/owners/:owner_id/erase")).toBe("PropertiesDelete");
    expect(access("GET", "/api/owners/:owner_id/export")).toBe("PropertiesRead");
    expect(access("POST", "/api/contacts/:contact_id/erase")).toBe("SettingsWrite");
    expect(access("GET", "/api/contacts/:contact_id/export")).toBe("SettingsRead");
    expect(access("POST", "/api/lessees/:id/erase")).toBe("LesseeDelete");
  });
});
