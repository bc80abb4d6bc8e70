import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

/** The law corrections of 2026-11 that routes decide (docs/compliance.md, "What changed"). */
describe.each(databaseKinds)("lease law corrections through the API on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newEstate, newLessee, newLease, setStatus, writesNothing } = leaseFixtures(() => t);
  const diagnose = async (estate_id: string, label: string, diagnosis_date: string) => {
    const res = await t.request("POST", "/api/energy-diagnoses", {
      body: {
        estate_id,
        reference_number: `DPE-${label}-${diagnosis_date}-${estate_id.slice(0, 8)}`,
        diagnosis_date,
        valid_until: `${Number(diagnosis_date.slice(0, 4)) + 10}${diagnosis_date.slice(4)}`,
        energy_label: label,
        ges_label: label,
        construction_year: 1980,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
  };

  it("5. judges the F/G freeze with the DPE valid on the change's effective date, not today's", async () => {
    const estate_id = await newEstate();
    await diagnose(estate_id, "D", "2022-09-01");
    await diagnose(estate_id, "G", "2026-01-15");
    const { id } = await newLease({ estate_id, start_date: "2023-01-01", duration_months: 36 });
    expect((await setStatus(id, "ACTIVE", { effective_date: "2023-01-01" })).statusCode).toBe(200);
    const rise = (effective_date: string, rent_amount: number) =>
      t.request("PUT", `/api/leases/${id}/rent`, {
        body: { rent_amount, effective_date, reason: "AGREEMENT" },
      });
    // On 2025-06-01 the DPE in force was D: the rise stands, though the estate is G today.
    const before = await rise("2025-06-01", 810);
    expect(before.statusCode, before.body).toBe(200);
    const after = await rise("2026-02-01", 820);
    expect(after.statusCode, after.body).toBe(422);
    expect(after.json().message).toMatch(/classed G/);
  });

  it("10. a bail mobilité names its motive when created (art. 25-13), and its contract prints it", async () => {
    const mobility = { lease_type: "MOBILITY", deposit_amount: null, duration_months: 6 };
    const body = {
      estate_id: await newEstate(),
      primary_lessee_id: await newLessee("individual"),
      start_date: "2025-01-01",
      rent_amount: 800,
      ...mobility,
    };
    await writesNothing(async () => {
      const silent = await t.request("POST", "/api/leases", { body });
      expect(silent.statusCode, silent.body).toBe(422);
      expect(silent.json()).toMatchObject({
        error: "UnprocessableEntity",
        message: expect.stringContaining("art. 25-13"),
        details: [expect.objectContaining({ field: "mobility_motive" })],
      });
    });
    const named = await newLease({ ...mobility, mobility_motive: "mission temporaire" });
    expect((await t.request("GET", `/api/leases/${named.id}`)).json().mobility_motive).toBe(
      "mission temporaire",
    );
    const made = await t.request("POST", `/api/leases/${named.id}/pdf`);
    expect(made.statusCode, made.body).toBe(201);
  }, 60_000);
});
