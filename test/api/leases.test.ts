import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const unknownId = "00000000-0000-4000-8000-000000000000";
const fields = (res: { json(): any }) => res.json().details?.map((d: { field: string }) => d.field) ?? [];

describe.each(databaseKinds)("leases API on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newEstate, newLessee, newLease, setStatus, writesNothing, place } = leaseFixtures(() => t);
  const estateOf = async (id: string) => (await t.request("GET", `/api/estates/${id}`)).json();

  it("creates a DRAFT lease with its Primary tenant and reads it", async () => {
    const { lease, primary_lessee_id, estate_id } = await newLease({
      payment_day: 5,
      custom_fields: { a: 1 },
    });
    expect(lease).toMatchObject({
      estate_id,
      status: "DRAFT",
      rent_amount: 800,
      rent_regulation_compliance_status: "UNKNOWN",
      payment_day: 5,
      custom_fields: { a: 1 },
      end_date: null,
    });
    const got = await t.request("GET", `/api/leases/${lease.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.headers.etag).toBe('W/"1"');
    expect(got.json()).toEqual(lease);
    const tenants = (await t.request("GET", `/api/leases/${lease.id}/lessees`)).json();
    expect(tenants).toMatchObject([{ lessee_id: primary_lessee_id, role: "Primary", ended: false }]);
    expect((await t.request("GET", `/api/leases/${lease.id}`, { as: t.other })).statusCode).toBe(404);
  });

  it("refuses bad input with 400 and writes nothing", async () => {
    const estate_id = await newEstate();
    const primary_lessee_id = await newLessee();
    const base = {
      estate_id,
      primary_lessee_id,
      lease_type: "UNFURNISHED",
      start_date: "2025-01-01",
      rent_amount: 800,
    };
    const cases: [object, string][] = [
      [{ start_date: "2025-02-30" }, "start_date"],
      [{ end_date: "2024-12-31" }, "end_date"],
      [{ rent_amount: -1 }, "rent_amount"],
      [{ rent_amount: 800.001 }, "rent_amount"],
      [{ lease_type: "CASTLE" }, "lease_type"],
      [{ payment_day: 29 }, "payment_day"],
      [{ status: "ACTIVE" }, "status"],
      [{ unknown: 1 }, ""],
      [{ estate_id: unknownId }, "estate_id"],
      [{ primary_lessee_id: unknownId }, "primary_lessee_id"],
      [{ primary_lessee_id: await newLessee("guarantor") }, "primary_lessee_id"],
    ];
    const { id } = await newLease();
    const [other, guarantor] = [await newLessee(), await newLessee("guarantor")];
    await writesNothing(async () => {
      for (const [extra, field] of cases) {
        const res = await t.request("POST", "/api/leases", { body: { ...base, ...extra } });
        expect(res.statusCode, JSON.stringify(extra)).toBe(400);
        expect(res.json().error).toBe("ValidationError");
        if (field) expect(fields(res)).toContain(field);
      }
      // non-finite amounts: JSON's 1e400 parses to Infinity
      for (const amount of ["1e400", "-1e400"]) {
        const rawBody = JSON.stringify(base).replace('"rent_amount":800', `"rent_amount":${amount}`);
        const res = await t.request("POST", "/api/leases", {
          rawBody,
          headers: { "content-type": "application/json" },
        });
        expect(res.statusCode, rawBody).toBe(400);
        expect(fields(res)).toContain("rent_amount");
      }
      // the other write routes: bad dates, negative amounts, unknown enums
      const routeCases: [string, string, object, string][] = [
        [
          "PUT",
          `/api/leases/${id}/status`,
          { status: "ACTIVE", effective_date: "2025-02-30" },
          "effective_date",
        ],
        ["PUT", `/api/leases/${id}/status`, { status: "ARCHIVED" }, "status"],
        ["PUT", `/api/leases/${id}`, { end_date: "2024-12-31" }, "end_date"],
        ["PUT", `/api/leases/${id}`, { deposit_amount: -1 }, "deposit_amount"],
        [
          "PUT",
          `/api/leases/${id}/rent`,
          { rent_amount: -1, effective_date: "2025-02-01", reason: "CORRECTION" },
          "rent_amount",
        ],
        [
          "PUT",
          `/api/leases/${id}/rent`,
          { rent_amount: 700, effective_date: "2025-02-01", reason: "WHIM" },
          "reason",
        ],
        ["POST", `/api/leases/${id}/lessees`, { lessee_id: other, role: "Landlord" }, "role"],
        ["POST", `/api/leases/${id}/lessees`, { lessee_id: guarantor, role: "CoTenant" }, "lessee_id"],
      ];
      for (const [method, url, body, field] of routeCases) {
        const res = await t.request(method, url, { body });
        expect(res.statusCode, `${method} ${url} ${JSON.stringify(body)}: ${res.body}`).toBe(400);
        expect(fields(res), JSON.stringify(body)).toContain(field);
      }
      const foreignEstate = await t.request("POST", "/api/leases", { body: base, as: t.other });
      expect(foreignEstate.statusCode).toBe(400);
      expect(fields(foreignEstate)).toEqual(["estate_id", "primary_lessee_id"]);
    });
  });

  it("caps the deposit by lease type with 422 and the figures", async () => {
    const estate_id = await newEstate();
    const primary_lessee_id = await newLessee();
    const base = { estate_id, primary_lessee_id, start_date: "2025-01-01", rent_amount: 800 };
    await writesNothing(async () => {
      const over = await t.request("POST", "/api/leases", {
        body: { ...base, lease_type: "UNFURNISHED", deposit_amount: 800.01 },
      });
      expect(over.statusCode).toBe(422);
      expect(over.json().details[0]).toMatchObject({ field: "deposit_amount" });
      expect(over.json().details[0].message).toContain("800.01");
      expect(over.json().details[0].message).toContain("800.00");
      const mobility = await t.request("POST", "/api/leases", {
        body: { ...base, lease_type: "MOBILITY", deposit_amount: 1 },
      });
      expect(mobility.statusCode).toBe(422);
    });
    const furnished = await t.request("POST", "/api/leases", {
      body: { ...base, lease_type: "FURNISHED", deposit_amount: 1600 },
    });
    expect(furnished.statusCode).toBe(201);
    const raise = await t.request("PUT", `/api/leases/${furnished.json().id}`, {
      body: { deposit_amount: 1600.01 },
    });
    expect(raise.statusCode).toBe(422);
  });

  it("lists with filters and pagination, and by estate", async () => {
    const a = await newLease({ lease_type: "FURNISHED", start_date: "2024-03-01" });
    const b = await newLease({ start_date: "2024-06-01", end_date: "2027-05-31" });
    const byType = await t.request(
      "GET",
      `/api/leases?lease_type=FURNISHED&start_date_from=2024-01-01&start_date_to=2024-12-31`,
    );
    expect(byType.json().map((l: { id: string }) => l.id)).toEqual([a.lease.id]);
    const byLessee = await t.request("GET", `/api/leases?lessee_id=${b.primary_lessee_id}`);
    expect(byLessee.json().map((l: { id: string }) => l.id)).toEqual([b.lease.id]);
    const byPlace = await t.request(
      "GET",
      `/api/leases?place_id=${place()}&end_date_from=2027-01-01&limit=1`,
    );
    expect(byPlace.json().map((l: { id: string }) => l.id)).toEqual([b.lease.id]);
    expect(byPlace.headers["x-total-count"]).toBe("1");
    const page = await t.request("GET", "/api/leases?limit=1&page=2");
    expect(page.json()).toHaveLength(1);
    expect(page.headers.link).toContain('rel="prev"');
    const byEstate = await t.request("GET", `/api/leases/estate/${a.estate_id}`);
    expect(byEstate.json().map((l: { id: string }) => l.id)).toEqual([a.lease.id]);
    expect((await t.request("GET", `/api/leases/estate/${a.estate_id}`, { as: t.other })).statusCode).toBe(
      404,
    );
    expect((await t.request("GET", "/api/leases", { as: t.other })).json()).toEqual([]);
    expect((await t.request("GET", "/api/leases?status=BOGUS")).statusCode).toBe(400);
  });

  it("walks the status machine, derives the estate's rental status and rent, and refuses other moves", async () => {
    const { lease, estate_id, primary_lessee_id } = await newLease();
    expect((await estateOf(estate_id)).rental_status).toBe("VACANT");
    const bad = await setStatus(lease.id, "NOTICE");
    expect(bad.statusCode).toBe(409);
    const active = await setStatus(lease.id, "ACTIVE", { effective_date: "2025-01-01", reason: "signed" });
    expect(active.statusCode, active.body).toBe(200);
    expect(active.json()).toMatchObject({ status: "ACTIVE", signed_at: "2025-01-01" });
    expect(await estateOf(estate_id)).toMatchObject({ rental_status: "RENTED", rent_amount: 800 });
    // the lessee is on an active lease: 409 on delete
    expect((await t.request("DELETE", `/api/lessees/${primary_lessee_id}`)).statusCode).toBe(409);
    const put = await t.request("PUT", `/api/leases/${lease.id}`, { body: { rent_amount: 900 } });
    expect(put.statusCode).toBe(409);
    expect(put.json().message).toContain("/rent");
    expect(
      (await t.request("PUT", `/api/leases/${lease.id}`, { body: { payment_method: "CHEQUE" } })).statusCode,
    ).toBe(200);
    expect((await t.request("DELETE", `/api/leases/${lease.id}`)).statusCode).toBe(409);
    expect((await setStatus(lease.id, "NOTICE", { effective_date: "2025-06-01" })).json().notice_date).toBe(
      "2025-06-01",
    );
    expect((await estateOf(estate_id)).rental_status).toBe("NOTICE");
    expect((await setStatus(lease.id, "FINALISATION")).statusCode).toBe(200);
    expect((await setStatus(lease.id, "TERMINATED", { effective_date: "2025-09-01" })).json()).toMatchObject({
      status: "TERMINATED",
      terminated_at: "2025-09-01",
    });
    expect((await estateOf(estate_id)).rental_status).toBe("VACANT");
    expect((await setStatus(lease.id, "ACTIVE")).statusCode).toBe(409);
    expect((await t.request("DELETE", `/api/lessees/${primary_lessee_id}`)).statusCode).toBe(204);
    // the estate is free again for another lease
    const next = await t.request("POST", "/api/leases", {
      body: {
        estate_id,
        primary_lessee_id: await newLessee(),
        lease_type: "UNFURNISHED",
        start_date: "2025-10-01",
        rent_amount: 850,
      },
    });
    expect((await setStatus(next.json().id, "ACTIVE")).statusCode).toBe(200);
    expect(await estateOf(estate_id)).toMatchObject({ rental_status: "RENTED", rent_amount: 850 });
    const history = (await t.request("GET", `/api/leases/${lease.id}/history`)).json();
    expect(history.map((e: { type: string }) => e.type)).toEqual([
      "LeaseCreated",
      "LeaseLesseeAdded",
      "LeaseActivated",
      "LeaseUpdated",
      "LeaseNoticeGiven",
      "LeaseFinalisationStarted",
      "LeaseTerminated",
    ]);
    expect(history[2]).toMatchObject({
      revision: 2,
      data: { effective_date: "2025-01-01", reason: "signed" },
    });
  });

  it("answers a create, a status change, an update and a rent change with the lease a GET then reads (body and ETag)", async () => {
    // The answer is folded from the stream, not read back (docs/performance.md, "Lease status changes").
    const { lease } = await newLease({ custom_fields: { zeta: 1, a: { nested: [1, "x"] }, mid: null } });
    expect(lease).toEqual((await t.request("GET", `/api/leases/${lease.id}`)).json());
    const same = async (res: Awaited<ReturnType<typeof setStatus>>) => {
      expect(res.statusCode, res.body).toBe(200);
      const got = await t.request("GET", `/api/leases/${lease.id}`);
      expect(res.json()).toEqual(got.json());
      expect(res.headers.etag).toBe(got.headers.etag);
    };
    await same(
      await t.request("PUT", `/api/leases/${lease.id}`, {
        body: { payment_method: "CHEQUE", special_conditions: "Jardin", custom_fields: { b: 2.5, a: "é" } },
      }),
    );
    await same(await setStatus(lease.id, "ACTIVE", { effective_date: "2025-02-01" }));
    await same(
      await t.request("PUT", `/api/leases/${lease.id}/rent`, {
        body: { rent_amount: 812.35, charges_amount: 40, effective_date: "2025-03-01", reason: "AGREEMENT" },
      }),
    );
    await same(await setStatus(lease.id, "NOTICE", { effective_date: "2025-06-01" }));
    await same(await setStatus(lease.id, "ACTIVE"));
  });

  it("fills notice_end_date by the law (docs/leases.md, Notice), in the read model and as_of", async () => {
    const { id, estate_id } = await newLease({ duration_months: 36 });
    expect((await setStatus(id, "ACTIVE", { effective_date: "2025-01-01" })).statusCode).toBe(200);
    // a lessee, unfurnished, no high-demand zone known: 3 months (loi n° 89-462 art. 15 I)
    const notice = await setStatus(id, "NOTICE", { effective_date: "2025-03-31" });
    expect(notice.statusCode, notice.body).toBe(200);
    expect(notice.json()).toMatchObject({ notice_date: "2025-03-31", notice_end_date: "2025-06-30" });
    const asOf = await t.request(
      "GET",
      `/api/leases/${id}?as_of=${encodeURIComponent(new Date().toISOString())}`,
    );
    expect(asOf.json()).toMatchObject({ notice_end_date: "2025-06-30" });
    const withdrawn = await setStatus(id, "ACTIVE");
    expect(withdrawn.json()).toMatchObject({ notice_date: null, notice_end_date: null });
    // the estate in a high-demand zone: 1 month
    const zone = await t.request("PUT", `/api/places/${place()}/estates/${estate_id}/rent-regulation`, {
      body: { high_demand_zone: true, reference_rents: [] },
    });
    expect(zone.statusCode, zone.body).toBe(200);
    expect((await setStatus(id, "NOTICE", { effective_date: "2025-03-31" })).json().notice_end_date).toBe(
      "2025-04-30",
    );
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    await writesNothing(async () => {
      // the lessor's notice states its motive: through POST .../notices, never this route (art. 15 I)
      const lessor = await setStatus(id, "NOTICE", { effective_date: "2027-06-30", given_by: "LESSOR" });
      expect(lessor.statusCode).toBe(422);
      expect(lessor.json().message).toContain(`POST /api/leases/${id}/notices`);
      expect(fields(lessor)).toEqual(["reason"]);
      const early = await setStatus(id, "NOTICE", {
        effective_date: "2025-03-31",
        notice_end_date: "2025-04-29",
      });
      expect(early.statusCode).toBe(422);
      expect(fields(early)).toEqual(["notice_end_date"]);
      const notNotice = await setStatus(id, "TERMINATED", { given_by: "LESSOR" });
      expect(notNotice.statusCode).toBe(400);
      expect(fields(notNotice)).toEqual(["given_by"]);
      expect((await setStatus(id, "NOTICE", { given_by: "LANDLORD" })).statusCode).toBe(400);
    });
  });

  it("reads as unknown (404) to another tenant on every lease route, and writes nothing", async () => {
    const { id, estate_id, primary_lessee_id } = await newLease();
    const amendment = await t.request("POST", `/api/leases/${id}/amendments`, {
      body: { title: "Avenant", effective_date: "2025-09-01", changes: { rent_amount: 810 } },
    });
    expect(amendment.statusCode, amendment.body).toBe(201);
    const a = amendment.json().id as string;
    const theirs = await newLessee("individual", t.other);
    const lease = `/api/leases/${id}`;
    const lessee = `${lease}/lessees/${primary_lessee_id}`;
    const doc = `${lease}/documents/${unknownId}`;
    const calls: [string, string, object?][] = [
      ["GET", lease],
      ["GET", `${lease}?as_of=${encodeURIComponent(new Date().toISOString())}`],
      ["GET", `/api/leases/estate/${estate_id}`],
      ["GET", `${lease}/history`],
      ["GET", `${lease}/lessees`],
      ["GET", `${lease}/lessees/active`],
      ["GET", lessee],
      ["GET", `${lease}/amendments`],
      ["GET", `${lease}/amendments/${a}`],
      ["GET", `${lease}/documents`],
      ["GET", doc],
      ["GET", `${doc}/file`],
      ["GET", `${lease}/rent-history`],
      ["PUT", lease, { special_conditions: "x" }],
      ["PUT", `${lease}/status`, { status: "ACTIVE" }],
      ["PUT", `${lease}/rent`, { rent_amount: 700, effective_date: "2025-02-01", reason: "CORRECTION" }],
      ["POST", `${lease}/lessees`, { lessee_id: theirs, role: "CoTenant" }],
      ["PUT", lessee, { role: "CoTenant" }],
      ["PUT", `${lessee}/end`, { end_date: "2025-06-01" }],
      ["DELETE", lessee],
      [
        "POST",
        `${lease}/amendments`,
        { title: "x", effective_date: "2025-09-01", changes: { rent_amount: 1 } },
      ],
      ["PUT", `${lease}/amendments/${a}`, { title: "x" }],
      ["PUT", `${lease}/amendments/${a}/status`, { status: "CANCELLED" }],
      ["DELETE", `${lease}/amendments/${a}`],
      ["PUT", doc, { description: "x" }],
      ["DELETE", doc],
      ["DELETE", lease],
    ];
    await writesNothing(async () => {
      for (const [method, url, body] of calls) {
        const res = await t.request(method, url, { body, as: t.other });
        expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(404);
        expect(res.json().error).toBe("NotFound");
      }
      const listed = await t.request("GET", "/api/leases?limit=1000", { as: t.other });
      expect(listed.json().map((l: { id: string }) => l.id)).not.toContain(id);
    });
  });

  it("lets exactly one of 10 concurrent activations on one estate win", async () => {
    const estate_id = await newEstate();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await t.request("POST", "/api/leases", {
        body: {
          estate_id,
          primary_lessee_id: await newLessee(),
          lease_type: "UNFURNISHED",
          start_date: "2025-01-01",
          rent_amount: 700 + i,
        },
      });
      ids.push(res.json().id);
    }
    const results = await Promise.all(ids.map((id) => setStatus(id, "ACTIVE")));
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes).toEqual([200, ...Array(9).fill(409)]);
    for (const r of results.filter((r) => r.statusCode === 409)) expect(fields(r)).toEqual(["estate_id"]);
    // the platform's reservation stream (src/platform/reserveUnique.ts) names the one winner
    const reservations = await t.sql.query<{ type: string; lease_id: string }>(
      "SELECT type, data->>'lease_id' AS lease_id FROM events WHERE stream_name = $1 ORDER BY stream_revision",
      [`lease_occupancy-${estate_id}`],
    );
    expect(reservations.map((e) => e.type)).toEqual(["EstateOccupancyReserved"]);
    const active = (await t.request("GET", `/api/leases/estate/${estate_id}?limit=100`))
      .json()
      .filter((l: { status: string }) => l.status === "ACTIVE");
    expect(active).toHaveLength(1);
    expect(reservations[0].lease_id).toBe(active[0].id);
    expect((await estateOf(estate_id)).rent_amount).toBe(active[0].rent_amount);
  });

  it("honours If-Match on PUT (412 when stale) and answers 403 without the Leases permission", async () => {
    const { lease } = await newLease();
    const stale = await t.request("PUT", `/api/leases/${lease.id}`, {
      body: { special_conditions: "x" },
      headers: { "if-match": 'W/"0"' },
    });
    expect(stale.statusCode).toBe(412);
    const fresh = await t.request("PUT", `/api/leases/${lease.id}`, {
      body: { special_conditions: "x" },
      headers: { "if-match": 'W/"1"' },
    });
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers.etag).toBe('W/"2"');
    const readOnly = await t.newTenant(undefined, ["LeasesRead"]);
    expect((await t.request("GET", "/api/leases", { as: readOnly })).statusCode).toBe(200);
    expect((await t.request("POST", "/api/leases", { body: {}, as: readOnly })).statusCode).toBe(403);
    expect((await t.request("DELETE", `/api/leases/${lease.id}`, { as: readOnly })).statusCode).toBe(403);
  });

  it("never answers 500 to malformed requests on any lease route, and always the error shape", async () => {
    const { lease } = await newLease();
    const id = lease.id;
    const a = unknownId;
    const routes: [string, string][] = [
      ["POST", "/api/leases"],
      ["PUT", `/api/leases/${id}`],
      ["PUT", `/api/leases/${id}/status`],
      ["PUT", `/api/leases/${id}/rent`],
      ["POST", `/api/leases/${id}/lessees`],
      ["PUT", `/api/leases/${id}/lessees/${a}`],
      ["PUT", `/api/leases/${id}/lessees/${a}/end`],
      ["POST", `/api/leases/${id}/amendments`],
      ["PUT", `/api/leases/${id}/amendments/${a}`],
      ["PUT", `/api/leases/${id}/amendments/${a}/status`],
      ["PUT", `/api/leases/${id}/documents/${a}`],
    ];
    const bodies = [
      "{",
      "[]",
      "null",
      '"x"',
      '{"status": {"$gt": 1}}',
      '{"rent_amount": 1e400}',
      '{"custom_fields": {"a": "\\u0000"}}',
    ];
    await writesNothing(async () => {
      for (const [method, url] of routes) {
        for (const rawBody of bodies) {
          const res = await t.request(method, url, {
            rawBody,
            headers: { "content-type": "application/json" },
          });
          expect(res.statusCode, `${method} ${url} ${rawBody}: ${res.body}`).toBeGreaterThanOrEqual(400);
          expect(res.statusCode, `${method} ${url} ${rawBody}`).toBeLessThan(500);
          expect(res.json()).toHaveProperty("error");
        }
      }
      for (const url of [
        "/api/leases/not-a-uuid",
        "/api/leases/estate/nope",
        `/api/leases/${id}/lessees/x`,
      ]) {
        expect((await t.request("GET", url)).statusCode).toBe(400);
      }
      expect((await t.request("GET", `/api/leases/${a}/amendments`)).statusCode).toBe(404);
      expect((await t.request("GET", `/api/leases/${a}/documents`)).statusCode).toBe(404);
      expect((await t.request("GET", `/api/leases/${a}/history`)).statusCode).toBe(404);
      expect((await t.request("GET", `/api/leases?page=0`)).statusCode).toBe(400);
      expect((await t.request("GET", `/api/leases?start_date_from=2025-02-30`)).statusCode).toBe(400);
    });
  });

  it("deletes only DRAFT leases, and a deleted lease reads 404", async () => {
    const { lease, estate_id } = await newLease();
    expect((await t.request("DELETE", `/api/leases/${lease.id}`, { as: t.other })).statusCode).toBe(404);
    expect((await t.request("DELETE", `/api/leases/${lease.id}`)).statusCode).toBe(204);
    expect((await t.request("GET", `/api/leases/${lease.id}`)).statusCode).toBe(404);
    expect((await t.request("DELETE", `/api/leases/${lease.id}`)).statusCode).toBe(404);
    expect((await t.request("GET", `/api/leases/estate/${estate_id}`)).json()).toEqual([]);
  });
});
