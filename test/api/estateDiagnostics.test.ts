import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parisDate } from "../../src/platform/formatDates.ts";
import { rebuildProjection } from "../../src/platform/projections/rebuildProjection.ts";
import { estateDiagnosticsProjection } from "../../src/projections/estateDiagnostics.ts";
import { createTestApp, type TestApp, type TestTenant } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const APARTMENT = "5158d101-618e-5b5c-8858-2098913a1f8d";
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

describe.each(databaseKinds)("estate diagnostics API on %s", (kind) => {
  let t: TestApp;

  const createEstate = async (as?: TestTenant) => {
    const place = await t.request("POST", "/api/places", { body: { name: "Résidence" }, as });
    const res = await t.request("POST", `/api/places/${place.json().id}/estates`, {
      body: { name: "Appartement 3B", estate_type_id: APARTMENT, area: 48, fiscal_identifier: "FI-3B" },
      as,
    });
    expect(res.statusCode).toBe(201);
    return res.json().id as string;
  };
  const record = async (estateId: string, body: Record<string, unknown>, as?: TestTenant) => {
    const res = await t.request("POST", `/api/estates/${estateId}/diagnostics`, { body, as });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as Record<string, any>;
  };
  const list = async (estateId: string, query = "", as?: TestTenant) => {
    const res = await t.request("GET", `/api/estates/${estateId}/diagnostics${query}`, { as });
    expect(res.statusCode, res.body).toBe(200);
    return res;
  };

  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("records a diagnostic: 201, Location, ETag, every field; GET returns it", async () => {
    const estate = await createEstate();
    const res = await t.request("POST", `/api/estates/${estate}/diagnostics`, {
      body: {
        type: "electrical",
        diagnosis_date: "2024-09-12",
        valid_until: "2030-09-12",
        reference: "ELEC-2024-77",
        provider: "Diagnostics Rhône SARL",
        notes: "Tableau à remplacer",
      },
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(res.headers.location).toBe(`/api/estates/${estate}/diagnostics/${body.id}`);
    expect(res.headers.etag).toBe('W/"0"');
    expect(body).toEqual({
      id: expect.any(String),
      estate_id: estate,
      type: "electrical",
      active: true,
      diagnosis_date: "2024-09-12",
      valid_until: "2030-09-12",
      reference: "ELEC-2024-77",
      provider: "Diagnostics Rhône SARL",
      notes: "Tableau à remplacer",
      media_id: null,
      replaced_by: null,
      deactivated_at: null,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    const got = await t.request("GET", res.headers.location as string);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(body);
  });

  it("a new diagnostic of a type deactivates the previous active one of that type, atomically", async () => {
    const estate = await createEstate();
    const first = await record(estate, {
      type: "gas",
      diagnosis_date: "2019-01-10",
      valid_until: "2025-01-10",
    });
    const lead = await record(estate, { type: "lead", diagnosis_date: "2019-02-01" });
    const second = await record(estate, {
      type: "gas",
      diagnosis_date: "2025-01-05",
      valid_until: "2031-01-05",
    });

    const gotFirst = (await t.request("GET", `/api/estates/${estate}/diagnostics/${first.id}`)).json();
    expect(gotFirst).toMatchObject({
      active: false,
      replaced_by: second.id,
      deactivated_at: expect.any(String),
    });
    expect((await t.request("GET", `/api/estates/${estate}/diagnostics/${lead.id}`)).json().active).toBe(
      true,
    );
    expect(second.active).toBe(true);

    // Both events are one append on the estate's stream.
    const events = await t.service.platform.store.readStream(`estate_diagnostics-${estate}`);
    expect(events.map((e) => e.type)).toEqual([
      "EstateDiagnosticRecorded",
      "EstateDiagnosticRecorded",
      "EstateDiagnosticDeactivated",
      "EstateDiagnosticRecorded",
    ]);
    expect(events[2].position.commit).toBe(events[3].position.commit);

    const active = await list(estate, "?active=true");
    expect(active.json().map((d: { id: string }) => d.id)).toEqual([lead.id, second.id]);
    expect(active.headers["x-total-count"]).toBe("2");
    const inactive = await list(estate, "?active=false");
    expect(inactive.json().map((d: { id: string }) => d.id)).toEqual([first.id]);
    const all = await list(estate);
    expect(all.json().map((d: { id: string }) => d.id)).toEqual([first.id, lead.id, second.id]);
    expect(all.headers["x-total-count"]).toBe("3");
    expect(String(all.headers.link)).toContain('rel="last"');
    const gas = await list(estate, "?type=gas&active=true");
    expect(gas.json().map((d: { id: string }) => d.id)).toEqual([second.id]);
    const paged = await list(estate, "?limit=2&page=2");
    expect(paged.json().map((d: { id: string }) => d.id)).toEqual([second.id]);
    for (const q of ["?active=yes", "?type=dpe", "?limit=0", "?other=1"]) {
      expect((await t.request("GET", `/api/estates/${estate}/diagnostics${q}`)).statusCode, q).toBe(400);
    }
  });

  it("concurrent creations of one type leave exactly one active", async () => {
    const estate = await createEstate();
    const results = await Promise.all(
      [1, 2, 3, 4].map(() =>
        t.request("POST", `/api/estates/${estate}/diagnostics`, {
          body: { type: "asbestos", diagnosis_date: "2024-01-01" },
        }),
      ),
    );
    expect(results.map((r) => r.statusCode).every((s) => s === 201 || s === 409)).toBe(true);
    const active = await list(estate, "?active=true&type=asbestos");
    expect(active.json()).toHaveLength(1);
  });

  it("deletes: 204, then 404; deleting the active one does not revive the previous one", async () => {
    const estate = await createEstate();
    const first = await record(estate, { type: "risk_assessment", diagnosis_date: "2024-01-01" });
    const second = await record(estate, { type: "risk_assessment", diagnosis_date: "2025-01-01" });
    const res = await t.request("DELETE", `/api/estates/${estate}/diagnostics/${second.id}`);
    expect(res.statusCode).toBe(204);
    expect((await t.request("GET", `/api/estates/${estate}/diagnostics/${second.id}`)).statusCode).toBe(404);
    expect((await t.request("DELETE", `/api/estates/${estate}/diagnostics/${second.id}`)).statusCode).toBe(
      404,
    );
    expect((await t.request("GET", `/api/estates/${estate}/diagnostics/${first.id}`)).json().active).toBe(
      false,
    );
    const third = await record(estate, { type: "risk_assessment", diagnosis_date: "2025-02-01" });
    expect(third.active).toBe(true);
  });

  it("honours If-Match on DELETE with the ETag of the estate's diagnostics", async () => {
    const estate = await createEstate();
    const a = await record(estate, { type: "coownership_rules", diagnosis_date: "2010-06-01" });
    await record(estate, { type: "lead", diagnosis_date: "2010-06-01" });
    const got = await t.request("GET", `/api/estates/${estate}/diagnostics/${a.id}`);
    expect(got.headers.etag).toBe('W/"1"');
    const stale = await t.request("DELETE", `/api/estates/${estate}/diagnostics/${a.id}`, {
      headers: { "if-match": 'W/"0"' },
    });
    expect(stale.statusCode).toBe(412);
    const ok = await t.request("DELETE", `/api/estates/${estate}/diagnostics/${a.id}`, {
      headers: { "if-match": got.headers.etag as string },
    });
    expect(ok.statusCode).toBe(204);
  });

  it("400 on bad bodies (schema and date rules, unknown media), nothing written; never a 500", async () => {
    const estate = await createEstate();
    const tomorrow = new Date(Date.parse(`${parisDate()}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const bad: [Record<string, unknown>, string][] = [
      [{ diagnosis_date: "2024-01-01" }, "type"],
      [{ type: "dpe", diagnosis_date: "2024-01-01" }, "type"],
      [{ type: "gas" }, "diagnosis_date"],
      [{ type: "gas", diagnosis_date: "2024-13-01" }, "diagnosis_date"],
      [{ type: "gas", diagnosis_date: tomorrow }, "diagnosis_date"],
      [{ type: "gas", diagnosis_date: "2024-01-01", valid_until: "2024-01-01" }, "valid_until"],
      [{ type: "gas", diagnosis_date: "2024-01-01", reference: "x".repeat(101) }, "reference"],
      [{ type: "gas", diagnosis_date: "2024-01-01", notes: "x".repeat(1001) }, "notes"],
      [{ type: "gas", diagnosis_date: "2024-01-01", notes: "\u0000" }, "notes"],
      [{ type: "gas", diagnosis_date: "2024-01-01", reference: "\udfff" }, "reference"],
      [{ type: "gas", diagnosis_date: "2024-01-01", media_id: UNKNOWN }, "media_id"],
      [{ type: "gas", diagnosis_date: "2024-01-01", active: false }, "active"],
    ];
    for (const [body, field] of bad) {
      const res = await t.request("POST", `/api/estates/${estate}/diagnostics`, { body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toMatchObject({
        error: "ValidationError",
        details: [expect.objectContaining({ field })],
      });
    }
    for (const rawBody of ["{", "[]", "null", "1", '"x"']) {
      const res = await t.request("POST", `/api/estates/${estate}/diagnostics`, {
        rawBody,
        headers: { "content-type": "application/json" },
      });
      expect(res.statusCode, rawBody).toBe(400);
    }
    expect((await list(estate)).json()).toEqual([]);
    expect(await t.service.platform.store.readStream(`estate_diagnostics-${estate}`)).toEqual([]);
  });

  it("unknown estate answers 404 on every route; malformed ids 400", async () => {
    const routes: [string, string, unknown?][] = [
      ["POST", `/api/estates/${UNKNOWN}/diagnostics`, { type: "gas", diagnosis_date: "2024-01-01" }],
      ["GET", `/api/estates/${UNKNOWN}/diagnostics`],
      ["GET", `/api/estates/${UNKNOWN}/diagnostics/${UNKNOWN}`],
      ["DELETE", `/api/estates/${UNKNOWN}/diagnostics/${UNKNOWN}`],
    ];
    for (const [method, url, body] of routes) {
      const res = await t.request(method, url, { body });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().message).toBe(`Estate ${UNKNOWN} not found`);
    }
    expect((await t.request("GET", "/api/estates/x/diagnostics")).statusCode).toBe(400);
    const estate = await createEstate();
    expect((await t.request("GET", `/api/estates/${estate}/diagnostics/${UNKNOWN}`)).statusCode).toBe(404);
    expect((await t.request("DELETE", `/api/estates/${estate}/diagnostics/${UNKNOWN}`)).statusCode).toBe(404);
  });

  it("a diagnostic is reachable only under its own estate and tenant", async () => {
    const estate = await createEstate();
    const otherEstate = await createEstate();
    const d = await record(estate, { type: "electrical", diagnosis_date: "2024-01-01" });
    expect((await t.request("GET", `/api/estates/${otherEstate}/diagnostics/${d.id}`)).statusCode).toBe(404);
    expect((await t.request("DELETE", `/api/estates/${otherEstate}/diagnostics/${d.id}`)).statusCode).toBe(
      404,
    );

    const routes: [string, string, unknown?][] = [
      ["POST", `/api/estates/${estate}/diagnostics`, { type: "gas", diagnosis_date: "2024-01-01" }],
      ["GET", `/api/estates/${estate}/diagnostics`],
      ["GET", `/api/estates/${estate}/diagnostics/${d.id}`],
      ["DELETE", `/api/estates/${estate}/diagnostics/${d.id}`],
    ];
    for (const [method, url, body] of routes) {
      const res = await t.request(method, url, { body, as: t.other });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    expect((await t.request("GET", `/api/estates/${estate}/diagnostics/${d.id}`)).json()).toEqual(d);
    expect((await list(estate)).json()).toHaveLength(1);
  });

  it("links an uploaded media of the same tenant", async () => {
    const estate = await createEstate();
    const boundary = "----b";
    const payload = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="crep.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
      ),
      Buffer.from("%PDF-1.4 CREP"),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const uploaded = await t.app.inject({
      method: "POST",
      url: "/api/media",
      payload,
      headers: {
        "content-type": `multipart/form-data; boundary=${boundary}`,
        authorization: `Bearer ${t.tenant.key}`,
      },
    });
    expect(uploaded.statusCode).toBe(201);
    const media = uploaded.json().id;
    const d = await record(estate, { type: "lead", diagnosis_date: "2024-01-01", media_id: media });
    expect(d.media_id).toBe(media);
    const foreign = await createEstate(t.other);
    const res = await t.request("POST", `/api/estates/${foreign}/diagnostics`, {
      body: { type: "lead", diagnosis_date: "2024-01-01", media_id: media },
      as: t.other,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([{ field: "media_id", message: `Media ${media} not found` }]);
  });

  it("rebuilding its projection gives the same table", async () => {
    const before = await t.sql.query("SELECT * FROM estate_diagnostics ORDER BY id");
    expect(before.length).toBeGreaterThan(5);
    await rebuildProjection(t.sql, t.service.platform.store, estateDiagnosticsProjection);
    expect(await t.sql.query("SELECT * FROM estate_diagnostics ORDER BY id")).toEqual(before);
  });

  it("needs the Properties permissions", async () => {
    const estate = await createEstate();
    const reader = await t.newTenant(undefined, ["PropertiesRead"]);
    expect(
      (await t.request("POST", `/api/estates/${estate}/diagnostics`, { body: { type: "gas" }, as: reader }))
        .statusCode,
    ).toBe(403);
    expect(
      (await t.request("DELETE", `/api/estates/${estate}/diagnostics/${UNKNOWN}`, { as: reader })).statusCode,
    ).toBe(403);
  });
});
