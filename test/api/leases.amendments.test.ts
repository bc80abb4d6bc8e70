import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leaseFixtures } from "../support/leaseFixtures.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { databaseKinds } from "../support/testDatabase.ts";

describe.each(databaseKinds)("lease amendments API on %s", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  const { newLease, setStatus, writesNothing } = leaseFixtures(() => t);
  const body = {
    title: "Avenant n°1",
    effective_date: "2025-09-01",
    changes: { rent_amount: 820, end_date: "2028-12-31" },
  };

  it("drafts, revises, submits and validates an amendment that changes the lease, its rent history and the estate", async () => {
    const { id, estate_id } = await newLease();
    expect((await setStatus(id, "ACTIVE")).statusCode).toBe(200);
    const created = await t.request("POST", `/api/leases/${id}/amendments`, { body });
    expect(created.statusCode, created.body).toBe(201);
    const amendment = created.json();
    expect(created.headers.location).toBe(`/api/leases/${id}/amendments/${amendment.id}`);
    expect(amendment).toMatchObject({ lease_id: id, status: "DRAFT", changes: body.changes, reason: null });
    const url = `/api/leases/${id}/amendments/${amendment.id}`;
    const revised = await t.request("PUT", url, { body: { title: "Avenant n°1 bis", reason: "accord" } });
    expect(revised.json()).toMatchObject({ title: "Avenant n°1 bis", reason: "accord" });
    expect((await t.request("PUT", `${url}/status`, { body: { status: "VALIDATED" } })).statusCode).toBe(409);
    expect(
      (await t.request("PUT", `${url}/status`, { body: { status: "PENDING_VALIDATION" } })).json().status,
    ).toBe("PENDING_VALIDATION");
    await writesNothing(async () => {
      expect((await t.request("PUT", url, { body: { title: "late" } })).statusCode).toBe(409);
      expect((await t.request("DELETE", url)).statusCode).toBe(409);
      expect((await t.request("PUT", `${url}/status`, { body: { status: "BOGUS" } })).statusCode).toBe(400);
      expect((await t.request("GET", url, { as: t.other })).statusCode).toBe(404);
    });
    const validated = await t.request("PUT", `${url}/status`, { body: { status: "VALIDATED" } });
    expect(validated.statusCode, validated.body).toBe(200);
    expect(validated.json().status).toBe("VALIDATED");
    expect((await t.request("GET", `/api/leases/${id}`)).json()).toMatchObject({
      rent_amount: 820,
      end_date: "2028-12-31",
    });
    expect((await t.request("GET", `/api/leases/${id}/rent-history`)).json()).toMatchObject([
      { rent_amount: 820, previous_rent_amount: 800, reason: "AGREEMENT", effective_date: "2025-09-01" },
    ]);
    expect((await t.request("GET", `/api/estates/${estate_id}`)).json().rent_amount).toBe(820);
    expect((await t.request("GET", `/api/leases/${id}/amendments`)).json()).toHaveLength(1);
    const history = (await t.request("GET", `/api/leases/${id}/history`)).json();
    expect(history.slice(-3).map((e: { type: string }) => e.type)).toEqual([
      "LeaseAmendmentValidated",
      "LeaseAmended",
      "LeaseRentChanged",
    ]);
  });

  it("refuses bad amendments with 400, drafts a rent cut below the deposit, and deletes drafts", async () => {
    const { id } = await newLease();
    await writesNothing(async () => {
      const bad = [
        { ...body, changes: {} },
        { ...body, changes: { end_date: "2024-01-01" } },
        { ...body, effective_date: "2025-13-01" },
        { ...body, changes: { rent_amount: -5 } },
        { ...body, changes: { deposit_amount: 5 } },
        { ...body, status: "VALIDATED" },
      ];
      for (const b of bad)
        expect((await t.request("POST", `/api/leases/${id}/amendments`, { body: b })).statusCode).toBe(400);
    });
    // A rent cut below the deposit is no 422: the deposit is never revised during the lease (art. 22).
    const cut = await t.request("POST", `/api/leases/${id}/amendments`, {
      body: { ...body, changes: { rent_amount: 700 } },
    });
    expect(cut.statusCode, cut.body).toBe(201);
    const created = (await t.request("POST", `/api/leases/${id}/amendments`, { body })).json();
    expect((await t.request("DELETE", `/api/leases/${id}/amendments/${created.id}`)).statusCode).toBe(204);
    expect((await t.request("GET", `/api/leases/${id}/amendments/${created.id}`)).statusCode).toBe(404);
  });
});
