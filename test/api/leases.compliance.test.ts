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
  const { newPlace, newEstate, newLessee, newLease, setStatus, writesNothing } = leaseFixtures(() => t);
  type Check = { rule: string; status: string; message: string; details: object };
  const checkOf = (body: { checks: Check[] }, rule: string) =>
    body.checks.find((c) => c.rule === rule) as Check;
  const compliance = async (id: string, query = "") => {
    const res = await t.request("GET", `/api/leases/${id}/compliance${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return complianceBody.parse(res.json());
  };

  /** A regulated place (high-demand zone, 24 €/m² increased reference for 2 rooms 1971-1990 unfurnished). */
  const regulatedEstate = async (label = "D", dpeExtra: object = {}) => {
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
        ...dpeExtra,
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

  it("judges the DPE's final energy at 450 kWh/m²/year and the complément de loyer (décret 2021-19; ELAN art. 140)", async () => {
    const over = await leaseOn(await regulatedEstate("G", { final_energy_consumption: 450.5 }));
    const body = complianceBody.parse((await t.request("GET", `/api/leases/${over}/compliance`)).json());
    expect(body.checks.find((c) => c.rule === "FINAL_ENERGY_450")).toMatchObject({
      status: "FAIL",
      legal_reference: expect.stringContaining("2021-19"),
    });
    // Cap 24 €/m² × 40 m² = 960.00 of base rent; the rent called (1010) includes the complement.
    const estate = await regulatedEstate("D", { final_energy_consumption: 450 });
    const ok = await leaseOn(estate, {
      rent_amount: 1010,
      rent_complement: 50,
      rent_complement_justification: "Terrasse de 30 m² plein sud",
    });
    const okBody = complianceBody.parse((await t.request("GET", `/api/leases/${ok}/compliance`)).json());
    expect(statusOf(okBody, "FINAL_ENERGY_450")).toBe("PASS");
    expect(statusOf(okBody, "RENT_COMPLEMENT")).toBe("PASS");
    expect(statusOf(okBody, "RENT_CONTROL")).toBe("PASS");
    const lease = (await t.request("GET", `/api/leases/${ok}`)).json();
    expect(lease).toMatchObject({
      rent_complement: 50,
      rent_complement_justification: "Terrasse de 30 m² plein sud",
    });
    const unjustified = await leaseOn(estate, { rent_amount: 1010, rent_complement: 50 });
    const bad = complianceBody.parse(
      (await t.request("GET", `/api/leases/${unjustified}/compliance`)).json(),
    );
    expect(bad.status).toBe("NON_COMPLIANT");
    expect(bad.checks.find((c) => c.rule === "RENT_COMPLEMENT")?.message).toContain("justify");
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

  it("rent-revision and PUT .../rent judge against the current reference: 1,000 € on 2023-Q2, then 1,032.57 €, then 1,043.31 €", async () => {
    const { id } = await newLease({
      start_date: "2023-07-01",
      rent_amount: 1000,
      deposit_amount: 1000,
      revision_index_type: "IRL",
      revision_reference_quarter: "2023-Q2",
      revision_reference_value: 140.59,
    });
    expect((await setStatus(id, "ACTIVE", { effective_date: "2023-07-01" })).statusCode).toBe(200);
    const revision = async (quarter: string) =>
      rentRevisionBody.parse(
        (await t.request("GET", `/api/leases/${id}/rent-revision?quarter=${quarter}`)).json(),
      );
    expect(await revision("2024-Q2")).toMatchObject({ status: "OK", new_rent: 1032.57 });
    const applied = await t.request("PUT", `/api/leases/${id}/rent`, {
      body: {
        rent_amount: 1032.57,
        effective_date: "2024-07-01",
        reason: "INDEX_REVISION",
        index: {
          type: "IRL",
          reference_quarter: "2023-Q2",
          reference_value: 140.59,
          new_quarter: "2024-Q2",
          new_value: 145.17,
        },
      },
    });
    expect(applied.statusCode, applied.body).toBe(200);
    expect(await revision("2025-Q2")).toMatchObject({
      status: "OK",
      new_rent: 1043.31,
      calculation: {
        reference: { quarter: "2024-Q2", value: 145.17 },
        new: { quarter: "2025-Q2", value: 146.68 },
      },
    });
    expect(await revision("2024-Q2")).toMatchObject({
      status: "UNKNOWN",
      reason: expect.stringContaining("2025-Q2"),
    });
    await writesNothing(async () => {
      const compounded = await t.request("PUT", `/api/leases/${id}/rent`, {
        body: {
          rent_amount: 1077.29,
          effective_date: "2025-07-01",
          reason: "INDEX_REVISION",
          index: {
            type: "IRL",
            reference_quarter: "2023-Q2",
            reference_value: 140.59,
            new_quarter: "2025-Q2",
            new_value: 146.68,
          },
        },
      });
      expect(compounded.statusCode).toBe(422);
      expect(compounded.json()).toMatchObject({
        error: "UnprocessableEntity",
        message: expect.stringContaining("art. 17-1 I"),
        details: [{ field: "index.reference_quarter" }],
      });
    });
    const history = (await t.request("GET", `/api/leases/${id}/rent-history`)).json();
    const items = Array.isArray(history) ? history : history.items;
    expect(
      items.map((c: { index: { reference_quarter: string } | null }) => c.index?.reference_quarter),
    ).toEqual(["2023-Q2"]);
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

  it("an IRL revision on INSEE's values passes the check, saying 2022-Q3..2024-Q1 are used as published; invented values are a 422", async () => {
    const id = await leaseOn(await regulatedEstate(), {
      start_date: "2023-04-01",
      revision_index_type: "IRL",
      revision_reference_quarter: "2023-Q1",
      revision_reference_value: 138.61,
    });
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    const index = {
      type: "IRL",
      reference_quarter: "2023-Q1",
      reference_value: 138.61,
      new_quarter: "2024-Q1",
      new_value: 143.46,
    };
    const rent = (rent_amount: number, new_value = 143.46) =>
      t.request("PUT", `/api/leases/${id}/rent`, {
        body: {
          rent_amount,
          effective_date: "2024-04-01",
          reason: "INDEX_REVISION",
          index: { ...index, new_value },
        },
      });
    await writesNothing(async () => {
      const invented = await rent(830, 146);
      expect(invented.statusCode).toBe(422);
      expect(invented.json()).toMatchObject({
        error: "UnprocessableEntity",
        details: [{ field: "index.new_value", message: expect.stringContaining("143.46") }],
      });
      // 800 × 143.46 / 138.61 = 827.9921… → 827.99
      expect((await rent(828)).statusCode).toBe(422);
    });
    expect((await rent(827.99)).statusCode).toBe(200);
    const irl = checkOf(await compliance(id), "IRL_REVISION_CAP");
    expect(irl.status).toBe("PASS");
    expect(irl.message).toContain("used as published");
    expect(irl.message).toContain("loi n° 2022-1158");
  });

  /** A previous lease on the estate: IRL reference 2024-Q1, 800 €, ended 2024-12-31. */
  const previousLease = async (estate_id: string) => {
    const id = await leaseOn(estate_id, {
      start_date: "2022-01-01",
      revision_index_type: "IRL",
      revision_reference_quarter: "2024-Q1",
      revision_reference_value: 143.46,
    });
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    const ended = await setStatus(id, "TERMINATED", { effective_date: "2024-12-31" });
    expect(ended.statusCode, ended.body).toBe(200);
  };

  it("re-letting cap: the previous rent revised by the IRL to the cent, above it UNKNOWN until the exceptions are stated", async () => {
    const estate = await regulatedEstate();
    await previousLease(estate);
    // Published by 2025-01-01: 2024-Q3 (144.51). 800 × 144.51 / 143.46 = 805.855… → 805.85
    const at = checkOf(await compliance(await leaseOn(estate, { rent_amount: 805.85 })), "RELETTING_CAP");
    expect(at).toMatchObject({ status: "PASS", details: { max_rent: "805.85", previous_rent_amount: 800 } });
    const above = await leaseOn(estate, { rent_amount: 805.86 });
    const unknown = await compliance(above);
    expect(checkOf(unknown, "RELETTING_CAP").status).toBe("UNKNOWN");
    expect(unknown.status).toBe("UNKNOWN");
    expect(checkOf(await compliance(above, "?works_amount=0"), "RELETTING_CAP").status).toBe("FAIL");
    // Works of 4800 (half of 12 × 800): + 4800 × 15 % / 12 = 60.00 a month
    const works = checkOf(await compliance(above, "?works_amount=4800"), "RELETTING_CAP");
    expect(works).toMatchObject({ status: "PASS", details: { max_rent: "865.85" } });
    const recorded = await t.request("POST", `/api/leases/${above}/compliance/update?works_amount=0`);
    expect(recorded.statusCode, recorded.body).toBe(200);
    expect((await t.request("GET", `/api/leases/${above}`)).json().rent_regulation_compliance_status).toBe(
      "NON_COMPLIANT",
    );
    await writesNothing(async () => {
      for (const query of [
        "?works_amount=abc",
        "?works_amount=1.001",
        "?neighbourhood_rent=-1",
        "?other=1",
      ]) {
        const res = await t.request("GET", `/api/leases/${above}/compliance${query}`);
        expect(res.statusCode, query).toBe(400);
        expect(res.json()).toMatchObject({ error: "ValidationError" });
        const post = await t.request("POST", `/api/leases/${above}/compliance/update${query}`);
        expect(post.statusCode, query).toBe(400);
      }
    });
  });

  it("a G estate may not be re-let above the previous rent: both the re-letting cap and the F/G freeze fail", async () => {
    const estate = await regulatedEstate("G");
    await previousLease(estate);
    const body = await compliance(await leaseOn(estate, { rent_amount: 800.01 }), "?works_amount=20000");
    expect(checkOf(body, "RELETTING_CAP")).toMatchObject({ status: "FAIL", details: { max_rent: "800.00" } });
    expect(checkOf(body, "DPE_F_G_RENT_FREEZE").status).toBe("FAIL");
    expect(body.status).toBe("NON_COMPLIANT");
  });

  it("a DPE of 2015 is legally valid until 2022-12-31: a lease starting the next day has none", async () => {
    const estate_id = await newEstate();
    const dpe = await t.request("POST", "/api/energy-diagnoses", {
      body: {
        estate_id,
        reference_number: `DPE-2015-${estate_id.slice(0, 8)}`,
        diagnosis_date: "2015-03-01",
        valid_until: "2025-02-28",
        energy_label: "D",
        ges_label: "D",
        construction_year: 1980,
      },
    });
    expect(dpe.statusCode, dpe.body).toBe(201);
    const onTheDay = await leaseOn(estate_id, { start_date: "2022-12-31" });
    expect(checkOf(await compliance(onTheDay), "DPE_VALID_AT_START").status).toBe("PASS");
    const dayAfter = checkOf(
      await compliance(await leaseOn(estate_id, { start_date: "2023-01-01" })),
      "DPE_VALID_AT_START",
    );
    expect(dayAfter).toMatchObject({ status: "FAIL", details: { dpe: { valid_until: "2022-12-31" } } });
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
