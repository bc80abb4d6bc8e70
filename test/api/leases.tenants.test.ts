import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const unknownId = "00000000-0000-4000-8000-000000000000";

describe.each(databaseKinds)("lease tenants and rent API on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLessee, newLease, setStatus, writesNothing } = leaseFixtures(() => t);
  const lessees = (id: string, suffix = "") => `/api/leases/${id}/lessees${suffix}`;

  it("adds, reads, updates, ends and removes tenants with the role rules", async () => {
    const { id, primary_lessee_id } = await newLease();
    const co = await newLessee();
    const guarantor = await newLessee("guarantor");
    const added = await t.request("POST", lessees(id), { body: { lessee_id: co, role: "CoTenant" } });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.headers.location).toBe(`/api/leases/${id}/lessees/${co}`);
    expect(added.json()).toMatchObject({
      lease_id: id,
      lessee_id: co,
      role: "CoTenant",
      start_date: "2025-01-01",
      ended: false,
    });
    await writesNothing(async () => {
      const wrongRole = await t.request("POST", lessees(id), {
        body: { lessee_id: guarantor, role: "CoTenant" },
      });
      expect(wrongRole.statusCode).toBe(400);
      expect(
        (await t.request("POST", lessees(id), { body: { lessee_id: co, role: "CoTenant" } })).statusCode,
      ).toBe(409);
      expect(
        (await t.request("POST", lessees(id), { body: { lessee_id: unknownId, role: "CoTenant" } }))
          .statusCode,
      ).toBe(400);
      expect(
        (await t.request("POST", lessees(id), { body: { lessee_id: co, role: "Landlord" } })).statusCode,
      ).toBe(400);
      const foreign = await t.request("POST", lessees(id), {
        body: { lessee_id: co, role: "CoTenant" },
        as: t.other,
      });
      expect(foreign.statusCode).toBe(404);
    });
    expect(
      (await t.request("POST", lessees(id), { body: { lessee_id: guarantor, role: "Guarantor" } }))
        .statusCode,
    ).toBe(201);
    const updated = await t.request("PUT", lessees(id, `/${co}`), {
      body: { role: "Primary", end_date: "2027-12-31" },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({ role: "Primary", end_date: "2027-12-31" });
    expect((await t.request("GET", lessees(id, `/${co}`))).json()).toEqual(updated.json());
    expect((await t.request("GET", lessees(id, `/${co}`), { as: t.other })).statusCode).toBe(404);
    expect((await t.request("GET", lessees(id, `/${unknownId}`))).statusCode).toBe(404);
    // DRAFT: removal allowed
    expect((await t.request("DELETE", lessees(id, `/${guarantor}`))).statusCode).toBe(204);
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    expect((await t.request("DELETE", lessees(id, `/${co}`))).statusCode).toBe(409);
    const ended = await t.request("PUT", lessees(id, `/${primary_lessee_id}/end`), {
      body: { end_date: "2025-06-30" },
    });
    expect(ended.statusCode, ended.body).toBe(200);
    expect(ended.json()).toMatchObject({ ended: true, end_date: "2025-06-30" });
    // co is now the last active Primary
    expect((await t.request("PUT", lessees(id, `/${co}/end`), { body: {} })).statusCode).toBe(409);
    expect((await t.request("PUT", lessees(id, `/${co}`), { body: { role: "CoTenant" } })).statusCode).toBe(
      409,
    );
    const all = (await t.request("GET", lessees(id))).json();
    expect(all.map((a: { lessee_id: string }) => a.lessee_id)).toEqual([primary_lessee_id, co]);
    const active = (await t.request("GET", lessees(id, "/active"))).json();
    expect(active.map((a: { lessee_id: string }) => a.lessee_id)).toEqual([co]);
    // the ended tenant may be deleted; the active one may not
    expect((await t.request("DELETE", `/api/lessees/${primary_lessee_id}`)).statusCode).toBe(204);
    expect((await t.request("DELETE", `/api/lessees/${co}`)).statusCode).toBe(409);
    expect((await t.request("GET", lessees(id), { as: t.other })).statusCode).toBe(404);
  });

  it("changes the rent with history, caps index revisions, follows on the estate", async () => {
    const { id, estate_id } = await newLease({ revision_index_type: "IRL" });
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    const index = {
      type: "IRL",
      reference_quarter: "2024-Q2",
      reference_value: 145.17,
      new_quarter: "2025-Q2",
      new_value: 146.68,
    };
    await writesNothing(async () => {
      const over = await t.request("PUT", `/api/leases/${id}/rent`, {
        body: { rent_amount: 808.33, effective_date: "2026-01-01", reason: "INDEX_REVISION", index },
      });
      expect(over.statusCode).toBe(422);
      expect(over.json().details[0].message).toContain("808.32");
      const noIndex = await t.request("PUT", `/api/leases/${id}/rent`, {
        body: { rent_amount: 808, effective_date: "2025-07-01", reason: "INDEX_REVISION" },
      });
      expect(noIndex.statusCode).toBe(400);
      const nan = await t.request("PUT", `/api/leases/${id}/rent`, {
        rawBody: '{"rent_amount": 1e999, "effective_date": "2025-07-01", "reason": "AGREEMENT"}',
        headers: { "content-type": "application/json" },
      });
      expect(nan.statusCode).toBe(400);
    });
    const ok = await t.request("PUT", `/api/leases/${id}/rent`, {
      body: {
        rent_amount: 808.32,
        charges_amount: 55,
        // The first anniversary of the lease (2025-01-01): art. 17-1 I.
        effective_date: "2026-01-01",
        reason: "INDEX_REVISION",
        index,
      },
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ rent_amount: 808.32, charges_amount: 55 });
    expect((await t.request("GET", `/api/estates/${estate_id}`)).json().rent_amount).toBe(808.32);
    const history = (await t.request("GET", `/api/leases/${id}/rent-history`)).json();
    expect(history).toMatchObject([
      { rent_amount: 808.32, previous_rent_amount: 800, charges_amount: 55, reason: "INDEX_REVISION", index },
    ]);
    expect((await t.request("GET", `/api/leases/${id}/rent-history`, { as: t.other })).statusCode).toBe(404);
  });

  it("freezes rent increases while the estate's DPE is G", async () => {
    const { id, estate_id } = await newLease();
    const dpe = await t.request("POST", "/api/energy-diagnoses", {
      body: {
        estate_id,
        reference_number: "DPE-G-1",
        diagnosis_date: "2024-03-15",
        valid_until: "2034-03-14",
        energy_label: "G",
        ges_label: "C",
        construction_year: 1950,
        energy_consumption: 450,
        ges_emission: 18,
      },
    });
    expect(dpe.statusCode, dpe.body).toBe(201);
    const up = await t.request("PUT", `/api/leases/${id}/rent`, {
      body: { rent_amount: 800.01, effective_date: "2025-07-01", reason: "AGREEMENT" },
    });
    expect(up.statusCode).toBe(422);
    expect(up.json().message).toContain("17-1");
    const down = await t.request("PUT", `/api/leases/${id}/rent`, {
      body: { rent_amount: 790, effective_date: "2025-07-01", reason: "CORRECTION" },
    });
    expect(down.statusCode).toBe(200);
  });
});
