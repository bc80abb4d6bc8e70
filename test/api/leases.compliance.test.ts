import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { complianceBody, rentRevisionBody } from "../../src/commands/leases/complianceRoutes.ts";
import { globalTypeIds } from "../../src/events/types.ts";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

const statusOf = (body: { checks: { rule: string; status: string }[] }, rule: string) =>
  body.checks.find((c) => c.rule === rule)?.status;

describe.each(databaseKinds)("lease compliance API on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newPlace, newLessee, newLease, writesNothing } = leaseFixtures(() => t);

  /** A regulated place (high-demand zone, 24 €/m² increased reference for 2 rooms 1971-1990 unfurnished). */
  const regulatedEstate = async (label = "D") => {
    const place = await newPlace();
    const reg = await t.request("PUT", `/api/places/${place}/rent-regulation`, {
      body: {
        high_demand_zone: true,
        reference_rents: [
          {
            rooms: 2,
            construction_period: "1971_1990",
            furnished: false,
            reference: 20,
            increased_reference: 24,
          },
        ],
        order_reference: "Arrêté préfectoral test",
        effective_from: "2024-07-01",
      },
    });
    expect(reg.statusCode, reg.body).toBe(200);
    const estate = await t.request("POST", `/api/places/${place}/estates`, {
      body: {
        name: "Lot 7",
        estate_type_id: globalTypeIds.estate.apartment,
        area: 40,
        number_of_room: 2,
        construction_date: "1980-05-01T00:00:00.000Z",
        fiscal_identifier: `FI-C-${place.slice(0, 8)}`,
      },
    });
    expect(estate.statusCode, estate.body).toBe(201);
    const estate_id = estate.json().id as string;
    const dpe = await t.request("POST", "/api/energy-diagnoses", {
      body: {
        estate_id,
        reference_number: `DPE-${place.slice(0, 8)}`,
        diagnosis_date: "2024-03-15",
        valid_until: "2034-03-14",
        energy_label: label,
        ges_label: label,
        construction_year: 1980,
      },
    });
    expect(dpe.statusCode, dpe.body).toBe(201);
    return estate_id;
  };
  const leaseOn = async (estate_id: string, extra: object = {}) => {
    const res = await t.request("POST", "/api/leases", {
      body: {
        estate_id,
        primary_lessee_id: await newLessee(),
        lease_type: "UNFURNISHED",
        start_date: "2025-01-01",
        rent_amount: 800,
        deposit_amount: 800,
        ...extra,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };

  it("a lease with every fact known and within every rule is COMPLIANT, each check citing its law", async () => {
    const id = await leaseOn(await regulatedEstate());
    const res = await t.request("GET", `/api/leases/${id}/compliance`);
    expect(res.statusCode, res.body).toBe(200);
    const body = complianceBody.parse(res.json());
    expect(body.status, res.body).toBe("COMPLIANT");
    expect(body.lease_id).toBe(id);
    expect(statusOf(body, "RENT_CONTROL")).toBe("PASS");
    expect(statusOf(body, "DPE_VALID_AT_START")).toBe("PASS");
    expect(statusOf(body, "RELETTING_CAP")).toBe("NOT_APPLICABLE");
    expect(body.checks.find((c) => c.rule === "RENT_CONTROL")?.legal_reference).toContain("art. 140");
  });

  it("rent above the increased reference rent and a G estate make it NON_COMPLIANT", async () => {
    const id = await leaseOn(await regulatedEstate("G"), { rent_amount: 960.01, deposit_amount: 900 });
    const body = complianceBody.parse((await t.request("GET", `/api/leases/${id}/compliance`)).json());
    expect(body.status).toBe("NON_COMPLIANT");
    const rent = body.checks.find((c) => c.rule === "RENT_CONTROL");
    expect(rent).toMatchObject({ status: "FAIL", details: { max_rent: "960.00", rent_amount: 960.01 } });
    expect(statusOf(body, "DPE_DECENCY_CALENDAR")).toBe("FAIL");
  });

  it("missing data (no DPE, no reference rents) makes checks UNKNOWN, never an error", async () => {
    const { id } = await newLease();
    const res = await t.request("GET", `/api/leases/${id}/compliance`);
    expect(res.statusCode).toBe(200);
    const body = complianceBody.parse(res.json());
    expect(body.status).toBe("UNKNOWN");
    expect(statusOf(body, "DPE_VALID_AT_START")).toBe("UNKNOWN");
    expect(statusOf(body, "RENT_CONTROL")).toBe("UNKNOWN");
    expect(statusOf(body, "DEPOSIT_CAP")).toBe("PASS");
  });

  it("POST compliance/update records the result as an event and the lease shows its status", async () => {
    const id = await leaseOn(await regulatedEstate(), { rent_amount: 990, deposit_amount: 900 });
    const before = await t.request("GET", `/api/leases/${id}`);
    expect(before.json().rent_regulation_compliance_status).toBe("UNKNOWN");
    const res = await t.request("POST", `/api/leases/${id}/compliance/update`);
    expect(res.statusCode, res.body).toBe(200);
    expect(complianceBody.parse(res.json()).status).toBe("NON_COMPLIANT");
    const lease = await t.request("GET", `/api/leases/${id}`);
    expect(lease.json().rent_regulation_compliance_status).toBe("NON_COMPLIANT");
    const revision = (etag: unknown) => Number(String(etag).replace(/\D/g, ""));
    expect(revision(lease.headers.etag)).toBe(revision(before.headers.etag) + 1);
    const history = (await t.request("GET", `/api/leases/${id}/history`)).json();
    const items = Array.isArray(history) ? history : history.items;
    expect(items.map((e: { type: string }) => e.type)).toContain("LeaseComplianceChecked");
  });

  it("rent-revision gives the capped rent from the IRL data to the cent, with its calculation", async () => {
    const { id } = await newLease({
      revision_index_type: "IRL",
      revision_reference_quarter: "2024-Q2",
      revision_reference_value: 145.17,
    });
    const res = await t.request("GET", `/api/leases/${id}/rent-revision?quarter=2025-Q2`);
    expect(res.statusCode, res.body).toBe(200);
    const body = rentRevisionBody.parse(res.json());
    // 800 × 146.68 / 145.17 = 808.3213… → 808.32
    expect(body).toMatchObject({ status: "OK", new_rent: 808.32, frozen: false, current_rent: 800 });
    expect(body.calculation).toMatchObject({
      capped_rent: 808.32,
      reference: { quarter: "2024-Q2", value: 145.17 },
    });
    const unknown = rentRevisionBody.parse(
      (await t.request("GET", `/api/leases/${id}/rent-revision?quarter=2031-Q1`)).json(),
    );
    expect(unknown).toMatchObject({
      status: "UNKNOWN",
      new_rent: null,
      reason: expect.stringContaining("2031-Q1"),
    });
    const { id: noIndex } = await newLease();
    const none = (await t.request("GET", `/api/leases/${noIndex}/rent-revision?quarter=2025-Q2`)).json();
    expect(none).toMatchObject({ status: "UNKNOWN", reason: expect.stringContaining("reference quarter") });
  });

  it("rent-revision under the F/G freeze allows no increase", async () => {
    const id = await leaseOn(await regulatedEstate("F"), {
      revision_index_type: "IRL",
      revision_reference_quarter: "2024-Q2",
      revision_reference_value: 145.17,
    });
    const body = (await t.request("GET", `/api/leases/${id}/rent-revision?quarter=2025-Q2`)).json();
    expect(body).toMatchObject({
      status: "OK",
      frozen: true,
      new_rent: 800,
      calculation: { capped_rent: 808.32 },
    });
    expect(body.frozen_reason).toContain("17-1");
  });

  it("another tenant's lease reads as 404 on every route, and nothing is written", async () => {
    const { id } = await newLease();
    await writesNothing(async () => {
      for (const [method, url] of [
        ["GET", `/api/leases/${id}/compliance`],
        ["POST", `/api/leases/${id}/compliance/update`],
        ["GET", `/api/leases/${id}/rent-revision?quarter=2025-Q2`],
      ] as const) {
        const res = await t.request(method, url, { as: t.other });
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.json()).toMatchObject({ error: "NotFound", message: expect.any(String) });
      }
    });
  });

  it("bad input answers 400 in the error shape and writes nothing", async () => {
    const { id } = await newLease();
    await writesNothing(async () => {
      for (const [method, url] of [
        ["GET", `/api/leases/${id}/rent-revision?quarter=2025-Q5`],
        ["GET", `/api/leases/${id}/rent-revision?quarter=2025Q2`],
        ["GET", `/api/leases/${id}/rent-revision`],
        ["GET", `/api/leases/${id}/rent-revision?quarter=2025-Q2&x=1`],
        ["GET", "/api/leases/not-a-uuid/compliance"],
        ["POST", "/api/leases/not-a-uuid/compliance/update"],
      ] as const) {
        const res = await t.request(method, url);
        expect(res.statusCode, `${method} ${url}`).toBe(400);
        expect(res.json()).toMatchObject({ error: "ValidationError", message: expect.any(String) });
      }
    });
    const unknown = await t.request(
      "POST",
      "/api/leases/00000000-0000-4000-8000-000000000000/compliance/update",
    );
    expect(unknown.statusCode).toBe(404);
  });
});
