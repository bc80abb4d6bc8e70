import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lesseeEmailStream } from "../../src/events/lessees.ts";
import { createTestApp, eventCount, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

let seq = 0;
/** A unique email per call, so tests do not depend on each other. */
const email = (name = "lessee") => `${name}.${++seq}.${randomUUID().slice(0, 8)}@example.fr`;
const individual = (extra: Record<string, unknown> = {}) => ({
  category: "individual",
  first_name: "Marie",
  last_name: "Curie",
  email: email("marie"),
  ...extra,
});
const company = (extra: Record<string, unknown> = {}) => ({
  category: "company/other",
  legal_name: "SCI Les Tilleuls",
  email: email("sci"),
  ...extra,
});
const guarantor = (extra: Record<string, unknown> = {}) => ({
  category: "guarantor",
  legal_name: "Garantme SAS",
  email: email("garant"),
  ...extra,
});

const IBAN = "FR76 3000 6000 0112 3456 7890 189";

describe.each(databaseKinds)("lessees API on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  const create = async (body: Record<string, unknown>) => {
    const res = await t.request("POST", "/api/lessees", { body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as Record<string, any>;
  };
  /** Runs fn and checks it appended nothing to the log. */
  const writesNothing = async (fn: () => Promise<void>) => {
    const before = await eventCount(t);
    await fn();
    expect(await eventCount(t)).toBe(before);
  };
  const linkLease = (lesseeId: string, status = "ACTIVE", ended = false, tenantId = t.tenant.id) =>
    t.sql.query(
      `INSERT INTO lessee_active_leases (tenant_id, id, lessee_id, lease_id, role, lease_status, ended)
       VALUES ($1, $2, $3, $4, 'Primary', $5, $6)`,
      [tenantId, randomUUID(), lesseeId, randomUUID(), status, ended],
    );

  it("answers a create and an update with the lessee a GET then reads (body and ETag)", async () => {
    // The answer is folded from the stream, not read back (docs/performance.md).
    const same = async (res: Awaited<ReturnType<TestApp["request"]>>, status: number) => {
      expect(res.statusCode, res.body).toBe(status);
      const got = await t.request("GET", `/api/lessees/${res.json().id}`);
      expect(res.json()).toEqual(got.json());
      expect(res.headers.etag).toBe(got.headers.etag);
      return res.json() as Record<string, any>;
    };
    const lessee = await same(
      await t.request("POST", "/api/lessees", {
        body: individual({
          birth_date: "1967-11-07",
          monthly_income: 3200.5,
          other_income: 0,
          iban: IBAN,
          bic: "bnpafrpp",
          identity_documents: { passport: { number: "12AB", expiry: "2031-04-30", issuing_country: "FR" } },
          custom_fields: { zeta: 1, a: { nested: [1, "x", null] }, mid: null, é: 1e-7 },
        }),
      }),
      201,
    );
    await same(
      await t.request("PUT", `/api/lessees/${lessee.id}`, {
        body: { mobile_phone: "+33612345678", monthly_income: null, custom_fields: { b: 2.5, a: "é" } },
      }),
      200,
    );
    await same(await t.request("PUT", `/api/lessees/${lessee.id}`, { body: { email: email("moved") } }), 200);
    // No change: nothing appended, the answer still the lessee as read.
    await same(await t.request("PUT", `/api/lessees/${lessee.id}`, { body: {} }), 200);
  });

  describe("POST /api/lessees", () => {
    it("creates an individual: 201, Location, ETag, the full object", async () => {
      const body = individual({
        title: "Mme",
        birth_date: "1967-11-07",
        monthly_income: 3200.5,
        iban: IBAN,
        bic: "bnpafrpp",
        identity_documents: {
          passport: { number: "12AB34567", expiry: "2031-04-30", issuing_country: "FR" },
        },
        additional_contacts: {
          references: [{ name: "Ancien bailleur", phone: "+33100000000", type: "landlord" }],
        },
        custom_fields: { note: "bon dossier" },
      });
      const res = await t.request("POST", "/api/lessees", { body });
      expect(res.statusCode).toBe(201);
      const lessee = res.json();
      expect(res.headers.location).toBe(`/api/lessees/${lessee.id}`);
      expect(res.headers.etag).toBe('W/"0"');
      expect(lessee).toMatchObject({
        ...body,
        iban: "FR7630006000011234567890189",
        bic: "BNPAFRPP",
        legal_name: null,
        mobile_phone: null,
      });
      expect(lessee.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
      expect(lessee).not.toHaveProperty("tenant_id");
      expect(lessee).not.toHaveProperty("revision");

      const got = await t.request("GET", `/api/lessees/${lessee.id}`);
      expect(got.statusCode).toBe(200);
      expect(got.json()).toEqual(lessee);
      expect(got.headers.etag).toBe('W/"0"');
    });

    it("creates a company and a guarantor (names or legal name)", async () => {
      expect((await create(company({ first_name: "Paul", last_name: "Martin" }))).category).toBe(
        "company/other",
      );
      expect((await create(guarantor())).category).toBe("guarantor");
      const person = await create(
        guarantor({ legal_name: undefined, first_name: "Jean", last_name: "Dupont" }),
      );
      expect(person).toMatchObject({ first_name: "Jean", legal_name: null });
    });

    it("ignores read-only fields sent in the body", async () => {
      const id = randomUUID();
      const lessee = await create(individual({ id, created_at: "2000-01-01T00:00:00Z", updated_at: "x" }));
      expect(lessee.id).not.toBe(id);
      expect(lessee.created_at).not.toBe("2000-01-01T00:00:00.000Z");
    });

    it.each([
      [{ category: "company" }, "Invalid lessee category", ["category"]],
      [{ category: "company%2Fother" }, "Invalid lessee category", ["category"]],
      [{ category: null }, "Invalid lessee category", ["category"]],
      [{ first_name: undefined }, "Invalid lessee data", ["first_name"]],
      [{ first_name: "  " }, "Invalid lessee data", ["first_name"]],
      [{ legal_name: "ACME" }, "Invalid lessee data", ["legal_name"]],
      [{ email: undefined }, "Invalid lessee data", ["email"]],
      [{ email: "marie.example.fr" }, "Invalid lessee data", ["email"]],
      [{ email: "marie@example" }, "Invalid lessee data", ["email"]],
      [{ email: "a@b@example.fr" }, "Invalid lessee data", ["email"]],
      [{ iban: "FR7630006000011234567890188" }, "Invalid lessee data", ["iban"]],
      [{ iban: "FR76" }, "Invalid lessee data", ["iban"]],
      [{ bic: "BNPAFRPPX" }, "Invalid lessee data", ["bic"]],
      [{ birth_date: "1990-02-30" }, "Invalid lessee data", ["birth_date"]],
      [{ monthly_income: "3000" }, "Invalid lessee data", ["monthly_income"]],
      [{ nickname: "Mimi" }, "Invalid lessee data", ["nickname"]],
      [
        { identity_documents: { passport: { number: "1", expiry: "2031-13-01" } } },
        "Invalid lessee data",
        ["identity_documents.passport.expiry"],
      ],
      [
        { additional_addresses: { work_address: { street: "x", zip: "75002" } } },
        "Invalid lessee data",
        ["additional_addresses.work_address.zip"],
      ],
      [
        { additional_contacts: { references: [{ name: "A", mail: "x" }] } },
        "Invalid lessee data",
        ["additional_contacts.references[0].mail"],
      ],
      [{ custom_fields: [1, 2] }, "Invalid lessee data", ["custom_fields"]],
    ])("refuses %j with 400 and writes nothing", async (extra, message, fields) => {
      await writesNothing(async () => {
        const res = await t.request("POST", "/api/lessees", { body: individual(extra) });
        expect(res.statusCode).toBe(400);
        const body = res.json();
        expect(body).toMatchObject({ error: "ValidationError", message });
        expect(body.details.map((d: { field: string }) => d.field)).toEqual(fields);
      });
    });

    it.each(["title", "birth_date", "birth_place", "employer_name"])(
      "refuses %s on a company (null for companies)",
      async (field) => {
        const value = field === "birth_date" ? "1990-01-01" : "x";
        const res = await t.request("POST", "/api/lessees", { body: company({ [field]: value }) });
        expect(res.statusCode).toBe(400);
        expect(res.json().details).toEqual([{ field, message: "Must be null for category company/other" }]);
      },
    );

    it("names each missing field of a guarantor", async () => {
      const res = await t.request("POST", "/api/lessees", {
        body: { category: "guarantor", first_name: "Jean", email: email() },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().details.map((d: { field: string }) => d.field)).toEqual(["last_name", "legal_name"]);
    });

    it("answers odd bodies with 4xx, never 500, writing nothing", async () => {
      await writesNothing(async () => {
        const cases: [string, Record<string, string>, number][] = [
          ["{not json", { "content-type": "application/json" }, 400],
          ['{"category": "individual",', { "content-type": "application/json" }, 400],
          ["[]", { "content-type": "application/json" }, 400],
          ["[1,2,3]", { "content-type": "application/json" }, 400],
          ['"a string"', { "content-type": "application/json" }, 400],
          ["null", { "content-type": "application/json" }, 400],
          ["42", { "content-type": "application/json" }, 400],
          ["", { "content-type": "application/json" }, 400],
          ["category=individual", { "content-type": "application/x-www-form-urlencoded" }, 415],
          ['{"category": "individual", "__proto__": {"x": 1}}', { "content-type": "application/json" }, 400],
        ];
        for (const [rawBody, headers, status] of cases) {
          const res = await t.request("POST", "/api/lessees", { rawBody, headers });
          expect(res.statusCode, rawBody).toBe(status);
          expect(res.json()).toHaveProperty("error");
        }
      });
      const huge = await t.request("POST", "/api/lessees", {
        body: individual({ last_name: "x".repeat(500_000) }),
      });
      expect(huge.statusCode).toBe(400);
      expect(huge.json().details).toEqual([{ field: "last_name", message: expect.any(String) }]);
      const hugeEmail = await t.request("POST", "/api/lessees", {
        body: individual({ email: `${"a".repeat(5000)}@b.fr` }),
      });
      expect(hugeEmail.statusCode).toBe(400);
      const tooLarge = await t.request("POST", "/api/lessees", {
        body: individual({ notes: "x".repeat(2_000_000) }),
      });
      expect(tooLarge.statusCode).toBe(413);
      const deep = await t.request("POST", "/api/lessees", {
        // Within the 64-level bound of JSON bodies (docs/security.md); deeper is a 400.
        body: individual({ custom_fields: JSON.parse(`${'{"a":'.repeat(60)}1${"}".repeat(60)}`) }),
      });
      expect(deep.statusCode).toBe(201);
    });

    it("needs LesseeWrite and a key", async () => {
      const reader = await t.newTenant(undefined, ["LesseeRead"]);
      expect((await t.request("POST", "/api/lessees", { body: individual(), as: reader })).statusCode).toBe(
        403,
      );
      expect((await t.request("POST", "/api/lessees", { body: individual(), as: null })).statusCode).toBe(
        401,
      );
    });
  });

  describe("email uniqueness", () => {
    it("refuses a taken email with 409 on email, case-insensitively and trimmed", async () => {
      const address = email("Unique");
      await create(individual({ email: address }));
      for (const variant of [address, address.toUpperCase(), `  ${address}  `]) {
        await writesNothing(async () => {
          const res = await t.request("POST", "/api/lessees", { body: company({ email: variant }) });
          expect(res.statusCode).toBe(409);
          expect(res.json()).toMatchObject({ error: "Conflict", details: [{ field: "email" }] });
        });
      }
    });

    it("is per tenant", async () => {
      const address = email();
      await create(individual({ email: address }));
      const res = await t.request("POST", "/api/lessees", {
        body: individual({ email: address }),
        as: t.other,
      });
      expect(res.statusCode).toBe(201);
    });

    it("lets exactly one of concurrent creates win", async () => {
      const address = email("race");
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          t.request("POST", "/api/lessees", {
            body: individual({ email: i % 2 ? address : address.toUpperCase() }),
          }),
        ),
      );
      const codes = results.map((r) => r.statusCode).sort();
      expect(codes).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
      const list = await t.request("GET", `/api/lessees?email=${encodeURIComponent(address)}`);
      expect(list.json()).toHaveLength(1);
    });

    it("frees the email on delete and on change", async () => {
      const a = email();
      const first = await create(individual({ email: a }));
      expect((await t.request("DELETE", `/api/lessees/${first.id}`)).statusCode).toBe(204);
      const second = await create(individual({ email: a.toUpperCase() }));
      const b = email();
      const put = await t.request("PUT", `/api/lessees/${second.id}`, { body: { email: b } });
      expect(put.statusCode).toBe(200);
      await create(individual({ email: a }));
      const taken = await t.request("POST", "/api/lessees", { body: individual({ email: b }) });
      expect(taken.statusCode).toBe(409);
    });

    it("takes over a reservation whose lessee never registered (crash between the two appends)", async () => {
      const address = email("orphan");
      const { store } = t.service.platform;
      await store.appendToStream(
        lesseeEmailStream(t.tenant.id, address, store.pseudonym),
        [
          {
            event_id: randomUUID(),
            type: "LesseeEmailReserved",
            data: { lessee_id: randomUUID(), email: address, lessee_revision: -1 },
            metadata: {
              tenant_id: t.tenant.id,
              actor_key_id: null,
              correlation_id: null,
              causation_id: null,
              occurred_at: new Date(Date.now() - 60_000).toISOString(),
            },
          },
        ],
        { expected_revision: "no_stream" },
      );
      await create(individual({ email: address }));
      const again = await t.request("POST", "/api/lessees", { body: individual({ email: address }) });
      expect(again.statusCode).toBe(409);
    });
  });

  describe("PUT /api/lessees/{id}", () => {
    it("merges: omitted keeps, null removes; new ETag", async () => {
      const lessee = await create(individual({ mobile_phone: "+33611111111", profession: "physicist" }));
      const res = await t.request("PUT", `/api/lessees/${lessee.id}`, {
        body: { mobile_phone: null, profession: "chemist", iban: IBAN },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        first_name: "Marie",
        mobile_phone: null,
        profession: "chemist",
        iban: "FR7630006000011234567890189",
        created_at: lessee.created_at,
      });
      expect(res.headers.etag).toBe('W/"1"');
      expect((await t.request("GET", `/api/lessees/${lessee.id}`)).json()).toEqual(res.json());
    });

    it("accepts back what GET returned, and an empty change", async () => {
      const lessee = await create(individual());
      const got = (await t.request("GET", `/api/lessees/${lessee.id}`)).json();
      const res = await t.request("PUT", `/api/lessees/${lessee.id}`, { body: got });
      expect(res.statusCode).toBe(200);
      expect(res.headers.etag).toBe('W/"0"');
      expect((await t.request("PUT", `/api/lessees/${lessee.id}`, { body: {} })).statusCode).toBe(200);
    });

    it("re-checks category rules on the merged lessee", async () => {
      const lessee = await create(individual({ title: "Mme" }));
      await writesNothing(async () => {
        const res = await t.request("PUT", `/api/lessees/${lessee.id}`, {
          body: { category: "company/other" },
        });
        expect(res.statusCode).toBe(400);
        expect(res.json().details.map((d: { field: string }) => d.field)).toEqual(["legal_name", "title"]);
        const cleared = await t.request("PUT", `/api/lessees/${lessee.id}`, { body: { last_name: null } });
        expect(cleared.json()).toMatchObject({
          message: "Invalid lessee data",
          details: [{ field: "last_name" }],
        });
        const bad = await t.request("PUT", `/api/lessees/${lessee.id}`, { body: { category: "bank" } });
        expect(bad.json()).toMatchObject({
          message: "Invalid lessee category",
          details: [{ field: "category" }],
        });
      });
      const ok = await t.request("PUT", `/api/lessees/${lessee.id}`, {
        body: { category: "company/other", legal_name: "Curie SAS", title: null },
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toMatchObject({ category: "company/other", legal_name: "Curie SAS", title: null });
    });

    it("refuses an email held by another lessee; a change of case is not a conflict", async () => {
      const a = await create(individual());
      const b = await create(individual());
      await writesNothing(async () => {
        const res = await t.request("PUT", `/api/lessees/${b.id}`, {
          body: { email: a.email.toUpperCase() },
        });
        expect(res.statusCode).toBe(409);
        expect(res.json().details).toEqual([{ field: "email", message: "Email already in use" }]);
      });
      const recased = await t.request("PUT", `/api/lessees/${a.id}`, {
        body: { email: a.email.toUpperCase() },
      });
      expect(recased.statusCode).toBe(200);
      expect(recased.json().email).toBe(a.email.toUpperCase());
    });

    it("honours If-Match", async () => {
      const lessee = await create(individual());
      const stale = await t.request("PUT", `/api/lessees/${lessee.id}`, {
        body: { title: "Mme" },
        headers: { "if-match": 'W/"5"' },
      });
      expect(stale.statusCode).toBe(412);
      const fresh = await t.request("PUT", `/api/lessees/${lessee.id}`, {
        body: { title: "Mme" },
        headers: { "if-match": 'W/"0"' },
      });
      expect(fresh.statusCode).toBe(200);
    });

    it("answers 404 for unknown, deleted and other tenants' lessees, 400 for a malformed id", async () => {
      const unknown = randomUUID();
      const res = await t.request("PUT", `/api/lessees/${unknown}`, { body: { title: "M." } });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: "NotFound", message: `Lessee ${unknown} not found` });
      const mine = await create(individual());
      const theirs = await t.request("PUT", `/api/lessees/${mine.id}`, {
        body: { title: "M." },
        as: t.other,
      });
      expect(theirs.statusCode).toBe(404);
      expect((await t.request("PUT", "/api/lessees/not-a-uuid", { body: {} })).statusCode).toBe(400);
      await t.request("DELETE", `/api/lessees/${mine.id}`);
      expect((await t.request("PUT", `/api/lessees/${mine.id}`, { body: { title: "M." } })).statusCode).toBe(
        404,
      );
    });

    it("refuses unknown fields and odd bodies", async () => {
      const lessee = await create(individual());
      await writesNothing(async () => {
        const unknown = await t.request("PUT", `/api/lessees/${lessee.id}`, { body: { colour: "blue" } });
        expect(unknown.json()).toMatchObject({ details: [{ field: "colour" }] });
        for (const rawBody of ["[]", "{bad", '"x"', "null"]) {
          const res = await t.request("PUT", `/api/lessees/${lessee.id}`, {
            rawBody,
            headers: { "content-type": "application/json" },
          });
          expect(res.statusCode, rawBody).toBe(400);
        }
      });
    });
  });

  describe("DELETE /api/lessees/{id}", () => {
    it("deletes: 204, then 404", async () => {
      const lessee = await create(individual());
      const res = await t.request("DELETE", `/api/lessees/${lessee.id}`);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe("");
      expect((await t.request("GET", `/api/lessees/${lessee.id}`)).statusCode).toBe(404);
      expect((await t.request("DELETE", `/api/lessees/${lessee.id}`)).statusCode).toBe(404);
    });

    it("is refused while the lessee is on an active lease", async () => {
      const lessee = await create(individual());
      await linkLease(lessee.id, "NOTICE");
      await writesNothing(async () => {
        const res = await t.request("DELETE", `/api/lessees/${lessee.id}`);
        expect(res.statusCode).toBe(409);
        expect(res.json()).toEqual({ error: "Conflict", message: "Cannot delete lessee with active leases" });
      });
    });

    it("ignores ended associations and leases that are over", async () => {
      const lessee = await create(individual());
      await linkLease(lessee.id, "ACTIVE", true);
      await linkLease(lessee.id, "TERMINATED");
      await linkLease(lessee.id, "EXPIRED");
      expect((await t.request("DELETE", `/api/lessees/${lessee.id}`)).statusCode).toBe(204);
    });

    it("answers 404 for another tenant's lessee and needs LesseeDelete", async () => {
      const lessee = await create(individual());
      expect((await t.request("DELETE", `/api/lessees/${lessee.id}`, { as: t.other })).statusCode).toBe(404);
      const writer = await t.newTenant(undefined, ["LesseeRead", "LesseeWrite"]);
      expect((await t.request("DELETE", `/api/lessees/${lessee.id}`, { as: writer })).statusCode).toBe(403);
      expect((await t.request("GET", `/api/lessees/${lessee.id}`)).statusCode).toBe(200);
    });
  });

  describe("GET /api/lessees and /api/lessees/type/{type}", () => {
    let mine: TestApp["tenant"];
    const ids: Record<string, string> = {};
    beforeAll(async () => {
      mine = await t.newTenant();
      const post = async (name: string, body: Record<string, unknown>) => {
        const res = await t.request("POST", "/api/lessees", { body, as: mine });
        expect(res.statusCode).toBe(201);
        ids[name] = res.json().id;
      };
      await post("marie", individual({ email: "Marie.Curie@Example.fr" }));
      await post("pierre", individual({ first_name: "Pierre", email: "pierre@example.fr" }));
      await post("sci", company({ legal_name: "SCI 100%_Tilleuls", email: "contact@tilleuls.fr" }));
      await post("garant", guarantor({ email: "garant@visale.fr" }));
    });
    const list = (url: string) => t.request("GET", url, { as: mine });
    const idsOf = (res: { json(): unknown }) => (res.json() as { id: string }[]).map((l) => l.id);

    it("lists the tenant's lessees with X-Total-Count and Link", async () => {
      const res = await list("/api/lessees");
      expect(res.statusCode).toBe(200);
      expect(res.headers["x-total-count"]).toBe("4");
      expect(idsOf(res).sort()).toEqual(Object.values(ids).sort());
      const page = await list("/api/lessees?limit=3&page=2");
      expect(page.json()).toHaveLength(1);
      expect(page.headers.link).toContain('rel="prev"');
      expect(page.headers.link).toContain('rel="first"');
      const first = await list("/api/lessees?limit=3");
      expect(first.headers.link).toContain("page=2");
      expect(first.headers.link).toContain('rel="next"');
    });

    it("filters by q, category and email", async () => {
      expect(idsOf(await list("/api/lessees?q=curie")).sort()).toEqual([ids.marie, ids.pierre].sort());
      expect(idsOf(await list("/api/lessees?q=marie%20curie"))).toEqual([ids.marie]);
      expect(idsOf(await list("/api/lessees?q=100%25_"))).toEqual([ids.sci]);
      expect(idsOf(await list("/api/lessees?q=VISALE"))).toEqual([ids.garant]);
      expect(idsOf(await list("/api/lessees?category=company%2Fother"))).toEqual([ids.sci]);
      expect(idsOf(await list("/api/lessees?email=MARIE.curie@example.fr"))).toEqual([ids.marie]);
      expect(idsOf(await list("/api/lessees?q=%25"))).toEqual([ids.sci]);
    });

    it("refuses bad filters with 400", async () => {
      const bad = await list("/api/lessees?category=company");
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({
        message: "Invalid lessee category",
        details: [{ field: "category" }],
      });
      expect((await list("/api/lessees?limit=0")).statusCode).toBe(400);
      expect((await list("/api/lessees?limit=1001")).statusCode).toBe(400);
      expect((await list("/api/lessees?page=abc")).statusCode).toBe(400);
      expect((await list("/api/lessees?colour=blue")).statusCode).toBe(400);
    });

    it("lists by type, company/other with or without an encoded slash", async () => {
      expect(idsOf(await list("/api/lessees/type/individual")).sort()).toEqual(
        [ids.marie, ids.pierre].sort(),
      );
      expect(idsOf(await list("/api/lessees/type/guarantor"))).toEqual([ids.garant]);
      expect(idsOf(await list("/api/lessees/type/company/other"))).toEqual([ids.sci]);
      expect(idsOf(await list("/api/lessees/type/company%2Fother"))).toEqual([ids.sci]);
      expect(idsOf(await list("/api/lessees/type/company%2fother"))).toEqual([ids.sci]);
      const paged = await list("/api/lessees/type/individual?limit=1");
      expect(paged.headers["x-total-count"]).toBe("2");
      expect(paged.json()).toHaveLength(1);
      for (const type of ["company", "tenant", "individual/x", "company%252Fother"]) {
        const res = await list(`/api/lessees/type/${type}`);
        expect(res.statusCode, type).toBe(400);
        expect(res.json()).toMatchObject({
          message: "Invalid lessee category",
          details: [{ field: "type" }],
        });
      }
      expect((await list("/api/lessees/type/%E0%A4%A")).statusCode).toBe(400);
    });

    it("isolates tenants", async () => {
      expect((await t.request("GET", "/api/lessees?email=marie.curie@example.fr")).json()).toEqual([]);
      expect((await t.request("GET", `/api/lessees/${ids.marie}`)).statusCode).toBe(404);
      expect((await t.request("GET", `/api/lessees/${ids.marie}/history`)).statusCode).toBe(404);
    });

    it("answers 404 for an unknown id and 400 for a malformed one", async () => {
      const id = randomUUID();
      const res = await list(`/api/lessees/${id}`);
      expect(res.statusCode).toBe(404);
      expect(res.json().message).toBe(`Lessee ${id} not found`);
      expect((await list("/api/lessees/12345")).statusCode).toBe(400);
    });
  });

  describe("GET /api/lessees/{id}/history", () => {
    it("lists the events in order, still after deletion", async () => {
      const lessee = await create(individual());
      await t.request("PUT", `/api/lessees/${lessee.id}`, { body: { title: "Mme", email: email() } });
      await t.request("DELETE", `/api/lessees/${lessee.id}`);
      const res = await t.request("GET", `/api/lessees/${lessee.id}/history`);
      expect(res.statusCode).toBe(200);
      const history = res.json();
      expect(history.map((e: { type: string }) => e.type)).toEqual([
        "LesseeRegistered",
        "LesseeUpdated",
        "LesseeEmailChanged",
        "LesseeDeleted",
      ]);
      expect(history.map((e: { revision: number }) => e.revision)).toEqual([0, 1, 2, 3]);
      const page = await t.request("GET", `/api/lessees/${lessee.id}/history?limit=3&page=2`);
      expect(page.headers["x-total-count"]).toBe("4");
      expect(page.json().map((e: { revision: number }) => e.revision)).toEqual([3]);
      expect(history[0]).toMatchObject({
        occurred_at: lessee.created_at,
        actor_key_id: expect.any(String),
        correlation_id: expect.any(String),
        data: { lessee_id: lessee.id, email: lessee.email },
      });
      expect(history[1].data).toEqual({ lessee_id: lessee.id, changes: { title: "Mme" } });
      expect((await t.request("GET", `/api/lessees/${randomUUID()}/history`)).statusCode).toBe(404);
    });
  });

  describe("POST /api/lessees/bulk", () => {
    it("creates every item in order: 201 with the created lessees", async () => {
      const items = [individual(), company(), guarantor({ iban: IBAN })];
      const res = await t.request("POST", "/api/lessees/bulk", { body: items });
      expect(res.statusCode).toBe(201);
      const created = res.json();
      expect(created.map((l: { email: string }) => l.email)).toEqual(items.map((i) => i.email));
      expect(created[2].iban).toBe("FR7630006000011234567890189");
      for (const l of created) expect((await t.request("GET", `/api/lessees/${l.id}`)).statusCode).toBe(200);
    });

    it("is all or nothing on invalid items, details prefixed [i].", async () => {
      await writesNothing(async () => {
        const res = await t.request("POST", "/api/lessees/bulk", {
          body: [
            individual(),
            individual({ iban: "FR00" }),
            company({ title: "M." }),
            individual({ extra: 1 }),
          ],
        });
        expect(res.statusCode).toBe(400);
        expect(res.json().message).toBe("Invalid lessee data");
        const fields = res
          .json()
          .details.map((d: { field: string }) => d.field)
          .sort();
        expect(fields).toEqual(["[1].iban", "[3].extra"]);
        const rules = await t.request("POST", "/api/lessees/bulk", {
          body: [individual(), company({ title: "M." })],
        });
        expect(rules.statusCode).toBe(400);
        expect(rules.json().details).toEqual([{ field: "[1].title", message: expect.any(String) }]);
        const category = await t.request("POST", "/api/lessees/bulk", {
          body: [individual(), individual({ category: "x" })],
        });
        expect(category.json()).toMatchObject({
          message: "Invalid lessee category",
          details: [{ field: "[1].category" }],
        });
      });
    });

    it("fails the batch on duplicate emails inside it", async () => {
      const a = email();
      await writesNothing(async () => {
        const res = await t.request("POST", "/api/lessees/bulk", {
          body: [individual({ email: a }), company(), guarantor({ email: a.toUpperCase() })],
        });
        expect(res.statusCode).toBe(400);
        expect(res.json().details).toEqual([
          { field: "[2].email", message: "Duplicate email in the batch (same as [0])" },
        ]);
      });
    });

    it("fails the batch with 409 when an email is taken, writing nothing", async () => {
      const existing = await create(individual());
      await writesNothing(async () => {
        const res = await t.request("POST", "/api/lessees/bulk", {
          body: [individual(), individual({ email: existing.email.toUpperCase() })],
        });
        expect(res.statusCode).toBe(409);
        expect(res.json().details).toEqual([{ field: "[1].email", message: "Email already in use" }]);
      });
    });

    it("completes a retried request instead of duplicating it", async () => {
      const items = [individual(), individual(), individual()];
      const first = await t.request("POST", "/api/lessees/bulk", { body: items });
      const again = await t.request("POST", "/api/lessees/bulk", { body: items });
      expect(first.statusCode).toBe(201);
      expect(again.statusCode).toBe(201);
      expect(again.json().map((l: { id: string }) => l.id)).toEqual(
        first.json().map((l: { id: string }) => l.id),
      );
      const listed = await t.request("GET", `/api/lessees?email=${encodeURIComponent(items[0].email)}`);
      expect(listed.json()).toHaveLength(1);
      // After the lessees are gone, the same batch creates new ones.
      await t.request("DELETE", "/api/lessees/bulk", { body: first.json().map((l: { id: string }) => l.id) });
      const later = await t.request("POST", "/api/lessees/bulk", { body: items });
      expect(later.statusCode).toBe(201);
      expect(later.json()[0].id).not.toBe(first.json()[0].id);
    });

    it("refuses empty, non-array and over-1000 bodies", async () => {
      await writesNothing(async () => {
        expect((await t.request("POST", "/api/lessees/bulk", { body: [] })).statusCode).toBe(400);
        expect((await t.request("POST", "/api/lessees/bulk", { body: individual() })).statusCode).toBe(400);
        expect((await t.request("POST", "/api/lessees/bulk", { body: [null, 3] })).statusCode).toBe(400);
        const big = Array.from({ length: 1001 }, () => ({ category: "individual" }));
        expect((await t.request("POST", "/api/lessees/bulk", { body: big })).statusCode).toBe(413);
      });
    });

    it("creates 300 lessees in one request", async () => {
      const items = Array.from({ length: 300 }, () => individual());
      const res = await t.request("POST", "/api/lessees/bulk", { body: items });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toHaveLength(300);
    }, 60_000);
  });

  describe("DELETE /api/lessees/bulk", () => {
    it("deletes every listed lessee", async () => {
      const a = await create(individual());
      const b = await create(company());
      const res = await t.request("DELETE", "/api/lessees/bulk", { body: [a.id, b.id, a.id] });
      expect(res.statusCode).toBe(204);
      for (const id of [a.id, b.id])
        expect((await t.request("GET", `/api/lessees/${id}`)).statusCode).toBe(404);
    });

    it("deletes nothing when one id is unknown or another tenant's (404)", async () => {
      const a = await create(individual());
      const foreign = (await t.request("POST", "/api/lessees", { body: individual(), as: t.other })).json();
      const unknown = randomUUID();
      await writesNothing(async () => {
        const res = await t.request("DELETE", "/api/lessees/bulk", { body: [a.id, unknown, foreign.id] });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toMatchObject({
          error: "NotFound",
          message: `Lessee ${unknown} not found`,
          details: [{ field: "[1]" }, { field: "[2]" }],
        });
      });
      expect((await t.request("GET", `/api/lessees/${a.id}`)).statusCode).toBe(200);
    });

    it("deletes nothing when one has active leases (409)", async () => {
      const a = await create(individual());
      const b = await create(individual());
      await linkLease(b.id, "PENDING_SIGNATURE");
      await writesNothing(async () => {
        const res = await t.request("DELETE", "/api/lessees/bulk", { body: [a.id, b.id] });
        expect(res.statusCode).toBe(409);
        expect(res.json()).toMatchObject({
          message: "Cannot delete lessee with active leases",
          details: [{ field: "[1]" }],
        });
      });
    });

    it("refuses malformed bodies with 400", async () => {
      for (const body of [[], ["nope"], { ids: [] }, [1]]) {
        const res = await t.request("DELETE", "/api/lessees/bulk", { body });
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
      }
      const big = Array.from({ length: 1001 }, () => randomUUID());
      expect((await t.request("DELETE", "/api/lessees/bulk", { body: big })).statusCode).toBe(413);
    });
  });
});
